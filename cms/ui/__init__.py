"""`cms ui`: a local, read-only web page to look at the memory (catalog reads, pages render,
server serves on 127.0.0.1 with a token). Nothing here changes memory.
"""

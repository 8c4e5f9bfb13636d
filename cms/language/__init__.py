"""Reading English: one vocabulary for what text says, asked by everything else.

wording (standing rule, firm, courtesy, question), factkinds and kinds (what kind of item a
statement is), subject (what it is about, and whether a later one changes it), dates (calendar
phrases in a query), taskcues (request, finished work, next step), shapes, findings and advice
(the local extractor's noise gates), segmenter (sentences, by pysbd), meaning (the packaged static embedding model) and newest
(which of the items answering one query are history). It imports nothing of the store, the
map, providers, hooks or the CLI (tests/test_import_graph.py).
"""

"""cms: memory for coding agents.

The package root only names the version; importing it must stay free of side effects and of
third-party imports, because every hook process imports it on the prompt's fast path.
"""

__version__ = "0.1.0"

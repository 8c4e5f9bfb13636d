"""Which kinds of statement stand: rules and decisions in force until changed.

The one definition shared by what reads a statement's kind (factkinds) and what stores, pushes
and ranks items (observations, hooks, search). No imports, so the hooks may read it.
"""

from __future__ import annotations

STANDING_KINDS = ("preference", "decision")

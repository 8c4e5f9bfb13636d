"""The offline `local` provider: one exchange into diff ops on a chat map, in code.

Callers use extract_ops. The pipeline is extractor; sentences and rules read the text, tools the
tool calls, match relates facts to the map, titles names new topics. No I/O, no model.
"""

from __future__ import annotations

from cms.providers.local.extractor import extract_ops

__all__ = ["extract_ops"]

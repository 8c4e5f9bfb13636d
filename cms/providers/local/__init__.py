"""The offline `local` provider: one exchange into diff ops on a chat map, in code.

Callers use extract_ops. The pipeline is extractor; sentences and rules read the text, tools the
tool calls, match relates facts to the map, titles names new topics. No I/O, no model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cms.map.model import CorrelationMap
    from cms.transcripts.exchange import Exchange


def extract_ops(cmap: CorrelationMap, exchange: Exchange) -> dict[str, Any]:
    """Ops for one exchange on this map: `{"ops": [...]}`, at most 10, deterministic."""
    # Imported here, so that a user of one module (the worker reads sentences.clean_text) does
    # not load the pipeline and the map engine with it.
    from cms.providers.local.extractor import extract_ops as run_extractor

    return run_extractor(cmap, exchange)

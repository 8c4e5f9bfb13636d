"""Whether a sentence unit is noise before it is classified: the local extractor's gates.

Its shape whatever its words: a code line, a menu item, a table verdict cell, a cheer, an
appraisal, a rule referred to, a plan for the next minute (shapes). Pure: one unit, no map,
no I/O.
"""

from __future__ import annotations

from cms.observations.wording import is_rule
from cms.providers.local.sentences import Unit
from cms.providers.local.shapes import (
    is_appraisal,
    is_cheer,
    is_code_line,
    is_encouragement,
    is_menu_item,
    is_next_minute,
    is_verdict_cell,
    names_code,
    refers_to_rule,
)


def is_noise_unit(unit: Unit, text: str) -> bool:
    """The unit (`text`: its sentence without a lead filler) is noise by its shape."""
    return _noise_shape(unit, text)


def _noise_shape(unit: Unit, text: str) -> bool:
    """The unit is noise by its shape whatever its words: a code line, a menu or checklist
    item, a table verdict cell, a cheer, an appraisal, a rule referred to but not given, a
    plan for the next minute (shapes)."""
    if is_code_line(unit.raw) or is_menu_item(unit.raw) or is_verdict_cell(unit.raw):
        return True
    if is_cheer(text) and not is_rule(text):
        return True
    if (is_appraisal(text) or is_encouragement(text)) and not names_code(unit.raw):
        return True
    return refers_to_rule(text) or is_next_minute(text)

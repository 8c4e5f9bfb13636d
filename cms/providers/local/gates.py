"""Whether a sentence unit is noise before it is classified: the local extractor's gates.

Its shape (a code line, a menu item, a cheer, a rule referred to: shapes) or advice that is no
rule of the project (a maxim, a manner-only rule, a wish opening the next sentence's rule:
advice). Pure: one unit and the unit after it, no map, no I/O.
"""

from __future__ import annotations

from cms.language.advice import asks_only_manner, is_maxim, opens_topic
from cms.language.shapes import (
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
from cms.language.wording import is_rule
from cms.providers.local.sentences import Unit


def is_noise_unit(unit: Unit, text: str, after: list[Unit]) -> bool:
    """The unit (`text`: its sentence without a lead filler) is noise by its shape or is
    advice; `after` holds the unit that follows it in the exchange, if any."""
    return _noise_shape(unit, text) or _advice(unit, text, after)


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


def _advice(unit: Unit, text: str, after: list[Unit]) -> bool:
    """The unit is advice rather than a rule of this project (advice): a maxim said to nobody,
    a rule asking only for a manner, or the user's wish that opens the topic of the concrete
    rule they give in the next sentence."""
    if is_maxim(text) or asks_only_manner(text):
        return True
    following = after[0] if after and after[0].source == unit.source else None
    if unit.source != "user" or following is None or following.command:
        return False
    return opens_topic(text, following.raw)

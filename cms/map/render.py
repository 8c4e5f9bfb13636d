"""Text views of a map: the titles-only index for the main model, the full view for the updater
and Markdown for people.

The index shows sun and planet titles with mass and fact counts, never fact texts, in a stable
order (creation order) so prompt caching keeps working, and never exceeds its character budget.
"""

from __future__ import annotations

from cms.map.model import CorrelationMap, Satellite


def render_index(cmap: CorrelationMap, max_chars: int = 8000) -> str:
    """Titles-only index; the lowest-mass planets are summarised when it would not fit."""
    planets = cmap.planets()
    if not planets and not cmap.archive:
        return ""
    header = (
        f"Topics stored for this chat: {len(cmap.suns)} topics, {len(planets)} subtopics, "
        f"{cmap.fact_count()} facts"
    )
    if cmap.archive:
        header += f" (+{len(cmap.archive)} archived subtopics)"
    header += ". Format: topic / subtopic (mass = how often the talk returned to it, facts)."
    # Drop the lowest-mass planets first (newest first among equals) until the text fits.
    order = sorted(planets, key=lambda p: (p.mass, -int(p.id[1:])))
    hidden: set[str] = set()
    while True:
        text = _index_lines(cmap, header, hidden)
        if len(text) <= max_chars or len(hidden) == len(order):
            break
        hidden.add(order[len(hidden)].id)
    if len(text) > max_chars:  # even the topics alone are too long: whole lines only
        text = text[:max_chars].rsplit("\n", 1)[0]
    return text


def _index_lines(cmap: CorrelationMap, header: str, hidden: set[str]) -> str:
    lines = [header]
    for sun in cmap.suns:
        shown = [p for p in sun.planets if p.id not in hidden]
        lines.append(f"- {sun.title}")
        for planet in shown:
            count = len(planet.satellites)
            lines.append(
                f"  - {planet.title} (mass {planet.mass}, {count} fact{'s' if count != 1 else ''})"
            )
        if len(shown) < len(sun.planets):
            lines.append(f"  - ... {len(sun.planets) - len(shown)} smaller subtopics not listed")
    return "\n".join(lines)


def render_full(cmap: CorrelationMap) -> str:
    """Every live node with its id and every fact text, for the update model."""
    if not cmap.suns:
        return "(the map is empty)"
    lines = []
    for sun in cmap.suns:
        lines.append(f"{sun.id} {sun.title}")
        for planet in sun.planets:
            lines.append(f"  {planet.id} {planet.title} (mass {planet.mass})")
            lines.extend(f"    {sat.id} {sat.text}" for sat in planet.satellites)
    return "\n".join(lines)


def render_markdown(cmap: CorrelationMap) -> str:
    """The whole map as Markdown for people (`cms export --map`): a heading per topic and
    subtopic (with mass), each fact whole with its id and turn; archived subtopics at the end."""
    lines = [f"# Chat {cmap.session_id}", ""]
    if not cmap.suns and not cmap.archive:
        return "\n".join([*lines, "(the map is empty)"]) + "\n"
    for sun in cmap.suns:
        lines += [f"## {sun.title} ({sun.id})", ""]
        for planet in sun.planets:
            lines += [f"### {planet.title} ({planet.id}, mass {planet.mass})", ""]
            lines += [_fact_bullet(sat) for sat in planet.satellites]
            lines.append("")
    if cmap.archive:
        lines += ["## Archived", ""]
        for planet in cmap.archive:
            where = f"{planet.sun_title} > " if planet.sun_title else ""
            lines += [f"### {where}{planet.title} ({planet.id}, archived {planet.archived_at})", ""]
            lines += [_fact_bullet(sat) for sat in planet.satellites]
            lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def _fact_bullet(sat: Satellite) -> str:
    return f"- {' '.join(sat.text.split())} ({sat.id}, turn {sat.turn})"

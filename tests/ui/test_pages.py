"""The ui's HTML: stored text is escaped, archived and superseded items are greyed, links carry
the token."""

from __future__ import annotations

from cms.map.model import CorrelationMap, Planet, Satellite, Sun, new_map
from cms.ui import pages


def sample_map() -> CorrelationMap:
    cmap = new_map("chat-1", "proj")
    stamp = cmap.created_at
    sun = Sun(cmap.allocate_id("S"), "Database", stamp)
    live = Planet(cmap.allocate_id("P"), "Engine", 2, stamp, stamp)
    live.satellites.append(
        Satellite(cmap.allocate_id("F"), "<script>alert(1)</script>", stamp, stamp, 3)
    )
    live.satellites.append(Satellite(cmap.allocate_id("F"), "We use MySQL 8.", stamp, stamp, 1))
    sun.planets.append(live)
    cmap.suns.append(sun)
    gone = Planet(cmap.allocate_id("P"), "Old cache", 1, stamp, stamp, archived_at=stamp,
                  sun_id=sun.id, sun_title="Database")  # fmt: skip
    gone.satellites.append(
        Satellite(cmap.allocate_id("F"), "memcached for sessions", stamp, stamp, 1)
    )
    cmap.archive.append(gone)
    return cmap


def test_stored_text_is_shown_as_text_never_as_markup() -> None:
    html = pages.map_tree(sample_map())
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_archived_subtopics_and_superseded_facts_are_greyed_with_their_replacement() -> None:
    html = pages.map_tree(sample_map(), {"F4": "1a2b3c4d/F9"})
    archived = html[html.index("Old cache") - 200 :]
    assert "class='planet archived'" in archived and "memcached for sessions" in archived
    assert "<li class=archived><span class=id>F4</span> We use MySQL 8." in html
    assert "superseded by 1a2b3c4d/F9" in html


def test_every_link_carries_the_token_escaped() -> None:
    assert pages.href("/project/a b", "t&k") == "/project/a b?token=t%26k"
    page = pages.message_page("Title <x>", "text", "tok")
    assert 'href="/?token=tok"' in page and "Title &lt;x&gt;" in page

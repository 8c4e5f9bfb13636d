"""The six ops: what is accepted, what is rejected and why."""

from __future__ import annotations

import pytest

from cms.errors import OpsError
from cms.map.model import new_map
from cms.map.ops import apply_answer, apply_ops
from cms.map.schema import map_schema_error

NOW = "2026-11-30T00:00:00Z"


def _seeded():
    cmap = new_map("s1", "proj", NOW)
    report = apply_ops(
        cmap,
        [
            {
                "op": "add_sun",
                "title": "Storage",
                "planets": [{"title": "Database", "sats": ["Use Postgres 16"]}],
            }
        ],
        now=NOW,
    )
    assert [o.created for o in report.accepted] == [["S1", "P2", "F3"]]
    return cmap


def test_valid_ops_apply_in_order_and_draw_fresh_ids() -> None:
    cmap = _seeded()
    report = apply_ops(
        cmap,
        [
            {"op": "add_planet", "sun": "S1", "title": "Migrations", "sats": ["Run make migrate"]},
            {"op": "add_sat", "planet": "P2", "text": "Connection pool size is 20"},
            {"op": "replace_sat", "sat": "F3", "text": "Use Postgres 17"},
            {"op": "inc_mass", "planet": "P2", "by": 2},
            {"op": "delete_sat", "sat": "F6"},
        ],
        turn=4,
        now=NOW,
    )
    assert [o.accepted for o in report.outcomes] == [True] * 5
    assert report.outcomes[0].created == ["P4", "F5"]
    planet = cmap.find_planet("P2")[1]  # type: ignore[index]
    assert planet.mass == 3
    assert [s.text for s in planet.satellites] == ["Use Postgres 17"]  # F6 added, then deleted
    assert cmap.find_satellite("F6") is None
    assert cmap.next_id == 7  # S1 P2 F3 P4 F5 F6: numbers are never reused
    assert map_schema_error(cmap.to_dict()) is None


@pytest.mark.parametrize(
    ("op", "reason"),
    [
        ({"op": "add_sat", "planet": "P99", "text": "x"}, "unknown planet P99"),
        ({"op": "add_planet", "sun": "S42", "title": "T"}, "unknown sun S42"),
        ({"op": "replace_sat", "sat": "F77", "text": "x"}, "unknown fact F77"),
        ({"op": "delete_sat", "sat": "F77"}, "unknown fact F77"),
        ({"op": "inc_mass", "planet": "P77"}, "unknown planet P77"),
        ({"op": "add_sat", "planet": "P2", "text": "a" * 201}, "201 characters, the limit is 200"),
        ({"op": "add_sat", "planet": "P2", "text": "   "}, "fact text is empty"),
        ({"op": "add_sat", "planet": "P2", "text": ""}, "fact text is empty"),
        ({"op": "add_sun", "title": "t" * 81}, "81 characters, the limit is 80"),
        ({"op": "add_sat", "planet": "P2", "text": "use  POSTGRES 16"}, "duplicate fact"),
        ({"op": "add_sun", "title": "storage"}, "duplicate sun title"),
        ({"op": "add_planet", "sun": "S1", "title": "DATABASE"}, "duplicate planet title"),
        ({"op": "replace_sat", "sat": "F3", "text": "Use Postgres 16"}, "does not change"),
        ({"op": "frobnicate", "planet": "P2"}, "unknown op 'frobnicate'"),
        ({"op": "add_sat", "planet": "P2", "text": 5}, "5 is not of type 'string'"),
        ({"op": "add_sat", "planet": 2, "text": "x"}, "2 is not of type 'string'"),
        ({"op": "inc_mass", "planet": "P2", "by": 9}, "9 is greater than the maximum of 3"),
        ({"op": "add_sat", "planet": "P2"}, "'text' is a required property"),
        ({"op": "add_sat", "planet": "P2", "text": "x", "extra": 1}, "Additional properties"),
        ("add_sat", "must be a JSON object"),
        ({"planet": "P2"}, "no 'op' name"),
        (
            {
                "op": "add_sun",
                "title": "New",
                "planets": [{"title": "A", "sats": ["fact", "FACT"]}],
            },
            "duplicate fact",
        ),
    ],
)
def test_invalid_op_is_rejected_with_its_reason(op: object, reason: str) -> None:
    cmap = _seeded()
    before = cmap.to_dict()
    report = apply_ops(cmap, [op], now=NOW)
    assert not report.accepted
    assert reason in report.rejected[0].reason
    assert cmap.to_dict() == before


def test_eleventh_valid_op_is_rejected_for_the_per_turn_limit() -> None:
    cmap = _seeded()
    ops = [{"op": "add_sat", "planet": "P2", "text": f"fact number {i}"} for i in range(11)]
    report = apply_ops(cmap, ops, now=NOW)
    assert len(report.accepted) == 10
    assert "limit of 10" in report.rejected[0].reason
    assert report.rejected[0].index == 11


def test_invalid_ops_do_not_count_towards_the_limit() -> None:
    cmap = _seeded()
    ops = [{"op": "add_sat", "planet": "P9", "text": "bad"}] * 3
    ops += [{"op": "add_sat", "planet": "P2", "text": f"fact {i}"} for i in range(10)]
    report = apply_ops(cmap, ops, now=NOW)
    assert len(report.accepted) == 10


def test_replace_of_a_fact_deleted_earlier_in_the_answer_is_rejected() -> None:
    cmap = _seeded()
    report = apply_ops(
        cmap,
        [{"op": "delete_sat", "sat": "F3"}, {"op": "replace_sat", "sat": "F3", "text": "new"}],
        now=NOW,
    )
    assert report.outcomes[0].accepted
    assert "deleted by an earlier op" in report.outcomes[1].reason


def test_each_op_is_judged_alone_so_good_ops_survive_bad_neighbours() -> None:
    cmap = _seeded()
    report = apply_ops(
        cmap,
        [
            {"op": "add_sat", "planet": "P404", "text": "lost"},
            {"op": "add_sat", "planet": "P2", "text": "kept"},
            {"op": "bogus"},
        ],
        now=NOW,
    )
    assert [o.accepted for o in report.outcomes] == [False, True, False]
    assert report.reasons()[0].startswith("op 1 (add_sat): unknown planet")


def test_empty_ops_list_is_a_valid_answer_that_changes_nothing() -> None:
    cmap = _seeded()
    report = apply_answer(cmap, {"ops": []}, now=NOW)
    assert not report.changed and not report.all_rejected


@pytest.mark.parametrize("answer", [[], {"op": []}, {"ops": "add"}, "text", None])
def test_answer_without_an_ops_list_is_an_ops_error(answer: object) -> None:
    with pytest.raises(OpsError, match="not \\{'ops'"):
        apply_answer(_seeded(), answer)


def test_planets_past_max_move_to_archive_lowest_mass_then_oldest_first() -> None:
    cmap = new_map("s", "p", NOW)
    apply_ops(cmap, [{"op": "add_sun", "title": "T"}], now=NOW)
    for i, stamp in enumerate(["2026-01-03", "2026-01-01", "2026-01-02", "2026-01-04"]):
        apply_ops(
            cmap,
            [{"op": "add_planet", "sun": "S1", "title": f"p{i}", "sats": [f"fact {i}"]}],
            now=stamp,
        )
    apply_ops(cmap, [{"op": "inc_mass", "planet": "P2"}], now=NOW)  # p0 is heavier
    report = apply_ops(cmap, [], now=NOW, max_planets=2)
    archived = [p.title for p in cmap.archive]
    assert archived == ["p1", "p2"]  # mass 1, oldest first; p0 kept for its mass
    assert report.archived == [cmap.archive[0].id, cmap.archive[1].id]
    assert cmap.archive[0].archived_at == NOW and cmap.archive[0].sun_title == "T"
    assert map_schema_error(cmap.to_dict()) is None
    again = apply_ops(cmap, [{"op": "add_sat", "planet": cmap.archive[0].id, "text": "x"}])
    assert "archived planet" in again.rejected[0].reason


def test_ten_mass_increases_of_one_planet_in_one_answer_count_once() -> None:
    cmap = _seeded()
    report = apply_ops(cmap, [{"op": "inc_mass", "planet": "P2", "by": 3}] * 10, now=NOW)
    assert [o.index for o in report.accepted] == [1]
    assert cmap.find_planet("P2")[1].mass == 4  # type: ignore[index]
    assert len(report.rejected) == 9
    assert all("already by op 1 of this answer" in o.reason for o in report.rejected)


def test_mass_increases_of_different_planets_in_one_answer_all_count() -> None:
    cmap = _seeded()
    apply_ops(cmap, [{"op": "add_planet", "sun": "S1", "title": "Cache"}], now=NOW)
    report = apply_ops(
        cmap,
        [{"op": "inc_mass", "planet": "P2"}, {"op": "inc_mass", "planet": "P4"}],
        now=NOW,
    )
    assert len(report.accepted) == 2 and not report.rejected


def test_the_same_fact_in_ten_new_planets_is_accepted_once() -> None:
    cmap = _seeded()
    ops = [
        {"op": "add_planet", "sun": "S1", "title": f"Topic {i}", "sats": ["Deploys run on Fridays"]}
        for i in range(10)
    ]
    report = apply_ops(cmap, ops, now=NOW)
    assert [o.index for o in report.accepted] == [1]
    assert all("duplicate fact" in o.reason for o in report.rejected)
    texts = [s.text for sun in cmap.suns for p in sun.planets for s in p.satellites]
    assert texts.count("Deploys run on Fridays") == 1


def test_a_fact_added_by_one_op_is_not_added_again_elsewhere_by_a_later_one() -> None:
    cmap = _seeded()
    report = apply_ops(
        cmap,
        [
            {"op": "add_sat", "planet": "P2", "text": "Backups run nightly"},
            {
                "op": "add_sun",
                "title": "Ops",
                "planets": [{"title": "Backups", "sats": ["backups  run NIGHTLY"]}],
            },
            {
                "op": "add_sun",
                "title": "Ops",
                "planets": [{"title": "Backups", "sats": ["Kept 30 days"]}],
            },
        ],
        now=NOW,
    )
    assert [o.index for o in report.accepted] == [1, 3]
    assert "already stored as F" in report.rejected[0].reason


def test_a_fact_already_stored_under_another_topic_by_an_earlier_answer_is_refused() -> None:
    cmap = _seeded()
    stored = next(s for sun in cmap.suns for p in sun.planets for s in p.satellites)
    report = apply_ops(
        cmap,
        [
            {
                "op": "add_sun",
                "title": "Elsewhere",
                "planets": [{"title": "Again", "sats": [stored.text.upper()]}],
            },
            {"op": "add_sat", "planet": "P2", "text": "  " + stored.text + " "},
        ],
        now=NOW,
    )
    assert not report.accepted
    assert all(f"already stored as {stored.id}" in o.reason for o in report.rejected)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("x", "too short to say anything"),
        ("?!", "too short to say anything"),
        (" ".join(["ops"] * 21), "'ops' repeated 4 or more times"),
        ("the cache, the cache, the cache, the cache is warm", "repeated 4 or more times"),
        ("retry-retry-retry-retry-retry", "repeated 4 or more times"),
    ],
)
def test_degenerate_model_text_is_refused_with_its_reason(text: str, reason: str) -> None:
    cmap = _seeded()
    report = apply_ops(cmap, [{"op": "add_sat", "planet": "P2", "text": text}], now=NOW)
    assert not report.accepted and reason in report.rejected[0].reason
    titled = apply_ops(cmap, [{"op": "add_sun", "title": text}], now=NOW)
    assert len(text) < 3 or not titled.accepted


@pytest.mark.parametrize(
    "text",
    [
        "Go 1.22",
        "Port 5433",
        "Color is #000000 and the grid is 8 x 8 x 8 x 8",
        "Use a-b-c ordering",
    ],
)
def test_short_facts_and_ordinary_repetition_are_kept(text: str) -> None:
    report = apply_ops(_seeded(), [{"op": "add_sat", "planet": "P2", "text": text}], now=NOW)
    assert report.accepted, report.reasons()


def test_one_fact_is_changed_at_most_once_per_answer() -> None:
    cmap = _seeded()
    report = apply_ops(
        cmap,
        [
            {"op": "replace_sat", "sat": "F3", "text": "Use Postgres 17"},
            {"op": "replace_sat", "sat": "F3", "text": "Use Postgres 18"},
            {"op": "delete_sat", "sat": "F3"},
        ],
        now=NOW,
    )
    assert [o.index for o in report.accepted] == [1]
    assert cmap.find_satellite("F3")[1].text == "Use Postgres 17"  # type: ignore[index]


def test_the_one_per_answer_rule_starts_afresh_with_the_next_answer() -> None:
    cmap = _seeded()
    for _ in range(3):
        report = apply_ops(cmap, [{"op": "inc_mass", "planet": "P2"}] * 2, now=NOW)
        assert len(report.accepted) == 1
    assert cmap.find_planet("P2")[1].mass == 4  # type: ignore[index]

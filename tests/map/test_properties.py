"""Property tests: any sequence of ops, valid or not, leaves a sound map that round-trips."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cms.map.model import MAX_FACT, MAX_TITLE, map_from_dict, new_map
from cms.map.ops import apply_ops
from cms.map.schema import map_schema_error
from cms.map.store import dump_map

ids = st.one_of(
    st.builds(lambda letter, n: f"{letter}{n}", st.sampled_from("SPFX"), st.integers(0, 40)),
    st.text(max_size=4),
    st.integers(),
)
texts = st.one_of(
    st.sampled_from(["alpha", "beta", "Alpha ", "gamma delta", "", "  ", "x" * 200, "y" * 201]),
    st.text(max_size=90),
    st.integers(),
    st.none(),
)
planet_specs = st.lists(
    st.fixed_dictionaries({"title": texts}, optional={"sats": st.lists(texts, max_size=3)}),
    max_size=3,
)
ops = st.one_of(
    st.fixed_dictionaries(
        {"op": st.just("add_sun"), "title": texts}, optional={"planets": planet_specs}
    ),
    st.fixed_dictionaries(
        {"op": st.just("add_planet"), "sun": ids, "title": texts},
        optional={"sats": st.lists(texts, max_size=3)},
    ),
    st.fixed_dictionaries({"op": st.just("add_sat"), "planet": ids, "text": texts}),
    st.fixed_dictionaries({"op": st.just("replace_sat"), "sat": ids, "text": texts}),
    st.fixed_dictionaries({"op": st.just("delete_sat"), "sat": ids}),
    st.fixed_dictionaries(
        {"op": st.just("inc_mass"), "planet": ids}, optional={"by": st.integers(-1, 5)}
    ),
    st.dictionaries(st.sampled_from(["op", "planet", "text", "junk"]), texts, max_size=3),
    st.sampled_from([None, 3, "add_sun", []]),
)


def _check_invariants(data: dict[str, Any]) -> None:
    assert map_schema_error(data) is None
    seen: list[str] = []
    for sun in data["suns"]:
        seen.append(sun["id"])
        for planet in sun["planets"]:
            seen.append(planet["id"])
            seen.extend(s["id"] for s in planet["satellites"])
    for planet in data["archive"]:
        seen.append(planet["id"])
        seen.extend(s["id"] for s in planet["satellites"])
    assert len(seen) == len(set(seen)), "ids are unique"
    assert all(int(i[1:]) < data["next_id"] for i in seen), "ids are below next_id"
    for sun in data["suns"]:
        assert len(sun["title"]) <= MAX_TITLE
        for planet in sun["planets"]:
            texts_ = [s["text"].casefold() for s in planet["satellites"]]
            assert len(texts_) == len(set(texts_)), "no duplicate facts under a planet"
            assert all(0 < len(s["text"]) <= MAX_FACT for s in planet["satellites"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    batches=st.lists(st.lists(ops, max_size=14), min_size=1, max_size=6),
    max_planets=st.integers(1, 6),
)
def test_any_op_sequence_leaves_a_valid_map_that_round_trips(
    batches: list[list[Any]], max_planets: int
) -> None:
    cmap = new_map("s", "p", "2026-01-01T00:00:00Z")
    for turn, batch in enumerate(batches):
        next_before = cmap.next_id
        report = apply_ops(cmap, batch, turn=turn, max_planets=max_planets)
        assert len(report.accepted) <= 10
        assert len(report.outcomes) == len(batch)
        assert cmap.next_id >= next_before
        assert all(o.reason for o in report.rejected)
        data = cmap.to_dict()
        _check_invariants(data)
        assert len(cmap.planets()) <= max_planets
        again = map_from_dict(data)
        assert again == cmap
        assert dump_map(again) == dump_map(cmap)

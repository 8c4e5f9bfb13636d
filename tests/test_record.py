"""The value-class base: fields declared once as annotations give slots, a positional and
keyword __init__ (defaults last, factories made per record), equality, repr and replace;
frozen records refuse assignment and hash."""

from __future__ import annotations

from pathlib import Path

import pytest

from cms.record import Record, field


class Point(Record):
    x: int
    y: int = 0
    tags: list[str] = field(default_factory=list)


class Label(Record, frozen=True):
    text: str
    size: int = 12


class Point3(Point):
    z: int = 0


def test_fields_become_slots_and_an_init_in_order() -> None:
    point = Point(1, y=2)
    assert (point.x, point.y, point.tags) == (1, 2, [])
    assert Point.__slots__ == ("x", "y", "tags")
    with pytest.raises(AttributeError):
        point.other = 3  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]


def test_a_factory_default_is_made_for_each_record() -> None:
    first, second = Point(1), Point(2)
    first.tags.append("a")
    assert second.tags == []


def test_equality_repr_and_replace_come_from_the_fields() -> None:
    assert Point(1, 2) == Point(1, 2, [])
    assert Point(1) != Point(2)
    assert Point(1) != Point3(1)
    assert repr(Point(1)) == "Point(x=1, y=0, tags=[])"
    assert Point(1).replace(y=5) == Point(1, 5)
    with pytest.raises(TypeError, match="no field 'w'"):
        Point(1).replace(w=1)


def test_mutable_records_are_unhashable_and_frozen_ones_hash_and_refuse_changes() -> None:
    with pytest.raises(TypeError):
        hash(Point(1))
    label = Label("a")
    assert hash(label) == hash(Label("a", 12))
    with pytest.raises(AttributeError, match="frozen Label"):
        label.text = "b"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del label.size  # type: ignore[misc]


def test_a_subclass_adds_its_fields_after_the_inherited_ones() -> None:
    assert Point3._FIELDS == ("x", "y", "tags", "z")
    assert Point3(1, 2, ["t"], 3).z == 3


def test_a_field_without_a_default_after_one_with_is_refused() -> None:
    with pytest.raises(TypeError, match="field 'b' without a default follows one with"):

        class Bad(Record):
            a: int = 0
            b: int


def test_copies_and_pickles_rebuild_frozen_and_mutable_records() -> None:
    import copy
    import pickle

    label = Label("a", 3)
    assert copy.copy(label) == label and copy.deepcopy(label) == label
    assert pickle.loads(pickle.dumps(label)) == label
    point = Point(1, tags=["x"])
    clone = copy.deepcopy(point)
    assert clone == point and clone.tags is not point.tags


class Tagged(Record, frozen=True):
    name: str
    tags: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "tags", tuple(self.tags))


def test_post_init_runs_after_the_fields_are_set() -> None:
    tagged = Tagged("a", ["x", "y"])  # type: ignore[arg-type]
    assert tagged.tags == ("x", "y") and hash(tagged) == hash(Tagged("a", ("x", "y")))


def test_generated_code_is_kept_in_one_file_beside_the_bytecode_and_a_damaged_one_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    from cms import record

    cache = tmp_path / "pycache" / "records.tag"
    monkeypatch.setattr(record, "_CACHE", str(cache))
    monkeypatch.setattr(record, "_codes", None)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)

    class Two(Record):
        a: int
        b: list[int] = field(default_factory=list)

    class Three(Record, frozen=True):
        c: int
        d: str = "x"

    assert Two(1).b == [] and Three(2).d == "x"
    assert [p.name for p in cache.parent.iterdir()] == ["records.tag"]
    assert sorted(record._read_codes()) == ["frozen: c d=", "mutable: a b()"]
    cache.write_bytes(b"not marshal data")  # a damaged or foreign file is compiled again
    assert record._read_codes() == {}
    monkeypatch.setattr(record, "_codes", None)  # a new process

    class Again(Record):
        a: int
        b: list[int] = field(default_factory=list)

    assert Again(1).b == [] and Again(1, [2]) == Again(1, [2])
    assert sorted(record._read_codes()) == ["mutable: a b()"]
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # PYTHONDONTWRITEBYTECODE: no write

    class Other(Record):
        e: int

    assert Other(2).e == 2 and sorted(record._read_codes()) == ["mutable: a b()"]
    monkeypatch.setattr(record, "_generator_stamp", lambda: (1, 2))  # record.py changed since
    assert record._read_codes() == {}


def test_a_subclass_that_writes_its_own_init_still_gets_its_base_s_generated_one() -> None:
    class Base(Record):
        a: int
        b: int = 2

    class Named(Base):
        label: str = ""

        def __init__(self, a: int, label: str) -> None:
            super().__init__(a, 5)
            self.label = label

    named = Named(1, "x")
    assert (named.a, named.b, named.label) == (1, 5, "x") and Base(3).b == 2

"""Value-class bases: what dataclasses give (equality, repr, replace) without their import cost.

Importing dataclasses pulls in inspect, ast and typing (~20 ms), too much for the hook processes
and `cms search`; these bases compare, print and copy by a class's `_FIELDS`. Subclasses declare
`__slots__`, `_FIELDS` and an explicit `__init__`. No other behaviour lives here.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Self


class Record:
    """Mutable value base: equal when all fields are, unhashable (like a plain dataclass)."""

    __slots__ = ()
    _FIELDS: tuple[str, ...] = ()

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self._FIELDS)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Record)
        return self._values() == other._values()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._FIELDS)
        return f"{type(self).__name__}({inner})"

    def replace(self, **changes: object) -> Self:
        """A copy with some fields changed (like dataclasses.replace)."""
        unknown = set(changes) - set(self._FIELDS)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {sorted(unknown)[0]!r}")
        values = {name: changes.get(name, getattr(self, name)) for name in self._FIELDS}
        return type(self)(**values)


class FrozenRecord(Record):
    """Immutable value base: fields are set once in __init__ (with set_fields); hashable."""

    __slots__ = ()

    def set_fields(self, **values: object) -> None:
        """For __init__ only: the one way to give a frozen record its fields."""
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of a frozen {type(self).__name__}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of a frozen {type(self).__name__}")

    def __hash__(self) -> int:  # type: ignore[override]  # frozen: safe to hash
        return hash(self._values())

"""The one way to write a value class: fields declared once, as annotations, on a `Record`
subclass; its metaclass builds `__slots__`, `__init__`, equality, repr and `replace` from them.

What dataclasses give without their import cost (dataclasses pulls in inspect, ast and typing:
too much for the hook processes and `cms search`). Marked with `dataclass_transform`, so mypy
checks constructor calls as for a dataclass. No other behaviour lives here.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import CodeType
    from typing import Any, ClassVar, Self, TypeVar, dataclass_transform

    T = TypeVar("T")
else:

    def dataclass_transform(**_options):
        return lambda target: target


class _Factory:
    """A default made anew for each record (a list, a dict)."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], object]) -> None:
        self.make = make


def field(*, default_factory: Callable[[], T]) -> T:
    """A field whose default is made by default_factory for each record (`= field(...)`)."""
    return _Factory(default_factory)  # type: ignore[return-value]  # read by RecordMeta


def _is_class_var(annotation: object) -> bool:
    return str(annotation).startswith(("ClassVar", "typing.ClassVar"))


_MISSING = object()
_CACHE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__", "records")


def _build_init(
    fields: tuple[str, ...], defaults: dict[str, object], frozen: bool, post_init: bool
) -> Any:
    """An `__init__` taking the fields in their declared order, compiled once per
    class as dataclasses do: as fast to call as a hand-written one. It ends by calling the
    class's `__post_init__` when there is one (a frozen record sets fields there with
    object.__setattr__)."""
    scope: dict[str, object] = {"_set": object.__setattr__, "_MISSING": _MISSING}
    params, body = [], []
    for name in fields:
        default = defaults.get(name, _MISSING)
        value = name
        if default is _MISSING:
            params.append(name)
        elif isinstance(default, _Factory):
            scope[f"_make_{name}"] = default.make
            params.append(f"{name}=_MISSING")
            value = f"_make_{name}() if {name} is _MISSING else {name}"
        else:
            scope[f"_default_{name}"] = default
            params.append(f"{name}=_default_{name}")
        body.append(f"_set(self, {name!r}, {value})" if frozen else f"self.{name} = {value}")
    if post_init:
        body.append("self.__post_init__()")
    source = f"def __init__(self, {', '.join(params)}):\n    " + "\n    ".join(body)
    exec(_compiled(source), scope)  # generated from the class's own field names only
    return scope["__init__"]


def _compiled(source: str) -> CodeType:
    """The code of a generated __init__, kept beside the package's bytecode as Python keeps
    .pyc files (compiling is most of what a record class costs a hook process to build)."""
    import marshal
    import zlib

    name = f"{zlib.crc32(source.encode('utf-8')):08x}-{len(source)}.{sys.implementation.cache_tag}"
    path = os.path.join(_CACHE, name)
    try:
        with open(path, "rb") as handle:
            cached, code = marshal.loads(handle.read())
        if cached == source:
            return code  # type: ignore[no-any-return]
    except (OSError, ValueError, EOFError, TypeError):
        pass
    code = compile(source, "<cms.record>", "exec")
    if not sys.dont_write_bytecode:
        try:
            os.makedirs(_CACHE, exist_ok=True)
            temporary = f"{path}.{os.getpid()}.tmp"
            with open(temporary, "wb") as handle:
                handle.write(marshal.dumps((source, code)))
            os.replace(temporary, path)
        except OSError:
            pass  # a read-only install compiles each time
    return code


def _frozen_setattr(self: object, name: str, value: object) -> None:
    raise AttributeError(f"cannot assign to field {name!r} of a frozen {type(self).__name__}")


def _frozen_delattr(self: object, name: str) -> None:
    raise AttributeError(f"cannot delete field {name!r} of a frozen {type(self).__name__}")


def _hash_values(self: Record) -> int:
    return hash(self._values())


@dataclass_transform(field_specifiers=(field,))
class RecordMeta(type):
    """Builds a Record subclass from its annotations: `__slots__` (defaults move out of the
    class body), `_FIELDS` (inherited first) and, unless the class writes its own, `__init__`;
    `frozen=True` makes fields read-only after `__init__` and the record hashable."""

    def __new__(
        mcls, name: str, bases: tuple[type, ...], namespace: dict[str, Any], frozen: bool = False
    ) -> RecordMeta:
        annotations = namespace.get("__annotations__", {})
        own = tuple(n for n, a in annotations.items() if not _is_class_var(a))
        inherited: tuple[str, ...] = ()
        defaults: dict[str, object] = {}
        for base in bases:
            inherited += tuple(getattr(base, "_FIELDS", ()))
            defaults.update(getattr(base, "_DEFAULTS", {}))
            frozen = frozen or bool(getattr(base, "_FROZEN", False))
        for field_name in own:
            if field_name in namespace:
                defaults[field_name] = namespace.pop(field_name)
        fields = inherited + tuple(n for n in own if n not in inherited)
        namespace.update(__slots__=own, _FIELDS=fields, _DEFAULTS=defaults, _FROZEN=frozen)
        if frozen:
            namespace.update(
                __setattr__=_frozen_setattr, __delattr__=_frozen_delattr, __hash__=_hash_values
            )
        else:
            namespace.setdefault("__hash__", None)  # mutable: unhashable, like a dataclass
        if "__init__" not in namespace and fields:
            first = next((i for i, n in enumerate(fields) if n in defaults), len(fields))
            late = [n for n in fields[first:] if n not in defaults]
            if late:  # as dataclasses: __init__ takes the fields in their declared order
                raise TypeError(f"{name}: field {late[0]!r} without a default follows one with")
            ordered = fields
            post_init = "__post_init__" in namespace or any(
                hasattr(base, "__post_init__") for base in bases
            )
            namespace["__init__"] = _build_init(ordered, defaults, frozen, post_init)
        return super().__new__(mcls, name, bases, namespace)


class Record(metaclass=RecordMeta):
    """Value base: equal when all fields are; mutable and unhashable unless declared with
    `class X(Record, frozen=True)` (then fields are set once, by `__init__`, and it hashes)."""

    _FIELDS: ClassVar[tuple[str, ...]]
    _DEFAULTS: ClassVar[dict[str, object]]
    _FROZEN: ClassVar[bool]

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self._FIELDS)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Record)
        return self._values() == other._values()

    def __reduce__(self) -> tuple[object, ...]:
        """copy, deepcopy and pickle rebuild a record through its __init__ (frozen ones too)."""
        return (_rebuild, (type(self), dict(zip(self._FIELDS, self._values(), strict=True))))

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


def _rebuild(cls: type[Record], values: dict[str, object]) -> Record:
    return cls(**values)

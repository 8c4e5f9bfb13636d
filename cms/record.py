"""The one way to write a value class: fields declared once, as annotations, on a `Record`
subclass; its metaclass builds `__slots__`, `__init__`, equality, repr and `replace` from them.

What dataclasses give without their import cost (dataclasses pulls in inspect, ast and typing:
too much for the hook processes and `cms search`). Marked with `dataclass_transform`, so mypy
checks constructor calls as for a dataclass. No other behaviour lives here.
"""

from __future__ import annotations

import os
import sys
from types import CodeType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
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


_CLASS_VAR = ("ClassVar", "typing.ClassVar")
_MISSING = object()
_CACHE = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "__pycache__",
    f"records.{sys.implementation.cache_tag}",
)
_codes: dict[str, bytes] | None = None  # every generated __init__ (marshalled) by its shape


def _build_init(
    fields: tuple[str, ...], defaults: dict[str, object], frozen: bool, post_init: bool
) -> Any:
    """An `__init__` taking the fields in their declared order, compiled once per shape (the
    fields and which of them have defaults or factories) as dataclasses do: as fast to call as
    a hand-written one. It ends by calling the class's `__post_init__` when there is one (a
    frozen record sets fields there with object.__setattr__)."""
    scope: dict[str, object] = {"_set": object.__setattr__, "_MISSING": _MISSING}
    shape = []
    for name in fields:
        default = defaults.get(name, _MISSING)
        if default is _MISSING:
            shape.append(name)
        elif isinstance(default, _Factory):
            scope["_make_" + name] = default.make
            shape.append(name + "()")
        else:
            scope["_default_" + name] = default
            shape.append(name + "=")
    key = ("frozen" if frozen else "mutable") + (" post_init: " if post_init else ": ")
    key += " ".join(shape)
    exec(_compiled(key, shape, frozen, post_init), scope)  # from the class's own field names
    return scope["__init__"]


def _init_source(shape: list[str], frozen: bool, post_init: bool) -> str:
    params, body = [], []
    for item in shape:
        name = item.rstrip("()=")
        value = name
        if item.endswith("()"):
            params.append(f"{name}=_MISSING")
            value = f"_make_{name}() if {name} is _MISSING else {name}"
        elif item.endswith("="):
            params.append(f"{name}=_default_{name}")
        else:
            params.append(name)
        body.append(f"_set(self, {name!r}, {value})" if frozen else f"self.{name} = {value}")
    if post_init:
        body.append("self.__post_init__()")
    return f"def __init__(self, {', '.join(params)}):\n    " + "\n    ".join(body)


def _compiled(key: str, shape: list[str], frozen: bool, post_init: bool) -> CodeType:
    """The code of a generated __init__, from one file beside the package's bytecode, kept as
    Python keeps .pyc files: compiling is most of what a record class would cost a hook process
    to build. The file holds each code marshalled on its own, read only when used (a hook needs
    few of the package's records), and names the version of this module that wrote it (as a
    .pyc names its source); a damaged or older file is ignored and rewritten."""
    import marshal

    global _codes
    if _codes is None:
        _codes = _read_codes()
    data = _codes.get(key)
    if data is not None:
        try:
            code = marshal.loads(data)
        except (ValueError, EOFError, TypeError):
            pass
        else:
            if isinstance(code, CodeType):
                return code
    code = compile(_init_source(shape, frozen, post_init), "<cms.record>", "exec")
    _codes[key] = marshal.dumps(code)
    if not sys.dont_write_bytecode:
        _write_codes(_codes)
    return code


def _generator_stamp() -> tuple[int, int]:
    """This module's source, by modification time and size: what generates the code."""
    try:
        source = os.stat(__file__)
    except OSError:
        return (0, 0)
    return (source.st_mtime_ns, source.st_size)


def _read_codes() -> dict[str, bytes]:
    import marshal

    try:
        with open(_CACHE, "rb") as handle:
            stamp, codes = marshal.loads(handle.read())
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    return codes if stamp == _generator_stamp() and isinstance(codes, dict) else {}


def _write_codes(codes: dict[str, bytes]) -> None:
    import marshal

    try:
        os.makedirs(os.path.dirname(_CACHE), exist_ok=True)
        temporary = f"{_CACHE}.{os.getpid()}.tmp"
        with open(temporary, "wb") as handle:
            handle.write(marshal.dumps((_generator_stamp(), codes)))
        os.replace(temporary, _CACHE)
    except OSError:
        pass  # a read-only install compiles each time


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
        own = tuple(n for n, a in annotations.items() if not str(a).startswith(_CLASS_VAR))
        inherited: tuple[str, ...] = ()
        defaults: dict[str, object] = {}
        post_init = "__post_init__" in namespace
        for base in bases:  # Record subclasses only: a Record is built from records
            inherited += base._FIELDS  # type: ignore[attr-defined]
            defaults.update(base._DEFAULTS)  # type: ignore[attr-defined]
            frozen = frozen or base._FROZEN  # type: ignore[attr-defined]
            post_init = post_init or base._POST_INIT  # type: ignore[attr-defined]
        for field_name in own:
            if field_name in namespace:
                defaults[field_name] = namespace.pop(field_name)
        fields = inherited + tuple(n for n in own if n not in inherited)
        namespace.update(
            __slots__=own, _FIELDS=fields, _DEFAULTS=defaults, _FROZEN=frozen, _POST_INIT=post_init
        )
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
            namespace["__init__"] = _build_init(fields, defaults, frozen, post_init)
        return super().__new__(mcls, name, bases, namespace)


class Record(metaclass=RecordMeta):
    """Value base: equal when all fields are; mutable and unhashable unless declared with
    `class X(Record, frozen=True)` (then fields are set once, by `__init__`, and it hashes)."""

    _FIELDS: ClassVar[tuple[str, ...]]
    _DEFAULTS: ClassVar[dict[str, object]]
    _FROZEN: ClassVar[bool]
    _POST_INIT: ClassVar[bool]

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

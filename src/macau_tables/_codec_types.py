"""Type-directed encoding of single values, for :mod:`macau_tables.codec` (internal).

A declared field type (``int``, ``Card | str``, ``tuple[Meter, ...]``, ``Mapping[Kind, int]``…)
is reduced once to a *shape* (a small tuple: kind, then its parts); :func:`encode_value` and
:func:`decode_value` follow it. Both refuse with :class:`~macau_tables.errors.CodecError` naming
the path; nothing here raises anything else on any JSON-like input.
"""

from __future__ import annotations

import collections.abc as abc
import dataclasses
import json
import re
import types
import typing
from collections.abc import Callable, Iterator
from datetime import date, datetime
from enum import Enum
from fractions import Fraction
from functools import cache
from typing import Any, Final, Literal, Protocol, Union, get_args, get_origin

from .cards import DECK, Card
from .errors import CodecError, ParseError

Shape = tuple[Any, ...]

_FRACTION = re.compile(r"-?[0-9]{1,4000}/[0-9]{1,4000}", re.ASCII)
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", re.ASCII)
_INT_KEY = re.compile(r"-?(0|[1-9][0-9]{0,4000})", re.ASCII)

# Union alternatives are tried in this order (encode and decode alike).
_ORDER = {
    "none": 0,
    "dataclass": 1,
    "bool": 2,
    "enum": 3,
    "literal": 3,
    "int": 4,
    "fraction": 5,
    "date": 6,
    "card": 7,
    "class": 8,
    "str": 9,
    "seq": 10,
    "fixed": 10,
    "set": 10,
    "map": 11,
    "any": 12,
}
# The JSON kinds of payload each shape kind can come from.
_JSON_KINDS = {
    "none": ("null",),
    "dataclass": ("object",),
    "bool": ("boolean",),
    "enum": ("text", "number"),
    "literal": ("text", "number", "boolean", "null"),
    "int": ("number",),
    "fraction": ("text",),
    "date": ("text",),
    "card": ("text",),
    "class": ("text",),
    "str": ("text",),
    "seq": ("array",),
    "fixed": ("array",),
    "set": ("array",),
    "map": ("object",),
    "any": ("text", "number", "boolean", "null"),
}


class Decoder(Protocol):
    """What :func:`decode_value` needs from a decode call."""

    def tagged(self, payload: object, path: str, allowed: tuple[type, ...] | None) -> Any: ...

    def class_named(self, name: object, path: str) -> type: ...


class _Unsupported(Exception):
    pass


def resolve_hints(cls: type) -> dict[str, Any]:
    """The resolved annotations of ``cls`` (raises what ``typing.get_type_hints`` raises)."""
    return typing.get_type_hints(cls)


def shape(tp: Any) -> Shape:
    """The shape of the declared type ``tp``; ``_Unsupported`` for a type the codec cannot
    store."""
    try:
        return _shape_cached(tp)
    except TypeError:  # an unhashable annotation
        return _shape(tp)


@cache
def _shape_cached(tp: Any) -> Shape:
    return _shape(tp)


def _shape(tp: Any) -> Shape:
    if tp is Any or tp is object:
        return ("any",)
    if tp is None or tp is type(None):
        return ("none",)
    supertype = getattr(tp, "__supertype__", None)  # typing.NewType
    if supertype is not None:
        return shape(supertype)
    origin, args = get_origin(tp), get_args(tp)
    if origin is Union or origin is types.UnionType:
        alts = tuple(sorted(args, key=lambda a: _ORDER[shape(a)[0]]))
        kinds = {shape(a)[0] for a in alts}
        return ("union", alts, "card" in kinds and "str" in kinds)
    if origin is Literal:
        return ("literal", args)
    simple = {bool: "bool", int: "int", str: "str", Fraction: "fraction", Card: "card"}
    if tp in simple:
        return (simple[tp],)
    if tp is date:
        return ("date",)
    if tp is type or origin is type:
        return ("class",)
    if isinstance(tp, type) and issubclass(tp, Enum):
        for member in tp:
            if isinstance(member.value, bool) or not isinstance(member.value, str | int):
                raise _Unsupported(tp)
        return ("enum", tp)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return ("dataclass", tp)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return ("seq", tuple, args[0])
        return ("fixed", args)
    if origin in (list, abc.Sequence, abc.MutableSequence) and len(args) == 1:
        return ("seq", list if origin is list else tuple, args[0])
    if origin in (frozenset, set, abc.Set, abc.MutableSet) and len(args) == 1:
        return ("set", set if origin in (set, abc.MutableSet) else frozenset, args[0])
    if origin in (dict, abc.Mapping, abc.MutableMapping) and len(args) == 2:
        if shape(args[0])[0] not in ("str", "int", "enum", "literal"):
            raise _Unsupported(tp)
        return ("map", args[0], args[1])
    raise _Unsupported(tp)


def type_label(tp: Any) -> str:
    """A readable name of the declared type ``tp`` (``tuple[Card, ...]``)."""
    if tp is type(None) or tp is None:
        return "None"
    if tp is Ellipsis:
        return "..."
    origin, args = get_origin(tp), get_args(tp)
    if origin is Union or origin is types.UnionType:
        return " | ".join(type_label(a) for a in args)
    if origin is Literal:
        return "Literal[" + ", ".join(repr(a) for a in args) + "]"
    if origin is not None:
        name = getattr(origin, "__name__", str(origin))
        return f"{name}[" + ", ".join(type_label(a) for a in args) + "]"
    return str(getattr(tp, "__name__", tp))


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def describe(value: object) -> str:
    """``value`` for a message, the same in every language: its JSON text when it has one
    (``"zz"``, ``null``, ``true``, ``[1, 2]``; a float as ``1.5``), else its ``repr``; at most 60
    characters. Never raises."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except Exception:  # not JSON (a Card, an object): its repr
        try:
            text = repr(value)
        except Exception:
            text = f"<{type(value).__name__}>"
    if len(text) > 60:
        text = text[:57] + "..."
    return text


def check_type(tp: Any, path: str, is_rules: Callable[[type], bool]) -> None:
    """Refuse (``CodecError``) a field type the codec cannot store, or a rules type anywhere
    but directly as a field (rules are stored by reference, beside a ``config_id``)."""
    try:
        sh = shape(tp)
    except _Unsupported:
        raise CodecError("core.codec_unsupported_type", path=path, type=type_label(tp)) from None
    kind = sh[0]
    if kind == "dataclass" and is_rules(sh[1]):
        raise CodecError("core.codec_rules_nested", path=path, type=type_label(tp))
    for part in _parts(sh):
        check_type(part, path, is_rules)


def _parts(sh: Shape) -> tuple[Any, ...]:
    kind = sh[0]
    if kind in ("union", "fixed"):
        return tuple(sh[1])
    if kind in ("seq", "set"):
        return (sh[2],)
    if kind == "map":
        return (sh[1], sh[2])
    return ()


def dataclasses_in(tp: Any) -> Iterator[type]:
    """The dataclasses a declared type refers to (not looking inside them)."""
    try:
        sh = shape(tp)
    except _Unsupported:
        return
    if sh[0] == "dataclass":
        yield sh[1]
    for part in _parts(sh):
        yield from dataclasses_in(part)


def is_rules_field(tp: Any, is_rules: Callable[[type], bool]) -> bool:
    """Whether ``tp`` is a rules type, or a rules type or ``None``."""
    return bool(non_none(tp)) and all(is_rules(c) for c in non_none(tp))


def non_none(tp: Any) -> tuple[type, ...]:
    """The dataclasses of ``tp`` when it is a dataclass or a union of dataclasses and
    ``None``; ``()`` otherwise."""
    try:
        sh = shape(tp)
    except _Unsupported:
        return ()
    if sh[0] == "dataclass":
        return (sh[1],)
    if sh[0] == "union":
        alts = [shape(a) for a in sh[1]]
        if all(a[0] in ("dataclass", "none") for a in alts):
            return tuple(a[1] for a in alts if a[0] == "dataclass")
    return ()


# -- encoding ---------------------------------------------------------------------------------

EncodeObject = Callable[[object, str], dict[str, Any]]
TypeName = Callable[[type], str]


def _wrong(path: str, tp: Any, value: object) -> CodecError:
    return CodecError(
        "core.codec_wrong_value", path=path, expected=type_label(tp), got=describe(value)
    )


def _accepts(value: object, sh: Shape) -> bool:
    kind = sh[0]
    if kind == "none":
        return value is None
    if kind in ("dataclass", "enum"):
        return isinstance(value, sh[1])
    if kind == "literal":
        return any(_same(value, a) for a in sh[1])
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "fraction":
        return isinstance(value, Fraction)
    if kind == "date":
        return isinstance(value, date) and not isinstance(value, datetime)
    if kind == "card":
        return isinstance(value, Card)
    if kind == "class":
        return isinstance(value, type)
    if kind == "str":
        return isinstance(value, str)
    if kind == "seq":
        return isinstance(value, list | tuple)
    if kind == "fixed":
        return isinstance(value, list | tuple) and len(value) == len(sh[1])
    if kind == "set":
        return isinstance(value, set | frozenset)
    if kind == "map":
        return isinstance(value, abc.Mapping)
    return value is None or isinstance(value, str | int)  # any: a JSON scalar


def _same(value: object, literal: object) -> bool:
    return value is literal or (type(value) is type(literal) and value == literal)


def _plain(value: object) -> object:
    return value.value if isinstance(value, Enum) else value


def encode_value(
    value: Any, tp: Any, path: str, encode_object: EncodeObject, type_name: TypeName
) -> Any:
    """``value`` (declared ``tp``) as JSON-ready data; ``CodecError`` if it does not fit."""
    sh = shape(tp)
    kind = sh[0]
    if kind == "union":
        for alt in sh[1]:
            alt_shape = shape(alt)
            if _accepts(value, alt_shape):
                out = encode_value(value, alt, path, encode_object, type_name)
                return {"text": out} if sh[2] and alt_shape[0] == "str" else out
        raise _wrong(path, tp, value)
    # (an int where a Fraction is declared is exact: it is stored as n/1)
    if not _accepts(value, sh) and not (kind == "fraction" and _accepts(value, ("int",))):
        raise _wrong(path, tp, value)
    if kind in ("none", "bool", "any"):
        return value
    if kind == "int":
        return int(value)
    if kind in ("str", "enum", "literal"):
        out = _plain(value)
        return str(out) if kind == "str" else out
    if kind == "fraction":
        f = Fraction(value)
        return f"{f.numerator}/{f.denominator}"
    if kind == "date":
        return value.isoformat()
    if kind == "card":
        return str(value)
    if kind == "class":
        try:
            return type_name(value)
        except CodecError:
            name = f"{value.__module__}.{value.__qualname__}"
            raise CodecError("core.codec_not_registered", path=path, type=name) from None
    if kind == "dataclass":
        return encode_object(value, path)
    if kind in ("seq", "set"):
        items = [
            encode_value(x, sh[2], f"{path}[{i}]", encode_object, type_name)
            for i, x in enumerate(value)
        ]
        if kind == "set":
            items.sort(key=lambda x: json.dumps(x, sort_keys=True, ensure_ascii=False))
        return items
    if kind == "fixed":
        return [
            encode_value(x, item, f"{path}[{i}]", encode_object, type_name)
            for i, (x, item) in enumerate(zip(value, sh[1], strict=True))
        ]
    out_map: dict[str, Any] = {}
    for key, item in value.items():
        where = f"{path}[{key!r}]"
        text = _encode_key(key, sh[1], where)
        if text in out_map:
            raise _wrong(where, sh[1], key)
        out_map[text] = encode_value(item, sh[2], where, encode_object, type_name)
    return out_map


class Mismatch(Exception):
    """A compiled encoder met a value off its fast path (a subclass, a wrong type, …): the
    caller encodes the whole value again through :func:`encode_value`, which gives the same
    result or the refusal naming the path."""


MISMATCH: Final = Mismatch()

Compiled = Callable[[Any], Any]
EncoderOf = Callable[[type], Compiled | None]
"""The compiled encoder of exactly that registered class (``None``: not registered)."""


def compile_encoder(tp: Any, encoder_of: EncoderOf, type_name: TypeName) -> Compiled:
    """A function encoding a value declared ``tp`` exactly as :func:`encode_value` does, for
    the values of the common exact types (``int``, ``str``, ``bool``, ``Card``, an enum, a
    registered dataclass, a tuple or list of them, …); anything else raises
    :class:`Mismatch` (no path is built on the fast path), so the caller falls back to
    :func:`encode_value`. Every check :func:`encode_value` makes is made here too."""
    sh = shape(tp)
    kind = sh[0]
    if kind in _EXACT_KINDS:
        exact = _EXACT_KINDS[kind]

        def same(x: Any) -> Any:
            if type(x) is exact:
                return x
            raise MISMATCH

        return same
    if kind == "none":

        def none(x: Any) -> Any:
            if x is None:
                return None
            raise MISMATCH

        return none
    if kind == "any":

        def scalar(x: Any) -> Any:
            if x is None or type(x) in _SCALARS:
                return x
            raise MISMATCH

        return scalar
    if kind == "card":

        def card(x: Any) -> Any:
            if type(x) is Card:
                return CARD_TEXT[x.index]
            raise MISMATCH

        return card
    if kind == "enum":
        enum = sh[1]

        def member(x: Any) -> Any:
            if type(x) is enum:
                return x._value_
            raise MISMATCH

        return member
    if kind == "dataclass":
        cls = sh[1]

        def nested(x: Any) -> Any:
            if type(x) is not cls:
                raise MISMATCH
            encoder = encoder_of(cls)
            if encoder is None:
                raise MISMATCH
            return encoder(x)

        return nested
    if kind == "seq":
        item = compile_encoder(sh[2], encoder_of, type_name)

        def seq(x: Any) -> Any:
            if type(x) is not tuple and type(x) is not list:
                raise MISMATCH
            return [item(e) for e in x]

        return seq
    if kind == "fixed":
        items = tuple(compile_encoder(a, encoder_of, type_name) for a in sh[1])
        size = len(items)

        def fixed(x: Any) -> Any:
            if (type(x) is not tuple and type(x) is not list) or len(x) != size:
                raise MISMATCH
            return [f(e) for f, e in zip(items, x, strict=True)]

        return fixed
    if kind == "union":
        return _compile_union(sh, encoder_of, type_name)
    return _generic(tp, type_name)  # sets, maps, fractions, dates, literals, classes: rare


def inline_form(tp: Any) -> tuple[str, Any] | None:
    """How a class encoder written out as code (``codec.Registry._compile``) encodes a field
    declared ``tp`` without calling its :func:`compile_encoder` function, or ``None`` (it
    calls it): ``("exact", cls)`` — a value of exactly ``cls`` (``int``, ``str``, ``bool``) is
    itself; ``("optional", cls)`` — the same or ``None`` (``int | None``: the union's encoder
    gives the same); ``("card", Card)`` — a ``Card`` is its text; ``("enum", cls)`` — a member of
    exactly ``cls`` is its value. Anything else there raises :data:`MISMATCH`, as the
    function would."""
    sh = shape(tp)
    kind = sh[0]
    if kind in _EXACT_KINDS:
        return "exact", _EXACT_KINDS[kind]
    if kind == "card":
        return "card", Card
    if kind == "enum":
        return "enum", sh[1]
    if kind == "union" and not sh[2] and len(sh[1]) == 2:
        kinds = [shape(a)[0] for a in sh[1]]
        if kinds[0] == "none" and kinds[1] in _EXACT_KINDS:
            return "optional", _EXACT_KINDS[kinds[1]]
    return None


def _compile_union(sh: Shape, encoder_of: EncoderOf, type_name: TypeName) -> Compiled:
    """The first alternative (in :data:`_ORDER`) that accepts the value encodes it, as in
    :func:`encode_value`; a ``str`` beside a ``Card`` is wrapped as ``{"text": …}``."""
    alts = tuple(
        (shape(a), compile_encoder(a, encoder_of, type_name), sh[2] and shape(a)[0] == "str")
        for a in sh[1]
    )

    def union(x: Any) -> Any:
        for alt_shape, encoder, wrap in alts:
            if _accepts(x, alt_shape):
                out = encoder(x)
                return {"text": out} if wrap else out
        raise MISMATCH

    return union


def _generic(tp: Any, type_name: TypeName) -> Compiled:
    def refuse_nested(value: object, path: str) -> dict[str, Any]:
        raise MISMATCH  # a dataclass inside a set or a map: the caller's full path

    def generic(x: Any) -> Any:
        try:
            return encode_value(x, tp, "$", refuse_nested, type_name)
        except CodecError:
            raise MISMATCH from None

    return generic


_EXACT_KINDS: Final = {"int": int, "str": str, "bool": bool}
_SCALARS: Final = frozenset({str, int, bool})
CARD_TEXT: Final = tuple(str(c) for c in DECK)
"""Each card's text by its index."""


def _encode_key(key: Any, tp: Any, path: str) -> str:
    if not _accepts(key, shape(tp)):
        raise _wrong(path, tp, key)
    plain: Any = _plain(key)
    return plain if isinstance(plain, str) else str(int(plain))


# -- decoding ---------------------------------------------------------------------------------


def decode_value(payload: Any, tp: Any, path: str, decoder: Decoder) -> Any:
    """The value ``payload`` stands for under the declared type ``tp``; ``CodecError``
    naming ``path`` otherwise."""
    sh = shape(tp)
    kind = sh[0]
    if kind == "union":
        return _decode_union(payload, tp, sh, path, decoder)
    if _json_kind(payload) not in _JSON_KINDS[kind]:
        raise _wrong(path, tp, payload)
    if kind in ("none", "bool", "any"):
        return payload
    if kind == "int":
        return int(payload)
    if kind == "str":
        return str(payload)
    if kind == "enum":
        member = sh[1]._value2member_map_.get(payload)
        if member is None or isinstance(member.value, str) != isinstance(payload, str):
            raise _wrong(path, tp, payload)
        return member
    if kind == "literal":
        for literal in sh[1]:
            if _same(payload, _plain(literal)):
                return literal
        raise _wrong(path, tp, payload)
    if kind in ("fraction", "date"):
        return _decode_text(payload, kind, tp, path)
    if kind == "card":
        try:
            return Card.parse(payload)
        except ParseError:
            raise CodecError("core.codec_bad_card", path=path, got=describe(payload)) from None
    if kind == "class":
        return decoder.class_named(payload, path)
    if kind == "dataclass":
        return decoder.tagged(payload, path, (sh[1],))
    if kind in ("seq", "set"):
        items = [decode_value(x, sh[2], f"{path}[{i}]", decoder) for i, x in enumerate(payload)]
        try:
            return sh[1](items)
        except TypeError:  # a set of unhashable values
            raise _wrong(path, tp, payload) from None
    if kind == "fixed":
        if len(payload) != len(sh[1]):
            raise _wrong(path, tp, payload)
        return tuple(
            decode_value(x, item, f"{path}[{i}]", decoder)
            for i, (x, item) in enumerate(zip(payload, sh[1], strict=True))
        )
    out: dict[Any, Any] = {}
    for key, item in payload.items():
        where = f"{path}[{key!r}]"
        out[_decode_key(key, sh[1], where)] = decode_value(item, sh[2], where, decoder)
    return out


def _decode_text(payload: object, kind: str, tp: Any, path: str) -> Any:
    text = str(payload)
    try:
        if kind == "fraction" and _FRACTION.fullmatch(text):
            num, den = text.split("/")
            if int(den) > 0:
                return Fraction(int(num), int(den))
        if kind == "date" and _DATE.fullmatch(text):
            return date.fromisoformat(text)
    except ValueError:
        pass
    raise _wrong(path, tp, payload)


def _decode_key(key: object, tp: Any, path: str) -> Any:
    if not isinstance(key, str):
        raise _wrong(path, tp, key)
    sh = shape(tp)
    if sh[0] == "str":
        return key
    if sh[0] == "int":
        if _INT_KEY.fullmatch(key):
            return int(key)
        raise _wrong(path, tp, key)
    for candidate in sh[1] if sh[0] == "literal" else list(sh[1]):
        plain = _plain(candidate)
        if isinstance(plain, str | int) and not isinstance(plain, bool) and str(plain) == key:
            return candidate
    raise _wrong(path, tp, key)


def _decode_union(payload: object, tp: Any, sh: Shape, path: str, decoder: Decoder) -> Any:
    """A union dispatched on the payload: a tagged object by its ``type`` tag among the
    union's dataclasses; any other value by its JSON kind (an enum or a literal only where one
    of its values is of that kind: a number is never tried as an enum of texts). A member is
    tried and another one after it only where the kind leaves more than one (none of the
    registered types declares such a union: a test checks it); the refusal is the one the
    union gave before (the member's own where the kind allowed one member, else the union's).
    """
    card_or_str = sh[2]
    if card_or_str and isinstance(payload, dict) and set(payload) == {"text"}:
        text = payload["text"]
        if isinstance(text, str):
            return text
    kind = _json_kind(payload)
    plan = union_plan(sh)
    classes = plan.classes if kind == "object" else ()
    if classes and isinstance(payload, dict) and "type" in payload:
        return decoder.tagged(payload, path, classes)
    wide, narrow = plan.by_kind.get(kind, ((), ()))
    if len(narrow) > 1 and told_by_value(narrow):
        narrow = (pick_by_value(narrow, payload),)
    if len(wide) == 1:
        return decode_value(payload, wide[0], path, decoder)
    if len(narrow) == 1:
        try:
            return decode_value(payload, narrow[0], path, decoder)
        except CodecError:
            pass
    else:
        for alt in narrow:  # a kind that leaves several members (see the docstring)
            try:
                return decode_value(payload, alt, path, decoder)
            except CodecError:
                continue
    if card_or_str and kind == "text":
        raise CodecError("core.codec_bad_card", path=path, got=describe(payload))
    raise _wrong(path, tp, payload)


@dataclasses.dataclass(frozen=True, slots=True)
class UnionPlan:
    """How a union is dispatched: ``classes`` its dataclasses (a tagged object is decoded by
    its tag among them); ``by_kind`` JSON kind → ``(wide, narrow)``: the members other than
    dataclasses whose shape admits that kind (what was tried before, in order) and among them
    those that can hold a value of that kind (an enum by its values' types, a literal by its
    values')."""

    classes: tuple[type, ...]
    by_kind: dict[str, tuple[tuple[Any, ...], tuple[Any, ...]]]


def told_by_value(narrow: tuple[Any, ...]) -> bool:
    """Whether the members ``narrow`` (several, for one JSON kind) are told apart by the
    payload's value: all but the last are enums or literals (``str | Dealer``: the text
    ``"dealer"`` is the member, any other text the ``str``)."""
    return all(shape(a)[0] in ("enum", "literal") for a in narrow[:-1])


def pick_by_value(narrow: tuple[Any, ...], payload: object) -> Any:
    """The member of ``narrow`` (:func:`told_by_value`) a scalar ``payload`` is: the first
    enum or literal that has it as a value, else the last member."""
    for alt in narrow[:-1]:
        sh = shape(alt)
        if sh[0] == "enum":
            member = sh[1]._value2member_map_.get(payload)
            if member is not None and isinstance(member.value, str) == isinstance(payload, str):
                return alt
        elif any(_same(payload, _plain(v)) for v in sh[1]):
            return alt
    return narrow[-1]


_KINDS_OF_VALUE: Final = {str: "text", int: "number", bool: "boolean", type(None): "null"}


def _holds(sh: Shape, kind: str) -> bool:
    """Whether a member of shape ``sh`` can hold a JSON value of ``kind`` at all."""
    if sh[0] == "enum":
        return any(_KINDS_OF_VALUE.get(type(m.value)) == kind for m in sh[1])
    if sh[0] == "literal":
        return any(_KINDS_OF_VALUE.get(type(_plain(v))) == kind for v in sh[1])
    return True


def union_plan(sh: Shape) -> UnionPlan:
    """The :class:`UnionPlan` of the union shape ``sh`` (made once per union)."""
    try:
        return _union_plan_cached(sh)
    except TypeError:  # an unhashable annotation
        return _union_plan(sh)


@cache
def _union_plan_cached(sh: Shape) -> UnionPlan:
    return _union_plan(sh)


def _union_plan(sh: Shape) -> UnionPlan:
    alts, card_or_str = sh[1], sh[2]
    classes = tuple(shape(a)[1] for a in alts if shape(a)[0] == "dataclass")
    by_kind: dict[str, tuple[tuple[Any, ...], tuple[Any, ...]]] = {}
    for kind in ("null", "boolean", "number", "text", "array", "object"):
        wide = tuple(
            a
            for a in alts
            if kind in _JSON_KINDS[shape(a)[0]]
            and shape(a)[0] != "dataclass"
            and not (card_or_str and shape(a)[0] == "str")
        )
        narrow = tuple(a for a in wide if _holds(shape(a), kind))
        by_kind[kind] = (wide, narrow)
    return UnionPlan(classes, by_kind)


# -- the compiled decoders ----------------------------------------------------------------------

FastDecoder = Callable[[Any, Any], Any]
"""``(payload, decoder) -> value``: a compiled decoder of one declared type (see
:func:`compile_decoder`)."""


class FastDecoding(Protocol):
    """What a compiled decoder needs from the decode call (``codec._Decoder``)."""

    def fast_tagged(self, payload: object, table: dict[str, type]) -> Any: ...


TableOf = Callable[[tuple[type, ...]], dict[str, type]]
"""The registered names → classes among the subclasses of any of the given dataclasses."""

CARD_BY_TEXT: Final = {str(c): c for c in DECK}


def compile_decoder(tp: Any, table_of: TableOf) -> FastDecoder:
    """A function decoding a payload declared ``tp`` exactly as :func:`decode_value` does,
    for the payloads of the common forms (what the codec writes); anything else raises (it
    builds no path and renders no message: :data:`MISMATCH`, or whatever a check raised), and
    the caller decodes the whole payload again through :func:`decode_value`, which gives the
    value or the refusal naming the path."""
    sh = shape(tp)
    kind = sh[0]
    if kind in _EXACT_KINDS:
        exact = _EXACT_KINDS[kind]

        def same(x: Any, d: Any) -> Any:
            if type(x) is exact:
                return x
            raise MISMATCH

        return same
    if kind == "none":

        def none(x: Any, d: Any) -> Any:
            if x is None:
                return None
            raise MISMATCH

        return none
    if kind == "any":

        def scalar(x: Any, d: Any) -> Any:
            if x is None or type(x) in _SCALARS:
                return x
            raise MISMATCH

        return scalar
    if kind == "card":

        def card(x: Any, d: Any) -> Any:
            if type(x) is not str:
                raise MISMATCH
            return CARD_BY_TEXT.get(x) or Card.parse(x)

        return card
    if kind == "enum":
        members = sh[1]._value2member_map_

        def member(x: Any, d: Any) -> Any:
            if type(x) is not str and type(x) is not int:
                raise MISMATCH
            found = members.get(x)
            if found is None or isinstance(found.value, str) != (type(x) is str):
                raise MISMATCH
            return found

        return member
    if kind == "dataclass":
        table = table_of((sh[1],))

        def nested(x: Any, d: Any) -> Any:
            return d.fast_tagged(x, table)

        return nested
    if kind in ("seq", "set"):
        item, make = compile_decoder(sh[2], table_of), sh[1]

        def seq(x: Any, d: Any) -> Any:
            if type(x) is not list and type(x) is not tuple:
                raise MISMATCH
            return make([item(e, d) for e in x])

        return seq
    if kind == "fixed":
        items = tuple(compile_decoder(a, table_of) for a in sh[1])
        size = len(items)

        def fixed(x: Any, d: Any) -> Any:
            if (type(x) is not list and type(x) is not tuple) or len(x) != size:
                raise MISMATCH
            return tuple(f(e, d) for f, e in zip(items, x, strict=True))

        return fixed
    if kind == "map" and shape(sh[1])[0] == "str":
        value = compile_decoder(sh[2], table_of)

        def text_map(x: Any, d: Any) -> Any:
            if type(x) is not dict:
                raise MISMATCH
            out = {}
            for k, v in x.items():
                if type(k) is not str:
                    raise MISMATCH
                out[k] = value(v, d)
            return out

        return text_map
    if kind == "union":
        return _compile_union_decoder(tp, sh, table_of)
    return _general(tp)  # other maps, fractions, dates, literals, classes: rare


def _general(tp: Any) -> FastDecoder:
    def general(x: Any, d: Any) -> Any:
        return decode_value(x, tp, "$", d)  # (a refusal: the caller decodes again with paths)

    return general


def _by_value(narrow: tuple[Any, ...], table_of: TableOf) -> FastDecoder:
    decoders = {alt: compile_decoder(alt, table_of) for alt in narrow}

    def by_value(x: Any, d: Any) -> Any:
        return decoders[pick_by_value(narrow, x)](x, d)

    return by_value


def _compile_union_decoder(tp: Any, sh: Shape, table_of: TableOf) -> FastDecoder:
    """By the payload's Python type (its JSON kind): the one member that can hold it, a tagged
    object by its tag among the union's dataclasses; a kind that leaves several members goes
    through :func:`decode_value`."""
    plan = union_plan(sh)
    card_or_str = sh[2]
    table = table_of(plan.classes) if plan.classes else {}
    by_type: dict[type, FastDecoder] = {}
    for kind, pytypes in (
        ("null", (type(None),)),
        ("boolean", (bool,)),
        ("number", (int,)),
        ("text", (str,)),
        ("array", (list, tuple)),
    ):
        narrow = plan.by_kind[kind][1]
        if len(narrow) == 1:
            decoder = compile_decoder(narrow[0], table_of)
        elif not narrow:
            continue
        elif told_by_value(narrow):
            decoder = _by_value(narrow, table_of)
        else:
            decoder = _general(tp)
        for pytype in pytypes:
            by_type[pytype] = decoder
    objects = plan.by_kind["object"][1]
    other = compile_decoder(objects[0], table_of) if len(objects) == 1 else None

    def union(x: Any, d: Any) -> Any:
        if type(x) is dict:
            if card_or_str and len(x) == 1 and isinstance(x.get("text"), str):
                return x["text"]
            if table and "type" in x:
                return d.fast_tagged(x, table)
            if other is None:
                raise MISMATCH
            return other(x, d)
        decoder = by_type.get(type(x))
        if decoder is None:
            raise MISMATCH
        return decoder(x, d)

    return union

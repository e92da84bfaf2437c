"""Storable values: one generic JSON codec for the commands, events and values of both games.

:func:`encode` turns a registered dataclass into a JSON-ready ``dict`` (only ``str``, ``int``,
``bool``, ``None``, lists and dicts), :func:`decode` reads it back, :func:`canonical_bytes` and
:func:`sha256` give the bytes and digest to hash or sign. Nothing is written per class: the
codec follows each dataclass's fields and their annotations (``typing.get_type_hints``).

A payload is ``{"type": "<namespace>.<ClassName>", "v": <schema version>, <field>: <value>,
…}``. Values by declared type:

* nested dataclass → the same tagged object (so a union of dataclasses decodes by its tag);
* ``Enum`` → its value (:data:`~macau_tables.rounds.DEALER` → ``"dealer"``);
  ``Card`` → its text (``"As"``, ``"Th"``: :meth:`Card.parse` / ``str(card)``);
  ``date`` → ISO text; ``Fraction`` → ``"n/d"``; ``type`` (``Expected.commands``) → its codec name;
* ``tuple``/``list``/``Sequence`` → list; ``frozenset`` → list sorted by canonical bytes;
  ``Mapping`` → object with text keys (an enum key by its value, an int key as decimal text);
* a ``str`` in a union that also admits a ``Card`` → ``{"text": "…"}`` (so a card given as text
  stays text: ``decode(encode(x)) == x`` exactly);
* ``object`` / ``Any`` fields (an approval's value) → a JSON scalar (``str``, ``int``, ``bool``,
  ``None``); ``float`` is never stored (money is ``int`` minor units).

A union is read by the payload's JSON kind and then in a fixed order (``None``, dataclasses by
their tag, ``bool``, enums and literals, ``int``, ``Fraction``, ``date``, ``Card``, ``type``,
``str``): declare unions whose members the payload tells apart (``Card | str`` is handled as
above; a plain ``str`` beside a ``Fraction`` or a ``date`` is not).

Names and versions: :func:`register` ``(namespace, types)`` names each class
``"<namespace>.<ClassName>"``. The default registry is built on first use: the core types
(namespace ``core``), then every game package's ``CODEC_TYPES`` (``caribbean``, ``baccarat``).
A class's schema version is its ``__codec_version__`` (default 1). Decoding refuses a version
newer than the class's ("written by a newer version: upgrade"); an older one is read only
through the class's ``__codec_migrate__(fields, version) -> fields`` classmethod, if it has one.
A field added with a default may be absent from a payload (that is a compatible change); any
other change of meaning bumps ``__codec_version__``. A class may name, in
``__codec_omit_default__`` (a ``frozenset`` of field names), fields added after values of it
were stored and hashed: such a field is written only when it differs from its default, so a
value that keeps the default encodes (and hashes) exactly as it did before the field existed
— a stored configuration still matches the digests its events recorded.

Rules by reference: a registered dataclass whose class name ends with ``"Rules"``
(``CaribbeanRules``, ``BaccaratRules``; a class attribute ``__codec_rules__`` overrides the
name) is a *rules type*. ``encode(rules)`` writes it whole; inside any other dataclass a field of
a rules type is written as ``{"config_id": <that dataclass's config_id field>, "sha256":
sha256(rules)}`` (:class:`RulesRef`), so an event log names the configuration it ran under
without embedding it. ``decode(payload, rules=R)`` puts the rules object back: ``R`` maps a
config id to its rules (a ``Mapping`` or a callable); the rules found must hash to the stored
digest, else the payload is refused (a tampered or changed configuration).

Every refusal is a :class:`~macau_tables.errors.CodecError` (a ``ValueError``) whose
``params["path"]`` says where (``$.settlement.wagers[2].stake``): never a ``KeyError`` or
``TypeError``, whatever JSON-like value is given.

>>> from macau_tables.jackpot import Meter
>>> encode(Meter(1_000, 500))
{'type': 'core.Meter', 'v': 1, 'amount': 1000, 'seed': 500}
>>> decode({"type": "core.Meter", "v": 1, "amount": 1000, "seed": 500})
Meter(amount=1000, seed=500)
>>> canonical_bytes(Meter(1_000, 500))
b'{"amount":1000,"seed":500,"type":"core.Meter","v":1}'
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import json.encoder
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, Final

from . import _codec_types as t
from .cards import Card
from .errors import CodecError, MacauTablesError
from .rounds import slot_builder

__all__ = [
    "Registry",
    "RulesRef",
    "RulesResolver",
    "canonical_bytes",
    "canonical_json",
    "core_types",
    "decode",
    "default_registry",
    "encode",
    "is_rules_type",
    "register",
    "rules_ref",
    "sha256",
    "stored_rules_refs",
    "type_name",
]

RulesResolver = Mapping[str, Any] | Callable[[str], Any]
"""How :func:`decode` finds a configuration's rules: ``{config_id: rules}`` or a function."""

_TYPE: Final = "type"
_VERSION: Final = "v"
_REF_KEYS: Final = frozenset({"config_id", "sha256"})
_JSON: Final = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)
_MAKE_C_JSON: Final = getattr(json.encoder, "c_make_encoder", None)
_C_JSON: Final = (
    None
    if _MAKE_C_JSON is None
    else _MAKE_C_JSON(
        None, _JSON.default, json.encoder.encode_basestring, None, ":", ",", True, False, False
    )
)


def canonical_json(value: object) -> str:
    """``json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
    allow_nan=False)``: the canonical JSON text (the codec's, the store's digests'). Raises
    what ``json.dumps`` raises for what JSON cannot hold (``TypeError``, ``ValueError``; a
    structure containing itself: ``RecursionError``).

    The C encoder ``json.dumps`` would build for these settings on every call is built once
    (``json.encoder.c_make_encoder``; without it, ``json.JSONEncoder`` does the same)."""
    if _C_JSON is None:  # pragma: no cover - a Python without the json C accelerator
        return _JSON.encode(value)
    return "".join(_C_JSON(value, 0))


def is_rules_type(cls: type) -> bool:
    """Whether ``cls`` is a rules type (stored by reference inside other values): its
    ``__codec_rules__`` attribute if it has one, else whether its name ends with ``"Rules"``."""
    flag = getattr(cls, "__codec_rules__", None)
    if isinstance(flag, bool):
        return flag
    return dataclasses.is_dataclass(cls) and cls.__name__.endswith("Rules")


@dataclass(frozen=True, slots=True)
class RulesRef:
    """A reference to a table's rules: its configuration id and the SHA-256 of its encoding."""

    config_id: str
    sha256: str

    def matches(self, rules: object, registry: Registry | None = None) -> bool:
        """Whether ``rules`` is the configuration referred to (same digest)."""
        return (registry or default_registry()).sha256(rules) == self.sha256


def rules_ref(rules: object, config_id: str, registry: Registry | None = None) -> RulesRef:
    """The reference to ``rules`` under ``config_id`` (what an event stores instead of them)."""
    return RulesRef(config_id, (registry or default_registry()).sha256(rules))


def stored_rules_refs(payload: object) -> Iterator[tuple[str, str]]:
    """Every rules reference ``(config_id, sha256)`` inside an encoded ``payload`` (a
    ``{config_id, sha256}`` object, as :func:`encode` writes a rules field), for checking a
    stored log against its stored configurations without decoding it."""
    if isinstance(payload, dict):
        if set(payload) == {"config_id", "sha256"}:
            yield str(payload["config_id"]), str(payload["sha256"])
            return
        for inner in payload.values():
            yield from stored_rules_refs(inner)
    elif isinstance(payload, list):
        for inner in payload:
            yield from stored_rules_refs(inner)


@dataclass(frozen=True, slots=True)
class _Info:
    name: str
    cls: type
    version: int
    fields: tuple[tuple[str, Any], ...]  # (name, declared type) of the init fields
    required: frozenset[str]
    rules_fields: frozenset[str]
    fast: tuple[tuple[str, Any, Any, Any], ...] = ()
    """Per field: ``(name, declared type, exact class encoded as is or None, None allowed)``
    — values of exactly that class (or ``None`` where allowed) skip the general encoder."""
    omit: tuple[tuple[str, Any], ...] = ()
    """``(field, default)`` written only when the value differs from the default
    (``__codec_omit_default__``)."""
    names: frozenset[str] = frozenset()
    """The init fields' names."""


class Registry:
    """Names ↔ dataclasses, with each class's fields and schema version.

    :meth:`register` refuses (``CodecError``) a class that is not a dataclass, a name already
    taken by another class, a field named ``type`` or ``v``, annotations that do not resolve at
    run time, a field type the codec cannot store, and a rules field without a ``config_id``
    field beside it.
    """

    def __init__(self) -> None:
        self._by_name: dict[str, _Info] = {}
        self._by_class: dict[type, _Info] = {}
        self._digests: dict[int, tuple[object, str]] = {}  # id(rules) -> (rules, sha256)
        self._compiled: dict[type, t.Compiled] = {}  # class -> its compiled encoder
        self._decoders: dict[type, t.FastDecoder] = {}  # class -> its compiled decoder
        self._tables: dict[tuple[type, ...], dict[str, type]] = {}  # see _table_of
        self._checked: dict[tuple[str, str], object] = {}  # (config_id, sha256) -> rules

    def register(self, namespace: str, types: Iterable[type]) -> None:
        """Register ``types`` as ``"<namespace>.<ClassName>"`` (registering again is a no-op;
        an ``Enum`` class is accepted and needs nothing: it is stored by value)."""
        for cls in types:
            if isinstance(cls, type) and issubclass(cls, Enum):
                continue
            if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
                raise CodecError("core.codec_not_dataclass", path=namespace, type=repr(cls))
            name = f"{namespace}.{cls.__name__}"
            known = self._by_name.get(name)
            if known is not None:
                if known.cls is cls:
                    continue
                raise CodecError("core.codec_name_taken", path=name, type=repr(cls))
            info = _describe_class(name, cls)
            self._by_name[name] = info
            self._by_class[cls] = info
            self._decoders.clear()  # (their tag tables name the classes registered then)
            self._tables.clear()

    def names(self) -> tuple[str, ...]:
        """Every registered name, sorted."""
        return tuple(sorted(self._by_name))

    def type_name(self, cls: type) -> str:
        """The codec name of ``cls``; ``CodecError`` if it is not registered."""
        info = self._by_class.get(cls)
        if info is None:
            raise CodecError("core.codec_not_registered", path="$", type=_qualname(cls))
        return info.name

    def class_named(self, name: str) -> type:
        """The class registered as ``name``; ``CodecError`` if none is."""
        info = self._by_name.get(name)
        if info is None:
            raise CodecError("core.codec_unknown_type", path="$", type=repr(name))
        return info.cls

    def _name_or_qualname(self, cls: type) -> str:
        info = self._by_class.get(cls)
        return info.name if info is not None else _qualname(cls)

    def check(self) -> None:
        """Refuse (``CodecError``) a registered class whose fields name a dataclass that is not
        registered: every value reachable from a registered class can then be stored."""
        for info in self._by_name.values():
            for field, tp in info.fields:
                for cls in t.dataclasses_in(tp):
                    if cls not in self._by_class:
                        raise CodecError(
                            "core.codec_not_registered",
                            path=f"{info.name}.{field}",
                            type=_qualname(cls),
                        )

    # -- encoding ---------------------------------------------------------------------------

    def encode(self, value: object) -> dict[str, Any]:
        """``value`` (an instance of a registered dataclass) as a JSON-ready ``dict``.

        Refuses (``CodecError``) an unregistered class or a field value that does not fit its
        declared type (what could not be read back is never written).
        """
        encoder = self._encoder_of(type(value))
        if encoder is not None:
            try:
                out: dict[str, Any] = encoder(value)
                return out
            except t.Mismatch:
                pass  # off the compiled path: the general encoder (same result, or the refusal)
        return self._encode_object(value, "$")

    def _encoder_of(self, cls: type) -> t.Compiled | None:
        """The compiled encoder of exactly ``cls`` (built on first use; ``None``: not
        registered)."""
        encoder = self._compiled.get(cls)
        if encoder is None:
            info = self._by_class.get(cls)
            if info is None:
                return None
            encoder = self._compiled[cls] = self._compile(info)
        return encoder

    def _compile(self, info: _Info) -> t.Compiled:
        """``info``'s class encoded through a plan made once: per field, its compiled encoder
        (:func:`~._codec_types.compile_encoder`), or the rules reference. What
        :meth:`_encode_object` does, without building paths; off its path (a subclass, a
        value of the wrong type) it raises ``Mismatch`` and :meth:`encode` starts again
        through :meth:`_encode_object`.

        The plan is written out as the code of one function (as ``dataclasses`` writes a
        class's ``__init__``): each field read once; an exact ``int``/``str``/``bool`` field
        (or its ``… | None``), a card or an enum checked and converted in line
        (:func:`~._codec_types.inline_form`); any other field through its compiled encoder;
        the dict built at once. Field names are identifiers (dataclass fields), written as
        attribute names and as ``repr`` keys."""
        env: dict[str, Any] = {
            "MISMATCH": t.MISMATCH,
            "CARD_TEXT": t.CARD_TEXT,
            "NAME": info.name,
            "VERSION": info.version,
            "digest": self._rules_digest,
        }
        body: list[str] = []
        items = [f"{_TYPE!r}: NAME", f"{_VERSION!r}: VERSION"]
        for i, (field, tp) in enumerate(info.fields):
            v, cls, enc = f"f{i}", f"C{i}", f"E{i}"
            body.append(f"{v} = value.{field}")
            form = None if field in info.rules_fields else t.inline_form(tp)
            if form is None:
                env[enc] = t.compile_encoder(tp, self._encoder_of, self.type_name)
            if field in info.rules_fields:
                env[cls] = t.non_none(tp)
                body += [
                    f"if {v} is None:",
                    f"    {v} = {enc}(None)",
                    "else:",
                    "    config_id = getattr(value, 'config_id', None)",
                    f"    if type(config_id) is not str or not isinstance({v}, {cls}):",
                    "        raise MISMATCH",
                    f"    {v} = {{'config_id': config_id, 'sha256': digest({v})}}",
                ]
            elif form is None:
                body.append(f"{v} = {enc}({v})")
            else:
                how, env[cls] = form
                if how == "exact":
                    body.append(f"if type({v}) is not {cls}: raise MISMATCH")
                elif how == "optional":
                    body.append(f"if {v} is not None and type({v}) is not {cls}: raise MISMATCH")
                elif how == "card":
                    body += [
                        f"if type({v}) is not {cls}: raise MISMATCH",
                        f"{v} = CARD_TEXT[{v}.index]",
                    ]
                else:  # an enum
                    body += [f"if type({v}) is not {cls}: raise MISMATCH", f"{v} = {v}._value_"]
            items.append(f"{field!r}: {v}")
        body.append("out = {" + ", ".join(items) + "}")
        env["OMIT"] = info.omit
        if info.omit:
            body += [
                "for name, default in OMIT:",
                "    if getattr(value, name) == default:",
                "        del out[name]",
            ]
        body.append("return out")
        encode: t.Compiled = _written("encode", "value", body, env, info.name)
        return encode

    def _info_of(self, value: object, path: str) -> _Info:
        info = self._by_class.get(type(value))
        if info is None:
            raise CodecError("core.codec_not_registered", path=path, type=_qualname(type(value)))
        return info

    def _encode_object(self, value: object, path: str) -> dict[str, Any]:
        info = self._info_of(value, path)
        out: dict[str, Any] = {_TYPE: info.name, _VERSION: info.version}
        for field, tp, exact, optional in info.fast:
            item = getattr(value, field)
            if item is None and optional:
                out[field] = None
                continue
            if exact is not None and type(item) is exact:
                out[field] = item  # an int, str or bool where one is declared: itself
                continue
            where = f"{path}.{field}"
            if field in info.rules_fields and item is not None:
                config_id = getattr(value, "config_id", None)
                if not isinstance(config_id, str):
                    raise CodecError(
                        "core.codec_wrong_value",
                        path=f"{path}.config_id",
                        expected="str",
                        got=t.describe(config_id),
                    )
                if not isinstance(item, t.non_none(tp)):
                    raise _wrong(where, tp, item)
                out[field] = {"config_id": config_id, "sha256": self._rules_digest(item)}
            else:
                out[field] = t.encode_value(item, tp, where, self._encode_object, self.type_name)
        for name, default in info.omit:
            if getattr(value, name) == default:
                del out[name]
        return out

    def _rules_digest(self, rules: object) -> str:
        """The SHA-256 of ``rules`` (frozen: computed once per object, not per event)."""
        known = self._digests.get(id(rules))
        if known is not None and known[0] is rules:
            return known[1]
        digest = self.sha256(rules)
        if len(self._digests) >= 256:
            self._digests.clear()
        self._digests[id(rules)] = (rules, digest)
        return digest

    def canonical_bytes(self, value: object) -> bytes:
        """The canonical UTF-8 JSON of ``value`` (encoded first when it is a dataclass):
        sorted keys, no insignificant whitespace. Refuses (``CodecError``) what JSON cannot
        hold (a float NaN, an object)."""
        data = (
            self.encode(value)
            if type(value) in self._by_class or dataclasses.is_dataclass(value)
            else value
        )
        try:
            text = canonical_json(data)
        except (TypeError, ValueError, RecursionError) as exc:
            raise CodecError("core.codec_not_json", path="$", got=str(exc)) from None
        return text.encode("utf-8")

    def sha256(self, value: object) -> str:
        """SHA-256 (hex) of :meth:`canonical_bytes`."""
        return hashlib.sha256(self.canonical_bytes(value)).hexdigest()

    # -- decoding ---------------------------------------------------------------------------

    def decode(
        self,
        payload: object,
        *,
        rules: RulesResolver | None = None,
        expect: type | tuple[type, ...] | None = None,
    ) -> Any:
        """The value ``payload`` (an :meth:`encode` result) stands for.

        ``rules`` resolves the rules references of events (see the module docstring);
        ``expect`` optionally restricts the top-level class. Refuses (``CodecError`` naming the
        path) anything else: not an object, an unknown type, a missing or extra field, a wrong
        value, a newer schema version, bad card text, rules that do not match.
        """
        allowed = (expect,) if isinstance(expect, type) else expect
        decoder = _Decoder(self, rules)
        if type(payload) is dict:
            name = payload.get(_TYPE)
            info = self._by_name.get(name) if type(name) is str else None
            if info is not None and (allowed is None or issubclass(info.cls, allowed)):
                try:
                    return self._decoder_of(info.cls)(payload, decoder)
                except Exception:  # off the compiled path: decoded again, naming the path
                    pass
        try:
            return decoder.tagged(payload, "$", allowed)
        except RecursionError:
            raise CodecError("core.codec_too_deep", path="$") from None

    def _table_of(self, classes: tuple[type, ...]) -> dict[str, type]:
        """The registered names → classes that a payload declared as one of ``classes`` may
        be tagged with (the registered subclasses of any of them)."""
        table = self._tables.get(classes)
        if table is None:
            table = self._tables[classes] = {
                name: info.cls
                for name, info in self._by_name.items()
                if issubclass(info.cls, classes)
            }
        return table

    def _decoder_of(self, cls: type) -> t.FastDecoder:
        """The compiled decoder of the registered ``cls`` (built on first use)."""
        decoder = self._decoders.get(cls)
        if decoder is None:
            decoder = self._decoders[cls] = self._compile_decoder(self._by_class[cls])
        return decoder

    def _compile_decoder(self, info: _Info) -> t.FastDecoder:
        """``info``'s class decoded through a plan made once: per field its compiled decoder
        (:func:`~._codec_types.compile_decoder`), a rules reference resolved and its digest
        checked once per ``(config_id, sha256)``. What :meth:`_Decoder.tagged` does for a
        payload of the current version, building no path and rendering no message; anything
        else (an older version, a missing or extra field, a wrong value, a refusal of the
        class) raises, and :meth:`decode` decodes again through :meth:`_Decoder.tagged`,
        which gives the value or the refusal naming the path.

        The plan is written out as the code of one function (as :meth:`_compile` writes the
        encoder): each field read once; an exact ``int``/``str``/``bool`` field (or its
        ``… | None``), a card (or a sequence of cards) and an enum checked and converted in
        line (:func:`~._codec_types.inline_form`: what their compiled decoders do), a nested
        dataclass (or a sequence of them) through its tag table, any other field through its
        compiled decoder; the required fields' arguments built at once."""
        env: dict[str, Any] = {
            "MISMATCH": t.MISMATCH,
            "CARD_BY_TEXT": t.CARD_BY_TEXT,
            "parse_card": Card.parse,
            "VERSION": info.version,
            "ALLOWED": info.names | {_TYPE, _VERSION},
            "REQUIRED": info.required,
            "cls": info.cls,
            "DECODERS": self._decoders,
            "decoder_of": self._decoder_of,
        }
        body = [
            f"v = payload.get({_VERSION!r})",
            "if type(v) is not int or v != VERSION: raise MISMATCH",
            "if not ALLOWED.issuperset(payload) or not REQUIRED.issubset(payload): raise MISMATCH",
        ]
        given: list[str] = []  # the required fields' "name: value" items
        later: list[str] = []  # the other fields' code, after the required ones'
        build = None if info.rules_fields else _builder(info)
        if build is not None:
            env["BUILD"] = build
            defaults = {f.name: f for f in dataclasses.fields(info.cls)}
        for i, (field, tp) in enumerate(info.fields):
            if field in info.rules_fields:
                continue
            v, cls, dec = f"f{i}", f"C{i}", f"D{i}"
            code = [f"{v} = payload[{field!r}]"]
            form = t.inline_form(tp)
            sh = t.shape(tp)
            if form is not None and form[0] in ("exact", "optional", "card"):
                how, env[cls] = form
                if how == "exact":
                    code.append(f"if type({v}) is not {cls}: raise MISMATCH")
                elif how == "optional":
                    code.append(f"if {v} is not None and type({v}) is not {cls}: raise MISMATCH")
                else:  # a card
                    code += [
                        f"if type({v}) is not str: raise MISMATCH",
                        f"{v} = CARD_BY_TEXT.get({v}) or parse_card({v})",
                    ]
            elif form is not None and form[0] == "enum":
                env[cls] = form[1]._value2member_map_
                code += [
                    f"m = {cls}.get({v}) if type({v}) is str or type({v}) is int else None",
                    f"if m is None or isinstance(m._value_, str) != (type({v}) is str):",
                    "    raise MISMATCH",
                    f"{v} = m",
                ]
            elif sh[0] == "dataclass":
                env[dec] = self._table_of((sh[1],))
                code += [
                    f"if type({v}) is not dict: raise MISMATCH",
                    f"c = {dec}.get({v}.get({_TYPE!r}))",
                    "if c is None: raise MISMATCH",
                    f"{v} = (DECODERS.get(c) or decoder_of(c))({v}, d)",
                ]
            elif sh[0] in ("seq", "set") and t.shape(sh[2])[0] == "card":
                env[dec], env[cls] = t.compile_decoder(sh[2], self._table_of), sh[1]
                code += [
                    f"if type({v}) is not list and type({v}) is not tuple: raise MISMATCH",
                    f"{v} = {cls}([CARD_BY_TEXT.get(e) or {dec}(e, d) for e in {v}])",
                ]
            elif sh[0] in ("seq", "set") and t.shape(sh[2])[0] == "dataclass":
                env[dec], env[cls] = self._table_of((t.shape(sh[2])[1],)), sh[1]
                code += [
                    f"if type({v}) is not list and type({v}) is not tuple: raise MISMATCH",
                    f"{v} = {cls}([d.fast_tagged(e, {dec}) for e in {v}])",
                ]
            else:
                env[dec] = t.compile_decoder(tp, self._table_of)
                code.append(f"{v} = {dec}({v}, d)")
            if field in info.required:
                body += code
                given.append(f"{field!r}: {v}")
            elif build is not None:  # (absent: its default, as the class's __init__ gives it)
                later.append(f"if {field!r} in payload:")
                later += [f"    {line}" for line in code]
                later.append("else:")
                default = defaults[field]
                if default.default_factory is not dataclasses.MISSING:
                    env[f"F{i}"] = default.default_factory
                    later.append(f"    {v} = F{i}()")
                else:
                    env[f"F{i}"] = default.default
                    later.append(f"    {v} = F{i}")
            else:
                later.append(f"if {field!r} in payload:")
                later += [f"    {line}" for line in code]
                later.append(f"    kwargs[{field!r}] = {v}")
        if build is not None:
            body += later
            body.append("return BUILD(" + ", ".join(f"f{i}" for i in range(len(info.fields))) + ")")
            built: t.FastDecoder = _written("decode", "payload, d", body, env, info.name)
            return built
        body.append("kwargs = {" + ", ".join(given) + "}")
        body += later
        rules = tuple((f, tp) for f, tp in info.fields if f in info.rules_fields)
        if rules:
            env["RULES"] = rules
            env["decode_value"] = t.decode_value
            body += [
                "for field, tp in RULES:",
                "    if field not in payload:",
                "        continue",
                "    if payload[field] is None:",
                "        kwargs[field] = decode_value(None, tp, '$', d)",
                "        continue",
                "    kwargs[field], config_id = d._rules(payload[field], tp, '$')",
                "    if kwargs.get('config_id') != config_id:",
                "        raise MISMATCH",
            ]
        body.append("return cls(**kwargs)")
        decode: t.FastDecoder = _written("decode", "payload, d", body, env, info.name)
        return decode

    def _rules_match(self, config_id: str, digest: str, rules: object) -> bool:
        """Whether ``rules``, found for ``config_id``, hash to ``digest``: computed once per
        ``(config_id, sha256)`` and rules object (a log names the same configuration in every
        round)."""
        key = (config_id, digest)
        if self._checked.get(key) is rules:
            return True
        if self.sha256(rules) != digest:
            return False
        if len(self._checked) >= 256:
            self._checked.clear()
        self._checked[key] = rules
        return True


class _Decoder:
    """One decode call: the registry, the rules resolver and the rules digests seen."""

    def __init__(self, registry: Registry, rules: RulesResolver | None) -> None:
        self.registry = registry
        self.rules = rules

    def fast_tagged(self, payload: object, table: dict[str, type]) -> Any:
        """A compiled decoder's nested tagged object: its class by its tag in ``table``,
        decoded by that class's compiled decoder (anything else raises ``Mismatch``)."""
        if type(payload) is not dict:
            raise t.MISMATCH
        cls = table.get(payload.get(_TYPE))  # type: ignore[arg-type]
        if cls is None:
            raise t.MISMATCH
        return self.registry._decoder_of(cls)(payload, self)

    def tagged(self, payload: object, path: str, allowed: tuple[type, ...] | None) -> Any:
        if not isinstance(payload, dict):
            raise CodecError("core.codec_not_object", path=path, got=t.describe(payload))
        name = payload.get(_TYPE)
        if not isinstance(name, str):
            raise CodecError("core.codec_no_type", path=path, got=t.describe(name))
        info = self.registry._by_name.get(name)
        if info is None:
            raise CodecError("core.codec_unknown_type", path=path, type=repr(name))
        if allowed is not None and not issubclass(info.cls, allowed):
            expected = " or ".join(self.registry._name_or_qualname(c) for c in allowed)
            raise CodecError("core.codec_unexpected_type", path=path, expected=expected, type=name)
        fields = self._versioned(payload, info, path)
        if not info.names.issuperset(fields):
            unknown = sorted(str(k) for k in fields if k not in info.names)
            raise CodecError("core.codec_extra_field", path=path, type=name, field=unknown[0])
        if not info.required.issubset(fields):
            missing = sorted(info.required - fields.keys())
            raise CodecError("core.codec_missing_field", path=path, type=name, field=missing[0])
        kwargs: dict[str, Any] = {}
        refs: dict[str, str] = {}
        for field, tp in info.fields:
            if field not in fields:
                continue
            where = f"{path}.{field}"
            if field in info.rules_fields and fields[field] is not None:
                kwargs[field], refs[field] = self._rules(fields[field], tp, where)
            else:
                kwargs[field] = t.decode_value(fields[field], tp, where, self)
        for field, config_id in refs.items():
            if kwargs.get("config_id") != config_id:
                raise CodecError(
                    "core.codec_rules_config_mismatch",
                    path=f"{path}.{field}",
                    ref=config_id,
                    config_id=t.describe(kwargs.get("config_id")),
                )
        try:
            return info.cls(**kwargs)
        except CodecError:
            raise
        except MacauTablesError as exc:
            raise CodecError("core.codec_refused", path=path, type=name, detail=exc) from None
        except Exception as exc:  # the class's own validation: any refusal is the payload's
            detail = f"{type(exc).__name__}: {exc}"
            raise CodecError("core.codec_refused", path=path, type=name, detail=detail) from None

    def _versioned(self, payload: dict[Any, Any], info: _Info, path: str) -> dict[Any, Any]:
        version = payload.get(_VERSION)
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise CodecError(
                "core.codec_bad_version", path=path, type=info.name, got=t.describe(version)
            )
        fields = {k: v for k, v in payload.items() if k not in (_TYPE, _VERSION)}
        if version > info.version:
            raise CodecError(
                "core.codec_newer_version",
                path=path,
                type=info.name,
                version=version,
                known=info.version,
            )
        if version < info.version:
            migrate = getattr(info.cls, "__codec_migrate__", None)
            if migrate is None:
                raise CodecError(
                    "core.codec_older_version",
                    path=path,
                    type=info.name,
                    version=version,
                    known=info.version,
                )
            try:
                fields = dict(migrate(fields, version))
            except MacauTablesError as exc:
                raise CodecError(
                    "core.codec_refused", path=path, type=info.name, detail=exc
                ) from None
            except Exception as exc:
                raise CodecError(
                    "core.codec_refused", path=path, type=info.name, detail=str(exc)
                ) from None
        return fields

    def _rules(self, payload: object, tp: Any, path: str) -> tuple[Any, str]:
        if not (
            isinstance(payload, dict)
            and set(payload) == _REF_KEYS
            and all(isinstance(v, str) for v in payload.values())
        ):
            expected = '{"config_id": text, "sha256": text}'
            raise CodecError(
                "core.codec_wrong_value", path=path, expected=expected, got=t.describe(payload)
            )
        config_id, digest = payload["config_id"], payload["sha256"]
        if self.rules is None:
            raise CodecError("core.codec_rules_needed", path=path, config_id=config_id)
        try:
            if isinstance(self.rules, Mapping):
                found = self.rules.get(config_id)
            else:
                found = self.rules(config_id)
        except Exception:  # a resolver that cannot find the configuration
            found = None
        if found is None:
            raise CodecError("core.codec_rules_unknown", path=path, config_id=config_id)
        if not isinstance(found, t.non_none(tp)) or not self.registry._rules_match(
            config_id, digest, found
        ):
            raise CodecError("core.codec_rules_mismatch", path=path, config_id=config_id)
        return found, config_id

    def class_named(self, name: object, path: str) -> type:
        info = self.registry._by_name.get(name) if isinstance(name, str) else None
        if info is None:
            raise CodecError("core.codec_unknown_type", path=path, type=t.describe(name))
        return info.cls


def _written(kind: str, params: str, body: list[str], env: dict[str, Any], of: str) -> Any:
    """The function ``kind(params)`` whose lines are ``body``, compiled with the names of
    ``env`` (a class's encoder or decoder written out as code; ``of`` names the class in the
    code's file name, as tracebacks show it)."""
    source = f"def {kind}({params}):\n" + "".join(f"    {line}\n" for line in body)
    exec(compile(source, f"<codec {kind}r of {of}>", "exec"), env)
    return env[kind]


def _builder(info: _Info) -> Callable[..., Any] | None:
    """A function building ``info``'s class from its init fields by position exactly as its
    ``__init__`` would (:func:`macau_tables.rounds.replacer`'s builder: each slot set, nothing
    else), for a frozen dataclass whose ``__init__`` does nothing more; else ``None``."""
    params = getattr(info.cls, "__dataclass_params__", None)
    if params is None or not params.frozen:
        return None
    return slot_builder(info.cls, tuple(f for f, _ in info.fields))


def _qualname(cls: object) -> str:
    module = getattr(cls, "__module__", "")
    name = getattr(cls, "__qualname__", None) or repr(cls)
    return f"{module}.{name}" if module else str(name)


def _wrong(path: str, tp: Any, value: object) -> CodecError:
    return CodecError(
        "core.codec_wrong_value", path=path, expected=t.type_label(tp), got=t.describe(value)
    )


def _describe_class(name: str, cls: type) -> _Info:
    try:
        hints = t.resolve_hints(cls)
    except Exception as exc:
        raise CodecError("core.codec_unresolved_hints", path=name, detail=str(exc)) from None
    fields: list[tuple[str, Any]] = []
    required: set[str] = set()
    rules_fields: set[str] = set()
    names = {f.name for f in dataclasses.fields(cls) if f.init}
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        if f.name in (_TYPE, _VERSION):
            raise CodecError("core.codec_reserved_field", path=f"{name}.{f.name}")
        tp = hints[f.name]
        if t.is_rules_field(tp, is_rules_type):
            if "config_id" not in names:
                raise CodecError("core.codec_rules_without_config_id", path=f"{name}.{f.name}")
            rules_fields.add(f.name)
        else:
            t.check_type(tp, f"{name}.{f.name}", is_rules_type)
        fields.append((f.name, tp))
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            required.add(f.name)
    version = getattr(cls, "__codec_version__", 1)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise CodecError("core.codec_bad_version", path=name, type=name, got=t.describe(version))
    fast = tuple(
        (field, tp, *_fast_path(tp)) if field not in rules_fields else (field, tp, None, False)
        for field, tp in fields
    )
    omitted = frozenset(getattr(cls, "__codec_omit_default__", frozenset()))
    defaults = {f.name: f for f in dataclasses.fields(cls) if f.name in omitted}
    if set(defaults) != omitted or any(f.default is dataclasses.MISSING for f in defaults.values()):
        raise CodecError("core.codec_omit_default_without_default", path=name, type=name)
    omit = tuple(sorted((n, f.default) for n, f in defaults.items()))
    return _Info(
        name,
        cls,
        version,
        tuple(fields),
        frozenset(required),
        frozenset(rules_fields),
        fast,
        omit,
        frozenset(f for f, _ in fields),
    )


_EXACT: Final = {"int": int, "str": str, "bool": bool}


def _fast_path(tp: Any) -> tuple[type | None, bool]:
    """``(class whose instances encode as themselves, whether None encodes as itself)`` for a
    field declared ``tp``: ``int``, ``str``, ``bool`` and their optional forms."""
    sh = t.shape(tp)
    if sh[0] in _EXACT:
        return _EXACT[sh[0]], False
    if sh[0] == "none":
        return None, True
    if sh[0] == "union":
        kinds = [t.shape(a)[0] for a in sh[1]]
        optional = "none" in kinds
        rest = [k for k in kinds if k != "none"]
        if len(rest) == 1 and rest[0] in _EXACT and not sh[2]:
            return _EXACT[rest[0]], optional
        return None, optional
    return None, False


# -- the default registry ---------------------------------------------------------------------

_DEFAULT: Registry | None = None


def core_types() -> tuple[type, ...]:
    """The core types the default registry holds (namespace ``core``)."""
    from . import approvals, jackpot, ledger, rng, rounds, voids

    return (
        jackpot.Meter,
        jackpot.AwardSplit,
        jackpot.Award,
        jackpot.JackpotResult,
        approvals.Approval,
        rng.ShoeCommitment,
        rng.ShoeReveal,
        rng.CardLeaf,
        rng.CardProof,
        rng.CardShown,
        rng.ShoeOpening,
        rounds.WagerResult,
        rounds.Audience,
        rounds.Due,
        rounds.Expected,
        ledger.Account,
        ledger.Posting,
        voids.Evidence,
        voids.VoidBasis,
    )


def default_registry() -> Registry:
    """The registry :func:`encode` and :func:`decode` use: the core types (``core``), then the
    ``CODEC_TYPES`` of each game's package (:data:`macau_tables.games.REGISTERED`; namespace =
    the package's name = the game's) and of each game registered at run time (built on first
    use). Only the packages are imported here, not their plug-ins."""
    global _DEFAULT
    if _DEFAULT is None:
        from . import games  # here: the games' packages import this module

        registry = Registry()
        registry.register("core", core_types())
        for plugin_module in games.REGISTERED:
            package = plugin_module.rpartition(".")[0]
            module = importlib.import_module(package)
            registry.register(package.rpartition(".")[2], getattr(module, "CODEC_TYPES", ()))
        for plugin in games.added():
            registry.register(plugin.name, plugin.codec_types)
        _DEFAULT = registry
    return _DEFAULT


def register(namespace: str, types: Iterable[type]) -> None:
    """Register ``types`` in the default registry as ``"<namespace>.<ClassName>"``."""
    default_registry().register(namespace, types)


def type_name(cls: type) -> str:
    """The codec name of ``cls`` (``"core.Meter"``)."""
    return default_registry().type_name(cls)


def encode(value: object) -> dict[str, Any]:
    """``value`` as a JSON-ready ``dict`` (see the module docstring); ``CodecError`` for a
    value that is not a registered dataclass or does not fit its annotations."""
    return default_registry().encode(value)


def decode(
    payload: object,
    *,
    rules: RulesResolver | None = None,
    expect: type | tuple[type, ...] | None = None,
) -> Any:
    """The value :func:`encode` wrote as ``payload``; ``CodecError`` naming the path for
    anything else (see :meth:`Registry.decode`)."""
    return default_registry().decode(payload, rules=rules, expect=expect)


def canonical_bytes(value: object) -> bytes:
    """``json.dumps(encode(value) if it is a dataclass else value, sort_keys=True,
    separators=(",", ":"), ensure_ascii=False)`` as UTF-8: the bytes to hash or sign."""
    return default_registry().canonical_bytes(value)


def sha256(value: object) -> str:
    """SHA-256 (hex) of :func:`canonical_bytes` of ``value``."""
    return default_registry().sha256(value)

"""JSON schemas of the API's commands, generated from the dataclasses the codec decodes.

The REST API sends commands as codec payloads (:mod:`macau_tables.codec`):
``{"type": "<namespace>.<ClassName>", <field>: <value>, …}`` (``"v"``, the schema version, may be
left out: the API fills in the current one). :func:`payload_schema` turns a registered dataclass
into the JSON schema of exactly that payload, following the same declared field types the codec
follows (:mod:`macau_tables._codec_types`): ``int`` → integer, ``str`` → string, an enum → the
string (or integer) enum of its values, :class:`~macau_tables.cards.Card` → its text (``"As"``,
``"10h"``, ``"Td"``), ``Card | str`` → the card's text or ``{"text": …}``, a nested dataclass →
its own tagged object, tuples → arrays, ``X | None`` → ``X`` or ``null``; a field with a default
is optional. Nothing is written per class: a new command, or a new field, is documented by
being declared.

:func:`client_commands` lists the command classes a client may send: every registered command
(:func:`macau_tables.rounds.is_command`) except those only the table service issues
(:attr:`~macau_tables.rounds.Issuer.SERVICE`). :data:`COMMAND` is the pydantic type the route
declares: a discriminated union (``oneOf`` with the discriminator ``type``) of one model per
command, each model's JSON schema being :func:`payload_schema` of its class — the OpenAPI
document describes every command completely, and the codec remains the one reader of the
payload (the models check only the tag; :func:`macau_tables.codec.decode` reads the rest).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import cache
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, create_model

from .. import _codec_types as t
from .. import codec
from ..cards import _RANK_TEXT, _SUIT_TEXT
from ..rounds import Issuer, actor_field_of, is_command, issuer_of
from ..voids import Ground

__all__ = [
    "CARD_PATTERN",
    "COMMAND",
    "ERROR_RESPONSES",
    "ErrorResponse",
    "ProvedCard",
    "ShoeProof",
    "client_commands",
    "command_models",
    "component_name",
    "payload_schema",
    "submitted_model",
    "value_schema",
]


def _card_pattern() -> str:
    ranks = sorted({r for r in _RANK_TEXT} | {r.lower() for r in _RANK_TEXT}, key=len)
    suits = sorted(_SUIT_TEXT | {s.upper(): v for s, v in _SUIT_TEXT.items()})
    rank = "|".join(sorted(ranks, key=lambda r: (-len(r), r)))
    return f"^\\s*({rank})[{''.join(suits)}]\\ufe0f?\\s*$"


CARD_PATTERN = _card_pattern()
"""What :meth:`Card.parse` reads: a rank (``2``–``9``, ``10`` or ``T``, ``J``, ``Q``, ``K``,
``A``, either case) and a suit (``s h d c`` or ``♠ ♥ ♦ ♣``)."""


def value_schema(tp: Any) -> dict[str, Any]:
    """The JSON schema of a value declared ``tp``, as the codec writes and reads it."""
    sh = t.shape(tp)
    kind = sh[0]
    if kind == "union":
        alts: list[dict[str, Any]] = []
        for alt in sh[1]:
            if sh[2] and t.shape(alt)[0] == "str":  # Card | str: plain text is a card
                alts.append(
                    {
                        "type": "object",
                        "properties": {"text": {"type": "string"}},
                        "required": ["text"],
                        "additionalProperties": False,
                    }
                )
            else:
                alts.append(value_schema(alt))
        return {"anyOf": alts}
    simple: dict[str, dict[str, Any]] = {
        "none": {"type": "null"},
        "bool": {"type": "boolean"},
        "int": {"type": "integer"},
        "str": {"type": "string"},
        "fraction": {"type": "string", "pattern": "^-?[0-9]+/[0-9]*[1-9][0-9]*$"},
        "date": {"type": "string", "format": "date"},
        "card": {"type": "string", "pattern": CARD_PATTERN},
        "any": {"type": ["string", "integer", "boolean", "null"]},
    }
    if kind in simple:
        return dict(simple[kind])
    if kind == "enum":
        values = [m.value for m in sh[1]]
        json_type = "string" if all(isinstance(v, str) for v in values) else "integer"
        return {"type": json_type, "enum": values}
    if kind == "literal":
        return {"enum": [getattr(a, "value", a) for a in sh[1]]}
    if kind == "class":
        names = sorted(codec.default_registry().names())
        return {"type": "string", "enum": names}
    if kind == "dataclass":
        return payload_schema(sh[1])
    if kind in ("seq", "set"):
        out: dict[str, Any] = {"type": "array", "items": value_schema(sh[2])}
        if kind == "set":
            out["uniqueItems"] = True
        return out
    if kind == "fixed":
        items = [value_schema(a) for a in sh[1]]
        return {
            "type": "array",
            "prefixItems": items,
            "items": False,
            "minItems": len(items),
            "maxItems": len(items),
        }
    # a map: text keys (an enum's values, ints as decimal text)
    return {"type": "object", "additionalProperties": value_schema(sh[2])}


def payload_schema(cls: type) -> dict[str, Any]:
    """The JSON schema of the codec payload of the registered dataclass ``cls``: its tag
    ``type`` (required), its version ``v`` (optional: the current one), its fields (those
    without a default required), nothing else."""
    registry = codec.default_registry()
    name = registry.type_name(cls)
    version = getattr(cls, "__codec_version__", 1)
    hints = t.resolve_hints(cls)
    properties: dict[str, Any] = {
        "type": {"type": "string", "const": name, "enum": [name]},
        "v": {"type": "integer", "enum": [version], "description": "schema version"},
    }
    required = ["type"]
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        properties[f.name] = value_schema(hints[f.name])
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            required.append(f.name)
    grounds = getattr(cls, "GROUNDS", None)
    if isinstance(grounds, frozenset) and "ground" in properties:
        # a void's grounds a supervisor may give at this game (CSP-11.1, CSP-11.4, BAC-10)
        offered = [g.value for g in Ground if g in grounds]
        properties["ground"] = {"anyOf": [{"type": "null"}, {"type": "string", "enum": offered}]}
    out: dict[str, Any] = {
        "title": name,
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
    doc = (cls.__doc__ or "").strip()
    if is_command(cls):
        issuer = issuer_of(cls)
        actor = actor_field_of(cls)
        who = f"Issued by: {issuer.value}" + (f" (named in `{actor}`)" if actor else "")
        doc = f"{doc}\n\n{who}." if doc else f"{who}."
    if doc:
        out["description"] = doc
    return out


@cache
def client_commands() -> tuple[type, ...]:
    """Every command class a client may send (sorted by codec name): the registered commands
    but those only the table service issues."""
    from .. import tables  # noqa: F401  (registers the table commands with the codec)

    registry = codec.default_registry()
    classes = [registry.class_named(name) for name in registry.names()]
    found = [c for c in classes if is_command(c) and issuer_of(c) is not Issuer.SERVICE]
    return tuple(sorted(found, key=registry.type_name))


def _replace_with(schema: dict[str, Any]) -> Callable[[dict[str, Any], type], None]:
    def apply(generated: dict[str, Any], _cls: type) -> None:
        generated.clear()
        generated.update(schema)

    return apply


def _documented(name: str, schema: dict[str, Any], tag: str) -> type[BaseModel]:
    """A pydantic model that accepts an object tagged ``tag`` (anything else in it is left to
    the codec) and whose JSON schema is ``schema``."""
    model: type[BaseModel] = create_model(
        name,
        __config__=ConfigDict(extra="allow", json_schema_extra=_replace_with(schema)),
        type=(Literal[tag], ...),  # type: ignore[arg-type]
    )
    return model


def component_name(codec_name: str) -> str:
    """The OpenAPI component of a codec type: ``"baccarat.PlaceWager"`` →
    ``"BaccaratPlaceWager"``."""
    namespace, _, cls = codec_name.partition(".")
    return namespace[:1].upper() + namespace[1:] + cls


@cache
def command_models() -> tuple[type[BaseModel], ...]:
    """One model per :func:`client_commands` class (component :func:`component_name`)."""
    registry = codec.default_registry()
    out = []
    for cls in client_commands():
        name = registry.type_name(cls)
        out.append(_documented(component_name(name), payload_schema(cls), name))
    return tuple(out)


def submitted_model() -> type[BaseModel]:
    """The documented shape of an accepted request's answer (``tables.Submitted``)."""
    from ..tables.model import Submitted

    return _submitted(Submitted)


@cache
def _submitted(cls: type) -> type[BaseModel]:
    name = codec.type_name(cls)
    return _documented(component_name(name), payload_schema(cls), name)


COMMAND = Annotated[Union[*command_models()], Field(discriminator="type")]  # type: ignore[valid-type]
"""A command as the route declares it (the discriminated union of every client command)."""


class ErrorDetail(BaseModel):
    """A refusal: its message key, parameters, English text and the rule id (or ``null``)."""

    key: str
    params: dict[str, Any]
    text: str
    rule: str | None


class ErrorResponse(BaseModel):
    """Every 4xx answer: ``{"error": {"key", "params", "text", "rule"}}``."""

    error: ErrorDetail


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorResponse, "description": text}
    for status, text in (
        (400, "A request the server does not take (e.g. not a command)"),
        (401, "Not signed in"),
        (403, "Not this caller's to do"),
        (404, "Unknown table"),
        (409, "Refused by the law or the table's state (the rule id says which)"),
        (413, "Body too large"),
        (422, "Unreadable request"),
        (429, "Too many attempts, or busy: try again after Retry-After"),
        (503, "Try again later"),
    )
}
"""The refusals every API route documents — every 4xx (and 503) in the one shape of
:mod:`.errors`: :func:`.app.create_app` includes the API routers (auth and users, tables,
operations) with them, the pages' JSON routers carry them (``APIRouter(responses=...)``)."""


# -- the card-by-card shoe proofs (Common rules "Randomness") ----------------------------------


class ProvedCard(BaseModel):
    """One card proved against its shoe's Merkle root: ``card`` at ``position`` (0-based, in
    the committed order) with its leaf's ``salt`` (hex) and the audit ``path`` (hex, the leaf's
    sibling first; RFC 6962). Leaf hash = SHA-256(0x00 ‖ salt ‖ position as 2 bytes ‖ card
    index as 1 byte), node hash = SHA-256(0x01 ‖ left ‖ right)."""

    position: int
    card: str
    salt: str
    path: list[str]

    @classmethod
    def of(cls, proof: Any) -> ProvedCard:
        """From a :class:`macau_tables.rng.CardProof`."""
        return cls(
            position=proof.position, card=str(proof.card), salt=proof.salt, path=list(proof.path)
        )


class ShoeProof(BaseModel):
    """The proofs of cards of one shoe: its number, its commitment (``merkle-v2:<root>``), its
    number of leaves ``size`` and the cards."""

    shoe_no: int
    commitment: str
    size: int
    cards: list[ProvedCard]

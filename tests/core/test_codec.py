"""The generic codec (issue 8, "Storable events"): encode/decode round trips, canonical bytes,
rules by reference, schema versions, and a refusal naming the path for any bad payload.

These tests use the core types and synthetic dataclasses in a registry of their own; the games'
commands and events are covered in ``test_codec_games.py``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from enum import Enum, IntEnum, StrEnum
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from macau_tables import codec
from macau_tables.cards import DECK, Card
from macau_tables.errors import CodecError, MacauTablesError
from macau_tables.jackpot import Award, Combination, JackpotResult, Meter
from macau_tables.ledger import Account, Posting, Reason
from macau_tables.rounds import (
    DEALER,
    Audience,
    Dealer,
    Due,
    DueKind,
    Expected,
    Outcome,
    WagerResult,
)

if TYPE_CHECKING:
    from decimal import Decimal


class Colour(StrEnum):
    RED = "red"
    BLACK = "black"


class Level(IntEnum):
    LOW = 1
    HIGH = 2


class Plain(Enum):
    A = "a"
    B = 7


@dataclass(frozen=True, slots=True)
class Leaf:
    n: int
    colour: Colour


@dataclass(frozen=True, slots=True)
class Other:
    text: str


@dataclass(frozen=True, slots=True)
class Everything:
    flag: bool
    count: int
    name: str
    colour: Colour
    level: Level
    plain: Plain
    card: Card
    card_or_text: Card | str
    day: date
    share: Fraction
    cards: tuple[Card, ...]
    pair: tuple[int, str]
    items: list[Leaf]
    colours: frozenset[Colour]
    by_colour: Mapping[Colour, int]
    by_number: Mapping[int, str]
    by_level: dict[Level, Leaf]
    leaf: Leaf | None
    either: Leaf | Other
    position: int | Dealer | None
    mode: Literal["each", "pool"]
    kinds: tuple[type, ...]
    anything: object
    optional_share: Fraction | int | None = None
    note: str = ""


@dataclass(frozen=True, slots=True)
class ToyRules:
    unit: int
    share: Fraction
    names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ToyOpened:
    round_id: str
    rules: ToyRules
    config_id: str
    opened: date


@dataclass(frozen=True, slots=True)
class Versioned:
    __codec_version__: ClassVar[int] = 3
    amount: int

    @classmethod
    def __codec_migrate__(cls, fields: dict[str, Any], version: int) -> dict[str, Any]:
        if version == 2:
            return {"amount": fields["value"]}
        raise ValueError(f"cannot read version {version}")


@dataclass(frozen=True, slots=True)
class NoMigration:
    __codec_version__: ClassVar[int] = 2
    amount: int


@dataclass(frozen=True, slots=True)
class WithDefault:
    amount: int
    added_later: int = 5


@dataclass(frozen=True, slots=True)
class Checked:
    amount: int

    def __post_init__(self) -> None:
        if self.amount < 0:
            raise TypeError("amount must not be negative")


TYPES = (Leaf, Other, Everything, ToyRules, ToyOpened, Versioned, NoMigration, WithDefault, Checked)


def registry() -> codec.Registry:
    r = codec.Registry()
    r.register("core", codec.core_types())
    r.register("toy", TYPES)
    r.check()
    return r


REG = registry()


def everything(**changes: Any) -> Everything:
    values: dict[str, Any] = dict(
        flag=True,
        count=-3,
        name="名字 x",
        colour=Colour.RED,
        level=Level.HIGH,
        plain=Plain.B,
        card=Card.parse("10h"),
        card_or_text=Card.parse("As"),
        day=date(2025, 2, 28),
        share=Fraction(7, 10),
        cards=(Card.parse("As"), Card.parse("2d")),
        pair=(1, "one"),
        items=[Leaf(1, Colour.BLACK)],
        colours=frozenset({Colour.BLACK, Colour.RED}),
        by_colour={Colour.BLACK: 3},
        by_number={-1: "minus one", 20: "twenty"},
        by_level={Level.LOW: Leaf(2, Colour.RED)},
        leaf=None,
        either=Other("o"),
        position=DEALER,
        mode="pool",
        kinds=(Leaf, Meter),
        anything="royal_flush_odds",
    )
    values.update(changes)
    return Everything(**values)


def test_encode_writes_type_version_and_fields_as_json_values() -> None:
    payload = REG.encode(everything())
    assert payload["type"] == "toy.Everything" and payload["v"] == 1
    assert payload["card"] == "Th" and payload["card_or_text"] == "As"
    assert payload["colour"] == "red" and payload["level"] == 2 and payload["plain"] == 7
    assert payload["day"] == "2025-02-28" and payload["share"] == "7/10"
    assert payload["colours"] == ["black", "red"]
    assert payload["by_number"] == {"-1": "minus one", "20": "twenty"}
    assert payload["by_level"] == {"1": {"type": "toy.Leaf", "v": 1, "n": 2, "colour": "red"}}
    assert payload["position"] == "dealer" and payload["kinds"] == ["toy.Leaf", "core.Meter"]
    assert payload["either"] == {"type": "toy.Other", "v": 1, "text": "o"}
    # JSON-ready: the same after a trip through json
    assert json.loads(json.dumps(payload)) == payload


def test_round_trip_of_every_kind_of_field() -> None:
    cases = [
        everything(),
        everything(card_or_text="As", leaf=Leaf(0, Colour.RED), position=3, anything=None),
        everything(card_or_text="zz", either=Leaf(5, Colour.BLACK), position=None, anything=7),
        everything(optional_share=Fraction(1, 3), note="n", anything=True, mode="each"),
        everything(optional_share=4, colours=frozenset(), by_colour={}, items=[], cards=()),
    ]
    for value in cases:
        back = REG.decode(REG.encode(value))
        assert back == value
        assert type(back.card_or_text) is type(value.card_or_text)  # text stays text
        assert REG.canonical_bytes(back) == REG.canonical_bytes(value)


def test_core_types_round_trip() -> None:
    meter = Meter(1_000, 500)
    values = [
        meter,
        JackpotResult((Award(3, Combination.FLUSH, 50, 0, 50),), meter, meter, False, 0),
        WagerResult("p1", "box 1", "ante", 100, Outcome.WON, paid=200, house=-100),
        Audience.of_player("p1"),
        Audience.public(),
        Expected("dealing", (Due(DueKind.CARD, position=DEALER), Due(DueKind.CARD, 2)), (Meter,)),
        Posting(Account.wallet("p1"), -100, Reason.STAKE),
    ]
    for value in values:
        assert REG.decode(REG.encode(value)) == value


@st.composite
def leaves(draw: st.DrawFn) -> Leaf:
    return Leaf(draw(st.integers()), draw(st.sampled_from(Colour)))


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(
    flag=st.booleans(),
    count=st.integers(),
    name=st.text(),
    card=st.sampled_from(DECK),
    card_or_text=st.one_of(st.sampled_from(DECK), st.text()),
    day=st.dates(),
    share=st.fractions(),
    cards=st.lists(st.sampled_from(DECK)).map(tuple),
    items=st.lists(leaves(), max_size=3),
    colours=st.frozensets(st.sampled_from(Colour)),
    by_number=st.dictionaries(st.integers(), st.text(), max_size=3),
    leaf=st.one_of(st.none(), leaves()),
    position=st.one_of(st.none(), st.integers(), st.just(DEALER)),
    anything=st.one_of(st.none(), st.booleans(), st.integers(), st.text()),
)
def test_decode_encode_is_identity_property(**values: Any) -> None:
    value = everything(**values)
    payload = REG.encode(value)
    assert REG.decode(json.loads(json.dumps(payload))) == value
    assert REG.canonical_bytes(REG.decode(payload)) == REG.canonical_bytes(value)


def general(value: object) -> dict[str, Any]:
    """``value`` through the general (path-building) encoder, not the compiled one."""
    return REG._encode_object(value, "$")


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(
    count=st.integers(),
    name=st.text(),
    card_or_text=st.one_of(st.sampled_from(DECK), st.text()),
    items=st.lists(leaves(), max_size=3),
    by_number=st.dictionaries(st.integers(), st.text(), max_size=3),
    leaf=st.one_of(st.none(), leaves()),
    either=st.one_of(leaves(), st.text().map(Other)),
    position=st.one_of(st.none(), st.integers(), st.just(DEALER)),
    anything=st.one_of(st.none(), st.booleans(), st.integers(), st.text()),
    optional_share=st.one_of(st.none(), st.integers(), st.fractions()),
)
def test_compiled_encoders_give_what_the_general_encoder_gives(**values: Any) -> None:
    value = everything(**values)
    fast = REG.encode(value)
    assert fast == general(value)
    assert list(fast) == list(general(value))  # the same fields in the same order
    assert REG.canonical_bytes(value) == REG.canonical_bytes(general(value))


class Count(int):
    pass


class Name(str):
    __slots__ = ()


@dataclass(frozen=True, slots=True)
class LeafChild(Leaf):
    pass


@pytest.mark.parametrize(
    "changes",
    [
        {"count": Count(4)},  # an int subclass: stored as the int
        {"count": Level.LOW},
        {"name": Name("x")},
        {"name": Colour.RED},  # a str enum member where text is declared: its value
        {"cards": [Card.parse("As")]},  # a list where a tuple is declared
        {"items": (Leaf(1, Colour.RED),)},
        {"pair": [2, "two"]},
        {"anything": Name("t")},
        {"position": Level.HIGH},
    ],
)
def test_values_off_the_compiled_path_are_encoded_as_before(changes: dict[str, Any]) -> None:
    value = everything(**changes)
    assert REG.encode(value) == general(value)
    assert REG.canonical_bytes(value) == REG.canonical_bytes(general(value))


@pytest.mark.parametrize(
    ("changes", "path"),
    [
        ({"count": True}, r"\$\.count"),
        ({"leaf": LeafChild(1, Colour.RED)}, r"\$\.leaf"),  # an unregistered subclass
        ({"items": [Leaf(1, "red")]}, r"\$\.items\[0\]\.colour"),
        ({"either": Leaf(1, Colour.RED), "items": [Leaf(1, Colour.RED), 3]}, r"\$\.items\[1\]"),
        ({"pair": (1, "one", 2)}, r"\$\.pair"),
        ({"by_level": {Level.LOW: Other("x")}}, r"\$\.by_level\[<Level\.LOW: 1>\]"),
    ],
)
def test_refusals_off_the_compiled_path_still_name_the_path(
    changes: dict[str, Any], path: str
) -> None:
    with pytest.raises(CodecError, match=path):
        REG.encode(everything(**changes))


PLAIN_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=200)
@given(PLAIN_JSON)
def test_canonical_json_is_json_dumps_canonical(value: object) -> None:
    assert codec.canonical_json(value) == json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def test_canonical_json_refuses_what_json_dumps_refuses() -> None:
    with pytest.raises(ValueError):
        codec.canonical_json({"x": float("nan")})
    with pytest.raises(TypeError):
        codec.canonical_json({"x": object()})
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises((ValueError, RecursionError)):
        codec.canonical_json(loop)
    assert codec.canonical_json({"x": 1}) == '{"x":1}'  # usable again after a refusal


def test_canonical_bytes_sorted_compact_utf8_and_sha256() -> None:
    value = Other("莊 閒")
    raw = REG.canonical_bytes(value)
    assert raw == '{"text":"莊 閒","type":"toy.Other","v":1}'.encode()
    assert REG.sha256(value) == hashlib.sha256(raw).hexdigest()
    assert REG.canonical_bytes({"b": 1, "a": [True, None]}) == b'{"a":[true,null],"b":1}'
    # a frozenset encodes the same whatever its iteration order
    a = everything(colours=frozenset([Colour.RED, Colour.BLACK]))
    b = everything(colours=frozenset([Colour.BLACK, Colour.RED]))
    assert REG.canonical_bytes(a) == REG.canonical_bytes(b)
    with pytest.raises(CodecError):
        REG.canonical_bytes({"x": float("nan")})
    with pytest.raises(CodecError):
        REG.canonical_bytes({"x": object()})


def test_module_functions_use_the_default_registry() -> None:
    assert codec.canonical_bytes(Meter(1, 0)) == b'{"amount":1,"seed":0,"type":"core.Meter","v":1}'
    assert codec.decode(codec.encode(Meter(1, 0))) == Meter(1, 0)
    assert codec.type_name(Meter) == "core.Meter"
    assert (
        codec.sha256(Meter(1, 0)) == hashlib.sha256(codec.canonical_bytes(Meter(1, 0))).hexdigest()
    )
    codec.default_registry().check()


# -- rules by reference -------------------------------------------------------------------------

RULES = ToyRules(5, Fraction(1, 2), ("a",))
OPENED = ToyOpened("r1", RULES, "table-7", date(2025, 1, 2))


def test_rules_are_stored_by_reference_inside_other_values() -> None:
    payload = REG.encode(OPENED)
    assert payload["rules"] == {"config_id": "table-7", "sha256": REG.sha256(RULES)}
    assert codec.is_rules_type(ToyRules) and not codec.is_rules_type(ToyOpened)
    # on its own the rules object is written whole and read back whole
    assert REG.encode(RULES)["unit"] == 5
    assert REG.decode(REG.encode(RULES)) == RULES


def test_decode_puts_the_rules_back_from_a_mapping_or_a_function() -> None:
    payload = REG.encode(OPENED)
    assert REG.decode(payload, rules={"table-7": RULES}) == OPENED
    assert REG.decode(payload, rules=lambda cid: {"table-7": RULES}[cid]) == OPENED
    ref = codec.rules_ref(RULES, "table-7", REG)
    assert ref == codec.RulesRef("table-7", REG.sha256(RULES)) and ref.matches(RULES, REG)
    assert payload["rules"] == {"config_id": ref.config_id, "sha256": ref.sha256}
    assert not ref.matches(ToyRules(6, Fraction(1, 2)), REG)


def test_rules_refused_when_missing_unknown_or_tampered() -> None:
    payload = REG.encode(OPENED)
    with pytest.raises(
        CodecError, match=r"\$\.rules: the rules of configuration 'table-7'|table-7"
    ):
        REG.decode(payload)
    with pytest.raises(CodecError) as info:
        REG.decode(payload, rules={"other": RULES})
    assert info.value.key == "core.codec_rules_unknown" and info.value.params["path"] == "$.rules"
    with pytest.raises(CodecError, match="no rules"):
        REG.decode(payload, rules=lambda cid: 1 / 0)
    tampered = ToyRules(5, Fraction(1, 2), ("b",))
    with pytest.raises(CodecError, match="tampered") as info:
        REG.decode(payload, rules={"table-7": tampered})
    assert info.value.key == "core.codec_rules_mismatch"
    with pytest.raises(CodecError, match="tampered"):
        REG.decode(payload, rules={"table-7": Other("not rules")})
    swapped = {**payload, "config_id": "table-8"}
    with pytest.raises(CodecError) as info:
        REG.decode(swapped, rules={"table-7": RULES, "table-8": RULES})
    assert info.value.key == "core.codec_rules_config_mismatch"
    for bad in (None, "x", {"config_id": "table-7"}, {"config_id": 1, "sha256": "ab"}):
        with pytest.raises(CodecError):
            REG.decode({**payload, "rules": bad}, rules={"table-7": RULES})


# -- versions -------------------------------------------------------------------------------


def test_a_newer_schema_version_is_refused_upgrade() -> None:
    with pytest.raises(CodecError, match="written by a newer version: upgrade") as info:
        REG.decode({"type": "toy.Versioned", "v": 4, "amount": 1})
    assert info.value.code == "codec_error" and isinstance(info.value, ValueError)
    assert REG.encode(Versioned(1)) == {"type": "toy.Versioned", "v": 3, "amount": 1}


def test_an_older_version_is_read_through_its_migration_only() -> None:
    assert REG.decode({"type": "toy.Versioned", "v": 2, "value": 9}) == Versioned(9)
    with pytest.raises(CodecError, match="cannot read version 1"):
        REG.decode({"type": "toy.Versioned", "v": 1, "value": 9})
    with pytest.raises(CodecError, match="cannot be migrated"):
        REG.decode({"type": "toy.NoMigration", "v": 1, "amount": 9})


def test_a_field_with_a_default_may_be_absent() -> None:
    assert REG.decode({"type": "toy.WithDefault", "v": 1, "amount": 1}) == WithDefault(1)


# -- refusals ---------------------------------------------------------------------------------

GOOD = REG.encode(everything())


@pytest.mark.parametrize(
    ("payload", "key", "path"),
    [
        ([], "core.codec_not_object", "$"),
        ({"v": 1}, "core.codec_no_type", "$"),
        ({"type": "toy.Nope", "v": 1}, "core.codec_unknown_type", "$"),
        ({**GOOD, "v": "1"}, "core.codec_bad_version", "$"),
        ({**GOOD, "v": True}, "core.codec_bad_version", "$"),
        ({**GOOD, "v": 0}, "core.codec_bad_version", "$"),
        ({**GOOD, "v": 2}, "core.codec_newer_version", "$"),
        ({**GOOD, "extra": 1}, "core.codec_extra_field", "$"),
        ({k: v for k, v in GOOD.items() if k != "card"}, "core.codec_missing_field", "$"),
        ({**GOOD, "count": True}, "core.codec_wrong_value", "$.count"),
        ({**GOOD, "count": 1.0}, "core.codec_wrong_value", "$.count"),
        ({**GOOD, "flag": 1}, "core.codec_wrong_value", "$.flag"),
        ({**GOOD, "card": "zz"}, "core.codec_bad_card", "$.card"),
        ({**GOOD, "card_or_text": "zz"}, "core.codec_bad_card", "$.card_or_text"),
        ({**GOOD, "card_or_text": {"text": 1}}, "core.codec_wrong_value", "$.card_or_text"),
        ({**GOOD, "cards": ["As", "1x"]}, "core.codec_bad_card", "$.cards[1]"),
        ({**GOOD, "colour": "green"}, "core.codec_wrong_value", "$.colour"),
        ({**GOOD, "level": True}, "core.codec_wrong_value", "$.level"),
        ({**GOOD, "level": "2"}, "core.codec_wrong_value", "$.level"),
        ({**GOOD, "day": "2025-02-30"}, "core.codec_wrong_value", "$.day"),
        ({**GOOD, "day": "20250228"}, "core.codec_wrong_value", "$.day"),
        ({**GOOD, "share": "1/0"}, "core.codec_wrong_value", "$.share"),
        ({**GOOD, "share": 0.5}, "core.codec_wrong_value", "$.share"),
        ({**GOOD, "pair": [1]}, "core.codec_wrong_value", "$.pair"),
        (
            {**GOOD, "items": [{"type": "toy.Leaf", "v": 1, "n": 1}]},
            "core.codec_missing_field",
            "$.items[0]",
        ),
        (
            {**GOOD, "items": [{"type": "toy.Other", "v": 1, "text": ""}]},
            "core.codec_unexpected_type",
            "$.items[0]",
        ),
        ({**GOOD, "by_number": {"01": "x"}}, "core.codec_wrong_value", "$.by_number['01']"),
        ({**GOOD, "by_colour": {"green": 1}}, "core.codec_wrong_value", "$.by_colour['green']"),
        (
            {**GOOD, "either": {"type": "core.Meter", "v": 1, "amount": 1, "seed": 1}},
            "core.codec_unexpected_type",
            "$.either",
        ),
        ({**GOOD, "either": "o"}, "core.codec_wrong_value", "$.either"),
        ({**GOOD, "position": "box"}, "core.codec_wrong_value", "$.position"),
        ({**GOOD, "mode": "both"}, "core.codec_wrong_value", "$.mode"),
        ({**GOOD, "kinds": ["toy.Nope"]}, "core.codec_unknown_type", "$.kinds[0]"),
        ({**GOOD, "anything": [1]}, "core.codec_wrong_value", "$.anything"),
        ({**GOOD, "colours": [["red"]]}, "core.codec_wrong_value", "$.colours[0]"),
        ({"type": "toy.Checked", "v": 1, "amount": -1}, "core.codec_refused", "$"),
        ({"type": "core.Meter", "v": 1, "amount": -1, "seed": 0}, "core.codec_refused", "$"),
    ],
)
def test_bad_payloads_are_refused_naming_the_path(payload: object, key: str, path: str) -> None:
    with pytest.raises(CodecError) as info:
        REG.decode(payload)
    assert (info.value.key, info.value.params["path"]) == (key, path), info.value.message
    assert str(info.value.params["path"]) in info.value.message


def test_expect_restricts_the_top_level_type() -> None:
    assert REG.decode(REG.encode(Leaf(1, Colour.RED)), expect=Leaf) == Leaf(1, Colour.RED)
    with pytest.raises(CodecError, match=r"expected toy\.Other"):
        REG.decode(REG.encode(Leaf(1, Colour.RED)), expect=(Other,))


def test_encode_refuses_what_it_could_not_read_back() -> None:
    with pytest.raises(CodecError, match="not a registered type"):
        REG.encode(object())
    with pytest.raises(CodecError, match=r"\$\.count: expected int"):
        REG.encode(everything(count="3"))
    with pytest.raises(CodecError, match=r"\$\.cards\[0\]"):
        REG.encode(everything(cards=("As",)))
    with pytest.raises(CodecError, match=r"\$\.kinds\[0\]: .*not a registered type"):
        REG.encode(everything(kinds=(int,)))
    with pytest.raises(CodecError, match=r"\$\.anything"):
        REG.encode(everything(anything=1.5))
    with pytest.raises(CodecError, match=r"\$\.config_id"):
        REG.encode(ToyOpened("r", RULES, None, date(2025, 1, 1)))  # type: ignore[arg-type]


JSONISH = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=5)
    | st.sampled_from(
        ["As", "toy.Leaf", "toy.Everything", "core.Meter", "1/2", "2025-01-01", "red", "dealer"]
    ),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["type", "v", "n", "colour", "text", "amount", "seed", "x"]),
            inner,
            max_size=5,
        )
    ),
    max_leaves=20,
)


# (Junk decoded also in the test after this one, each part of a valid payload replaced.)
@settings(max_examples=200)
@given(JSONISH)
def test_decode_of_any_json_like_value_refuses_cleanly(payload: object) -> None:
    try:
        REG.decode(payload)
    except CodecError as exc:
        assert str(exc.params["path"]).startswith("$")


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*path, i))
    return out


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replace(value[head], rest, new)}
    copy = list(value)
    copy[head] = _replace(copy[head], rest, new)
    return copy


@settings(max_examples=200)
@given(st.data(), JSONISH)
def test_a_valid_payload_with_one_part_replaced_refuses_cleanly(
    data: st.DataObject, new: Any
) -> None:
    payload = REG.encode(OPENED) if data.draw(st.booleans()) else GOOD
    where = data.draw(st.sampled_from(_paths(payload)))
    with contextlib.suppress(CodecError):
        REG.decode(_replace(payload, where, new), rules={"table-7": RULES})


# -- registration ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HasFloat:
    x: float


@dataclass(frozen=True, slots=True)
class HasType:
    type: str


@dataclass(frozen=True, slots=True)
class NestedRules:
    rules: tuple[ToyRules, ...]


@dataclass(frozen=True, slots=True)
class RulesNoConfig:
    rules: ToyRules


@dataclass(frozen=True, slots=True)
class Unresolvable:
    amount: Decimal


@dataclass(frozen=True, slots=True)
class HasCallable:
    f: Any = field(default=None)


@pytest.mark.parametrize(
    ("cls", "key"),
    [
        (HasFloat, "core.codec_unsupported_type"),
        (HasType, "core.codec_reserved_field"),
        (NestedRules, "core.codec_rules_nested"),
        (RulesNoConfig, "core.codec_rules_without_config_id"),
        (Unresolvable, "core.codec_unresolved_hints"),
        (int, "core.codec_not_dataclass"),
    ],
)
def test_registration_refuses_what_cannot_be_stored(cls: type, key: str) -> None:
    with pytest.raises(CodecError) as info:
        codec.Registry().register("bad", (cls,))
    assert info.value.key == key


def test_registration_names_are_unique_and_check_finds_unregistered_classes() -> None:
    r = codec.Registry()
    r.register("toy", (Leaf,))
    r.register("toy", (Leaf,))  # again: no-op
    assert r.names() == ("toy.Leaf",)
    assert r.class_named("toy.Leaf") is Leaf and r.type_name(Leaf) == "toy.Leaf"
    with pytest.raises(CodecError, match="already taken"):
        r.register("toy", (_other_leaf(),))
    r.register("toy", (Everything,))
    with pytest.raises(CodecError, match=r"Everything\.either") as info:
        r.check()
    assert isinstance(info.value, MacauTablesError)
    with pytest.raises(CodecError, match="unknown type"):
        r.class_named("toy.Nope")


def _other_leaf() -> type:
    @dataclass(frozen=True)
    class Leaf:
        n: int

    return Leaf

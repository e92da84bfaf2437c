"""What ``verify``'s faster paths must keep: the same values and the same refusals as the
paths they stand for.

* the chain walk's JSON reading (``store.verify._loads``) is ``json.loads``;
* a game's ``fold`` (:attr:`macau_tables.plugin.GamePlugin.fold`) is one step of its round's
  ``replay``: every prefix of a round folded event by event is the prefix replayed;
* the codec's compiled decoders (written out as code per class) give what the general decoder
  gives, and a payload off their path is refused as the general decoder refuses it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest

from macau_tables import codec
from macau_tables.cards import Card
from macau_tables.caribbean.events import CardDealt
from macau_tables.errors import CodecError
from macau_tables.games import GAMES
from macau_tables.rng import CardLeaf
from macau_tables.rounds import DEALER
from macau_tables.store.verify import _loads
from tests.test_round_contract import ADAPTERS, _play, _resolver

TEXTS = [
    '{"a":1,"b":[true,false,null],"c":{"d":"\\u00e9"}}',
    '{"a":1} ',  # trailing space: json.loads reads it
    ' {"a":1}',  # leading space
    "\n[1,2]\n",
    '"text"',
    "12",
    "1.5e3",
    '{"a":NaN}',
    '{"a":Infinity}',
    '{"a":1}{"b":2}',  # extra data
    '{"a":1',  # cut short
    "",
    "   ",
    "\ufeff{}",  # a byte-order mark
    '{"a":"\x01"}',  # a control character in a string
    '{"a":1,}',
    "[" * 50 + "]" * 50,
]


@pytest.mark.parametrize("text", TEXTS)
def test_the_chain_walk_reads_json_as_json_loads_does(text: str) -> None:
    try:
        expected: object = json.loads(text)
    except ValueError as exc:
        with pytest.raises(ValueError) as got:
            _loads(text)
        assert type(got.value) is type(exc) and str(got.value) == str(exc)
        return
    assert _loads(text) == expected
    assert repr(_loads(text)) == repr(expected)  # (NaN is not equal to itself)


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("seed", range(6))
def test_a_games_fold_is_one_step_of_its_replay(name: str, seed: int) -> None:
    plugin = GAMES[name]
    assert plugin.fold is not None
    r = _play(ADAPTERS[name], 3000 + seed)
    events = list(r.events)
    state = plugin.round_class.replay(events[:1])
    for n in range(1, len(events)):
        state = plugin.fold(state, events[n])
        assert state == plugin.round_class.replay(events[: n + 1]), (name, n)
    assert state == r


@pytest.mark.parametrize("name", sorted(GAMES))
def test_compiled_decoders_give_what_the_general_decoder_gives(name: str) -> None:
    r = _play(ADAPTERS[name], 4000)
    resolver = _resolver(r)
    registry = codec.default_registry()
    for event in r.events:
        payload = codec.encode(event)
        general = codec._Decoder(registry, resolver).tagged(payload, "$", None)
        fast = codec.decode(payload, rules=resolver)
        assert fast == general == event and type(fast) is type(general)


LEAF = CardLeaf(1, 3, "ab" * 32)


def test_a_field_left_at_its_default_and_an_enum_decode_as_before() -> None:
    for event in (
        CardDealt(Card.parse("As"), 1, True, LEAF),
        CardDealt(Card.parse("Td"), DEALER, False, None),
        CardDealt(Card.parse("2c"), DEALER, False),
    ):
        payload = codec.encode(event)
        assert codec.decode(payload) == event
    # the leaf, a field with a default, left out: read as its default
    payload = codec.encode(CardDealt(Card.parse("Kh"), 2, False, LEAF))
    del payload["leaf"]
    assert codec.decode(payload) == CardDealt(Card.parse("Kh"), 2, False, None)


@pytest.mark.parametrize(
    ("field", "value", "path"),
    [
        ("to", True, "$.to"),  # a bool where a box number or "dealer" is due
        ("face_up", 1, "$.face_up"),  # an int where a bool is due
        ("card", "Zz", "$.card"),  # no card
        ("card", 7, "$.card"),
        ("leaf", {"type": "core.Meter", "v": 1, "amount": 1, "seed": 1}, "$.leaf"),
        ("leaf", "x", "$.leaf"),
    ],
)
def test_a_payload_off_the_compiled_path_is_refused_naming_its_path(
    field: str, value: object, path: str
) -> None:
    payload = codec.encode(CardDealt(Card.parse("As"), 1, True, LEAF))
    payload[field] = value
    with pytest.raises(CodecError) as got:
        codec.decode(payload)
    assert got.value.params["path"] == path


def test_a_missing_or_unknown_field_and_another_version_are_refused() -> None:
    good = codec.encode(CardDealt(Card.parse("As"), 1, True, LEAF))
    missing = {k: v for k, v in good.items() if k != "card"}
    with pytest.raises(CodecError, match="card"):
        codec.decode(missing)
    with pytest.raises(CodecError, match="colour"):
        codec.decode({**good, "colour": "red"})
    with pytest.raises(CodecError):
        codec.decode({**good, "v": 3})
    # version 1 (before leaves) is read through the class's migration, as before
    old = {k: v for k, v in good.items() if k != "leaf"} | {"v": 1}
    assert codec.decode(old) == CardDealt(Card.parse("As"), 1, True, None)


@pytest.mark.parametrize("card", ["Zz", "A", "", 7, None, True, ["As"], {"text": "As"}])
def test_a_bad_card_in_a_list_of_cards_is_refused_naming_its_place(card: object) -> None:
    r = _play(ADAPTERS["caribbean"], 4100)
    resolver = _resolver(r)
    settled = next(e for e in r.events if type(e).__name__ == "RoundSettled")
    payload = codec.encode(settled)
    boxes = payload["settlement"]["boxes"]
    assert boxes and len(boxes[0]["cards"]) == 5
    assert codec.decode(payload, rules=resolver) == settled
    boxes[0]["cards"][1] = card
    with pytest.raises(CodecError) as got:
        codec.decode(payload, rules=resolver)
    assert got.value.params["path"] == "$.settlement.boxes[0].cards[1]"


@dataclass(frozen=True, slots=True)
class _Spot:
    name: str
    size: int = 3
    tags: tuple[str, ...] = ("a",)
    extra: dict[str, int] = field(default_factory=dict)


def test_a_class_built_by_position_gets_its_defaults_as_its_init_gives_them() -> None:
    registry = codec.Registry()
    registry.register("t", [_Spot])
    full = registry.encode(_Spot("x", 5, ("b", "c"), {"k": 1}))
    assert registry.decode(full) == _Spot("x", 5, ("b", "c"), {"k": 1})
    bare = {"type": "t._Spot", "v": 1, "name": "y"}
    one, two = registry.decode(bare), registry.decode(bare)
    assert one == _Spot("y") and type(one) is _Spot
    assert one.extra == {} and one.extra is not two.extra  # (a new one each time)
    assert one.tags is _Spot("z").tags  # (the default itself)
    with pytest.raises(CodecError):
        registry.decode({**bare, "size": "3"})

"""A union is decoded by dispatch (issue 21, item 5): a tagged object by its ``type`` tag
among the union's dataclasses, any other value by its JSON kind — no member tried after
another — and the compiled decoders give what the general decoder gives. Over every union
declared by a registered type."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from enum import Enum
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from macau_tables import _codec_types as t
from macau_tables import codec
from macau_tables.cards import DECK
from macau_tables.errors import CodecError

REGISTRY = codec.default_registry()


def _unions(tp: Any) -> Iterator[Any]:
    sh = t.shape(tp)
    if sh[0] == "union":
        yield tp
        for alt in sh[1]:
            yield from _unions(alt)
    elif sh[0] in ("seq", "set"):
        yield from _unions(sh[2])
    elif sh[0] == "fixed":
        for alt in sh[1]:
            yield from _unions(alt)
    elif sh[0] == "map":
        yield from _unions(sh[2])


def _registered_unions() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in REGISTRY.names():
        cls = REGISTRY.class_named(name)
        for f in dataclasses.fields(cls):
            for tp in _unions(t.resolve_hints(cls)[f.name]):
                out.setdefault(t.type_label(tp), tp)
    return out


UNIONS = _registered_unions()


def test_registered_types_declare_unions() -> None:
    assert len(UNIONS) >= 5 and TAGGED  # (Dealer | int, CardLeaf | None, Card | str, …)


@pytest.mark.parametrize("label", sorted(UNIONS))
def test_every_registered_union_is_told_apart_by_tag_or_json_kind(label: str) -> None:
    plan = t.union_plan(t.shape(UNIONS[label]))
    for kind, (_, narrow) in plan.by_kind.items():
        assert len(narrow) <= 1 or t.told_by_value(narrow), f"{label}: a {kind}: {narrow}"


def _scalars(tp: Any) -> st.SearchStrategy[Any]:
    """Values of a member that is not a dataclass (dataclass members: see below)."""
    sh = t.shape(tp)
    kind = sh[0]
    if kind == "none":
        return st.none()
    if kind == "bool":
        return st.booleans()
    if kind == "int":
        return st.integers(-(2**40), 2**40)
    if kind == "str":
        return st.text(max_size=8)
    if kind == "card":
        return st.sampled_from(DECK)
    if kind == "enum":
        return st.sampled_from(list(sh[1]))
    if kind == "literal":
        return st.sampled_from(sh[1])
    if kind == "seq":
        return st.lists(_scalars(sh[2]), max_size=3).map(sh[1])
    if kind == "union":
        return st.one_of([_scalars(a) for a in sh[1] if t.shape(a)[0] != "dataclass"])
    return st.nothing()


class _General:
    """The general decoder's needs, for a value that is not a tagged object."""

    def tagged(self, payload: object, path: str, allowed: Any) -> Any:
        raise AssertionError("no tagged object here")

    def class_named(self, name: object, path: str) -> type:
        return REGISTRY.class_named(str(name))


@settings(max_examples=300)
@given(st.data())
def test_a_value_of_any_member_round_trips_through_the_dispatch(data: st.DataObject) -> None:
    label = data.draw(st.sampled_from(sorted(UNIONS)))
    tp = UNIONS[label]
    value = data.draw(_scalars(tp))
    payload = t.encode_value(value, tp, "$", REGISTRY._encode_object, REGISTRY.type_name)
    assert t.decode_value(payload, tp, "$", _General()) == value
    fast = t.compile_decoder(tp, REGISTRY._table_of)
    assert fast(payload, _General()) == value
    if isinstance(value, Enum):
        assert t.decode_value(payload, tp, "$", _General()) is value


TAGGED = sorted(k for k, tp in UNIONS.items() if t.union_plan(t.shape(tp)).classes)


@pytest.mark.parametrize("label", TAGGED)
def test_a_tagged_member_is_decoded_by_its_tag_an_unknown_tag_refused_as_before(
    label: str,
) -> None:
    tp = UNIONS[label]
    plan = t.union_plan(t.shape(tp))
    seen: list[tuple[type, ...]] = []

    class Recording(_General):
        def tagged(self, payload: object, path: str, allowed: Any) -> Any:
            seen.append(allowed)
            return codec.Registry.decode  # a marker

    name = REGISTRY.type_name(plan.classes[0])
    assert t.decode_value({"type": name, "v": 1}, tp, "$.f", Recording()) is codec.Registry.decode
    assert seen == [plan.classes]
    with pytest.raises(CodecError) as refused:
        codec.decode({"type": "core.Meter", "v": 1, "amount": 1, "seed": 0, "x": {"type": 1}})
    assert refused.value.key == "core.codec_extra_field"
    decoder = codec._Decoder(REGISTRY, None)
    with pytest.raises(CodecError) as unknown:
        t.decode_value({"type": "nope.Nothing", "v": 1}, tp, "$.f", decoder)
    assert unknown.value.key == "core.codec_unknown_type"
    assert unknown.value.params == {"path": "$.f", "type": "'nope.Nothing'"}
    with pytest.raises(t.Mismatch):  # the compiled path leaves it to the general one
        t.compile_decoder(tp, REGISTRY._table_of)({"type": "nope.Nothing", "v": 1}, decoder)

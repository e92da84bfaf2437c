"""The engine's fast paths give exactly what the plain ones give (issue 9, the service's CPU
per round): a settlement's postings added up per account and reason as they are made, and the
codec's class encoders written out as code, on the events of rounds played through the
service, on each backend."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from macau_tables import codec, ledger, rounds
from macau_tables.errors import ConfigError
from macau_tables.rng import SeededRandom
from macau_tables.rounds import Outcome, WagerResult
from macau_tables.store import Store
from macau_tables.tables.bots import Bots
from tests.core.support import wager_results

from .support import PLAYERS, baccarat_rules, caribbean_rules, casino, service

AMOUNTS = st.integers(min_value=0, max_value=10**9)
"""Any mix of the money fields' sizes (:func:`tests.core.test_ledger.wager_results`)."""


@given(st.lists(wager_results(AMOUNTS), max_size=8), st.sampled_from([0, 0, 500, 12_345]))
def test_settlement_is_its_postings_one_by_one_added_up(
    results: list[WagerResult], seed_funding: int
) -> None:
    one_by_one = ledger._compact(ledger._settlement_postings(results, seed_funding))
    assert ledger.settlement(results, seed_funding=seed_funding) == one_by_one
    assert ledger.settlement(iter(results), seed_funding=seed_funding) == one_by_one
    assert ledger.total(one_by_one) == 0


@pytest.mark.parametrize("amount", [2.5, 0.0, True, "5"])
def test_settlement_refuses_an_amount_that_is_not_an_int_as_before(amount: object) -> None:
    good = WagerResult("p1", "box 1", "ante", 100, Outcome.WON, paid=200, house=-100)
    bad = WagerResult("p2", "box 2", "ante", 100, Outcome.LOST, house=100)
    object.__setattr__(bad, "commission", amount)  # past its own check
    with pytest.raises(ConfigError) as refused:
        ledger.settlement([good, bad])
    with pytest.raises(ConfigError) as before:
        ledger._compact(ledger._settlement_postings([good, bad], 0))
    assert refused.value.key == before.value.key


def test_stake_is_both_postings_or_none() -> None:
    assert ledger.stake("p1", 0) == ()
    assert [(p.account, p.amount, p.reason) for p in ledger.stake("p1", 7)] == [
        (ledger.Account.wallet("p1"), -7, ledger.Reason.STAKE),
        (ledger.IN_PLAY, 7, ledger.Reason.STAKE),
    ]
    with pytest.raises(ConfigError):
        ledger.stake("p1", 1.5)  # type: ignore[arg-type]


def _general(value: object) -> dict[str, Any]:
    return codec.default_registry()._encode_object(value, "$")


@pytest.mark.parametrize("game", ["caribbean", "baccarat"])
def test_played_events_encode_as_the_general_encoder_and_as_stored(store: Store, game: str) -> None:
    """Every event a service wrote (bots, bet slips and single commands, jackpot wagers among
    them), read back: the compiled encoder gives the general encoder's dict, key for key, and
    the stored payload's bytes."""
    rules = caribbean_rules() if game == "caribbean" else baccarat_rules()
    casino(store, {"t1": (game, rules, False)})
    svc = service(store, "t1", rng=SeededRandom(3))
    Bots(svc, PLAYERS[:4], seed=3, batched=True).play(4)
    Bots(svc, PLAYERS[:4], seed=4, batched=False).play(2)
    svc.close()
    read = store.read(
        lambda tx: [(r, r.decode(tx.config_resolver())) for r in tx.read_events("t1")]
    )
    kinds = set()
    for r, event in read:
        fast = codec.encode(event)
        assert fast == _general(event)
        assert list(fast) == list(_general(event))
        assert codec.canonical_bytes(event) == r.payload.encode("utf-8")
        kinds.add(type(event).__name__)
        for f in dataclasses.fields(event):  # nested values too (settlements, wagers, …)
            inner = getattr(event, f.name)
            if dataclasses.is_dataclass(inner) and type(inner) in _registered():
                assert codec.encode(inner) == _general(inner)
    assert {"RoundOpened", "CardDealt", "RoundSettled"} <= kinds


def _registered() -> set[type]:
    registry = codec.default_registry()
    return {registry.class_named(name) for name in registry.names()}


def test_replacer_builds_what_dataclasses_replace_builds(store: Store) -> None:
    """The folds' ``rounds.replacer`` (slots set directly for a class whose ``__init__`` only
    sets them) gives ``dataclasses.replace``'s value, for every state class it serves, and
    keeps ``__init__`` (its checks) for a class with a ``__post_init__``."""
    casino(
        store,
        {
            "c1": ("caribbean", caribbean_rules(), False),
            "b1": ("baccarat", baccarat_rules(), False),
        },
    )
    states: list[object] = []
    for table in ("c1", "b1"):
        svc = service(store, table, rng=SeededRandom(5))
        Bots(svc, PLAYERS[:3], seed=5, batched=True).play(2)
        round_ = svc.state.round
        states += [round_, svc.state.deal, getattr(svc.state.deal, "shoe", None)]
        states += list(getattr(round_, "boxes", ()))
        svc.close()
    for value in (v for v in states if v is not None):
        cls = type(value)
        assert rounds.slot_builder(cls, _init_names(cls)) is not None, cls
        first = dataclasses.fields(cls)[0].name  # type: ignore[arg-type]
        for changes in ({}, {first: getattr(value, first)}):
            new = rounds.replacer(cls)(value, **changes)
            assert type(new) is cls
            assert new == dataclasses.replace(value, **changes)  # type: ignore[type-var]
            assert all(
                getattr(new, n) is getattr(value, n) for n in _init_names(cls)
            )  # the same values, not copies
    # a class with a __post_init__ (its checks) is still built through __init__
    assert rounds.slot_builder(WagerResult, _init_names(WagerResult)) is None
    with pytest.raises(ConfigError):
        rounds.replacer(WagerResult)(
            WagerResult("p1", "box 1", "ante", 5, Outcome.LOST, house=5), house=4
        )


def _init_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls) if f.init)  # type: ignore[arg-type]

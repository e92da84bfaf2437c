"""Storable events of both games (issue 8, "Storable events"), over random rounds:

* ``decode(encode(x)) == x`` for every command applied and every event it produced (through a
  JSON text, with the table's rules given back by configuration id);
* ``canonical_bytes`` is stable: re-encoding the decoded value gives the same bytes;
* a replay of the decoded events equals the live round;
* the rules travel by reference (``RoundOpened`` holds ``{config_id, sha256}``) and a changed
  configuration is refused; the rules themselves encode and decode whole.

The random rounds reuse the games' own round-property drivers.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from macau_tables import codec
from macau_tables.errors import CodecError
from macau_tables.jackpot import Meter
from macau_tables.rounds import Audience
from macau_tables.voids import Ground

CONFIG = "table-7"


def _round_trip(values: Iterable[object], rules: object) -> list[Any]:
    """Each value through encode → JSON text → decode; checks equality and stable bytes."""
    out = []
    for value in values:
        payload = codec.encode(value)
        text = json.dumps(payload, ensure_ascii=False)
        back = codec.decode(json.loads(text), rules={CONFIG: rules})
        assert back == value, (value, payload)
        assert codec.canonical_bytes(back) == codec.canonical_bytes(value)
        out.append(back)
    return out


# -- Caribbean Stud ---------------------------------------------------------------------------

from tests.caribbean import support as caribbean_props  # noqa: E402
from tests.caribbean.support import SEED as CSP_SEED  # noqa: E402
from tests.caribbean.support import UNIT as CSP_UNIT  # noqa: E402
from tests.caribbean.support import new_round as caribbean_new_round  # noqa: E402
from tests.caribbean.support import player as caribbean_player  # noqa: E402


def _drive_caribbean(fault: str, stage: str, s: Any) -> tuple[Any, list[object]]:
    from macau_tables.caribbean.settlement import CarriedWager

    rules = caribbean_props.RULES[s.procedure]
    carried = [CarriedWager(b, caribbean_player(b), CSP_UNIT) for b in s.carried]
    r = caribbean_new_round(rules, carried=carried, config_id=CONFIG)
    applied: list[object] = []
    for i, cmd in enumerate(caribbean_props.commands(s, Meter(s.meter, CSP_SEED))):
        if i == s.fault_at[stage]:
            for fc in caribbean_props.fault_commands(r, fault, s):
                if r.can_apply(fc):
                    r, _ = r.apply(fc)
                    applied.append(fc)
        if r.is_over:
            break
        r, _ = r.apply(cmd)
        applied.append(cmd)
    return r, applied


@pytest.mark.parametrize("stage", ["betting", "dealing"])
@pytest.mark.parametrize("fault", ["none", "void", "expose1", "dead"])
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(caribbean_props.scripts())
def test_caribbean_commands_and_events_round_trip_and_replay(
    fault: str, stage: str, s: Any
) -> None:
    from macau_tables.caribbean import CaribbeanRound

    r, applied = _drive_caribbean(fault, stage, s)
    _round_trip(applied, r.rules)
    events = _round_trip(r.events, r.rules)
    assert CaribbeanRound.replay(events) == r
    _round_trip([r.expected_next(), r.view(Audience.public()), r.view(Audience.dealer())], r.rules)
    _round_trip([r.view(Audience.of_player(caribbean_player(b))) for b in range(1, 8)], r.rules)
    _round_trip([w for e in r.events for w in _results(e)], r.rules)
    _round_trip([p for e in r.events for p in r.postings(e)], r.rules)


def _results(event: object) -> tuple[object, ...]:
    settlement = getattr(event, "settlement", None)
    return tuple(getattr(settlement, "wagers", ())) if settlement is not None else ()


def test_caribbean_rules_are_stored_by_reference_and_whole() -> None:
    from macau_tables.caribbean import CaribbeanRound

    rules = caribbean_props.RULES[next(iter(caribbean_props.RULES))]
    r = CaribbeanRound.new(rules, "r9", caribbean_new_round().opening_date, config_id=CONFIG)
    opened = codec.encode(r.events[0])
    assert opened["rules"] == {"config_id": CONFIG, "sha256": codec.sha256(rules)}
    assert codec.rules_ref(rules, CONFIG).matches(rules)
    assert codec.decode(codec.encode(rules)) == rules
    assert codec.is_rules_type(type(rules))
    with pytest.raises(CodecError, match="rules of configuration"):
        codec.decode(opened)
    other = caribbean_props.RULES[list(caribbean_props.RULES)[-1]]
    if other != rules:
        with pytest.raises(CodecError, match="tampered"):
            codec.decode(opened, rules={CONFIG: other})
    assert codec.decode(opened, rules={CONFIG: rules}) == r.events[0]


# -- Baccarat and its shoe procedure ------------------------------------------------------------


def _baccarat_rules(card_holding: bool) -> Any:
    from dataclasses import replace
    from datetime import date

    from macau_tables.approvals import Approval
    from macau_tables.baccarat.rules import ALL_WAGERS, BaccaratRules, TieOption, default_limits

    rules = BaccaratRules(
        limits=default_limits(100, ALL_WAGERS),
        max_difference=30_000,
        tie_options=frozenset(TieOption),
        card_holding=card_holding,
    )
    records = tuple(
        Approval(q.option, q.value, f"R{i}", date(2026, 11, 2), date(2026, 11, 5))
        for i, q in enumerate(rules.options_requiring_approval())
    )
    return replace(rules, approvals=records)


BACCARAT_PEOPLE = ("alice", "bob", "carol", "dave", "erin")
BACCARAT_SEATED = {1: "alice", 2: "bob", 3: "carol"}


def _rarely(n: int) -> st.SearchStrategy[bool]:
    """True about once in ``n`` draws (``st.integers`` favours its bounds too much for this)."""
    return st.sampled_from([False] * (n - 1) + [True])


def _baccarat_command(data: st.DataObject, r: Any, deal: Any) -> Any:
    """One command for ``r`` drawn among those ``r.expected_next()`` lists (may be refused)."""
    from macau_tables.baccarat import commands as C
    from macau_tables.baccarat.bets import seat, standing
    from macau_tables.baccarat.rules import TieOption, WagerKind
    from macau_tables.baccarat.tableau import CardSlot
    from macau_tables.rounds import DEALER

    expected = r.expected_next()
    if data.draw(_rarely(60), label="void?"):
        return C.Void("sup-1", "power loss", Ground.UNCORRECTABLE)
    kinds = [c for c in expected.commands if c is not C.Void]
    if C.PlaceWager in kinds:
        kinds += [C.PlaceWager] * 4
    kind = data.draw(st.sampled_from(kinds), label="command")
    if kind is C.PlaceWager:
        who = data.draw(st.integers(0, 4), label="who")
        area = seat(who + 1) if who < 3 else standing(who - 2)
        wager = data.draw(st.sampled_from(list(WagerKind)), label="kind")
        amount = data.draw(st.integers(1, 60), label="units") * 100
        return C.PlaceWager(BACCARAT_PEOPLE[who], area, wager, amount)
    if kind is C.WithdrawWager and r.wagers:
        w = data.draw(st.sampled_from(list(r.wagers)), label="withdraw")
        return C.WithdrawWager(w.wager_id, w.player)
    if kind is C.ChangeCarried and r.wagers:
        w = data.draw(st.sampled_from(list(r.wagers)), label="carried")
        option = data.draw(st.sampled_from(list(TieOption)), label="option")
        change: int | None = data.draw(st.one_of(st.none(), st.integers(1, 10)))
        return C.ChangeCarried(
            w.wager_id, w.player, option, None if change is None else change * 100
        )
    if kind is C.CloseBetting:
        return C.CloseBetting()
    if kind is C.DealCard:
        slot = r.card_due() if data.draw(st.booleans(), label="say slot?") else None
        if r.live and data.draw(_rarely(8), label="wrong slot?"):
            slot = data.draw(st.sampled_from(list(CardSlot)), label="slot")
        exposed = data.draw(_rarely(10), label="exposed?")
        return C.DealCard(deal(), slot, exposed)
    step = r.pending_reveal()
    if kind is C.Reveal and step is not None:
        due = expected.due[0]
        return C.Reveal(step.side, step.part, due.player if due.player else DEALER)
    if kind is C.RevealTimeout and step is not None:
        return C.RevealTimeout(step.side, step.part)
    if kind is C.Correct:
        action = data.draw(st.sampled_from(list(C.CorrectionAction)), label="correction")
        return C.Correct("sup-1", "wrong card", action)
    if kind is C.Settle:
        seed = r.rules.jackpot_seed
        return C.Settle(Meter(seed + data.draw(st.integers(0, 10**7), label="meter"), seed))
    return None


def _play_baccarat_round(data: st.DataObject, r: Any, deal: Any) -> tuple[Any, list[object]]:
    from macau_tables.baccarat import commands as C

    applied: list[object] = []
    for _ in range(120):
        if r.is_over:
            break
        cmd = _baccarat_command(data, r, deal)
        if cmd is not None and r.can_apply(cmd):
            r, _ = r.apply(cmd)
            applied.append(cmd)
    if not r.is_over:
        cmd = C.Void("sup-1", "closing the test", Ground.UNCORRECTABLE)
        r, _ = r.apply(cmd)
        applied.append(cmd)
    return r, applied


# Decoded events replaying to the same rounds is also tests/test_round_contract.py's
# (test_codec_round_trip_and_replay_of_decoded_events, both games).
@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data(), st.integers(0, 2**32), st.booleans(), st.booleans())
def test_baccarat_shoe_and_rounds_round_trip_and_replay(
    data: st.DataObject, seed: int, card_holding: bool, live: bool
) -> None:
    """BAC rounds dealt from a shoe (virtual: a committed shuffle; live: typed cards), with
    wagers, ties carried on (BAC-12), card holding (BAC-16), corrections (BAC-10), voids: every
    shoe and round command and event decodes to itself; replays of the decoded events equal
    the live shoe and rounds."""
    from datetime import date

    from macau_tables.baccarat import BaccaratRound
    from macau_tables.baccarat import shoe as S
    from macau_tables.rng import SeededRandom, shuffle

    rules = _baccarat_rules(card_holding and not live)
    order = S.shuffle_shoe(rules.shoe, SeededRandom(seed))
    if live:
        shoe, shoe_events = S.open_shoe("s1", rules.shoe, live=True)
        cards = shuffle([c for c in order.order], SeededRandom(seed + 1))
    else:
        shoe, shoe_events = S.open_shoe("s1", rules.shoe, commitment=order.commitment)
    shoe_commands: list[object] = []
    position = data.draw(st.integers(60, 300), label="cut")
    for cmd in (S.Cut(S.Cutter.PLAYER, "alice", position),):
        shoe, ev = S.apply(shoe, cmd)
        shoe_commands.append(cmd)
        shoe_events += ev
    order = order.after_cut(position)
    burn = S.Burn(tuple(order.card_at(i) for i in range(rules.shoe.decks)))
    if S.check(shoe, burn) is not None:  # burn by the table's rule: as many as it asks
        first = order.card_at(0)
        burn = S.Burn(tuple(order.card_at(i) for i in range(1 + S.burn_value(first))))
    shoe, ev = S.apply(shoe, burn)
    shoe_commands.append(burn)
    shoe_events += ev

    dealt = iter(cards if live else [order.card_at(i) for i in range(shoe.out, shoe.size)])
    carried: tuple[Any, ...] = ()
    for k in range(1, data.draw(st.integers(1, 6), label="rounds") + 1):
        start = S.StartRound(f"r{k}")
        shoe, ev = S.apply(shoe, start)
        shoe_commands.append(start)
        shoe_events += ev
        r = BaccaratRound.from_shoe(
            shoe, rules, f"r{k}", date(2026, 12, 2), carried=carried, config_id=CONFIG,
            seated=BACCARAT_SEATED,
        )  # fmt: skip
        r, applied = _play_baccarat_round(data, r, lambda: next(dealt))
        _round_trip(applied, rules)
        events = _round_trip(r.events, rules)
        assert BaccaratRound.replay(events) == r
        views = [r.view(Audience.of_player(p)) for p in BACCARAT_PEOPLE]
        _round_trip([r.expected_next(), r.view(Audience.public()), *views], rules)
        _round_trip([p for e in r.events for p in r.postings(e)], rules)
        carried = r.carried_out()
        _round_trip(carried, rules)
        end = S.EndRound(r.accepted_cards(), r.discarded)
        shoe, ev = S.apply(shoe, end)
        shoe_commands.append(end)
        shoe_events += ev
        if shoe.phase is S.ShoePhase.FINISHED:
            break
    _round_trip(shoe_commands, rules)
    decoded = _round_trip(shoe_events, rules)
    assert S.replay(decoded) == shoe
    _round_trip([shoe], rules)


def test_baccarat_rules_are_stored_by_reference_and_whole() -> None:
    from datetime import date

    from macau_tables.baccarat import BaccaratRound

    rules = _baccarat_rules(True)
    r = BaccaratRound.new(rules, "r1", date(2026, 12, 2), config_id=CONFIG)
    opened = codec.encode(r.events[0])
    assert opened["rules"] == {"config_id": CONFIG, "sha256": codec.sha256(rules)}
    assert codec.decode(codec.encode(rules)) == rules
    assert codec.is_rules_type(type(rules))
    with pytest.raises(CodecError, match="tampered"):
        codec.decode(opened, rules={CONFIG: _baccarat_rules(False)})
    assert codec.decode(opened, rules=lambda cid: rules) == r.events[0]

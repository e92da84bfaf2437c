"""Property tests of the baccarat round (hypothesis): money conservation per round, ledger
postings that balance and equal the settlement, replay (and a codec round trip) equal to the
live round, a voided round returns every wager, no card beyond what the shoe holds, and the
hand-off of tied wagers across rounds (BAC-1, BAC-10, BAC-12, BAC-14, BAC-17, BAC-18)."""

from __future__ import annotations

import contextlib
from collections import Counter
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from macau_tables import codec
from macau_tables.baccarat.bets import Area, Wager, seat, standing
from macau_tables.baccarat.commands import (
    ChangeCarried,
    CloseBetting,
    Correct,
    CorrectionAction,
    DealCard,
    PlaceWager,
    Reveal,
    RevealStep,
    Settle,
    Void,
    WithdrawWager,
)
from macau_tables.baccarat.events import CardRefused, RoundSettled, RoundVoided, WagerWithdrawn
from macau_tables.baccarat.round import BaccaratRound, RoundPhase, deal_from
from macau_tables.baccarat.rules import (
    CommissionMode,
    TieOption,
    WagerKind,
)
from macau_tables.baccarat.shoe import SequenceSource
from macau_tables.baccarat.sides import Side
from macau_tables.baccarat.tableau import CardSlot, deal_round
from macau_tables.cards import DECK, Card, new_shoe
from macau_tables.errors import RuleViolation
from macau_tables.jackpot import Meter
from macau_tables.ledger import AccountKind, Posting, is_balanced
from macau_tables.rng import SeededRandom, shuffle
from macau_tables.rounds import DEALER, Audience, Outcome, Role
from macau_tables.voids import Ground

from .support import DAY, SEATED, STANDARD, approved

PEOPLE: list[tuple[str, Area]] = [
    ("alice", seat(1)),
    ("bob", seat(2)),
    ("carol", seat(3)),
    ("dave", standing(1)),
    ("erin", standing(2)),
]


NO_COMMISSION = approved(replace(STANDARD, commission=CommissionMode.NO_COMMISSION, approvals=()))

wagers_st = st.lists(
    st.tuples(st.integers(0, 4), st.sampled_from(list(WagerKind)), st.integers(1, 120)),
    max_size=12,
)


def place_all(r: BaccaratRound, wagers: list[tuple[int, WagerKind, int]]) -> BaccaratRound:
    for who, kind, units in wagers:
        player, area = PEOPLE[who]
        amount = r.rules.jackpot_wager if kind is WagerKind.JACKPOT else units * 100
        try:
            r2, _ = r.apply(PlaceWager(player, area, kind, amount))
        except RuleViolation:
            continue  # refused: the round is unchanged (it is a value; nothing to roll back)
        assert len(r2.wagers) == len(r.wagers) + 1
        r = r2
    return r


def close(r: BaccaratRound) -> BaccaratRound:
    """Close betting; while the BAC-14 difference refuses the close, the last new wager is
    taken back (what a table service does when the close is refused)."""
    while True:
        try:
            r, _ = r.apply(CloseBetting())
            return r
        except RuleViolation as err:
            assert err.rule == "BAC-14"
            last = next(w for w in reversed(r.wagers) if not w.carried)
            r, _ = r.apply(WithdrawWager(last.wager_id, last.player))


def shoe_cards(seed: int) -> tuple[Card, ...]:
    return tuple(shuffle(new_shoe(8), SeededRandom(seed)))


def totals(r: BaccaratRound) -> Counter[AccountKind]:
    """Every event's postings balance; their sum per account kind over the round."""
    out: Counter[AccountKind] = Counter()
    for e in r.events:
        ps: tuple[Posting, ...] = r.postings(e)
        assert is_balanced(ps)
        for p in ps:
            out[p.account.kind] += p.amount
    return out


def check_postings(r: BaccaratRound) -> None:
    """The postings of a settled or voided round equal its settlement, and over the whole
    round each account moved exactly what the settlement and the returns say."""
    s = r.settlement
    assert s is not None
    final = r.events[-1]
    assert isinstance(final, RoundSettled | RoundVoided)
    assert r.postings(final) == s.postings()
    t = totals(r)
    returned_carried = sum(x.paid for x in r.returned if x.carried_in)
    returned_new = sum(x.paid for x in r.returned if not x.carried_in)
    assert t[AccountKind.IN_PLAY] == 0  # every stake placed was settled or handed back
    assert t[AccountKind.COMMISSION] == s.commission
    assert t[AccountKind.JACKPOT_METER] == s.meter
    assert t[AccountKind.TABLE_BANK] + t[AccountKind.HOUSE_FUNDING] == s.house
    assert t[AccountKind.CARRIED] == s.carried - returned_carried
    assert t[AccountKind.WALLET] == s.players + returned_carried
    assert returned_new == sum(w.amount for e in r.events for w in _withdrawn(e))
    assert sum(t.values()) == 0


def _withdrawn(e: object) -> tuple[Wager, ...]:
    return (e.wager,) if isinstance(e, WagerWithdrawn) else ()


AUDIENCES = (
    *(Audience.of_player(p) for p, _ in PEOPLE),
    Audience.dealer(),
    Audience.supervisor(),
    Audience.public(),
)


def check_views(r: BaccaratRound) -> None:
    """BAC-16 hidden information: a face is shown only once the law revealed it (or it was
    exposed in error, BAC-4), except to the holder of a squeezed card; a player sees only their
    own wagers and results; the public no wager; the refused card only the dealer and the
    supervisor."""
    for a in AUDIENCES:
        v = r.view(a)
        staff = a.role in (Role.DEALER, Role.SUPERVISOR)
        for cv in v.cards:
            if cv.card is not None and not (cv.revealed or cv.exposed):
                side = Side.PLAYER if cv.slot.value.startswith("P") else Side.BANKER
                assert a.role is Role.PLAYER and r.holder(side) == a.player
            if cv.revealed or cv.exposed:
                assert cv.card is not None
        if a.role is Role.PLAYER:
            assert all(w.player == a.player for w in (*v.wagers, *v.waiting))
            assert all(x.player == a.player for x in v.results)
        if a.role is Role.PUBLIC:
            assert v.wagers == v.results == v.layout == ()
        assert (v.refused is not None) == (staff and r.pending is not None)


def check_codec(r: BaccaratRound) -> None:
    """Every event survives the codec, and a replay of the decoded events is the round."""
    rules = {r.config_id: r.rules}
    decoded = [codec.decode(codec.encode(e), rules=rules) for e in r.events]
    assert decoded == list(r.events)
    assert BaccaratRound.replay(decoded) == r


@settings(max_examples=150, deadline=None)
@given(wagers_st, st.integers(0, 2**32), st.booleans(), st.integers(0, 5_000_000))
def test_money_conserved_and_replay_equals_live_BAC_17_BAC_18(
    wagers: list[tuple[int, WagerKind, int]], seed: int, no_commission: bool, meter_amount: int
) -> None:
    rules = NO_COMMISSION if no_commission else STANDARD
    r = BaccaratRound.new(rules, "r", DAY, seated=SEATED)
    r = close(place_all(r, wagers))
    r, _, used = deal_from(r, SequenceSource(shoe_cards(seed)), 0)
    meter = Meter(meter_amount, rules.jackpot_seed)
    r, _ = r.apply(Settle(meter))
    s = r.settlement
    assert s is not None and r.result is not None
    assert r.result == deal_round(shoe_cards(seed)) and used == r.result.cards_used
    assert s.balance == 0  # players + commission + house + meter + carried = 0
    for line in s.lines:
        assert (
            line.stake + line.award_from_meter + line.award_from_house
            == line.paid + line.commission + line.house + line.meter + line.carried
        )
    if s.meter_after is not None:
        assert s.meter_after.amount == meter.amount + s.meter  # the meter moved by its net
    assert BaccaratRound.replay(r.events) == r
    check_postings(r)


@settings(max_examples=100, deadline=None)
@given(wagers_st, st.integers(0, 2**32), st.integers(0, 6))
def test_void_returns_every_wager_BAC_10(
    wagers: list[tuple[int, WagerKind, int]], seed: int, cards_before_void: int
) -> None:
    r = BaccaratRound.new(STANDARD, "r", DAY, seated=SEATED)
    r = place_all(r, wagers)
    staked = sum(w.amount for w in r.wagers)
    if cards_before_void:
        r = close(r)
        staked = sum(w.amount for w in r.wagers)
    for card in shoe_cards(seed)[:cards_before_void]:
        if r.card_due() is None:
            break
        r, _ = r.apply(DealCard(card))
    r, _ = r.apply(Void("sup", "cannot be corrected", Ground.UNCORRECTABLE))
    s = r.settlement
    assert s is not None
    assert all(x.outcome is Outcome.RETURNED for x in s.lines)
    assert sum(x.paid for x in s.lines) == staked and s.players == 0 and s.balance == 0
    assert BaccaratRound.replay(r.events) == r
    check_postings(r)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from(DECK), min_size=1, max_size=40),
    st.lists(st.integers(0, 2), min_size=52, max_size=52),
)
def test_live_round_never_takes_more_copies_than_the_shoe_holds_BAC_1(
    stream: list[Card], avail: list[int]
) -> None:
    """Live console: random cards arrive; impossible or undue ones are flagged and withdrawn."""
    rules = approved(replace(STANDARD, shoe=replace(STANDARD.shoe, decks=6)))
    r = BaccaratRound.new(rules, "r", DAY, live=True, available=avail)
    for card in stream:
        if r.phase is RoundPhase.COMPLETE:
            break
        before = r
        r, ev = r.apply(DealCard(card))
        if isinstance(ev[-1], CardRefused):
            assert r.cards == before.cards and r.wagers == before.wagers
            r, _ = r.apply(Correct("sup", "refused card", CorrectionAction.WITHDRAW))
        for c in DECK:  # dealt + withdrawn-from-the-shoe copies never exceed what it holds
            assert r.used_in_round(c) <= avail[c.index]
    assert BaccaratRound.replay(r.events) == r


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 2**32),
    st.lists(
        st.tuples(st.sampled_from(list(TieOption)), st.integers(1, 10)), min_size=0, max_size=6
    ),
    st.lists(st.booleans(), min_size=12, max_size=12),
)
def test_tied_wagers_hand_off_conserves_money_BAC_12(
    seed: int, choices: list[tuple[TieOption, int]], demos: list[bool]
) -> None:
    """Across a sequence of rounds with carried wagers (some waiting through demonstration
    rounds, BAC-2.2), all money is accounted for, in the settlements and in the ledger."""
    cards = shoe_cards(seed)
    pos = 0
    carried: tuple[Wager, ...] = ()
    ledger: Counter[AccountKind] = Counter()
    for k in range(12):
        demo = demos[k]
        r = BaccaratRound.new(STANDARD, f"r{k}", DAY, seated=SEATED, carried=carried, demo=demo)
        for i, (option, units) in enumerate(choices):
            if not r.wagers:
                break
            w = r.wagers[i % len(r.wagers)]
            if not w.carried:
                continue
            amount = None if option is not TieOption.REDUCE else min(units * 100, w.amount - 100)
            with contextlib.suppress(RuleViolation):
                r, _ = r.apply(ChangeCarried(w.wager_id, w.player, option, amount))
        if not demo:
            r, _ = r.apply(PlaceWager("alice", seat(1), WagerKind.BANKER, 1000))
            r, _ = r.apply(PlaceWager("bob", seat(2), WagerKind.PLAYER, 800))
            r = close(r)
        r, _, pos = deal_from(r, SequenceSource(cards), pos)
        r, _ = r.apply(Settle())
        s = r.settlement
        assert s is not None and s.balance == 0
        check_postings(r)
        ledger.update(totals(r))
        carried = r.carried_out()
        # the carried account holds exactly the wagers handed to the next round
        assert ledger[AccountKind.CARRIED] == sum(w.amount for w in carried)
        assert ledger[AccountKind.IN_PLAY] == 0
    assert sum(ledger.values()) == 0


@settings(max_examples=120, deadline=None)
@given(
    wagers_st,
    st.integers(0, 2**32),
    st.lists(st.sampled_from(DECK), max_size=4),
    st.integers(0, 8),
    st.booleans(),
    st.booleans(),
)
def test_postings_balance_and_equal_the_settlement_over_random_rounds_BAC_10_BAC_17(
    wagers: list[tuple[int, WagerKind, int]],
    seed: int,
    strays: list[Card],
    void_after: int,
    mistype: bool,
    card_holding: bool,
) -> None:
    """Random live rounds: wagers, some taken back, stray cards refused and corrected, a
    mistyped card struck, a void at a random point or a settlement with the meter. Every event's
    postings balance, the final event's equal the settlement, the codec round trip and the
    replay give the live round back, and every audience's view keeps the hidden information
    (BAC-16) at every step."""
    rules = approved(replace(STANDARD, card_holding=card_holding, approvals=()))
    r = BaccaratRound.new(rules, "r", DAY, seated=SEATED, live=True, config_id="t1/v1")
    r = place_all(r, wagers)
    if r.wagers and seed % 3 == 0:
        w = r.wagers[0]
        r, _ = r.apply(WithdrawWager(w.wager_id, w.player))
    r = close(r)
    cards = iter(shoe_cards(seed))
    stray = iter(strays)
    dealt = 0
    while not r.is_over and r.phase is not RoundPhase.COMPLETE:
        check_views(r)
        if dealt == void_after:
            r, _ = r.apply(Void("sup", "fault", Ground.UNCORRECTABLE))
            break
        step = r.pending_reveal()
        if step is not None:
            r, _ = r.apply(_reveal(r, step))
            continue
        card = next(stray, None) if seed % 2 else None
        if card is not None and r.can_apply(DealCard(card, CardSlot.BANKER_3)):
            r, ev = r.apply(DealCard(card, CardSlot.BANKER_3))  # usually not the slot due
            if isinstance(ev[-1], CardRefused):
                r, _ = r.apply(Correct("sup", "stray", CorrectionAction.WITHDRAW))
            continue
        card = next(cards)
        typo = Correct("sup", "typo", CorrectionAction.MISTYPED)
        if mistype and r.can_apply(typo) and dealt % 2:
            mistype = False  # the last entry was a typing error: struck, entered again below
            r, ev = r.apply(typo)
            assert not ev[0].discarded
            card = ev[0].card
        r, _ = r.apply(DealCard(card))
        dealt += 1
    if not r.is_over:
        r, _ = r.apply(Settle(Meter(seed % 10_000_000, rules.jackpot_seed)))
    assert r.is_over and r.settlement is not None and r.settlement.balance == 0
    check_views(r)
    check_postings(r)
    check_codec(r)


def _reveal(r: BaccaratRound, step: RevealStep) -> Reveal:
    holder = r.holder(step.side)
    return Reveal(step.side, step.part, holder if holder is not None else DEALER)

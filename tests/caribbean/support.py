"""Builders, Hypothesis strategies and checks shared by the Caribbean Stud round tests (no tests
here; test files import them from this module, never from one another)."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import strategies as st

from macau_tables import ledger
from macau_tables.approvals import Approval
from macau_tables.cards import DECK, Card, Rank, Suit, parse_cards
from macau_tables.caribbean.commands import (
    CloseBetting,
    Command,
    DealCard,
    DealtToEmptyBox,
    DecisionTimeout,
    Fold,
    PlaceAnte,
    PlaceJackpotWager,
    Raise,
    ReportExposedCard,
    ReportMisdeal,
    Showdown,
    ShufflerFailure,
    Void,
)
from macau_tables.caribbean.events import (
    RoundOpened,
    RoundSettled,
    RoundVoided,
)
from macau_tables.caribbean.round import CaribbeanRound, Phase, deal_order
from macau_tables.caribbean.rules import (
    CaribbeanRules,
    DealingProcedure,
    JackpotFixedAwards,
)
from macau_tables.errors import RuleViolation
from macau_tables.jackpot import Meter
from macau_tables.ledger import Account, AccountKind
from macau_tables.rounds import DEALER, Audience, Dealer, Role
from macau_tables.voids import Ground

OPENING = date(2026, 12, 10)  # a Thursday
UNIT = 100
SEED = 1_000_000
FIXED = JackpotFixedAwards(
    royal_flush=5_000_000,
    straight_flush=500_000,
    four_of_a_kind=50_000,
    full_house=15_000,
    flush=10_000,
)


def approval_for(odds: int) -> Approval:
    """A valid approval (applied Tue 1 Dec, effective Mon 7 Dec 2026) for ``odds``."""
    return Approval(
        "royal_flush_odds", odds, f"DICJ/CSP/{odds}", date(2026, 12, 1), date(2026, 12, 7)
    )


def make_rules(**overrides: Any) -> CaribbeanRules:
    """A valid table (approval included for the chosen royal-flush odds)."""
    odds = overrides.get("royal_flush_odds", 100)
    settings: dict[str, Any] = {
        "bet_unit": UNIT,
        "ante_minimum": UNIT,
        "ante_maximum": 100 * UNIT,
        "jackpot_wager": UNIT,
        "royal_flush_odds": odds,
        "max_payout_per_box": 100_000_000,
        "jackpot_fixed_awards": FIXED,
        "jackpot_contribution": Fraction(7, 10),
        "jackpot_seed": SEED,
        "dealing_procedure": DealingProcedure.SHUFFLER,
        "decision_timeout_seconds": 30,
        "approvals": (approval_for(odds),),
    }
    settings.update(overrides)
    return CaribbeanRules(**settings)


def new_round(rules: CaribbeanRules | None = None, **kwargs: Any) -> CaribbeanRound:
    return CaribbeanRound.new(rules or make_rules(), "r1", OPENING, **kwargs)


def player(box: int) -> str:
    return f"p{box}"


def bet(
    r: CaribbeanRound, antes: Mapping[int, int], jackpots: tuple[int, ...] = ()
) -> CaribbeanRound:
    """Place antes (box → amount) and jackpot wagers, then close betting."""
    for box, amount in antes.items():
        r, _ = r.apply(PlaceAnte(box, player(box), amount))
    for box in jackpots:
        r, _ = r.apply(PlaceJackpotWager(box, player(box)))
    r, _ = r.apply(CloseBetting())
    return r


def cards_for(r: CaribbeanRound, hands: Mapping[int | Dealer, str]) -> list[Card]:
    """The card sequence that gives each position (box, DEALER) its hand under the round's
    dealing order (works for both procedures)."""
    queues = {pos: parse_cards(text) for pos, text in hands.items()}
    return [queues[pos].pop(0) for pos in r.deal_order]


def deal(r: CaribbeanRound, hands: Mapping[int | Dealer, str]) -> CaribbeanRound:
    for card in cards_for(r, hands):
        r, _ = r.apply(DealCard(card))
    return r


def play(
    hands: Mapping[int, str],
    dealer: str,
    *,
    antes: Mapping[int, int] | None = None,
    jackpots: tuple[int, ...] = (),
    folds: tuple[int, ...] = (),
    rules: CaribbeanRules | None = None,
    meter: Meter | None = None,
) -> CaribbeanRound:
    """A complete round: bets, the deal giving ``hands`` and ``dealer``, decisions (raise unless
    in ``folds``), showdown against ``meter`` (default: the seed)."""
    from macau_tables.caribbean.commands import Showdown

    rules = rules or make_rules()
    antes = antes or dict.fromkeys(hands, UNIT)
    r = bet(new_round(rules), antes, jackpots)
    r = deal(r, {**hands, DEALER: dealer})
    for box in sorted(hands):
        if box in folds:
            r, _ = r.apply(Fold(box, player(box)))
        else:
            r, _ = r.apply(Raise(box, player(box), 2 * antes[box]))
    r, _ = r.apply(Showdown(meter or rules.new_meter()))
    return r


HANDS3 = {
    1: "As Ks Qs Js Ts",
    4: "9h 9d 7s 7c 5d",
    DEALER: "Ac Kh 4d 3c 2h",
}


def refused(r: CaribbeanRound, command: Command, rule: str) -> RuleViolation:
    """Assert ``command`` is refused with ``rule`` and ``r`` is unchanged."""
    snapshot = CaribbeanRound.replay(r.events)
    assert r.check(command) is not None
    assert not r.can_apply(command)
    with pytest.raises(RuleViolation) as exc:
        r.apply(command)
    assert exc.value.rule == rule, exc.value
    assert r == snapshot
    return exc.value


FAULTS = ("none", "void", "shuffler", "misdeal", "expose2", "expose1", "dead")

RULES = {p: make_rules(dealing_procedure=p, max_payout_per_box=20_000) for p in DealingProcedure}


@dataclass(frozen=True)
class Script:
    procedure: DealingProcedure
    antes: dict[int, int]
    jackpots: tuple[int, ...]
    cards: tuple[Card, ...]
    decisions: dict[int, str]
    meter: int
    fault_at: dict[str, int]
    carried: tuple[int, ...]
    spare: tuple[Card, ...]


@st.composite
def scripts(draw: st.DrawFn) -> Script:
    procedure = draw(st.sampled_from(list(DealingProcedure)))
    boxes = sorted(draw(st.sets(st.integers(1, 7), min_size=1, max_size=7)))
    antes = {b: draw(st.integers(1, 100)) * UNIT for b in boxes}
    # Jackpot wagers carried over from a void round (CSP-11.1): on boxes that play again (the
    # wager counts as placed) or on boxes whose player does not come back (carried again).
    carried = tuple(sorted(draw(st.sets(st.integers(1, 7), max_size=3))))
    jackpots = tuple(b for b in boxes if b not in carried and draw(st.booleans()))
    order = deal_order(procedure, boxes)
    hands: dict[int, list[Card]] = {}
    used: set[Card] = set()
    for b in boxes:
        kind = draw(
            st.sampled_from(
                ["none", "none", "royal", "straight_flush", "four", "full_house", "flush"]
            )
        )
        if kind == "none":
            continue
        hand = rigged_hand(kind, draw(st.sampled_from(list(Suit))), draw(st.integers(2, 14)))
        if used.isdisjoint(hand):
            hands[b] = hand
            used.update(hand)
    rest = [c for c in draw(st.permutations(DECK)) if c not in used]
    cards = [hands[pos].pop(0) if hands.get(pos) else rest.pop() for pos in order]
    spare = tuple(rest[:5])  # cards the round never deals: for a dead hand (CSP-11.3)
    decisions = {b: draw(st.sampled_from(["raise", "raise", "fold", "timeout"])) for b in boxes}
    meter = draw(st.integers(0, 50_000_000))
    # Where a fault strikes in each stage: before command number ``fault_at[stage]`` (the
    # commands are the bets, CloseBetting, the cards, the decisions, Showdown).
    bets = len(antes) + len(jackpots)
    fault_at = {
        "betting": draw(st.integers(0, bets)),
        "dealing": bets + 1 + draw(st.integers(0, len(cards) - 1)),
        "deciding": bets + 1 + len(cards) + draw(st.integers(0, len(boxes))),
    }
    return Script(
        procedure, antes, jackpots, tuple(cards), decisions, meter, fault_at, carried, spare
    )


def commands(s: Script, rules_meter: Meter) -> list[Command]:
    cmds: list[Command] = [PlaceAnte(b, player(b), a) for b, a in s.antes.items()]
    cmds += [PlaceJackpotWager(b, player(b)) for b in s.jackpots]
    cmds.append(CloseBetting())
    cmds += [DealCard(c) for c in s.cards]
    for b, d in s.decisions.items():
        if d == "raise":
            cmds.append(Raise(b, player(b), 2 * s.antes[b]))
        elif d == "fold":
            cmds.append(Fold(b, player(b)))
        else:
            cmds.append(DecisionTimeout(b))
    cmds.append(Showdown(rules_meter))
    return cmds


def fault_commands(r: CaribbeanRound, kind: str, s: Script) -> list[Command]:
    if kind == "none":
        return []
    if kind == "void":
        # CSP-11.4 during the deal, CSP-11.1 once the cards are out
        if r.phase is Phase.DECIDING:
            return [Void("box 2 had six cards", Ground.WRONG_CARD_COUNT, "sup-1")]
        return [Void("shuffler jammed", Ground.SHUFFLER_FAILURE, "sup-1")]
    if kind == "shuffler":
        return [ShufflerFailure()]
    if kind == "misdeal":
        return [ReportMisdeal("wrong number of cards")]
    if kind == "dead":
        empty = [b for b in range(1, 8) if b not in s.antes]
        return [DealtToEmptyBox(empty[0], s.spare[:2])] if empty else []
    dealt = [c for b in r.in_play for c in b.cards]
    return [ReportExposedCard(c) for c in dealt[: 2 if kind == "expose2" else 1]]


def rigged_hand(kind: str, suit: Suit, rank: int) -> list[Card]:
    """A jackpot hand so that random rounds exercise the jackpot (CSP-10)."""
    if kind == "royal":
        return [Card(r, suit) for r in (14, 13, 12, 11, 10)]
    if kind == "straight_flush":
        top = max(6, min(rank, 13))
        return [Card(r, suit) for r in range(top, top - 5, -1)]
    if kind == "four":
        kicker = Rank.TWO if rank != 2 else Rank.THREE
        return [Card(rank, s) for s in Suit] + [Card(kicker, suit)]
    if kind == "full_house":
        pair = 14 if rank != 14 else 13
        return [Card(rank, s) for s in list(Suit)[:3]] + [Card(pair, s) for s in list(Suit)[:2]]
    # flush
    return [Card(r, suit) for r in (14, 11, 8, 5, 2)]


def check_round(r: CaribbeanRound) -> None:
    """The postings of a finished round agree with its settlement."""
    s = r.settlement
    assert r.is_over and s is not None
    final = r.events[-1]
    assert isinstance(final, RoundSettled | RoundVoided)
    assert r.postings(final) == ledger.settlement(s.wagers, seed_funding=s.seed_funding)
    total = balances(r)
    kinds: Counter[AccountKind] = Counter()
    for account, amount in total.items():
        kinds[account.kind] += amount
    assert kinds[AccountKind.IN_PLAY] == 0  # every stake placed was settled or returned
    assert kinds[AccountKind.TABLE_BANK] + kinds[AccountKind.HOUSE_FUNDING] == s.house_net
    assert kinds[AccountKind.JACKPOT_METER] == s.meter_net
    opening = r.events[0]
    assert isinstance(opening, RoundOpened)
    # what the round took over: settled here, carried again, or handed back (CSP-11.1)
    carried_in = {c.player: c.amount for c in opening.carried}
    assert {w.player: w.stake for w in s.wagers if w.carried_in}.items() <= carried_in.items()
    carried_out = {c.player: c.amount for c in s.carried_over}
    assert kinds[AccountKind.CARRIED] == sum(carried_out.values()) - sum(carried_in.values())
    for who, net in s.net_by_player().items():
        wallet = total[Account.wallet(who)]
        # the player's holdings are the wallet and their carried stakes
        assert wallet + carried_out.get(who, 0) - carried_in.get(who, 0) == net, who


def check_views(r: CaribbeanRound) -> None:
    for audience in (*AUDIENCES, *(Audience.of_player(player(b)) for b in range(1, 8))):
        view = r.view(audience)
        seen = cards_in(view)
        assert seen <= allowed(r, audience), (audience, seen - allowed(r, audience))
        # never a face-down dealer card before the showdown, never a folded box's cards
        if r.phase is not Phase.SETTLED:
            hidden = {c for c, up in zip(r.dealer_cards, r.dealer_face_up, strict=True) if not up}
            assert not seen & hidden
        folded = {c for b in r.boxes if b.decided and not b.raised for c in b.cards}
        if audience.role is not Role.PLAYER:
            assert not seen & (folded - {e.card for e in r.exposed})


def balances(r: CaribbeanRound) -> Counter[Account]:
    """What each account gained over the round's events."""
    total: Counter[Account] = Counter()
    for event in r.events:
        postings = r.postings(event)
        assert ledger.is_balanced(postings), (event, postings)
        for p in postings:
            total[p.account] += p.amount
    return total


AUDIENCES = (Audience.dealer(), Audience.supervisor(), Audience.public())


def cards_in(value: object) -> set[Card]:
    """Every card anywhere inside a view (dataclasses and tuples, recursively)."""
    if isinstance(value, Card):
        return {value}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return set().union(*(cards_in(getattr(value, f.name)) for f in dataclasses.fields(value)))
    if isinstance(value, tuple):
        return set().union(*(cards_in(v) for v in value))
    return set()


def allowed(r: CaribbeanRound, audience: Audience) -> set[Card]:
    """The cards ``audience`` may see in ``r`` (the rule of the views, stated independently)."""
    settled = r.phase is Phase.SETTLED
    dealer = {c for c, up in zip(r.dealer_cards, r.dealer_face_up, strict=True) if up or settled}
    if audience.role is Role.PUBLIC:
        return set()
    if audience.role is Role.PLAYER:
        own = {c for b in r.boxes if b.player == audience.player for c in b.cards}
        return dealer | own
    shown = {c for b in r.boxes if settled and b.raised for c in b.cards}
    return dealer | shown | {e.card for e in r.exposed}

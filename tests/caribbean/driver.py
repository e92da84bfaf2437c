"""A driver of random but legal Caribbean Stud rounds, led by ``expected_next()`` (no tests here).

For the Caribbean tests and the cross-game contract suite: :func:`drive` plays one round from a
seed — bets (with jackpot wagers carried in from a void round, some handed back), the deal,
decisions, the showdown — with, now and then, a card exposed in error, a dead hand, a misdeal or
a fault, and returns every command with the round it produced. :func:`sample_commands` gives
one command of every type (legal or not in a given state), :func:`opened` a fresh round.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from macau_tables.cards import DECK, Card
from macau_tables.caribbean.commands import (
    CloseBetting,
    DealCard,
    DealtToEmptyBox,
    DecisionTimeout,
    Fold,
    PlaceAnte,
    PlaceJackpotWager,
    Raise,
    RejectReport,
    ReportExposedCard,
    ReportMisdeal,
    ReturnCarriedWager,
    Showdown,
    ShufflerFailure,
    Void,
)
from macau_tables.caribbean.round import CaribbeanRound
from macau_tables.caribbean.rules import CaribbeanRules, DealingProcedure
from macau_tables.caribbean.settlement import CarriedWager
from macau_tables.caribbean.state import Phase
from macau_tables.jackpot import Meter
from macau_tables.rounds import DueKind
from macau_tables.voids import Ground

from .support import OPENING, SEED, UNIT, make_rules

RULES = {p: make_rules(dealing_procedure=p, max_payout_per_box=20_000) for p in DealingProcedure}


def opened(
    rules: CaribbeanRules | None = None, carried: Sequence[CarriedWager] = (), round_id: str = "r1"
) -> CaribbeanRound:
    """A round just opened (default rules: shuffler, royal 100:1 approved)."""
    return CaribbeanRound.new(rules or make_rules(), round_id, OPENING, carried=carried)


def sample_commands() -> list[object]:
    """One command of every type, with plausible fields (each legal only in some states)."""
    return [
        PlaceAnte(1, "p1", UNIT),
        PlaceJackpotWager(1, "p1"),
        ReturnCarriedWager(6, "sup-1", "player left the table"),
        CloseBetting(),
        DealCard("As"),
        Raise(1, "p1", 2 * UNIT),
        Fold(1, "p1"),
        DecisionTimeout(1),
        Showdown(Meter(SEED, SEED)),
        ReportExposedCard("As"),
        ReportMisdeal("two cards stuck together"),
        DealtToEmptyBox(7, ("2c",)),
        ShufflerFailure(),
        Void("power loss", Ground.SHUFFLER_FAILURE, "sup-1"),
        RejectReport("sup-1", "the cards are right"),
    ]


def drive(seed: int, *, faults: bool = True) -> list[tuple[object, CaribbeanRound]]:
    """Play one random legal round from ``seed``; every ``(command, round after it)``, the
    first entry ``(None, opened round)``. The round at the end is over (settled or void)."""
    rnd = random.Random(seed)
    rules = RULES[rnd.choice(list(DealingProcedure))]
    boxes = sorted(rnd.sample(range(1, 8), rnd.randint(0, 2)))
    carried = [CarriedWager(b, f"p{b}", UNIT) for b in boxes]
    r = opened(rules, carried)
    steps: list[tuple[object, CaribbeanRound]] = [(None, r)]

    def do(command: object) -> None:
        nonlocal r
        r, _ = r.apply(command)
        steps.append((command, r))

    deck: list[Card] = list(DECK)
    rnd.shuffle(deck)
    meter = Meter(SEED + rnd.randrange(0, 20_000_000), SEED)
    fault_at = rnd.randrange(0, 40) if faults and rnd.random() < 0.15 else -1
    while not r.is_over:
        due = r.expected_next().due[0]
        if len(steps) == fault_at:
            # CSP-11.4 during the deal (before the last card), CSP-11.1 after it
            ground = (
                Ground.WRONG_CARD_COUNT if r.phase is Phase.DECIDING else Ground.SHUFFLER_FAILURE
            )
            do(rnd.choice([Void("power loss", ground, "sup-1"), ShufflerFailure()]))
            continue
        if due.kind is DueKind.SUPERVISOR:
            # a dealer's report holds the round: a supervisor confirms it or rejects it
            assert r.held is not None
            if rnd.random() < 0.5:
                do(Void("confirmed", r.held.ground, "sup-1"))
            else:
                do(RejectReport("sup-1", "the cards are right"))
            continue
        if due.kind is DueKind.WAGERS:
            for w in carried:
                if rnd.random() < 0.3 and r.can_apply(ReturnCarriedWager(w.box, "sup-1", "left")):
                    do(ReturnCarriedWager(w.box, "sup-1", "left"))
            boxes = sorted(rnd.sample(range(1, 8), rnd.randint(1, 7)))
            for box in boxes:
                if r.can_apply(PlaceAnte(box, f"p{box}", UNIT)):
                    do(PlaceAnte(box, f"p{box}", rnd.randint(1, 100) * UNIT))
                    if rnd.random() < 0.5 and r.can_apply(PlaceJackpotWager(box, f"p{box}")):
                        do(PlaceJackpotWager(box, f"p{box}"))
            if not r.in_play:
                do(PlaceAnte(boxes[0], f"p{boxes[0]}", UNIT))
            do(CloseBetting())
        elif due.kind is DueKind.CARD:
            if faults and r.dealt and rnd.random() < 0.008:
                exposed = ReportExposedCard(rnd.choice([*r.cards_in_round]))
                if r.can_apply(exposed):  # one stands (CSP-11.2), a second voids (CSP-11.1)
                    do(exposed)
                    continue
            if faults and rnd.random() < 0.005:
                dead = [d.box for d in r.dead_hands]
                empty = [b for b in range(1, 8) if r.box(b) is None and b not in dead]
                if empty:
                    do(DealtToEmptyBox(empty[0], (deck.pop(), deck.pop())))
                    continue
            if faults and rnd.random() < 0.002:
                do(ReportMisdeal("wrong number of cards"))
                continue
            do(DealCard(deck.pop()))
        elif due.kind is DueKind.DECISION:
            assert isinstance(due.position, int) and due.player is not None
            state = r.box(due.position)
            assert state is not None
            choice = rnd.choice(["raise", "raise", "fold", "timeout"])
            if choice == "raise":
                do(Raise(due.position, due.player, 2 * state.ante))
            elif choice == "fold":
                do(Fold(due.position, due.player))
            else:
                do(DecisionTimeout(due.position))
        else:
            assert due.kind is DueKind.SETTLEMENT
            do(Showdown(meter))
    return steps

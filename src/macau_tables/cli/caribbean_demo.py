"""``macau-tables demo caribbean --seed N``: play one seeded Caribbean Stud round and print it.

A demonstration only: the shoe is shuffled by :class:`~macau_tables.rng.SeededRandom`, which no
live table can select (``require_production`` refuses it). The demo table's approval record is
made up for the demonstration. The round is driven through the round contract
(:class:`~macau_tables.rounds.Round`: ``expected_next``, ``view``, ``apply``) and printed from
its events: cards as ``A♠ 10♥``, amounts in major units.
"""

from __future__ import annotations

from datetime import date
from fractions import Fraction

import typer

from ..approvals import Approval
from ..cards import Card, new_deck
from ..caribbean.commands import (
    CloseBetting,
    DealCard,
    Fold,
    PlaceAnte,
    PlaceJackpotWager,
    Raise,
    Showdown,
)
from ..caribbean.events import (
    AntePlaced,
    BettingClosed,
    CardDealt,
    CardExposed,
    CarriedWagerReturned,
    DeadHandDealt,
    DecisionMade,
    JackpotWagerPlaced,
    RoundOpened,
    RoundSettled,
    RoundVoided,
)
from ..caribbean.hands import HandCategory, evaluate
from ..caribbean.round import CaribbeanRound
from ..caribbean.rules import CaribbeanRules, DealingProcedure, JackpotFixedAwards
from ..caribbean.settlement import Settlement
from ..caribbean.view import PlayerView
from ..jackpot import Meter
from ..money import format_minor
from ..rng import SeededRandom, VirtualShoe, shuffle, verify_commitment
from ..rounds import DEALER, Audience, Dealer, DueKind
from .apps import demo_app
from .output import show_cards

__all__ = [
    "DEMO_METER",
    "demo_caribbean",
    "demo_rules",
    "describe",
    "play_demo_round",
]

_DEMO_DATE = date(2026, 1, 5)
DEMO_METER = 12_345_600
"""The jackpot meter the demonstration round starts from (123,456.00)."""


def demo_rules(procedure: DealingProcedure = DealingProcedure.SHUFFLER) -> CaribbeanRules:
    """The demonstration table: unit 10.00 (1000 avos), ante 1 to 100 units, jackpot wager 1
    unit, royal flush 100:1 with a (fictitious) approval, cap 500 000.00 per box."""
    return CaribbeanRules(
        bet_unit=1_000,
        ante_minimum=1_000,
        ante_maximum=100_000,
        jackpot_wager=1_000,
        royal_flush_odds=100,
        max_payout_per_box=50_000_000,
        jackpot_fixed_awards=JackpotFixedAwards(
            royal_flush=10_000_000,
            straight_flush=1_000_000,
            four_of_a_kind=100_000,
            full_house=30_000,
            flush=20_000,
        ),
        jackpot_contribution=Fraction(7, 10),
        jackpot_seed=5_000_000,
        dealing_procedure=procedure,
        approvals=(Approval("royal_flush_odds", 100, "DEMO-ONLY", date(2025, 12, 1), _DEMO_DATE),),
    )


def play_demo_round(seed: int, players: int = 3) -> CaribbeanRound:
    """One complete round with ``players`` boxes (1..7) and a seeded virtual shoe.

    Players raise with a pair or better, or A-K high; otherwise they fold (a simple rule, not
    strategy advice). Returns the settled round. Refuses ``players`` outside 1..7 (ValueError).
    """
    return _play(seed, players)[0]


def _keeps(cards: tuple[Card, ...]) -> bool:
    """The demo players' rule: raise with a pair or better, or A-K high."""
    ranks = sorted((c.rank for c in cards), reverse=True)
    return evaluate(list(cards)).category >= HandCategory.ONE_PAIR or ranks[:2] == [14, 13]


def _play(seed: int, players: int) -> tuple[CaribbeanRound, VirtualShoe]:
    """The demo round and its virtual shoe (closed after the round, so it can be revealed)."""
    if not 1 <= players <= 7:
        raise ValueError(f"players must be 1..7, got {players}")
    source = SeededRandom(seed)
    rules = demo_rules()
    shoe = VirtualShoe(new_deck(), source)
    r = CaribbeanRound.new(rules, f"demo-{seed}", _DEMO_DATE, config_id="demo")
    for box in sorted(shuffle(range(1, 8), source)[:players]):
        ante = rules.bet_unit * (1 + source.randbelow(10))
        r, _ = r.apply(PlaceAnte(box, f"player{box}", ante))
        if source.randbelow(2):
            r, _ = r.apply(PlaceJackpotWager(box, f"player{box}"))
    # The shoe's commitment goes into the log before the first card (Common rules "Randomness").
    r, _ = r.apply(CloseBetting(shoe.commitment.digest))
    while not r.is_over:
        due = r.expected_next().due[0]
        if due.kind is DueKind.CARD:
            r, _ = r.apply(DealCard(shoe.draw()))
        elif due.kind is DueKind.DECISION:
            assert isinstance(due.position, int) and due.player is not None
            seen = r.view(Audience.of_player(due.player))  # what the law lets the player see
            assert isinstance(seen, PlayerView)
            if _keeps(seen.cards):
                r, _ = r.apply(Raise(due.position, due.player, 2 * seen.ante))
            else:
                r, _ = r.apply(Fold(due.position, due.player))
        else:
            r, _ = r.apply(Showdown(Meter(DEMO_METER, rules.jackpot_seed)))
    shoe.close()  # one shoe per round: its order may be revealed now
    return r, shoe


def describe(r: CaribbeanRound) -> list[str]:
    """Printable lines of a round: its events, then the settlement."""
    lines = [f"round {r.round_id} ({r.rules.dealing_procedure} dealing, SeededRandom: demo only)"]
    settlement: Settlement | None = None
    for event in r.events:
        if isinstance(event, RoundSettled | RoundVoided):
            settlement = event.settlement
        lines.append("  " + _event_line(event))
    if settlement is not None:
        lines.extend(_settlement_lines(settlement))
    return lines


def _position(position: int | Dealer) -> str:
    return "dealer" if position is DEALER else f"box {position}"


def _event_line(event: object) -> str:
    if isinstance(event, RoundOpened):
        approvals = ", ".join(event.approval_references) or "none needed"
        return f"round opened on {event.opening_date.isoformat()} (approvals: {approvals})"
    if isinstance(event, CardDealt):
        up = " (face up)" if event.face_up else ""
        return f"deal {event.card.pretty} to {_position(event.to)}{up}"
    if isinstance(event, AntePlaced):
        return f"{event.player} ante {format_minor(event.amount)} on box {event.box}"
    if isinstance(event, JackpotWagerPlaced):
        return f"{event.player} jackpot wager {format_minor(event.amount)} on box {event.box}"
    if isinstance(event, DecisionMade):
        if event.raise_amount:
            return f"box {event.box} raises {format_minor(event.raise_amount)}"
        return f"box {event.box} folds{' (timed out)' if event.timed_out else ''}"
    if isinstance(event, BettingClosed):
        commitment = event.shoe_commitment or "none (physical shoe)"
        return f"betting closed; shoe commitment (SHA-256) {commitment}"
    if isinstance(event, CardExposed):
        return f"card exposed in error: {event.card.pretty} ({_position(event.position)})"
    if isinstance(event, DeadHandDealt):
        return f"dead hand of {len(event.cards)} cards dealt to empty box {event.box}"
    if isinstance(event, CarriedWagerReturned):
        return (
            f"carried jackpot wager {format_minor(event.amount)} returned to {event.player} "
            f"(box {event.box}, {event.supervisor}: {event.reason})"
        )
    if isinstance(event, RoundSettled):
        return "showdown"
    if isinstance(event, RoundVoided):
        return f"round void ({event.rule}): {event.reason}"
    return type(event).__name__  # an event this printer does not know yet: its name only


def _settlement_lines(s: Settlement) -> list[str]:
    money = format_minor
    lines: list[str] = []
    if s.dealer_cards:
        who = "qualifies" if s.dealer_qualifies else "does not qualify"
        category = s.dealer_category.english if s.dealer_category is not None else "?"
        lines.append(f"dealer {show_cards(s.dealer_cards)} ({category}): {who}")
    for box in s.boxes:
        category = f" ({box.category.english})" if box.category is not None else ""
        outcome = box.outcome.replace("_", " ")
        lines.append(f"box {box.box} {box.player}: {show_cards(box.cards)}{category} {outcome}")
        for w in s.for_box(box.box):
            outcome = w.outcome.replace("_", " ")
            lines.append(
                f"    {w.kind:<7} stake {money(w.stake):>12}  {outcome:<12} "
                f"paid {money(w.paid):>14}  net {money(w.net):>14}"
            )
    if s.jackpot is not None:
        j = s.jackpot
        # meter_before already holds this round's contributions: show the meter as it stood
        # before the round, then what went in, what was paid out, and where it ends.
        start = j.meter_before.amount - s.meter_contribution
        reset = "restarted from its seed" if j.reset else "not reset"
        lines.append(
            f"jackpot meter {money(start)} + contributions {money(s.meter_contribution)}"
            f" - paid from meter {money(j.meter_paid)} + seed funding {money(j.seed_funding)}"
            f" -> {money(j.meter_after.amount)} ({reset})"
        )
        for a in j.awards:
            lines.append(
                f"    box {a.box} {a.combination.replace('_', ' ')}: {money(a.amount)} "
                f"(meter {money(a.from_meter)}, house {money(a.from_house)})"
            )
    lines.append(
        f"players {money(s.players_net)}  house {money(s.house_net)}  "
        f"meter {money(s.meter_net)}  sum {money(s.players_net + s.house_net + s.meter_net)}"
    )
    return lines


@demo_app.command("caribbean")
def demo_caribbean(
    seed: int = typer.Option(1, help="Seed of the demonstration shoe (SeededRandom)."),
    players: int = typer.Option(3, min=1, max=7, help="Number of occupied boxes."),
) -> None:
    """Play one seeded Caribbean Stud round with the virtual shoe; print events and settlement."""
    r, shoe = _play(seed, players)
    for line in describe(r):
        typer.echo(line)
    reveal = shoe.reveal()
    ok = verify_commitment(r.shoe_commitment or "", reveal.order, reveal.salt)
    typer.echo(f"shoe revealed: salt {reveal.salt}")
    typer.echo(f"  order {show_cards(reveal.order)}")
    typer.echo(f"  matches the commitment published before the first card: {ok}")

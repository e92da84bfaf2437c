"""``macau-tables demo caribbean --seed N``: play one seeded Caribbean Stud round and print it.

A demonstration only: the shoe is shuffled by :class:`~macau_tables.rng.SeededRandom`, which no
live table can select (``require_production`` refuses it). The demo table's approval record is
made up for the demonstration.
"""

from __future__ import annotations

from datetime import date
from fractions import Fraction

import typer

from .. import cli
from ..approvals import Approval
from ..cards import format_cards, new_deck
from ..jackpot import Meter
from ..rng import SeededRandom, VirtualShoe, shuffle, verify_commitment
from .actions import CloseBetting, Command, DealCard, Fold, PlaceAnte, PlaceJackpotWager, Raise
from .actions import Showdown as ShowdownCommand
from .events import (
    AntePlaced,
    BettingClosed,
    CardDealt,
    DecisionMade,
    Event,
    JackpotWagerPlaced,
    RoundSettled,
)
from .hands import HandCategory, evaluate
from .round import DEALER, CaribbeanRound, Phase
from .rules import CaribbeanRules, DealingProcedure, JackpotFixedAwards
from .settlement import Settlement

__all__ = ["demo_caribbean", "demo_rules", "describe", "play_demo_round"]

_DEMO_DATE = date(2026, 1, 5)


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


def _play(seed: int, players: int) -> tuple[CaribbeanRound, VirtualShoe]:
    """The demo round and its virtual shoe (closed after the round, so it can be revealed)."""
    if not 1 <= players <= 7:
        raise ValueError(f"players must be 1..7, got {players}")
    source = SeededRandom(seed)
    rules = demo_rules()
    shoe = VirtualShoe(new_deck(), source)
    r = CaribbeanRound.new(rules, f"demo-{seed}", _DEMO_DATE)
    boxes = sorted(shuffle(range(1, 8), source)[:players])
    commands: list[Command] = []
    for box in boxes:
        ante = rules.bet_unit * (1 + source.randbelow(10))
        commands.append(PlaceAnte(box, f"player{box}", ante))
        if source.randbelow(2):
            commands.append(PlaceJackpotWager(box, f"player{box}"))
    # The shoe's commitment goes into the log before the first card (Common rules "Randomness").
    commands.append(CloseBetting(shoe.commitment.digest))
    r = r.apply_all(commands)
    while r.phase is Phase.DEALING:
        r, _ = r.apply(DealCard(shoe.draw()))
    for state in r.in_play:
        value = evaluate(list(state.cards))
        ranks = sorted((c.rank for c in state.cards), reverse=True)
        keep = value.category >= HandCategory.ONE_PAIR or ranks[:2] == [14, 13]
        if keep:
            r, _ = r.apply(Raise(state.box, state.player, 2 * state.ante))
        else:
            r, _ = r.apply(Fold(state.box, state.player))
    r, _ = r.apply(ShowdownCommand(Meter(12_345_600, rules.jackpot_seed)))
    shoe.close()  # one shoe per round: its order may be revealed now
    return r, shoe


def _money(amount: int) -> str:
    sign = "-" if amount < 0 else ""
    whole, cents = divmod(abs(amount), 100)
    return f"{sign}{whole:,}.{cents:02d}"


def describe(r: CaribbeanRound) -> list[str]:
    """Printable lines: the events, then the settlement."""
    lines = [f"round {r.round_id} ({r.rules.dealing_procedure} dealing, SeededRandom: demo only)"]
    for event in r.events:
        line = _event_line(event)
        if line:
            lines.append("  " + line)
    s = r.settlement
    if s is not None:
        lines.extend(_settlement_lines(s))
    return lines


def _position(position: int) -> str:
    return "dealer" if position == DEALER else f"box {position}"


def _event_line(event: Event) -> str:
    if isinstance(event, CardDealt):
        return f"deal {event.card} to {_position(event.to)}{' (face up)' if event.face_up else ''}"
    if isinstance(event, AntePlaced):
        return f"{event.player} ante {_money(event.amount)} on box {event.box}"
    if isinstance(event, JackpotWagerPlaced):
        return f"{event.player} jackpot wager {_money(event.amount)} on box {event.box}"
    if isinstance(event, DecisionMade):
        if event.raise_amount:
            return f"box {event.box} raises {_money(event.raise_amount)}"
        return f"box {event.box} folds{' (timed out)' if event.timed_out else ''}"
    if isinstance(event, RoundSettled):
        return "showdown"
    if isinstance(event, BettingClosed):
        commitment = event.shoe_commitment or "none (physical shoe)"
        return f"betting closed; shoe commitment (SHA-256) {commitment}"
    return f"{type(event).__name__}: {event}"


def _settlement_lines(s: Settlement) -> list[str]:
    who = "qualifies" if s.dealer_qualifies else "does not qualify"
    category = s.dealer_category.english if s.dealer_category is not None else "?"
    lines = [f"dealer {format_cards(s.dealer_cards)} ({category}): {who}"]
    for box in s.boxes:
        lines.append(
            f"box {box.box} {box.player}: {format_cards(box.cards)} "
            f"({box.category.english if box.category is not None else '?'}) {box.outcome}"
        )
        for w in s.for_box(box.box):
            lines.append(
                f"    {w.kind:<7} stake {_money(w.stake):>12}  {w.outcome:<12} "
                f"paid {_money(w.paid):>14}  net {_money(w.net):>14}"
            )
    if s.jackpot is not None:
        j = s.jackpot
        # meter_before already holds this round's contributions: show the meter as it stood
        # before the round, then what went in, what was paid out, and where it ends.
        start = j.meter_before.amount - s.meter_contribution
        lines.append(
            f"jackpot meter {_money(start)} + contributions {_money(s.meter_contribution)}"
            f" - paid from meter {_money(j.meter_paid)} + seed funding {_money(j.seed_funding)}"
            f" -> {_money(j.meter_after.amount)} (reset {j.reset})"
        )
        for a in j.awards:
            lines.append(
                f"    box {a.box} {a.combination}: {_money(a.amount)} "
                f"(meter {_money(a.from_meter)}, house {_money(a.from_house)})"
            )
    lines.append(
        f"players {_money(s.players_net)}  house {_money(s.house_net)}  "
        f"meter {_money(s.meter_net)}  sum {_money(s.players_net + s.house_net + s.meter_net)}"
    )
    return lines


demo_app = cli.demo_app


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
    typer.echo(f"  order {format_cards(reveal.order)}")
    typer.echo(f"  matches the commitment published before the first card: {ok}")

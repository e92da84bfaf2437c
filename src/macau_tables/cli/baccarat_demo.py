"""``macau-tables demo baccarat --seed N``: a seeded baccarat shoe start and a few rounds.

A demonstration only, never a live table: the shoe is shuffled by
:class:`~macau_tables.rng.SeededRandom` (which ``require_production`` refuses for a live
table), and the demo table's approval records are made up. The shoe follows its procedure
(commitment published, cut, burn, rounds; BAC-2.1, BAC-3) and each round is driven through the
round contract (:class:`~macau_tables.rounds.Round`: ``expected_next``, ``apply``) with the
wagers a tied round carries into the next (BAC-12). At the end the shoe is changed and its
order revealed and checked against the commitment published before its first card.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date

import typer

from ..approvals import Approval
from ..baccarat.bets import Wager, seat
from ..baccarat.commands import CloseBetting, DealCard, PlaceWager, Settle
from ..baccarat.events import RoundSettled
from ..baccarat.round import BaccaratRound
from ..baccarat.rules import (
    BaccaratRules,
    BurnRule,
    ShoeSettings,
    WagerKind,
    default_limits,
)
from ..baccarat.shoe import (
    Burn,
    ChangeShoe,
    Cut,
    Cutter,
    EndRound,
    ShoeState,
    StartRound,
    VirtualOrder,
    open_table_shoe,
    shuffle_shoe,
)
from ..baccarat.shoe import apply as shoe_apply
from ..baccarat.tableau import RoundResult
from ..cards import Card
from ..jackpot import Meter
from ..money import format_minor
from ..rng import RandomSource, SeededRandom, verify_commitment
from ..rounds import DueKind, WagerResult
from .apps import demo_app
from .output import show_cards

__all__ = ["BaccaratDemo", "demo_baccarat", "demo_rules", "describe", "play_demo_shoe"]

_DEMO_DATE = date(2026, 1, 5)
_UNIT = 1_000  # 10.00: a multiple of 20, so the 5 % commission is exact (BAC-18)
_OFFERED = (
    WagerKind.PLAYER,
    WagerKind.BANKER,
    WagerKind.TIE,
    WagerKind.PLAYER_PAIR,
    WagerKind.BANKER_PAIR,
    WagerKind.JACKPOT,
)


def demo_rules() -> BaccaratRules:
    """The demonstration table: 8 decks burning one card per deck (BAC-2.1), unit 10.00,
    banker / player 1 to 1000 units, tie and pairs 1 to 100 units, a jackpot wager of one unit
    with the default fixed awards; every option approved by a (fictitious) DEMO-ONLY record."""
    rules = BaccaratRules(
        shoe=ShoeSettings(decks=8, burn_rule=BurnRule.DECKS),
        bet_unit=_UNIT,
        limits=default_limits(_UNIT, _OFFERED),
        jackpot_wager=_UNIT,
    )
    approvals = tuple(
        Approval(need.option, need.value, "DEMO-ONLY", date(2025, 12, 1), _DEMO_DATE)
        for need in rules.options_requiring_approval()
    )
    return replace(rules, approvals=approvals)


@dataclass(frozen=True, slots=True)
class BaccaratDemo:
    """A demonstration shoe: its ``rounds`` in order, the shoe's state after the last one
    (changed, so it may be revealed), the committed ``order`` (cut as dealt), and the meter
    the first round started from."""

    rules: BaccaratRules
    shoe: ShoeState
    order: VirtualOrder
    rounds: tuple[BaccaratRound, ...]
    burned: tuple[Card, ...]
    meter: Meter


def play_demo_shoe(seed: int, players: int = 3, rounds: int = 3) -> BaccaratDemo:
    """Open a seeded shoe (commitment, cut, burn) and play ``rounds`` rounds (1..10) with
    ``players`` seated players (1..7), then change the shoe.

    Each player bets on banker or player every round (1 to 10 units), sometimes also on the tie,
    a pair or the jackpot (a random rule, not advice). A tied round's banker and player wagers
    are carried into the next round and left there (BAC-12). Refuses (``ValueError``) players
    or rounds out of range.
    """
    if not 1 <= players <= 7:
        raise ValueError(f"players must be 1..7, got {players}")
    if not 1 <= rounds <= 10:
        raise ValueError(f"rounds must be 1..10, got {rounds}")
    source = SeededRandom(seed)
    rules = demo_rules()
    order = shuffle_shoe(rules.shoe, source)
    shoe_id = f"demo-{seed}"
    shoe, _ = open_table_shoe(rules, shoe_id, _DEMO_DATE, commitment=order.commitment)
    cut_at = 1 + source.randbelow(rules.shoe.cards - 1)
    shoe, _ = shoe_apply(shoe, Cut(Cutter.PLAYER, "player1", cut_at))
    order = order.after_cut(cut_at)
    burned = tuple(order.card_at(i) for i in range(rules.shoe.decks))  # one per deck, BAC-2.1
    shoe, _ = shoe_apply(shoe, Burn(burned))
    seated = {n: f"player{n}" for n in range(1, players + 1)}
    start = Meter(5 * rules.jackpot_seed, rules.jackpot_seed)
    meter = start
    played: list[BaccaratRound] = []
    carried: tuple[Wager, ...] = ()
    for number in range(1, rounds + 1):
        round_id = f"{shoe_id}-{number}"
        shoe, _ = shoe_apply(shoe, StartRound(round_id))
        r = BaccaratRound.from_shoe(
            shoe, rules, round_id, _DEMO_DATE, seated=seated, carried=carried, config_id="demo"
        )
        r = _bet(r, seated, source)
        r, _ = r.apply(CloseBetting())
        r, meter = _deal_and_settle(r, order, shoe.out, meter)
        played.append(r)
        carried = r.carried_out()
        shoe, _ = shoe_apply(shoe, EndRound(r.accepted_cards()))
    shoe, _ = shoe_apply(shoe, ChangeShoe("end of the demonstration"))
    return BaccaratDemo(rules, shoe, order, tuple(played), burned, start)


def _bet(r: BaccaratRound, seated: dict[int, str], source: RandomSource) -> BaccaratRound:
    """Every seated player's wagers for the round (a seeded random choice)."""
    carried = {w.player for w in r.wagers if w.carried}
    for number, player in seated.items():
        if player not in carried:  # a carried wager already stands for this round
            side = WagerKind.BANKER if source.randbelow(2) else WagerKind.PLAYER
            r, _ = r.apply(
                PlaceWager(player, seat(number), side, _UNIT * (1 + source.randbelow(10)))
            )
        extra = source.randbelow(6)
        if extra == 0:
            r, _ = r.apply(PlaceWager(player, seat(number), WagerKind.TIE, _UNIT))
        elif extra == 1:
            pair = WagerKind.PLAYER_PAIR if source.randbelow(2) else WagerKind.BANKER_PAIR
            r, _ = r.apply(PlaceWager(player, seat(number), pair, _UNIT))
        elif extra == 2:
            r, _ = r.apply(PlaceWager(player, seat(number), WagerKind.JACKPOT, _UNIT))
    return r


def _deal_and_settle(
    r: BaccaratRound, order: VirtualOrder, position: int, meter: Meter
) -> tuple[BaccaratRound, Meter]:
    """Deal what the round asks for from the committed order, then settle it with ``meter``;
    returns the settled round and the meter after it."""
    while not r.is_over:
        due = r.expected_next().due[0]
        if due.kind is DueKind.CARD:
            r, _ = r.apply(DealCard(order.card_at(position)))
            position += 1
        elif due.kind is DueKind.SETTLEMENT:
            r, _ = r.apply(Settle(meter))
        else:  # the demo table has no card holding (BAC-16) and deals from a committed order
            raise AssertionError(f"the demonstration round does not expect {due.kind}")
    settled = _settled(r)
    return r, settled.settlement.meter_after or meter


def _settled(r: BaccaratRound) -> RoundSettled:
    for event in r.events:
        if isinstance(event, RoundSettled):
            return event
    raise AssertionError(f"round {r.round_id} was not settled")


def _wager_line(w: WagerResult) -> str:
    money = format_minor
    text = (
        f"    {w.player:<8} {w.spot:<7} {w.kind.replace('_', ' '):<12} "
        f"stake {money(w.stake):>9}  {w.outcome.replace('_', ' '):<12} paid {money(w.paid):>9}"
    )
    if w.commission:
        text += f"  commission {money(w.commission)}"
    if w.carried:
        text += f"  carried {money(w.carried)} into the next round"
    if w.award:
        text += f"  jackpot award {money(w.award)}"
    if w.carried_in:
        text += "  (carried in after a tie)"
    return text


def _hand(name: str, cards: Sequence[Card], total: int, pair: bool) -> str:
    return f"  {name:<6} {show_cards(cards):<12} total {total}" + ("  pair" if pair else "")


def _result_lines(result: RoundResult) -> list[str]:
    winner = "tie" if result.winner.value == "tie" else f"{result.winner.value} wins"
    natural = " (natural)" if result.natural else ""
    return [
        _hand("player", result.player_cards, result.player_total, result.player_pair),
        _hand("banker", result.banker_cards, result.banker_total, result.banker_pair),
        f"  {winner}{natural}",
    ]


def describe(demo: BaccaratDemo) -> list[str]:
    """Printable lines of a demonstration shoe: its start, each round (cards, totals, winner,
    every wager's outcome and amounts, the jackpot) and the verified reveal."""
    rules = demo.rules
    shoe = demo.shoe
    money = format_minor
    cut = shoe.cut
    lines = [
        f"shoe {shoe.shoe_id}: {rules.shoe.decks} decks, SeededRandom (demo only, never a "
        "live table)",
        f"  shoe commitment (SHA-256) {shoe.commitment}",
    ]
    if cut is not None:
        lines.append(
            f"  cut by {cut.cutter_id} at card {cut.position}; the cut card has "
            f"{cut.cut_card_behind} cards behind it"
        )
    lines.append(f"  burned {len(demo.burned)} cards, one per deck (BAC-2.1)")
    lines.append(f"  jackpot meter {money(demo.meter.amount)}")
    for r in demo.rounds:
        settled = _settled(r)
        s = settled.settlement
        lines.append(f"round {r.round_id}")
        lines.extend(_result_lines(settled.result))
        lines.extend(_wager_line(w) for w in s.lines)
        if s.combination is not None:
            lines.append(f"  jackpot combination: {s.combination.replace('_', ' ')}")
        if s.meter_before is not None and s.meter_after is not None:
            lines.append(
                f"  jackpot meter {money(s.meter_before.amount)} -> {money(s.meter_after.amount)}"
            )
        lines.append(
            f"  players {money(s.players)}  house {money(s.house)}  commission "
            f"{money(s.commission)}  meter {money(s.meter)}  carried {money(s.carried)}"
        )
    reveal = demo.order.reveal
    ok = verify_commitment(shoe.commitment or "", reveal.order, reveal.salt)
    reason = shoe.finished.reason if shoe.finished is not None else "not finished"
    lines.append(f"shoe changed ({reason}); revealed: salt {reveal.salt}")
    lines.append(f"  order before the cut ({len(reveal.order)} cards):")
    for first in range(0, len(reveal.order), 26):
        lines.append("    " + show_cards(reveal.order[first : first + 26]))
    lines.append(f"  matches the commitment published before the first card: {ok}")
    return lines


@demo_app.command("baccarat")
def demo_baccarat(
    seed: int = typer.Option(1, help="Seed of the demonstration shoe (SeededRandom)."),
    players: int = typer.Option(3, min=1, max=7, help="Number of seated players."),
    rounds: int = typer.Option(3, min=1, max=10, help="Rounds to deal from the shoe."),
) -> None:
    """Start a seeded baccarat shoe (commitment, cut, burn), deal a few rounds, print them
    (cards, totals, winner, every wager), then reveal the shoe and verify its commitment."""
    for line in describe(play_demo_shoe(seed, players, rounds)):
        typer.echo(line)

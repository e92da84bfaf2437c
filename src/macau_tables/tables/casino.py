"""The demonstration casino of ``macau-tables casino init``.

:func:`create_demo_casino` writes, in ONE store transaction (all of it or nothing):

* two linked progressive meters, one per game (``m-baccarat``, ``m-caribbean``), each posted
  from house funding at its seed (CSP-10.8, BAC-17);
* the configurations (stored once per version, referenced by id and hash) and three tables,
  open: ``bac-1`` an 8-deck baccarat table with a virtual (CSPRNG) shoe, ``bac-live`` a live
  baccarat table (cards from its dealer console), ``csp-1`` a Caribbean Stud table with a
  virtual deck; both baccarat tables share the baccarat meter;
* demonstration players with their wallets, each credited by the cashier's deposit
  transaction (with who and why).

It is a *demonstration*: every table is marked ``demo`` and its approval records are the
fictitious ``DEMO-ONLY`` reference (applied 1 December 2025, effective 5 December 2025: three
working days later, as the common rules "Approvals" require). The cards still come from the
operating system's CSPRNG: the service never seeds a shoe unless told to.

Refuses (``ConfigError`` ``operations.casino_exists``, saying what to do) a database that
already holds tables, players or meters: a casino is never initialised twice over itself.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from fractions import Fraction
from typing import Any, Final

from ..approvals import Approval
from ..baccarat.rules import BaccaratRules, BurnRule, ShoeSettings, WagerKind, default_limits
from ..caribbean.rules import CaribbeanRules, DealingProcedure, JackpotFixedAwards
from ..errors import ConfigError
from ..store import Store, TableMode, TableStatus, Tx
from .clock import opening_date

__all__ = [
    "DEMO_APPROVAL",
    "DEMO_PLAYERS",
    "MAX_DIFFERENCE",
    "DemoCasino",
    "DemoTable",
    "create_demo_casino",
    "demo_baccarat_rules",
    "demo_caribbean_rules",
    "existing_casino",
]

DEMO_APPROVAL: Final = "DEMO-ONLY"
"""The approval reference of every demonstration option (fictitious: never a live table)."""

APPLIED, EFFECTIVE = date(2025, 12, 1), date(2025, 12, 5)

UNIT: Final = 1_000
"""The demonstration bet unit, 10.00 (a multiple of 20: the 5 % commission is exact, BAC-18)."""

SEED: Final = 1_000_000
"""Both meters' seed, 10,000.00."""

MAX_DIFFERENCE: Final = 500_000
"""The baccarat tables' banker/player difference limit, 5,000.00 (BAC-14): betting does not
close while the round's banker and player totals differ by more."""

DEMO_PLAYERS: Final[tuple[tuple[str, str], ...]] = (
    ("alice", "Alice"),
    ("bruno", "Bruno"),
    ("carmen", "Carmen"),
    ("daniel", "Daniel"),
    ("elaine", "Elaine"),
    ("fong", "Fong"),
    ("grace", "Grace"),
)
"""Player id and name of the demonstration players (seven: a full Caribbean Stud table)."""

BALANCE: Final = 10_000_000
"""Each demonstration player's deposit, 100,000.00."""

ACTOR: Final = "casino init"


@dataclass(frozen=True, slots=True)
class DemoTable:
    """A table :func:`create_demo_casino` made."""

    table_id: str
    name: str
    game: str
    mode: TableMode
    config_id: str
    meter_id: str


@dataclass(frozen=True, slots=True)
class DemoCasino:
    """What :func:`create_demo_casino` made: the tables, the meters ``(meter_id, game,
    seed)``, the players ``(player_id, name, balance)`` and the deposits' transaction ids."""

    tables: tuple[DemoTable, ...]
    meters: tuple[tuple[str, str, int], ...]
    players: tuple[tuple[str, str, int], ...]
    deposits: tuple[int, ...]


def _approved(rules: Any) -> Any:
    records = tuple(
        Approval(need.option, need.value, DEMO_APPROVAL, APPLIED, EFFECTIVE)
        for need in rules.options_requiring_approval()
    )
    return replace(rules, approvals=records)


def demo_baccarat_rules() -> BaccaratRules:
    """An 8-deck baccarat table burning one card per deck (BAC-2.1), one demonstration round
    per shoe, unit 10.00, every wager with the default limits, a banker/player difference limit
    of 5,000.00 (BAC-14), the jackpot wager of one unit (BAC-17), card holding off; every
    option approved (``DEMO-ONLY``)."""
    rules = BaccaratRules(
        shoe=ShoeSettings(decks=8, burn_rule=BurnRule.DECKS, demo_rounds=1),
        bet_unit=UNIT,
        limits=default_limits(UNIT, tuple(WagerKind)),
        max_difference=MAX_DIFFERENCE,
        jackpot_wager=UNIT,
        jackpot_seed=SEED,
    )
    result: BaccaratRules = _approved(rules)
    return result


def demo_caribbean_rules() -> CaribbeanRules:
    """A Caribbean Stud table: ante 10.00 to 1,000.00, royal flush 100 to 1, the jackpot
    wager 10.00 with 70 % to the meter (CSP-10), a shuffler deck, 30 s to decide (CSP-6.4);
    every option approved (``DEMO-ONLY``)."""
    rules = CaribbeanRules(
        bet_unit=UNIT,
        ante_minimum=UNIT,
        ante_maximum=100 * UNIT,
        jackpot_wager=UNIT,
        royal_flush_odds=100,
        max_payout_per_box=100_000_000,
        jackpot_fixed_awards=JackpotFixedAwards(5_000_000, 500_000, 50_000, 15_000, 10_000),
        jackpot_contribution=Fraction(7, 10),
        jackpot_seed=SEED,
        dealing_procedure=DealingProcedure.SHUFFLER,
        decision_timeout_seconds=30,
    )
    result: CaribbeanRules = _approved(rules)
    return result


def existing_casino(tx: Tx) -> tuple[int, int, int]:
    """How many ``(tables, players, meters)`` the database already holds."""
    return len(tx.tables()), len(tx.players()), len(tx.meters())


def create_demo_casino(store: Store, *, actor: str = ACTOR) -> DemoCasino:
    """Create the demonstration casino (see the module docstring) in one transaction.

    Refuses (``operations.casino_exists``) a database that already holds tables, players or
    meters; (``RuleViolation`` CSP-13 / BAC-19) a configuration whose approvals are not in
    force today (they are, unless the clock is before 5 December 2025)."""
    baccarat, caribbean = demo_baccarat_rules(), demo_caribbean_rules()
    meters: tuple[tuple[str, str, int], ...] = (
        ("m-baccarat", "baccarat", baccarat.jackpot_seed),
        ("m-caribbean", "caribbean", caribbean.jackpot_seed),
    )
    tables = (
        DemoTable(
            "bac-1",
            "Baccarat 1 (virtual shoe)",
            "baccarat",
            TableMode.VIRTUAL,
            "bac-8d-v1",
            "m-baccarat",
        ),
        DemoTable(
            "bac-live", "Baccarat live", "baccarat", TableMode.LIVE, "bac-8d-v1", "m-baccarat"
        ),
        DemoTable(
            "csp-1",
            "Caribbean Stud 1 (virtual deck)",
            "caribbean",
            TableMode.VIRTUAL,
            "csp-v1",
            "m-caribbean",
        ),
    )
    rules: dict[str, Any] = {"baccarat": baccarat, "caribbean": caribbean}
    params: dict[str, dict[str, Any]] = {
        "baccarat": {
            "contribution": str(baccarat.jackpot_contribution),
            "wager": baccarat.jackpot_wager,
        },
        "caribbean": {
            "contribution": str(caribbean.jackpot_contribution),
            "wager": caribbean.jackpot_wager,
        },
    }

    def build(tx: Tx) -> DemoCasino:
        tables_now, players_now, meters_now = existing_casino(tx)
        if tables_now or players_now or meters_now:
            raise ConfigError(
                "operations.casino_exists",
                url=store.url,
                tables=tables_now,
                players=players_now,
                meters=meters_now,
            )
        today = opening_date(tx.now())
        for game_rules in rules.values():
            game_rules.check_approvals(today)  # CSP-13 / BAC-19: the tables open below
        for meter_id, game, seed in meters:
            tx.create_meter(meter_id, game=game, seed=seed, params=params[game], actor=actor)
        for t in tables:
            tx.put_config(t.game, t.config_id, rules[t.game])
            tx.create_table(
                t.table_id,
                name=t.name,
                game=t.game,
                mode=t.mode,
                demo=True,
                config_id=t.config_id,
                meter_id=t.meter_id,
            )
            tx.set_table_status(
                t.table_id, TableStatus.OPEN, actor=actor, reason="demonstration casino opened"
            )
        deposits = []
        for player_id, name in DEMO_PLAYERS:
            tx.add_player(player_id, name)
            deposits.append(
                tx.deposit(player_id, BALANCE, actor=actor, reason="demonstration float")
            )
        return DemoCasino(
            tables,
            meters,
            tuple((p, n, BALANCE) for p, n in DEMO_PLAYERS),
            tuple(deposits),
        )

    return store.run(build)

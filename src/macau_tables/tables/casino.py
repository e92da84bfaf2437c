"""The demonstration casino of ``macau-tables casino init``.

:func:`create_demo_casino` writes, in ONE store transaction (all of it or nothing):

* what each game's plug-in contributes (its ``demo``, :class:`macau_tables.plugin.Demonstration`,
  in the order :data:`macau_tables.games.GAMES` lists them): a linked progressive meter per game
  (``m-baccarat``, ``m-caribbean``), each posted from house funding at its seed (CSP-10.8,
  BAC-17); the configurations (stored once per version, referenced by id and hash) and the
  tables, open: ``bac-1`` an 8-deck baccarat table with a virtual (CSPRNG) shoe, ``bac-live`` a
  live baccarat table (cards from its dealer console), ``bac-squeeze`` a virtual baccarat table
  with card holding on (the squeeze, BAC-16), all three on the baccarat meter
  (:mod:`macau_tables.baccarat.demo`), ``csp-1`` a Caribbean Stud table with a virtual deck
  (:mod:`macau_tables.caribbean.demo`);
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

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import date
from typing import Any, Final

from ..approvals import Approval
from ..errors import ConfigError
from ..store import Store, TableMode, TableStatus, Tx
from .clock import opening_date

__all__ = [
    "DEMO_APPROVAL",
    "DEMO_PLAYERS",
    "SEED",
    "UNIT",
    "DemoCasino",
    "DemoTable",
    "approved",
    "create_demo_casino",
    "existing_casino",
]

DEMO_APPROVAL: Final = "DEMO-ONLY"
"""The approval reference of every demonstration option (fictitious: never a live table)."""

APPLIED, EFFECTIVE = date(2025, 12, 1), date(2025, 12, 5)

UNIT: Final = 1_000
"""The demonstration bet unit, 10.00 (a multiple of 20: the 5 % commission is exact, BAC-18)."""

SEED: Final = 1_000_000
"""Every demonstration meter's seed, 10,000.00."""

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


def approved(rules: Any) -> Any:
    """``rules`` with every option that needs an approval approved by the fictitious
    ``DEMO-ONLY`` reference (applied 1 December 2025, effective 5 December 2025)."""
    records = tuple(
        Approval(need.option, need.value, DEMO_APPROVAL, APPLIED, EFFECTIVE)
        for need in rules.options_requiring_approval()
    )
    return replace(rules, approvals=records)


def existing_casino(tx: Tx) -> tuple[int, int, int]:
    """How many ``(tables, players, meters)`` the database already holds."""
    return len(tx.tables()), len(tx.players()), len(tx.meters())


def create_demo_casino(store: Store, *, actor: str = ACTOR) -> DemoCasino:
    """Create the demonstration casino (see the module docstring) in one transaction.

    Refuses (``operations.casino_exists``) a database that already holds tables, players or
    meters; (``RuleViolation`` CSP-13 / BAC-19) a configuration whose approvals are not in
    force today (they are, unless the clock is before 5 December 2025)."""
    from ..games import GAMES  # here: the games' demonstrations import this module

    demos = {name: plugin.demo() for name, plugin in GAMES.items()}
    meters: tuple[tuple[str, str, int], ...] = tuple(
        (d.meter_id, name, d.rules.jackpot_seed) for name, d in demos.items()
    )
    tables = tuple(
        DemoTable(
            t.table_id,
            t.name,
            name,
            TableMode.LIVE if t.live else TableMode.VIRTUAL,
            t.config_id,
            d.meter_id,
        )
        for name, d in demos.items()
        for t in d.tables
    )
    # each table's configuration: its own (DemoTableSpec.rules) or its game's
    configs: dict[str, Any] = {
        t.config_id: (t.rules if t.rules is not None else d.rules)
        for d in demos.values()
        for t in d.tables
    }
    params: dict[str, Mapping[str, Any]] = {name: d.meter_params for name, d in demos.items()}

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
        for table_rules in configs.values():
            table_rules.check_approvals(today)  # CSP-13 / BAC-19: the tables open below
        for meter_id, game, seed in meters:
            tx.create_meter(meter_id, game=game, seed=seed, params=params[game], actor=actor)
        for t in tables:
            tx.put_config(t.game, t.config_id, configs[t.config_id])
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

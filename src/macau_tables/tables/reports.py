"""``macau-tables report``: a gaming day's figures per table, from the ledger.

A *gaming day* is a calendar day in Macau (UTC+8: :data:`~.clock.MACAU`), from midnight to
midnight; a table's figures are the sums of the postings of the transactions it recorded that
day (by the posting reasons of :class:`macau_tables.ledger.Reason`), so they always agree with
the ledger:

* ``drop`` — every stake taken from a wallet onto the layout (wallet, ``stake``);
* ``win`` — the house's result: what the table bank won and lost, the commission, the jackpot
  awards and meter restarts the house funded (``table_bank`` + ``commission`` +
  ``house_funding``). Contributions to the linked meter are the players' money held for the
  jackpot, not the house's: they are not win; a meter award is not a loss;
* ``hold`` — ``win / drop`` (``None`` without drop);
* ``commission`` (BAC-18); ``contributions`` — to the linked meter (CSP-10, BAC-17);
  ``awards`` — jackpot awards paid to wallets, of which ``awards_from_meter`` came out of the
  meter and ``awards_from_house`` from the house (CSP-10.8, BAC-17.5: a meter award takes only
  its share out of the meter, the house pays the difference up to a larger fixed award; the
  fixed awards that never touch the meter are the house's too); ``awards_held`` /
  ``awards_released`` — large awards held for a supervisor (moved from the wallet to their
  held accounts in the settling transaction, :mod:`.holds`) and released to the wallets;
  neither is win: the award was paid by the settlement (in ``awards``, and in ``win`` for the
  part the house funded) and only waits;
* ``rounds`` / ``voided`` — rounds that ended that day (settled or void);
* ``carried`` — wagers held for a later round at the end of the day (CSP-11.1, BAC-12);
* ``liability`` — the linked meter's amount at the end of the day: what the jackpot owes its
  next winners (one meter is shared by the tables linked to it; the totals count it once).

Per betting position (``report --by-position``; STANDARDS "meters for drop, wagers and
payouts per betting position"): each box or seat of each table over the rounds *settled* that
day, from their settlements (:class:`~macau_tables.rounds.WagerResult`, the rules' own
figures, which ``verify`` checks against the ledger), as the game's plug-in summed them into the
round's *settlement facts* when it settled (:mod:`macau_tables.facts`: stored with the
settlement and read here in one query, no round replayed; ``verify`` derives them again):
``wagers`` settled, ``drop`` (their
stakes taken from wallets in that round: a stake carried in from an earlier round was dropped
then), ``paid`` to the players (stakes back, wins, awards), ``commission``, ``contributions``
to the meter, ``awards`` and ``win`` (the table bank's net, the commission, less the awards the
house funded). A voided round's wagers went back whole and are not counted.

No report shows a card (CSP-12, BAC-16): the figures are the ledger's and the settlements' of
rounds that are over; a round still in play shows only in the stakes taken so far (``drop``);
of the day's events only the rounds' ends (settled, voided) are counted, never what they hold.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from fractions import Fraction
from typing import Any

from ..facts import FactLine
from ..money import format_minor, format_percent
from ..store import TableRecord, Tx
from ..store.facts_rows import position_sums
from ..store.history import balances_at, posting_totals, round_end_counts
from .clock import MACAU

__all__ = [
    "COLUMNS",
    "POSITION_COLUMNS",
    "DayReport",
    "PositionFigures",
    "TableFigures",
    "csv_row",
    "day_bounds",
    "day_positions",
    "day_report",
    "position_csv",
    "position_figures",
    "report_csv",
    "table_figures",
    "table_rows",
]


@dataclass(frozen=True, slots=True)
class TableFigures:
    """One table's figures over a period (see the module docstring); money in minor units."""

    table_id: str
    game: str
    meter_id: str | None
    rounds: int
    voided: int
    drop: int
    win: int
    commission: int
    contributions: int
    awards: int
    awards_from_meter: int
    carried: int
    liability: int
    awards_held: int = 0
    awards_released: int = 0
    awards_from_house: int = 0

    @property
    def hold(self) -> Fraction | None:
        """``win / drop`` (``None`` when nothing was staked)."""
        return Fraction(self.win, self.drop) if self.drop else None


@dataclass(frozen=True, slots=True)
class DayReport:
    """A gaming day's figures: the day, its bounds (UTC), each table's figures and the totals
    (the meters' liability counted once per meter)."""

    day: date
    start: datetime
    end: datetime
    tables: tuple[TableFigures, ...]
    totals: TableFigures


def day_bounds(day: date) -> tuple[datetime, datetime]:
    """Midnight to midnight in Macau on ``day``, as UTC times ``[start, end)``.

    >>> [t.isoformat() for t in day_bounds(date(2026, 1, 5))]
    ['2026-01-04T16:00:00+00:00', '2026-01-05T16:00:00+00:00']
    """
    start = datetime.combine(day, time(0), tzinfo=MACAU).astimezone(UTC)
    return start, start + timedelta(days=1)


def table_figures(
    tx: Tx, table: TableRecord, start: datetime | None, end: datetime | None
) -> TableFigures:
    """``table``'s figures over ``[start, end)`` (``None`` bounds: since the opening / up to
    now)."""
    sums = posting_totals(tx, table.table_id, start, end)

    def total(kind: str, reason: str | None = None) -> int:
        return sum(v for (k, r), v in sums.items() if k == kind and reason in (None, r))

    counts = round_end_counts(tx, table.table_id, start, end)
    settled = sum(n for t, n in counts.items() if t.endswith(".RoundSettled"))
    voided = sum(n for t, n in counts.items() if t.endswith(".RoundVoided"))
    at = end or datetime.now(UTC)
    carried_account = f"carried:{table.table_id}"
    accounts = [carried_account]
    meter_account = f"jackpot_meter:{table.meter_id}" if table.meter_id else None
    if meter_account is not None:
        accounts.append(meter_account)
    held = balances_at(tx, accounts, at)
    return TableFigures(
        table_id=table.table_id,
        game=table.game,
        meter_id=table.meter_id,
        rounds=settled + voided,
        voided=voided,
        drop=-total("wallet", "stake"),
        win=total("table_bank") + total("commission") + total("house_funding"),
        commission=total("commission", "commission"),
        contributions=total("jackpot_meter", "contribution"),
        awards=total("wallet", "award"),
        awards_from_meter=-total("jackpot_meter", "award"),
        carried=held[carried_account],
        liability=held[meter_account] if meter_account is not None else 0,
        awards_held=total("held_award", "award_held"),
        awards_released=-total("held_award", "award_released"),
        awards_from_house=-total("house_funding", "award"),
    )


def day_report(tx: Tx, day: date) -> DayReport:
    """Every table's figures on gaming day ``day`` and their totals."""
    start, end = day_bounds(day)
    figures = tuple(
        table_figures(tx, t, start, end) for t in sorted(tx.tables(), key=lambda t: t.table_id)
    )
    return DayReport(day, start, end, figures, totals(figures))


def totals(figures: tuple[TableFigures, ...]) -> TableFigures:
    """The sum of ``figures`` (each meter's liability once)."""
    meters = {f.meter_id: f.liability for f in figures if f.meter_id is not None}
    return TableFigures(
        table_id="total",
        game="",
        meter_id=None,
        rounds=sum(f.rounds for f in figures),
        voided=sum(f.voided for f in figures),
        drop=sum(f.drop for f in figures),
        win=sum(f.win for f in figures),
        commission=sum(f.commission for f in figures),
        contributions=sum(f.contributions for f in figures),
        awards=sum(f.awards for f in figures),
        awards_from_meter=sum(f.awards_from_meter for f in figures),
        carried=sum(f.carried for f in figures),
        liability=sum(meters.values()),
        awards_held=sum(f.awards_held for f in figures),
        awards_released=sum(f.awards_released for f in figures),
        awards_from_house=sum(f.awards_from_house for f in figures),
    )


def table_rows(tx: Tx) -> list[dict[str, Any]]:
    """Every table of the casino, by id, JSON-ready: ``table_id``, ``name``, ``game``,
    ``mode`` (virtual / live), ``demo``, ``status``, ``fault`` (its reason), ``config_id``,
    ``meter_id`` and ``meter_amount``, ``events`` recorded and the chain ``head`` (what
    ``macau-tables tables`` shows and ``GET /api/tables`` answers)."""
    meters = {m.meter_id: m.amount for m in tx.meters()}
    heads = tx.chain_heads()
    out = []
    for t in sorted(tx.tables(), key=lambda t: t.table_id):
        head = heads.get(t.table_id)
        out.append(
            {
                "table_id": t.table_id,
                "name": t.name,
                "game": t.game,
                "mode": t.mode.value,
                "demo": t.demo,
                "status": t.status.value,
                "fault": None if t.fault is None else t.fault.get("reason"),
                "config_id": t.config_id,
                "meter_id": t.meter_id,
                "meter_amount": meters.get(t.meter_id) if t.meter_id else None,
                "events": head.seq if head is not None else 0,
                "head": head.hash if head is not None else None,
            }
        )
    return out


COLUMNS = (
    "table_id",
    "game",
    "rounds",
    "voided",
    "drop",
    "win",
    "hold_percent",
    "commission",
    "jackpot_contributions",
    "jackpot_awards",
    "awards_from_meter",
    "awards_from_house",
    "carried",
    "meter_id",
    "liability",
)
"""The CSV's columns; ``awards_from_house``: the jackpot awards the house funded (CSP-10.8,
BAC-17.5), the rest of ``jackpot_awards`` beside ``awards_from_meter``."""


def csv_row(f: TableFigures) -> list[Any]:
    def plain(amount: int) -> str:
        return format_minor(amount, grouping=False)

    return [
        f.table_id,
        f.game,
        f.rounds,
        f.voided,
        plain(f.drop),
        plain(f.win),
        format_percent(f.hold),
        plain(f.commission),
        plain(f.contributions),
        plain(f.awards),
        plain(f.awards_from_meter),
        plain(f.awards_from_house),
        plain(f.carried),
        f.meter_id or "",
        plain(f.liability),
    ]


def report_csv(r: DayReport) -> str:
    """The report as CSV (amounts in major units, hold in percent)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    for f in (*r.tables, r.totals):
        writer.writerow(csv_row(f))
    return buffer.getvalue()


@dataclass(frozen=True, slots=True)
class PositionFigures:
    """One betting position's figures over a period (see the module docstring): ``position``
    as the settlement names the spot (``"box 3"``, ``"seat 2"``); money in minor units."""

    table_id: str
    position: str
    wagers: int
    drop: int
    paid: int
    commission: int
    contributions: int
    awards: int
    win: int


POSITION_FIELDS = ("wagers", "drop", "paid", "commission", "contributions", "awards", "win")
POSITION_COLUMNS = ("table_id", "position", *POSITION_FIELDS)


def _spot_order(spot: str) -> tuple[str, int, str]:
    word, _, number = spot.rpartition(" ")
    return (word, int(number), spot) if number.isdigit() else (spot, 0, spot)


def _figures(table_id: str, line: FactLine) -> PositionFigures:
    return PositionFigures(
        table_id,
        line.spot,
        wagers=line.wagers,
        drop=line.dropped,
        paid=line.paid,
        commission=line.commission,
        contributions=line.contributions,
        awards=line.awards,
        win=line.win,
    )


def position_figures(
    tx: Tx, table: TableRecord, start: datetime, end: datetime
) -> tuple[PositionFigures, ...]:
    """``table``'s figures per betting position over the rounds settled in ``[start, end)``,
    by position (from the stored settlement facts)."""
    sums = position_sums(tx, start, end)
    return tuple(
        _figures(table.table_id, sums[t, spot])
        for t, spot in sorted(sums, key=lambda k: _spot_order(k[1]))
        if t == table.table_id
    )


def day_positions(tx: Tx, day: date) -> list[PositionFigures]:
    """Every table's per-position figures on gaming day ``day``, by table and position: the
    sums of the stored settlement facts (:mod:`macau_tables.facts`) of the rounds settled that
    day, in one query (no round is replayed)."""
    start, end = day_bounds(day)
    sums = position_sums(tx, start, end)
    return [
        _figures(table_id, sums[table_id, spot])
        for table_id, spot in sorted(sums, key=lambda k: (k[0], _spot_order(k[1])))
    ]


def position_csv(figures: Iterable[PositionFigures]) -> str:
    """Per-position figures as CSV (amounts in major units)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(POSITION_COLUMNS)
    for f in figures:
        writer.writerow(
            [
                f.table_id,
                f.position,
                f.wagers,
                *(format_minor(getattr(f, name), grouping=False) for name in POSITION_FIELDS[1:]),
            ]
        )
    return buffer.getvalue()

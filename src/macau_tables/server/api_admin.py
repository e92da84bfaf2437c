"""The operations API: cashier, wallets, jackpot meters, authorisations waiting,
verify, the daily report, the audit archive and log, the tables' configurations and approvals.

Every route carries exactly one role rule (:func:`~.auth.require` or :data:`~.auth.public`);
every privileged action is recorded with who, when and why (:func:`~.auth.record_action`) and
every state change requires a ``reason``. The work itself is the library's, the same functions
the command line calls — nothing is computed here a second time:

* wallets: ``GET /api/wallets/me`` (a player: their own wallet, never another's),
  ``GET /api/wallets`` (supervisor, admin: every wallet);
* cashier (admin): ``POST /api/cashier/deposit`` and ``/withdraw`` ``{player, amount, reason,
  idempotency_key}`` — a ledger transaction between the cashier's account and the wallet with
  who and why (:meth:`~macau_tables.store.Tx.deposit` / ``withdraw``); ``amount`` a positive
  ``int`` in minor units; a withdrawal above the balance is refused with nothing written; the
  same key again answers the first result, with another request it is refused;
* meters (public, the jackpot display, CSP-1): ``GET /api/meters`` and
  ``GET /api/meters/{id}`` — amount, seed, parameters (and those pending until the next hit),
  the fixed awards of the linked tables' configuration (CSP-10.3, BAC-17) and the last 25
  hits; ``POST /api/meters/{id}/params`` (admin) —
  :func:`~macau_tables.tables.meters.change_meter_params`: refused while a linked table has a
  round open, in force from the next hit (CSP-10.8);
* ``GET /api/authorisations`` (supervisor): what waits for a supervisor now at every table
  (those served elsewhere as the store holds them) — a round whose ``expected_next()`` is due
  a supervisor (a refused live card, BAC-10: correct or void), a table stopped by a fault
  (CSP-11.4, BAC-10: clear it) and a large jackpot award held for a supervisor (CSP-10,
  BAC-17: release it, :mod:`~macau_tables.tables.holds`) — with the supervisor's commands it
  accepts now (sent through ``POST /api/tables/{id}/commands``);
* ``GET /api/verify`` (supervisor, admin): ``macau-tables verify`` (one at a time);
  ``GET /api/reports/daily?day=YYYY-MM-DD[&format=csv]`` (supervisor, admin):
  ``macau-tables report``; ``GET /api/audit/archive?day=YYYY-MM-DD`` (admin): the archive
  ``macau-tables audit export`` writes; ``GET /api/audit/log?limit=N`` (admin): the privileged
  actions, newest first;
* ``GET /api/admin/tables`` (admin): each table's configuration, the options needing the
  regulator's approval and the approval records (CSP-13, BAC-19), and whether they allow the
  table to open today; ``POST /api/admin/tables/{id}/config`` (admin) ``{changes, approvals,
  reason, idempotency_key}`` — :func:`~macau_tables.tables.reconfigure.change_table_config`:
  the table's rules with the changes and the approval records added, validated by the rules
  themselves, stored as a NEW configuration version (approvals are part of it: hashed, never
  changed in place; past rounds still resolve theirs), the table pointed at it and its service
  reloaded — only between rounds (refused while a round is in progress), in force from the
  next round.
"""

from __future__ import annotations

import dataclasses
import tempfile
import threading
from collections.abc import Callable
from datetime import date
from functools import partial
from pathlib import Path
from typing import Annotated, Any, Final, Literal, TypeVar

from fastapi import APIRouter, Depends, Query
from fastapi import Path as PathParam
from fastapi.responses import FileResponse, PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr
from starlette.background import BackgroundTask

from .. import codec
from ..approvals import Approval
from ..errors import MacauTablesError, StoreError, json_param
from ..money import format_percent
from ..rounds import DueKind, Expected, Issuer, issuer_of
from ..store import MeterHit, MeterRecord, TableRecord, Tx
from ..tables.archive import export_day
from ..tables.audit import verify_database
from ..tables.clock import opening_date, parse_day
from ..tables.engine import TableState
from ..tables.holds import Hold, waiting_holds
from ..tables.meters import change_meter_params
from ..tables.model import ClearFault, ReleaseAward, ShufflerReplaced, TableError
from ..tables.reconfigure import FIXED_FIELDS, change_table_config, rules_with_changes
from ..tables.reports import (
    PositionFigures,
    TableFigures,
    day_positions,
    day_report,
    position_csv,
    report_csv,
)
from ..tables.storage import read_table
from . import auth
from .analysis_worker import jobs as analysis_jobs
from .errors import register_status
from .paytables import linked_awards
from .principal import Principal, UserRole
from .runtime import Runtime, RuntimeDep

__all__ = ["router"]

router = APIRouter(tags=["operations"])

HITS_SHOWN: Final = 25
"""How many of a meter's last hits the jackpot display gets."""

AUDIT_LOG_MAX: Final = 1000
"""The most audit entries one request returns."""

register_status("admin.reason_required", 422)
register_status("admin.verify_busy", 429)
register_status("admin.day_out_of_range", 422)
register_status("tables.meter_round_open", 409)
register_status("tables.config_round_open", 409)
register_status("tables.config_shoe_in_play", 409)
register_status("analysis.job_unknown", 404)

Player = Annotated[Principal, Depends(auth.require(UserRole.PLAYER))]
Admin = Annotated[Principal, Depends(auth.require(UserRole.ADMIN))]
Supervisor = Annotated[Principal, Depends(auth.require(UserRole.SUPERVISOR))]
Staff = Annotated[Principal, Depends(auth.require(UserRole.SUPERVISOR, UserRole.ADMIN))]
PUBLIC: Final = [Depends(auth.public)]

Day = Annotated[
    str,
    Query(
        description="The gaming day, YYYY-MM-DD (midnight to midnight, Macau time).",
        max_length=10,
        examples=["2026-01-05"],
    ),
]
NAME: Final = r"^[^\x00-\x1f\x7f]+$"
"""An id or a name: no control characters (PostgreSQL cannot even compare a NUL)."""
TEXT: Final = r"^[^\x00]*$"
"""A free text (a reason, a key): anything but NUL."""

MeterId = Annotated[str, PathParam(min_length=1, max_length=100, pattern=NAME)]
Name = Annotated[StrictStr, Field(min_length=1, max_length=100, pattern=NAME)]
Reason = Annotated[StrictStr, Field(min_length=1, max_length=500, pattern=TEXT)]


def _reason(text: str) -> str:
    """``text`` stripped; refuses a blank reason (``admin.reason_required``)."""
    if not text.strip():
        raise MacauTablesError("admin.reason_required")
    return text.strip()


def _iso(value: Any) -> str | None:
    return None if value is None else value.isoformat()


# -- wallets ----------------------------------------------------------------------------------


class Wallet(BaseModel):
    """A player's wallet (minor units)."""

    player: str
    name: str
    balance: int


class Wallets(BaseModel):
    """Every player's wallet."""

    wallets: list[Wallet]


@router.get("/api/wallets/me", summary="The signed-in player's own wallet")
def my_wallet(runtime: RuntimeDep, who: Player) -> Wallet:
    """The wallet of the signed-in player (a player never sees another's)."""

    def read(tx: Tx) -> Wallet:
        found = tx.player(who.name)
        if found is None:
            raise MacauTablesError("store.unknown_player", player=who.name)
        return Wallet(player=found.player_id, name=found.name, balance=found.balance)

    return runtime.store.read(read)


@router.get("/api/wallets", summary="Every player's wallet (supervisor, admin)")
def all_wallets(runtime: RuntimeDep, who: Staff) -> Wallets:
    """Every player's wallet, by player id."""
    players = runtime.store.read(lambda tx: tx.players())
    return Wallets(
        wallets=[Wallet(player=p.player_id, name=p.name, balance=p.balance) for p in players]
    )


# -- cashier ----------------------------------------------------------------------------------


class CashRequest(BaseModel):
    """A deposit or a withdrawal at the cashier: ``amount`` a positive ``int`` in minor units
    (no floats, no strings), ``reason`` why, ``idempotency_key`` so a retry never pays twice."""

    model_config = ConfigDict(extra="forbid")

    player: Name
    amount: StrictInt = Field(gt=0, le=10**15)
    reason: Reason
    idempotency_key: StrictStr = Field(min_length=1, max_length=200, pattern=TEXT)


class CashDone(BaseModel):
    """What a deposit or withdrawal did: its ledger transaction and the wallet after it."""

    tx_id: int
    kind: Literal["deposit", "withdrawal"]
    player: str
    amount: int
    balance: int
    actor: str
    reason: str


_Answer = TypeVar("_Answer", bound=BaseModel)


def _replayed(
    tx: Tx, key: str, scope: str, request: str, client_key: str, answer: type[_Answer]
) -> _Answer | None:
    """The answer stored under ``key`` when this is a retry of the same request (``scope`` and
    ``request`` digest equal), ``None`` for a new key; another request under the same key is
    refused (``tables.idempotency_mismatch``, naming the client's ``client_key``)."""
    found = tx.idempotency_get(key)
    if found is None:
        return None
    if found.scope != scope or found.request_sha256 != request:
        raise TableError("tables.idempotency_mismatch", key=client_key)
    return answer.model_validate(found.response)


def _keyed(runtime: Runtime, work: Callable[[Tx], _Answer]) -> _Answer:
    """``work`` (which answers a replay with :func:`_replayed`) in one store transaction, run
    once more when a concurrent request under the same key committed first
    (``store.idempotency_exists``: this one wrote nothing) — the second run finds its record:
    that request's answer, or the refusal of another request under the key."""
    try:
        return runtime.store.run(work)
    except StoreError as exc:
        if exc.key != "store.idempotency_exists":
            raise
    return runtime.store.run(work)


def _cash(
    runtime: Runtime,
    who: Principal,
    body: CashRequest,
    kind: Literal["deposit", "withdrawal"],
) -> CashDone:
    """Post ``body`` as a ``kind`` transaction with its idempotency record and the audit entry
    of the privileged action, all in one store transaction (a replay writes nothing)."""
    reason = _reason(body.reason)
    key = f"cashier:{body.idempotency_key}"
    request = codec.sha256(
        {"kind": kind, "player": body.player, "amount": body.amount, "reason": reason}
    )

    def work(tx: Tx) -> CashDone:
        replay = _replayed(tx, key, "cashier", request, body.idempotency_key, CashDone)
        if replay is not None:
            return replay
        post = tx.deposit if kind == "deposit" else tx.withdraw
        tx_id = post(body.player, body.amount, actor=who.name, reason=reason)
        done = CashDone(
            tx_id=tx_id,
            kind=kind,
            player=body.player,
            amount=body.amount,
            balance=tx.wallet_balance(body.player),
            actor=who.name,
            reason=reason,
        )
        tx.idempotency_put(key, scope="cashier", request_sha256=request, response=done.model_dump())
        auth.record_action(
            tx, who, f"cashier_{kind}", reason, player=body.player, amount=body.amount, tx_id=tx_id
        )
        return done

    try:
        return _keyed(runtime, work)
    except StoreError as exc:
        if exc.key != "ledger.insufficient_funds":
            raise
        # A withdrawal above the wallet is not a bet: said in its own words, not the bet's
        # "deposit first or wager less" (the same parameters, ints of minor units).
        raise StoreError("ledger.withdrawal_over_balance", **exc.params) from None


@router.post("/api/cashier/deposit", summary="Credit a player's wallet (admin: the cashier)")
def deposit(runtime: RuntimeDep, who: Admin, body: CashRequest) -> CashDone:
    """A deposit: the cashier's account to the player's wallet, with who and why."""
    return _cash(runtime, who, body, "deposit")


@router.post("/api/cashier/withdraw", summary="Pay out of a player's wallet (admin: the cashier)")
def withdraw(runtime: RuntimeDep, who: Admin, body: CashRequest) -> CashDone:
    """A withdrawal: the player's wallet to the cashier's account, with who and why; refused
    (409 ``ledger.withdrawal_over_balance``, nothing written) above the balance."""
    return _cash(runtime, who, body, "withdrawal")


# -- meters -----------------------------------------------------------------------------------


class Hit(BaseModel):
    """One hit of a meter: where (the table, the winning ``place`` — ``"box 3"``, ``"seat 2"``
    as the round's settlement names it, CSP-10.4, BAC-17; ``None`` for a hit recorded before
    places were —, the round: the hand), what and when. ``box`` is the award's key in the
    settlement (a wager id at baccarat, not a seat): show ``place``."""

    seq: int
    table: str
    box: int
    place: str | None
    round_id: str
    combination: str
    amount: int
    at: str


class PaytableLine(BaseModel):
    """A line of a paytable (:class:`macau_tables.paytable.PayLine`, minor units)."""

    section: str
    term: str
    payout: str
    article: str
    odds: int
    amount: int
    percent: int
    term_key: str
    payout_key: str


class PaytableNote(BaseModel):
    """A reading shown with a paytable's lines (:class:`macau_tables.paytable.PayNote`)."""

    section: str
    key: str
    article: str
    amount: int
    text_key: str


class PaytablePart(BaseModel):
    """Lines and notes of a paytable section (here: the jackpot's)."""

    lines: list[PaytableLine]
    notes: list[PaytableNote]


class TableAwards(BaseModel):
    """One linked table's own fixed awards (its configuration in force, CSP-10.3, BAC-17) and
    the jackpot section of its paytable, each line and note with its article (CSP-10.2,
    CSP-10.8, BAC-17.4–17.6)."""

    table: str
    name: str
    fixed_awards: dict[str, int]
    paytable: PaytablePart


class Meter(BaseModel):
    """A linked jackpot meter as the jackpot display shows it (minor units). ``fixed_awards``
    are the linked tables' awards when they all agree (``{}`` when they differ); each table's
    own are in ``tables_awards``."""

    id: str
    game: str
    amount: int
    seed: int
    params: dict[str, Any]
    seed_pending: int | None
    params_pending: dict[str, Any] | None
    hits: int
    tables: list[str]
    fixed_awards: dict[str, int]
    tables_awards: list[TableAwards]
    last_hits: list[Hit]


class Meters(BaseModel):
    """Every meter."""

    meters: list[Meter]


def _meter(tx: Tx, record: MeterRecord, tables: list[TableRecord]) -> Meter:
    per_table = [TableAwards(**a) for a in linked_awards(tx, record.meter_id, tables)]
    # every linked table's awards agreeing, the meter's; else none here (see ``tables_awards``)
    shown = {tuple(sorted(a.fixed_awards.items())) for a in per_table}
    awards = per_table[0].fixed_awards if len(shown) == 1 else {}
    hits: list[MeterHit] = tx.hits(record.meter_id, last=HITS_SHOWN)
    return Meter(
        id=record.meter_id,
        game=record.game,
        amount=record.amount,
        seed=record.seed,
        params=dict(record.params),
        seed_pending=record.seed_pending,
        params_pending=None if record.params_pending is None else dict(record.params_pending),
        hits=record.hits,
        tables=[a.table for a in per_table],
        fixed_awards=awards,
        tables_awards=per_table,
        last_hits=[
            Hit(
                seq=h.seq,
                table=h.table_id,
                box=h.box,
                place=h.place,
                round_id=h.round_id,
                combination=h.combination,
                amount=h.amount,
                at=h.at.isoformat(),
            )
            for h in hits
        ],
    )


@router.get("/api/meters", summary="Every linked jackpot meter (public)", dependencies=PUBLIC)
def meters(runtime: RuntimeDep) -> Meters:
    """Every meter: amount, seed, parameters, fixed awards and the last hits."""

    def read(tx: Tx) -> Meters:
        tables = tx.tables()
        return Meters(meters=[_meter(tx, m, tables) for m in tx.meters()])

    return runtime.store.read(read)


@router.get(
    "/api/meters/{meter_id}", summary="One linked jackpot meter (public)", dependencies=PUBLIC
)
def meter(runtime: RuntimeDep, meter_id: MeterId) -> Meter:
    """The meter ``meter_id``; refuses an unknown one (``store.unknown_meter``)."""
    return runtime.store.read(lambda tx: _meter(tx, tx.meter(meter_id), tx.tables()))


class MeterParams(BaseModel):
    """A meter's new seed and/or parameters (in force from its next hit), and why."""

    model_config = ConfigDict(extra="forbid")

    seed: StrictInt | None = Field(default=None, ge=0, le=10**15)
    params: (
        dict[Name, StrictInt | Annotated[StrictStr, Field(max_length=200, pattern=TEXT)]] | None
    ) = Field(default=None, max_length=20)
    reason: Reason


@router.post("/api/meters/{meter_id}/params", summary="Change a meter's seed or parameters (admin)")
def meter_params(runtime: RuntimeDep, who: Admin, meter_id: MeterId, body: MeterParams) -> Meter:
    """Make the seed / parameters pending on the meter, in force from its next hit (CSP-10.8);
    refused (``tables.meter_round_open``, nothing written) while a linked table has a round
    in progress."""
    reason = _reason(body.reason)
    # The store records the change in the meter's own log and in the audit log
    # ("meter_params": who, why, what): no second entry here.
    change_meter_params(
        runtime.store, meter_id, seed=body.seed, params=body.params, actor=who.name, reason=reason
    )
    return runtime.store.read(lambda tx: _meter(tx, tx.meter(meter_id), tx.tables()))


# -- authorisations waiting -------------------------------------------------------------------


class Waiting(BaseModel):
    """One thing waiting for a supervisor at a table: ``kind`` ``"round"`` (the round's
    contract is due a supervisor: a refused live card to correct or void, BAC-10),
    ``"fault"`` (the table is stopped until a supervisor clears it, CSP-11.4 / BAC-10) or
    ``"award"`` (a jackpot award of at least ``jackpot_supervisor_threshold`` held until a
    supervisor releases it, CSP-10 / BAC-17: ``award`` says which) or ``"shuffler"`` (a
    shuffling machine failed: no round until it is recorded replaced, CSP-11.4); ``commands``
    the supervisor's commands it accepts now."""

    table: str
    kind: Literal["round", "fault", "award", "shuffler"]
    round_id: str | None
    phase: str | None
    reason: str | None
    commands: list[str]
    award: HeldAward | None = None


class HeldAward(BaseModel):
    """A jackpot award held for a supervisor: ``hold_id`` (what ``ReleaseAward`` names), the
    winner ``player`` at ``spot``, the ``combination`` and the ``amount`` (minor units)."""

    hold_id: str
    player: str
    spot: str
    combination: str
    amount: int


Waiting.model_rebuild()


class Authorisations(BaseModel):
    """What waits for a supervisor at every table of the casino: those served here from their
    service, the others (``elsewhere``: served by another process, or by none now) as the
    store holds them."""

    waiting: list[Waiting]
    elsewhere: list[str]


def _supervisors(commands: tuple[type, ...]) -> list[str]:
    return [c.__name__ for c in commands if issuer_of(c) is Issuer.SUPERVISOR]


def _waiting(table_id: str, state: TableState) -> list[Waiting]:
    """What waits for a supervisor at table ``table_id`` in ``state``: its fault in force,
    and its round if the round's contract is due a supervisor."""
    r = state.round
    round_id = None if r is None else str(r.round_id)
    out: list[Waiting] = []
    expected: Expected | None = None if r is None else r.expected_next().in_mode(state.setup.mode)
    if state.fault is not None:
        # The round the fault holds waits for the supervisor too: cleared it goes on, or the
        # supervisor decides it (its Void), BAC-10, CSP-11.4.
        held = expected if state.round_open else None
        out.append(
            Waiting(
                table=table_id,
                kind="fault",
                round_id=round_id,
                phase=None if held is None else held.phase,
                reason=state.fault.reason,
                commands=[
                    ClearFault.__name__,
                    *([] if held is None else _supervisors(held.commands)),
                ],
            )
        )
    if state.shuffler_out and not state.round_open and getattr(state.rules, "uses_shuffler", False):
        out.append(
            Waiting(
                table=table_id,
                kind="shuffler",
                round_id=None,
                phase=None,
                reason="the shuffling machine failed (CSP-11.4): no round until it is replaced",
                commands=[ShufflerReplaced.__name__],
            )
        )
    if expected is not None and any(d.kind is DueKind.SUPERVISOR for d in expected.due):
        out.append(
            Waiting(
                table=table_id,
                kind="round",
                round_id=round_id,
                phase=expected.phase,
                reason=None,
                commands=_supervisors(expected.commands),
            )
        )
    return out


@router.get("/api/authorisations", summary="What waits for a supervisor now (supervisor)")
def authorisations(runtime: RuntimeDep, who: Supervisor) -> Authorisations:
    """Rounds due a supervisor, tables stopped by a fault and jackpot awards held for a
    supervisor, at every table."""
    waiting: list[Waiting] = []
    served = runtime.table_ids()
    for table_id in served:
        try:
            service = runtime.service(table_id)
        except MacauTablesError:  # taken over by another process meanwhile
            continue
        waiting += _waiting(table_id, service.state)
    elsewhere = [t for t in runtime.known_table_ids() if t not in served]
    for table_id in elsewhere:
        try:
            loaded = runtime.store.read(partial(read_table, table_id=table_id))
        except MacauTablesError:  # a table the store cannot load: verify says why
            continue
        waiting += _waiting(table_id, loaded.state)
    waiting += [_held(h) for h in runtime.store.read(waiting_holds)]
    return Authorisations(waiting=waiting, elsewhere=elsewhere)


def _held(h: Hold) -> Waiting:
    """A held award as a thing waiting for a supervisor."""
    return Waiting(
        table=h.table_id,
        kind="award",
        round_id=h.round_id,
        phase=None,
        reason=f"{h.combination}: {h.amount} to {h.player}",
        commands=[ReleaseAward.__name__],
        award=HeldAward(
            hold_id=h.hold_id,
            player=h.player,
            spot=h.spot,
            combination=h.combination,
            amount=h.amount,
        ),
    )


# -- verify, report, audit --------------------------------------------------------------------

_verifying = threading.Lock()


class Verification(BaseModel):
    """``macau-tables verify --format json``: whether everything holds, what was read and the
    first finding (the failing check, relation, record and table)."""

    ok: bool
    source: str
    counts: dict[str, int]
    failure: dict[str, Any] | None


@router.get("/api/verify", summary="Verify the store: chains, ledger, rounds, shoes")
def verify(runtime: RuntimeDep, who: Staff) -> Verification:
    """Runs ``macau-tables verify`` on the casino's database (one verification at a time:
    another request meanwhile is refused, ``admin.verify_busy``)."""
    if not _verifying.acquire(blocking=False):
        raise MacauTablesError("admin.verify_busy")
    try:
        result = verify_database(runtime.store)
    finally:
        _verifying.release()
    return Verification(
        ok=result.ok,
        source=runtime.store.url,
        counts=result.counts(),
        failure=None if result.finding is None else result.finding.to_dict(),
    )


class Figures(BaseModel):
    """A table's figures of a gaming day (minor units; ``hold_percent`` exact to two decimals,
    as text; ``null`` without drop)."""

    table_id: str
    game: str
    meter_id: str | None
    rounds: int
    voided: int
    drop: int
    win: int
    hold_percent: str | None
    commission: int
    contributions: int
    awards: int
    awards_from_meter: int
    carried: int
    liability: int
    awards_held: int = 0
    awards_released: int = 0
    awards_from_house: int = 0
    """The jackpot awards the house funded (CSP-10.8, BAC-17.5): a meter award takes only its
    share out of the meter, the house pays the difference up to a larger fixed award."""


class DailyReport(BaseModel):
    """``macau-tables report``: the gaming day, its bounds (UTC), each table and the totals."""

    day: str
    start: str
    end: str
    tables: list[Figures]
    totals: Figures


def _figures(f: TableFigures) -> Figures:
    return Figures(**dataclasses.asdict(f), hold_percent=format_percent(f.hold) or None)


FIRST_DAY: Final = date(1970, 1, 1)
LAST_DAY: Final = date(9999, 12, 30)
"""The gaming days a report or an archive can be asked for (a day's bounds in UTC must be
dates Python can hold)."""


def _day(text: str) -> date:
    """A gaming day ``YYYY-MM-DD`` (``cli.bad_day`` otherwise, as the command line) between
    :data:`FIRST_DAY` and :data:`LAST_DAY` (``admin.day_out_of_range``)."""
    day = parse_day(text)
    if not FIRST_DAY <= day <= LAST_DAY:
        raise MacauTablesError(
            "admin.day_out_of_range",
            day=day.isoformat(),
            first=FIRST_DAY.isoformat(),
            last=LAST_DAY.isoformat(),
        )
    return day


@router.get(
    "/api/reports/daily",
    summary="A gaming day's figures per table (supervisor, admin)",
    response_model=DailyReport,
    responses={200: {"content": {"text/csv": {}}}},
)
def daily_report(
    runtime: RuntimeDep,
    who: Staff,
    day: Day,
    format: Annotated[Literal["json", "csv"], Query()] = "json",
) -> Any:
    """Drop, win, hold, commission, jackpot contributions, awards and liability per table
    (``format=csv``: the CSV of ``macau-tables report --format csv``)."""
    gaming_day = _day(day)
    report = runtime.store.read(lambda tx: day_report(tx, gaming_day))
    if format == "csv":
        return _csv(report_csv(report), f"report-{gaming_day}.csv")
    return DailyReport(
        day=report.day.isoformat(),
        start=report.start.isoformat(),
        end=report.end.isoformat(),
        tables=[_figures(f) for f in report.tables],
        totals=_figures(report.totals),
    )


def _csv(body: str, filename: str) -> PlainTextResponse:
    """A report's CSV, downloaded as ``filename``."""
    return PlainTextResponse(
        body,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


class PositionReport(BaseModel):
    """``macau-tables report --by-position``: the gaming day and each table's positions (the
    report's own :class:`~macau_tables.tables.reports.PositionFigures`, minor units)."""

    day: str
    positions: list[PositionFigures]


@router.get(
    "/api/reports/positions",
    summary="A gaming day's figures per betting position (supervisor, admin)",
    response_model=PositionReport,
    responses={200: {"content": {"text/csv": {}}}},
)
def positions_report(
    runtime: RuntimeDep,
    who: Staff,
    day: Day,
    format: Annotated[Literal["json", "csv"], Query()] = "json",
) -> Any:
    """Wagers, drop, paid, commission, jackpot contributions, awards and win per box or seat
    of each table, over the rounds settled that day (``format=csv``: the CSV of
    ``macau-tables report --by-position --format csv``)."""
    gaming_day = _day(day)
    figures = runtime.store.read(lambda tx: day_positions(tx, gaming_day))
    if format == "csv":
        return _csv(position_csv(figures), f"positions-{gaming_day}.csv")
    return PositionReport(day=gaming_day.isoformat(), positions=figures)


@router.get(
    "/api/audit/archive",
    summary="Download a gaming day's audit archive (admin)",
    response_class=FileResponse,
    responses={200: {"content": {"application/zip": {}}}},
)
def audit_archive(runtime: RuntimeDep, who: Admin, day: Day) -> FileResponse:
    """The ZIP ``macau-tables audit export --day DAY`` writes (check it offline with
    ``macau-tables verify --archive FILE``); its SHA-256 in ``X-Archive-SHA256``; signed with
    the server's ``audit_sign_key`` when it has one (its public key in
    ``X-Archive-Signed-By``)."""
    gaming_day = _day(day)
    folder = Path(tempfile.mkdtemp(prefix="macau-tables-archive-"))
    name = f"macau-tables-audit-{gaming_day.isoformat()}.zip"
    try:
        done = export_day(runtime.store, gaming_day, folder / name, sign_with=runtime.archive_key)
    except BaseException:
        _remove(folder)
        raise
    auth.record_action(
        runtime,
        who,
        "audit_archive",
        "audit archive downloaded",
        day=gaming_day.isoformat(),
        sha256=done.sha256,
    )
    return FileResponse(
        done.path,
        media_type="application/zip",
        filename=name,
        headers={
            "X-Archive-SHA256": done.sha256,
            **({} if done.signed_by is None else {"X-Archive-Signed-By": done.signed_by}),
        },
        background=BackgroundTask(_remove, folder),
    )


def _remove(folder: Path) -> None:
    for path in folder.iterdir():
        path.unlink(missing_ok=True)
    folder.rmdir()


class AuditEntry(BaseModel):
    """One privileged action: who, when, what, at which table, why and its details."""

    id: int
    at: str
    actor: str
    action: str
    table_id: str | None
    reason: str | None
    detail: dict[str, Any] | None


class AuditLog(BaseModel):
    """The audit log's latest entries, newest first."""

    entries: list[AuditEntry]


@router.get("/api/audit/log", summary="The privileged actions, newest first (admin)")
def audit_log(
    runtime: RuntimeDep,
    who: Admin,
    limit: Annotated[int, Query(ge=1, le=AUDIT_LOG_MAX)] = 100,
    action: Annotated[str | None, Query(max_length=100, pattern=NAME)] = None,
    table: Annotated[str | None, Query(max_length=100, pattern=NAME)] = None,
) -> AuditLog:
    """The last ``limit`` entries of the audit log (of one ``action`` / ``table`` if given)."""
    entries = runtime.store.read(lambda tx: tx.audit_entries(table_id=table, action=action))
    return AuditLog(
        entries=[
            AuditEntry(
                id=e.id,
                at=e.at.isoformat(),
                actor=e.actor,
                action=e.action,
                table_id=e.table_id,
                reason=e.reason,
                detail=None if e.detail is None else dict(e.detail),
            )
            for e in reversed(entries[-limit:])
        ]
    )


# -- tables, options, approvals ---------------------------------------------------------------


class Option(BaseModel):
    """An option in use that needs the regulator's approval (CSP-13, BAC-19)."""

    option: str
    value: Any
    rule: str
    description: str


class ApprovalRecord(BaseModel):
    """One approval record of the configuration."""

    option: str
    value: Any
    reference: str
    applied_on: str
    effective_on: str


class TableConfig(BaseModel):
    """A table, its configuration (id and SHA-256), the options needing approval, the
    approval records, and whether they allow it to open today (``refusal``: why not)."""

    table_id: str
    name: str
    game: str
    mode: str
    demo: bool
    status: str
    fault: str | None
    meter_id: str | None
    config_id: str
    config_sha256: str
    options: list[Option]
    approvals: list[ApprovalRecord]
    approved_today: bool
    refusal: dict[str, Any] | None
    rules: dict[str, Any] = Field(default_factory=dict)
    """Every field a change may name, as the stored configuration has it (the codec's JSON:
    minor units as ``int``, a fraction as ``"n/d"``, a nested setting as its whole object)."""
    meter_amount: int | None = None
    """The amount of the table's jackpot meter now (``None``: no meter)."""


class TableConfigs(BaseModel):
    """Every table's configuration and approvals."""

    day: str
    tables: list[TableConfig]


def _options(rules: Any) -> list[Option]:
    return [
        Option(option=o.option, value=json_param(o.value), rule=o.rule, description=o.description)
        for o in rules.options_requiring_approval()
    ]


def _table_config(tx: Tx, t: TableRecord, today: date) -> TableConfig:
    rules: Any = tx.get_config(t.config_id)
    refusal: dict[str, Any] | None = None
    try:
        rules.check_approvals(today)
    except MacauTablesError as exc:
        refusal = {
            "key": exc.key,
            "params": dict(exc.params),
            "text": exc.message,
            "rule": getattr(exc, "rule", None),
        }
    return TableConfig(
        table_id=t.table_id,
        name=t.name,
        game=t.game,
        mode=t.mode.value,
        demo=t.demo,
        status=t.status.value,
        fault=None if t.fault is None else str(t.fault.get("reason")),
        meter_id=t.meter_id,
        config_id=t.config_id,
        config_sha256=tx.config(t.config_id).sha256,
        options=_options(rules),
        approvals=[
            ApprovalRecord(
                option=a.option,
                value=json_param(a.value),
                reference=a.reference,
                applied_on=a.applied_on.isoformat(),
                effective_on=a.effective_on.isoformat(),
            )
            for a in rules.approvals
        ],
        approved_today=refusal is None,
        refusal=refusal,
        rules={k: v for k, v in codec.encode(rules).items() if k not in FIXED_FIELDS},
        meter_amount=None if t.meter_id is None else tx.meter(t.meter_id).amount,
    )


@router.get("/api/admin/tables", summary="Tables, options and their approvals (admin)")
def admin_tables(runtime: RuntimeDep, who: Admin) -> TableConfigs:
    """Every table's configuration, the options needing approval and the approval records
    (CSP-13, BAC-19), checked for today (Macau)."""

    def read(tx: Tx) -> TableConfigs:
        today = opening_date(tx.now())
        tables = sorted(tx.tables(), key=lambda t: t.table_id)
        return TableConfigs(
            day=today.isoformat(), tables=[_table_config(tx, t, today) for t in tables]
        )

    return runtime.store.read(read)


TableIdPath = Annotated[str, PathParam(min_length=1, max_length=100, pattern=NAME)]
Scalar = StrictBool | StrictInt | Annotated[StrictStr, Field(max_length=200, pattern=TEXT)]


class ApprovalIn(BaseModel):
    """A regulator's approval record to add (CSP-13, BAC-19): ``option`` set to ``value``,
    the regulator's ``reference``, applied for on ``applied_on``, in force from
    ``effective_on`` (at least three working days later)."""

    model_config = ConfigDict(extra="forbid")

    option: Name
    value: Scalar
    reference: Annotated[StrictStr, Field(min_length=1, max_length=200, pattern=TEXT)]
    applied_on: date
    effective_on: date


class ConfigRequest(BaseModel):
    """A change of a table's configuration: ``changes`` (field name -> new value, in the
    form ``GET /api/admin/tables`` and the stored configuration use: minor units as ``int``, a
    fraction as ``"n/d"``, a nested setting as its whole object), approval records to add,
    ``reason`` why, ``idempotency_key`` so a retry changes nothing twice."""

    model_config = ConfigDict(extra="forbid")

    changes: dict[Name, Any] = Field(default_factory=dict, max_length=30)
    approvals: list[ApprovalIn] = Field(default_factory=list, max_length=20)
    reason: Reason
    idempotency_key: StrictStr = Field(min_length=1, max_length=200, pattern=TEXT)


class ConfigDone(BaseModel):
    """What a configuration change did: the old and new configuration ids of the table, the
    new version's SHA-256, the fields changed and the approval records added."""

    table_id: str
    old_config_id: str
    new_config_id: str
    config_sha256: str
    fields: list[str]
    approvals_added: int
    actor: str
    reason: str


@router.post(
    "/api/admin/tables/{table_id}/config",
    summary="Change a table's configuration or add approvals, between rounds (admin)",
)
def table_config(
    runtime: RuntimeDep, who: Admin, table_id: TableIdPath, body: ConfigRequest
) -> ConfigDone:
    """Store the table's current rules with ``changes`` and the approvals added as a NEW
    configuration version (validated by the rules themselves; never changed in place), point
    the table at it and reload its service: in force from the next round. Refused, nothing
    written, while a round is in progress (``tables.config_round_open``), for a value the rules
    refuse (422 with their key), and at an open table for an option without a valid,
    effective approval today (CSP-13, BAC-19)."""
    reason = _reason(body.reason)
    key = f"table_config:{table_id}:{body.idempotency_key}"
    request = codec.sha256(
        {
            "table": table_id,
            "changes": {k: json_param(v) for k, v in body.changes.items()},
            "approvals": [a.model_dump(mode="json") for a in body.approvals],
            "reason": reason,
        }
    )
    records = [
        Approval(a.option, a.value, a.reference, a.applied_on, a.effective_on)
        for a in body.approvals
    ]

    def work(tx: Tx) -> ConfigDone:
        replay = _replayed(tx, key, "table_config", request, body.idempotency_key, ConfigDone)
        if replay is not None:
            return replay
        change = change_table_config(
            tx, table_id, changes=body.changes, approvals=records, actor=who.name, reason=reason
        )
        done = ConfigDone(
            table_id=table_id,
            old_config_id=change.old_config_id,
            new_config_id=change.new_config_id,
            config_sha256=change.sha256,
            fields=list(change.fields),
            approvals_added=change.approvals_added,
            actor=who.name,
            reason=reason,
        )
        tx.idempotency_put(
            key, scope="table_config", request_sha256=request, response=done.model_dump()
        )
        auth.record_action(
            tx,
            who,
            "admin_table_config",
            reason,
            table_id=table_id,
            old_config_id=change.old_config_id,
            new_config_id=change.new_config_id,
            fields=list(change.fields),
            approvals_added=change.approvals_added,
        )
        return done

    service = runtime.service(table_id)  # 404 unknown, 409 served by another process
    result: ConfigDone = service.reconfigure(lambda: _keyed(runtime, work))
    return result


# -- the exact math of a change, before it is saved -------------------------


class AnalysisRequest(BaseModel):
    """The change whose exact figures are wanted: ``changes`` as ``POST
    /api/admin/tables/{id}/config`` takes them (nothing is saved)."""

    model_config = ConfigDict(extra="forbid")

    changes: dict[Name, Any] = Field(default_factory=dict, max_length=30)


class AnalysisJob(BaseModel):
    """An analysis job (:mod:`.analysis_worker`): ``state`` ``running``, ``done`` or ``failed``;
    ``progress`` (stages ``done`` of ``total``, the last ``step``); once done, the ``current``
    (approved) and ``candidate`` configurations' figures (exact ``"n/d"`` texts; meters in minor
    units; ``worker_pid`` the process that computed them) and their ``difference``; ``cached``:
    every figure was already known; ``error``: a refusal's ``key`` and ``params``. The submit
    answers also name the table, the two configurations' digests, the meter used and the
    options the candidate would need approved (CSP-13, BAC-19)."""

    job: str
    state: Literal["running", "done", "failed"]
    cached: bool
    progress: dict[str, Any] | None = None
    current: dict[str, Any] | None = None
    candidate: dict[str, Any] | None = None
    difference: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    table_id: str | None = None
    current_sha256: str | None = None
    candidate_sha256: str | None = None
    meter: int | None = None
    options: list[Option] | None = None


JobIdPath = Annotated[str, PathParam(min_length=32, max_length=32, pattern=r"^[0-9a-f]{32}$")]


def _job(job_id: str) -> AnalysisJob:
    found = analysis_jobs.status(job_id)
    if found is None:
        raise MacauTablesError("analysis.job_unknown", job=job_id)
    return AnalysisJob(**found)


@router.post(
    "/api/admin/tables/{table_id}/analysis",
    summary="The exact math of a change of a table's options, before saving it (admin)",
)
def table_analysis(
    runtime: RuntimeDep, who: Admin, table_id: TableIdPath, body: AnalysisRequest
) -> AnalysisJob:
    """Validate ``changes`` as a configuration change would (the same refusals, 422 with the
    rules' key; nothing is written) and start the exact analysis of the configuration they make
    and of the table's approved one, with the table's jackpot meter as it stands (its seed
    without one), in the analysis worker process — never here. Answers the job at once
    (``GET /api/admin/analysis/{job}`` follows it); figures already computed for a
    configuration's digest and meter are answered from the cache."""

    def read(tx: Tx) -> tuple[Any, Any, int]:
        record = tx.table(table_id)  # 404 for an unknown table
        rules: Any = tx.get_config(record.config_id)
        new, _ = rules_with_changes(rules, body.changes)
        meter = rules.jackpot_seed if record.meter_id is None else tx.meter(record.meter_id).amount
        return rules, new, meter

    current, candidate, meter = runtime.store.read(read)
    job = _job(analysis_jobs.submit(current, candidate, meter))
    return job.model_copy(
        update={
            "table_id": table_id,
            "current_sha256": codec.sha256(current),
            "candidate_sha256": codec.sha256(candidate),
            "meter": meter,
            "options": _options(candidate),
        }
    )


@router.get(
    "/api/admin/analysis/{job_id}", summary="An analysis job's progress and figures (admin)"
)
def analysis_job(who: Admin, job_id: JobIdPath) -> AnalysisJob:
    """The job's state, progress and, once done, both configurations' exact figures and their
    difference (404 ``analysis.job_unknown`` for a job this server does not know)."""
    return _job(job_id)

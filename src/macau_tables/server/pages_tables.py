"""The game pages: the player tables, the dealer console, and the two small JSON
reads they need besides the round contract's REST and WebSocket API.

Pages (server-rendered shells; the small ES modules in ``static/js`` fill them from the API):

* ``GET /tables/{id}`` (player): the player's table — ``tables/<game>.html`` (chips, areas,
  cards as revealed, results, wallet; the roadmaps at a baccarat table, the decision timer at
  a Caribbean Stud table; the table's paytable with its fixed jackpot awards, each line with
  its article, ``tables/_paytable.html``, CSP-10.3). A player sees only what the view for
  that player holds: the page carries no card at all, it reads the player's own view
  (``GET /api/tables/{id}``, ``/ws/tables/{id}``) like any API client.
* ``GET /dealer/{id}`` (dealer, supervisor): the dealer console — ``dealer/console.html``: the
  commands the round accepts now (``expected.commands``), the card or slot due next
  (``expected.due``), the shoe procedure of a live shoe, card entry by keyboard or by clicking
  a card (live tables), fault / misdeal / exposure reports; a refused card makes the round wait
  for a supervisor, who corrects or voids it (from the console or the supervisor's page).

JSON (public: nothing in them is hidden by the law):

* ``GET /api/tables/{id}/read/{model}``: a read-model the table's game offers (its plug-in's
  ``read_models``, :class:`macau_tables.plugin.ReadModel`: baccarat's ``roads``, the roadmaps
  of the current shoe from its settled rounds, :mod:`macau_tables.baccarat.read_models`),
  followed from the table's log, with the ``seq`` it was read up to; a model the game does not
  offer answers only ``table_id`` and ``seq``.
* ``GET /api/tables/{id}/board``: the seconds left before the table's next time-out (the
  decision time-out CSP-6.4, the card-holding time-out BAC-16), ``null`` when none is running,
  counted by the server's clock so that a page's countdown does not depend on the browser's;
  the round's seating as the caller may see it (BAC-15: the staff all of it, a player their
  own seat, the public none); the dealer's command the shoe procedure waits for; and the one
  the round's deck waits for before its first card (``procedure_waits``: the hand shuffle and
  cut of a live Caribbean Stud table, CSP-3(1)).

Every route carries one role rule (``auth.public`` / ``auth.require``); the pages use
:class:`.pages.PageRoute`, so a browser without a session is sent to the login page and one
with the wrong role gets the 403 page.
"""

from __future__ import annotations

import json
import math
import threading
from dataclasses import dataclass
from functools import partial
from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends, FastAPI, Path, Request
from fastapi.responses import HTMLResponse
from starlette.responses import Response

from .. import codec
from ..errors import MacauTablesError
from ..games import GAMES
from ..money import format_minor
from ..paytable import Paytable, paytable_of
from ..plugin import ReadModel
from ..rounds import Issuer, accepts, issuer_of
from ..store import EventRecord, Store, Tx
from ..store.records import TableRecord
from ..tables.model import OpenShoe
from . import auth, pages
from .principal import Principal, UserRole
from .runtime import Runtime, runtime_dependency
from .schemas import ERROR_RESPONSES

__all__ = [
    "CHIP_MULTIPLES",
    "TableReads",
    "install",
    "page_router",
    "router",
]

_READ_CHUNK: Final = 2_000

TableId = Annotated[str, Path(min_length=1, max_length=64, description="The table's id")]
ModelName = Annotated[
    str, Path(min_length=1, max_length=64, description="The read-model's name (e.g. roads)")
]

CHIP_MULTIPLES: Final = (1, 5, 10, 50, 100, 500)
"""The chips a player table offers, in bet units (those up to the table's largest limit)."""

TEXTS: Final = ("play.",)
"""The message prefixes the game pages' scripts use (besides ``pages.``)."""

CONSOLE_TEXTS: Final = ("play.", "tables.", "shoe.", "core.")
"""The dealer console shows the law's refusals of a card in the page's language too (with the
games' own messages, :func:`_console_texts`)."""


def _console_texts() -> tuple[str, ...]:
    """:data:`CONSOLE_TEXTS` and each game's message namespace."""
    return (*CONSOLE_TEXTS, *(plugin.messages for plugin in GAMES.values()))


router = APIRouter(tags=["pages"], responses=ERROR_RESPONSES)
"""The game pages' JSON reads (public; their refusals documented as every API route's)."""

page_router = APIRouter(route_class=pages.PageRoute, include_in_schema=False, tags=["pages"])
"""The game pages (a browser without a session is sent to the login page)."""


# -- the games' read-models, followed incrementally from the table's log --------------------------


@dataclass(slots=True)
class _Followed:
    """A read-model of one table and the ``seq`` of the table's log it has followed up to."""

    model: ReadModel
    seq: int = 0


class TableReads:
    """Each table's read-models (its game's plug-in's ``read_models``), kept up to date by
    following only the events recorded since the last read (one per app; thread-safe)."""

    def __init__(self) -> None:
        self._followed: dict[tuple[str, str], _Followed] = {}
        self._lock = threading.Lock()

    def current(self, store: Store, table_id: str, game: str, name: str) -> dict[str, Any]:
        """``{"table_id", "seq", ...}``: read-model ``name`` of ``table_id`` (whose game is
        ``game``), read up to the log's end now; only ``table_id`` and ``seq`` when the game
        offers no such model."""
        make = GAMES[game].read_models.get(name)
        with self._lock:
            followed = self._followed.get((table_id, name))
            if followed is None and make is not None:
                followed = self._followed.setdefault((table_id, name), _Followed(make()))
            seq = 0 if followed is None else followed.seq
            while True:
                records = store.read(partial(_after, table_id, seq))
                for r in records:
                    if followed is not None:
                        followed.model.take(r.type, r.round_id, json.loads(r.payload))
                    seq = r.seq
                if followed is not None:
                    followed.seq = seq
                if len(records) < _READ_CHUNK:
                    shown = {} if followed is None else followed.model.json()
                    return {"table_id": table_id, "seq": seq, **shown}


def _record(runtime: Runtime, table_id: str) -> TableRecord:
    """The table's record; ``server.table_unknown`` (404) for a table the casino has not."""
    if table_id in runtime.known_table_ids():
        found = [t for t in runtime.store.read(lambda tx: tx.tables()) if t.table_id == table_id]
        if found:
            return found[0]
    raise MacauTablesError("server.table_unknown", table=table_id)


def _after(table_id: str, seq: int, tx: Tx) -> list[EventRecord]:
    """The next records of ``table_id``'s log after ``seq`` (a chunk)."""
    return tx.read_events(table_id, after=seq, limit=_READ_CHUNK)


def _table_reads(request: Request) -> TableReads:
    found: TableReads | None = getattr(request.app.state, "table_reads", None)
    if found is None:
        found = TableReads()
        request.app.state.table_reads = found
    return found


# -- JSON ----------------------------------------------------------------------------------------


@router.get(
    "/api/tables/{table_id}/read/{model}",
    dependencies=[Depends(auth.public)],
    summary="A read-model the table's game offers (e.g. the roads of the current shoe)",
)
def table_read_model(
    table_id: TableId,
    model: ModelName,
    request: Request,
    runtime: Annotated[Runtime, Depends(runtime_dependency)],
) -> dict[str, Any]:
    """Read-model ``model`` of the table's game, followed from the table's log up to ``seq``
    (public: e.g. the roads of baccarat's current shoe, from its settled rounds only, with the
    shoe's commitment); a model the game does not offer answers only ``table_id`` and
    ``seq``."""
    record = _record(runtime, table_id)
    return _table_reads(request).current(runtime.store, table_id, record.game, model)


@router.get(
    "/api/tables/{table_id}/board",
    dependencies=[Depends(auth.public)],
    summary="The table's clock and seating, as the caller may see them",
)
def table_board(
    table_id: TableId,
    runtime: Annotated[Runtime, Depends(runtime_dependency)],
    principal: Annotated[Principal | None, Depends(auth.optional_principal)],
) -> dict[str, Any]:
    """``{"table_id", "seconds_left", "seated", "seating", "seats", "shoe_waits",
    "procedure_waits"}``: the
    seconds (rounded up) before the table's next time-out (CSP-6.4 decision, BAC-16 card
    holding) by the server's clock, ``null`` when none runs; ``seated`` the current round's
    seating (seat, player) — all of it for the dealer and supervisors (the console opens the
    next round with it), the caller's own seat for a player, none for the public (BAC-15);
    ``seating`` the seating the next round opens with (at a virtual table the seats players
    took, ``tables.TakeSeat`` / ``tables.LeaveSeat``: fixed when the round opens), shown the
    same way; ``seats`` the seats the game's rules declare (``null``: a game without seats);
    the dealer's commands the shoe procedure (BAC-2.1) and the round's deck (CSP-3(1)) wait
    for."""
    service = runtime.service(table_id)
    deadline = service.next_deadline()
    left: int | None = None
    if deadline is not None:
        delta = (deadline - service.clock.now()).total_seconds()
        left = max(0, math.ceil(delta))
    seated = [[int(n), str(p)] for n, p in getattr(service.round, "seated", None) or ()]
    seating = _seen([[n, p] for n, p in service.state.seated_now()], principal)
    seats = getattr(service.state.rules, "seats", None)
    return {
        "table_id": table_id,
        "seconds_left": left,
        "seated": _seen(seated, principal),
        "seating": seating,
        "seats": seats if isinstance(seats, int) and not isinstance(seats, bool) else None,
        "shoe_waits": _shoe_waits(service),
        "procedure_waits": _procedure_waits(service),
    }


def _seen(seating: list[list[Any]], principal: Principal | None) -> list[list[Any]]:
    """What the caller may see of a seating (BAC-15): all of it for staff, a player's own
    seat for a player, nothing for the public."""
    if principal is None:
        return []
    if principal.role is UserRole.PLAYER:
        return [s for s in seating if s[1] == principal.name]
    return seating


def _procedure_waits(service: Any) -> str | None:
    """The dealer's command the round's deck waits for before its first card (codec name:
    ``caribbean.ShuffleAndCut`` at a live table whose procedure is the hand shuffle and cut,
    CSP-3(1)), from the table's dealing adapter; ``None`` when it waits for none."""
    waits = getattr(service.dealing, "procedure_waits", None)
    wanted = None if waits is None else waits(service.state)
    return None if wanted is None else codec.type_name(wanted)


def _shoe_waits(service: Any) -> str | None:
    """The dealer's command a table's shoe procedure waits for before the next round (codec
    name: ``tables.OpenShoe`` at a live table without a shoe, then ``baccarat.Cut``,
    ``baccarat.Burn``, BAC-2.1), ``None`` when it waits for none (or the game has no shoe)."""
    deal = getattr(service.state, "deal", None)
    if deal is None or not hasattr(deal, "shoe"):
        return None
    shoe = deal.shoe
    wanted = None if shoe is None else shoe.expected()
    if wanted is None:
        # a new shoe by hand, where the table's mode takes one (a virtual table opens its own)
        return codec.type_name(OpenShoe) if accepts(service.setup.mode, OpenShoe) else None
    return codec.type_name(wanted) if issuer_of(wanted) is Issuer.DEALER else None


# -- pages ---------------------------------------------------------------------------------------

_PLAYER: Final = auth.require(UserRole.PLAYER)
_DEALS: Final = auth.require(UserRole.DEALER, UserRole.SUPERVISOR)


def _table(runtime: Runtime, table_id: str) -> tuple[TableRecord, dict[str, Any]] | None:
    """The table's record and its configuration (codec-encoded), or ``None`` if unknown."""

    def read(tx: Tx) -> tuple[TableRecord, dict[str, Any]] | None:
        found = [t for t in tx.tables() if t.table_id == table_id]
        if not found:
            return None
        return found[0], codec.encode(tx.get_config(found[0].config_id))

    result: tuple[TableRecord, dict[str, Any]] | None = runtime.store.read(read)
    return result


def _paytable(runtime: Runtime, record: TableRecord) -> Paytable | None:
    """The paytable of the table's configuration in force (CSP-10.3: shown at the table),
    from its rules (:func:`macau_tables.paytable.paytable_of`), ``None`` when they offer
    none."""
    return paytable_of(runtime.store.read(lambda tx: tx.get_config(record.config_id)))


def _unknown(request: Request, who: Principal, table_id: str) -> Response:
    return pages.render(
        request, "tables/unknown.html", who, status_code=404, texts=TEXTS, table_id=table_id
    )


def _chips(rules: dict[str, Any]) -> list[int]:
    unit = int(rules.get("bet_unit") or 1)
    ceiling = max(
        [int(v.get("maximum", 0)) for v in (rules.get("limits") or {}).values()]
        + [int(rules.get("ante_maximum") or 0)]
    )
    return [unit * m for m in CHIP_MULTIPLES if unit * m <= max(ceiling, unit)]


def _page_data(record: TableRecord, rules: dict[str, Any], who: Principal) -> dict[str, Any]:
    return {
        "table_id": record.table_id,
        "name": record.name,
        "game": record.game,
        "mode": record.mode.value,
        "me": who.name,
        "role": who.role.value,
        "rules": rules,
        "chips": _chips(rules),
    }


@page_router.get("/tables/{table_id}", response_class=HTMLResponse)
def player_table(
    request: Request,
    table_id: TableId,
    who: Annotated[Principal, Depends(_PLAYER)],
    runtime: Annotated[Runtime, Depends(runtime_dependency)],
) -> Response:
    """A player's table (``tables/<game>.html``): what the player's own view holds, live."""
    found = _table(runtime, table_id)
    if found is None:
        return _unknown(request, who, table_id)
    record, rules = found
    limits = {
        kind: (format_minor(int(v["minimum"])), format_minor(int(v["maximum"])))
        for kind, v in (rules.get("limits") or {}).items()
    }
    return pages.render(
        request,
        f"tables/{record.game}.html",
        who,
        game_term=GAMES[record.game].term,
        texts=TEXTS,
        data=_page_data(record, rules, who),
        table=record,
        rules=rules,
        limits=limits,
        money=format_minor,
        paytable=_paytable(runtime, record),
    )


@page_router.get("/dealer/{table_id}", response_class=HTMLResponse)
def dealer_console(
    request: Request,
    table_id: TableId,
    who: Annotated[Principal, Depends(_DEALS)],
    runtime: Annotated[Runtime, Depends(runtime_dependency)],
) -> Response:
    """The dealer console: the commands the round accepts now, the card or slot due, card
    entry (live tables), reports to the supervisor; a supervisor also corrects and voids."""
    found = _table(runtime, table_id)
    if found is None:
        return _unknown(request, who, table_id)
    record, rules = found
    return pages.render(
        request,
        "dealer/console.html",
        who,
        game_term=GAMES[record.game].term,
        texts=_console_texts(),
        data=_page_data(record, rules, who),
        table=record,
        rules=rules,
    )


def install(app: FastAPI) -> None:
    """Serve the game pages and their JSON reads from ``app`` (one line in ``create_app``)."""
    app.include_router(router)
    app.include_router(page_router)

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

* ``GET /api/tables/{id}/roads``: the roadmaps of the table's current shoe, computed by
  :mod:`macau_tables.baccarat.roads` from the results of the shoe's settled rounds (recorded
  ``baccarat.RoundSettled`` events; demonstration rounds, BAC-2.2, are not on the roads), with
  the shoe's commitment (virtual shoes) — the results are public once a round is settled.
  A table whose log holds no baccarat shoe answers empty roads.
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
from dataclasses import dataclass, field
from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends, FastAPI, Path, Request
from fastapi.responses import HTMLResponse
from starlette.responses import Response

from .. import codec
from ..baccarat.roads import (
    Colour,
    RoadEntry,
    big_road_grid,
    build_roadmaps,
    derived_road_grid,
)
from ..baccarat.sides import Side
from ..errors import MacauTablesError
from ..money import format_minor
from ..paytable import Paytable, paytable_of
from ..rounds import Issuer, accepts, issuer_of
from ..store import Store, Tx
from ..store.records import TableRecord
from ..tables.model import OpenShoe
from . import auth, pages
from .principal import Principal, UserRole
from .runtime import Runtime, runtime_dependency
from .schemas import ERROR_RESPONSES

__all__ = [
    "CHIP_MULTIPLES",
    "ROAD_ROWS",
    "ShoeLog",
    "ShoeRoads",
    "install",
    "page_router",
    "roads_json",
    "router",
]

ROAD_ROWS: Final = 6
"""The height of every drawn road (the boards Macau's tables show)."""

_READ_CHUNK: Final = 2_000

TableId = Annotated[str, Path(min_length=1, max_length=64, description="The table's id")]

CHIP_MULTIPLES: Final = (1, 5, 10, 50, 100, 500)
"""The chips a player table offers, in bet units (those up to the table's largest limit)."""

TEXTS: Final = ("play.",)
"""The message prefixes the game pages' scripts use (besides ``pages.``)."""

CONSOLE_TEXTS: Final = ("play.", "baccarat.", "caribbean.", "tables.", "shoe.", "core.")
"""The dealer console shows the law's refusals of a card in the page's language too."""

router = APIRouter(tags=["pages"], responses=ERROR_RESPONSES)
"""The game pages' JSON reads (public; their refusals documented as every API route's)."""

page_router = APIRouter(route_class=pages.PageRoute, include_in_schema=False, tags=["pages"])
"""The game pages (a browser without a session is sent to the login page)."""


# -- the shoe's results, read incrementally from the table's log -----------------------------------


@dataclass(slots=True)
class ShoeLog:
    """What a table's log says of its current baccarat shoe so far: read up to ``seq``; the
    shoe's ``number`` (shoes opened in the log), ``commitment`` (virtual shoes), whether it is
    ``live`` and ``finished``, and the ``entries`` of its settled rounds, oldest first."""

    seq: int = 0
    number: int = 0
    shoe_id: str | None = None
    commitment: str | None = None
    live: bool = False
    finished: bool = False
    revealed: bool = False
    demo_rounds: set[str] = field(default_factory=set)
    entries: list[RoadEntry] = field(default_factory=list)

    def take(self, kind: str, round_id: str | None, data: dict[str, Any]) -> None:
        """Follow one recorded event (its type and JSON payload)."""
        if kind == "baccarat.ShoeOpened":
            self.number += 1
            self.shoe_id = str(data.get("shoe_id") or "") or None
            self.commitment = data.get("commitment")
            self.live = bool(data.get("live"))
            self.finished = self.revealed = False
            self.demo_rounds.clear()
            self.entries.clear()
        elif kind == "baccarat.RoundStarted" and data.get("demo") and round_id is not None:
            self.demo_rounds.add(round_id)  # BAC-2.2: a demonstration round is not on the roads
        elif kind == "baccarat.RoundSettled" and round_id not in self.demo_rounds:
            result = data.get("result") or {}
            self.entries.append(
                RoadEntry(
                    Side(result["winner"]),
                    bool(result.get("banker_pair")),
                    bool(result.get("player_pair")),
                    bool(result.get("natural")),
                )
            )
        elif kind == "baccarat.ShoeFinished":
            self.finished = True
        elif kind == "tables.ShoeRevealed" and data.get("shoe_id") == self.shoe_id:
            self.revealed = True


class ShoeRoads:
    """Each table's :class:`ShoeLog`, kept up to date by reading only the events recorded since
    the last read (one per app; thread-safe)."""

    def __init__(self) -> None:
        self._logs: dict[str, ShoeLog] = {}
        self._lock = threading.Lock()

    def current(self, store: Store, table_id: str) -> ShoeLog:
        """``table_id``'s shoe log, read up to the log's end now."""
        with self._lock:
            log = self._logs.setdefault(table_id, ShoeLog())
            while True:
                records = store.read(
                    lambda tx: tx.read_events(table_id, after=log.seq, limit=_READ_CHUNK)
                )
                for r in records:
                    log.take(r.type, r.round_id, json.loads(r.payload))
                    log.seq = r.seq
                if len(records) < _READ_CHUNK:
                    return log


def _colour(colour: Colour | None) -> str | None:
    return None if colour is None else colour.value


def roads_json(log: ShoeLog, rows: int = ROAD_ROWS) -> dict[str, Any]:
    """The roads of ``log``'s shoe as drawn grids (0-based ``col`` / ``row``; letters ``B``,
    ``P``, ``T``; derived marks ``red`` / ``blue``), the ask road and the shoe's counts."""
    maps = build_roadmaps(log.entries, rows)
    derived = {
        name: [
            {"col": p.col, "row": p.row, "colour": p.item.colour.value}
            for p in derived_road_grid(road, rows)
        ]
        for name, road in zip(
            ("big_eye_boy", "small_road", "cockroach_road"), maps.derived, strict=True
        )
    }
    entries = log.entries
    return {
        "rows": rows,
        "rounds": len(entries),
        "counts": {
            "banker": sum(e.winner is Side.BANKER for e in entries),
            "player": sum(e.winner is Side.PLAYER for e in entries),
            "tie": sum(e.winner is Side.TIE for e in entries),
            "banker_pair": sum(e.banker_pair for e in entries),
            "player_pair": sum(e.player_pair for e in entries),
        },
        "bead_plate": [
            {
                "col": c.col,
                "row": c.row,
                "outcome": c.outcome.letter,
                "banker_pair": c.banker_pair,
                "player_pair": c.player_pair,
                "natural": c.natural,
            }
            for c in maps.bead_plate
        ],
        "big_road": [
            {
                "col": p.col,
                "row": p.row,
                "winner": p.item.winner.letter,
                "ties": p.item.tie_count,
                "banker_pair": p.item.banker_pair,
                "player_pair": p.item.player_pair,
                "natural": p.item.natural,
            }
            for p in big_road_grid(maps.big_road, rows)
        ],
        "leading_ties": maps.big_road.leading_ties,
        **derived,
        "ask": {
            side: {
                "big_eye_boy": _colour(marks.big_eye_boy),
                "small_road": _colour(marks.small_road),
                "cockroach_road": _colour(marks.cockroach_road),
            }
            for side, marks in (("banker", maps.ask.banker), ("player", maps.ask.player))
        },
    }


def _known(runtime: Runtime, table_id: str) -> None:
    if table_id not in runtime.known_table_ids():
        raise MacauTablesError("server.table_unknown", table=table_id)


def _shoe_roads(request: Request) -> ShoeRoads:
    found: ShoeRoads | None = getattr(request.app.state, "shoe_roads", None)
    if found is None:
        found = ShoeRoads()
        request.app.state.shoe_roads = found
    return found


# -- JSON ----------------------------------------------------------------------------------------


@router.get(
    "/api/tables/{table_id}/roads",
    dependencies=[Depends(auth.public)],
    summary="The roadmaps of a baccarat table's current shoe",
)
def table_roads(
    table_id: TableId,
    request: Request,
    runtime: Annotated[Runtime, Depends(runtime_dependency)],
) -> dict[str, Any]:
    """The bead plate, big road, big eye boy, small road, cockroach road and ask road of the
    table's current shoe (settled rounds only: public), with the shoe's commitment."""
    _known(runtime, table_id)
    log = _shoe_roads(request).current(runtime.store, table_id)
    return {
        "table_id": table_id,
        "seq": log.seq,
        "shoe": {
            "number": log.number,
            "commitment": log.commitment,
            "live": log.live,
            "finished": log.finished,
            "revealed": log.revealed,
        },
        **roads_json(log),
    }


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
    """``{"table_id", "seconds_left", "seated", "shoe_waits", "procedure_waits"}``: the
    seconds (rounded up) before the table's next time-out (CSP-6.4 decision, BAC-16 card
    holding) by the server's clock, ``null`` when none runs; ``seated`` the current round's
    seating (seat, player) — all of it for the dealer and supervisors (the console opens the
    next round with it), the caller's own seat for a player, none for the public (BAC-15);
    the dealer's commands the shoe procedure (BAC-2.1) and the round's deck (CSP-3(1)) wait
    for."""
    service = runtime.service(table_id)
    deadline = service.next_deadline()
    left: int | None = None
    if deadline is not None:
        delta = (deadline - service.clock.now()).total_seconds()
        left = max(0, math.ceil(delta))
    seated = [[int(n), str(p)] for n, p in getattr(service.round, "seated", None) or ()]
    if principal is None:
        seated = []
    elif principal.role is UserRole.PLAYER:
        seated = [s for s in seated if s[1] == principal.name]
    return {
        "table_id": table_id,
        "seconds_left": left,
        "seated": seated,
        "shoe_waits": _shoe_waits(service),
        "procedure_waits": _procedure_waits(service),
    }


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
        texts=CONSOLE_TEXTS,
        data=_page_data(record, rules, who),
        table=record,
        rules=rules,
    )


def install(app: FastAPI) -> None:
    """Serve the game pages and their JSON reads from ``app`` (one line in ``create_app``)."""
    app.include_router(router)
    app.include_router(page_router)

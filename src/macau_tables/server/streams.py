"""The table server's WebSockets: the live table views and the jackpot.

``/ws/tables/{table_id}`` pushes what the connected audience may see of the table — the table
service's :class:`~macau_tables.tables.publish.TableUpdate` for that audience, encoded by the
codec — at once and after every event. The audience follows who signed in
(:func:`.auth.authenticate_websocket`: a bearer token as ``?token=`` or in
``Sec-WebSocket-Protocol``, or the session cookie), as for ``GET /api/tables/{id}``
(:func:`.api_tables.audience_of`): a player sees as ``Audience.of_player(name)``, a dealer as
the dealer, a supervisor or an admin as a supervisor, anyone else as the public. The views
are the round contract's ``view(audience)`` (the hidden-information rule, CSP-6.5, CSP-12,
BAC-16): this module never looks inside them.

``/ws/jackpot`` (public) pushes every linked meter's amount at once and on every change
(:meth:`.runtime.Runtime.subscribe_meters`: PostgreSQL LISTEN/NOTIFY reaches every server
process), with the last hits the store recorded.

Messages the server sends (JSON text). A table's view comes in parts (version 3, ``"v": 3``;
the gate :mod:`macau_tables.visibility` makes all of them), in one message per update sent:

* ``{"type": "table", "v": 3, "table_id", "seq", "shared"?, "seat"?, "mine"? | "role"?}`` —
  the table after record ``seq`` (the event id a client resumes from), holding each section
  that reads otherwise than the last one sent on this socket (a section left out reads as the
  last one received; after a connect or a resume every section is there). Each is whole, never
  a difference from the previous one: a socket that fell behind gets only the latest.
* ``shared``: ``{"round_id", "view", "expected", "cycle", "status", "fault", "meter_link"}`` —
  the **shared part**, what every socket of the table may receive: the public's view, what the
  round waits for without any player id (the public reads none: BAC-15, CSP-12), the round
  cycle's public state (``cycle``: ``{"step", "at", "idle", "paused"}``, the countdown's
  deadline in ISO 8601 UTC; a player's socket wakes an idle table), the table's status, fault
  and meter link. Encoded once per event for the whole table (the same text in every socket's
  message); an event that leaves it as it was (a bet: the public sees no wager) sends it to
  nobody again.
* ``seat``: ``{"view", "drop"?}`` — the **seat part**, a player's socket only: what every player
  at the table sees alike (the view of a player with no stake,
  :data:`macau_tables.visibility.SEATED`: the baccarat layout, who holds each side), as the
  fields beyond the shared view (:func:`macau_tables.visibility.own_fields`) and the shared
  view's fields it has not (``drop``). Encoded once per event for all the players' sockets:
  another player's bet changes it, not a player's own part.
* ``mine`` (a player's **personal part**) or ``role`` (the dealer's or a supervisor's **role
  part**): ``{"audience", "view", "drop"?, "expected"?, "can_issue"}`` — ``view`` holds the
  fields of the audience's view that the view beneath does not hold alike (a player's: the
  shared view with the seat part laid over it — own wagers and results, held cards; the
  staff's: the shared view — every wager, a box's cards…; ``null`` before the first round),
  ``drop`` the fields beneath the audience's view has not; ``expected`` as the audience may
  read it, when it reads otherwise than the shared one (a due naming this player; the staff
  read every name); ``can_issue`` which of the expected commands the connected user's role may
  send. The public's socket gets no own part and no seat part.

  A client keeps the latest of each section and lays them in that order (``static/js/socket.js``
  ``tableParts``): the state is the same as ``GET /api/tables/{id}`` (its ``view``,
  ``expected``, ``can_issue``: :func:`.api_tables.expectation`), so a page needs no request
  after a message. (Version 2 sent each part as a message of its own, and a player's part held
  the layout, so every bet was a new part for every player of the table.)
* ``{"type": "meter", "meter_id", "amount"}`` — a linked meter's amount (minor units);
* ``{"type": "meters", "meters": [...], "hits": [...]}`` — the jackpot stream's first message
  (each meter with ``tables_awards``: every linked table's own fixed awards and the jackpot
  lines of its paytable, CSP-10.3, as ``GET /api/meters`` gives them);
* ``{"type": "hits", "meter_id", "hits": [...]}`` — a meter's last hits after an award;
* ``{"type": "pong"}``;
* ``{"type": "error", "error": {"key", "params", "text", "rule"}}`` — just before the server
  closes the socket, saying why (``text`` in the page's language, as the API's refusals: the
  language cookie, else ``Accept-Language``; the close frame carries the code and the key).

Messages a client may send: ``{"type": "ping"}`` and ``{"type": "resume", "after": SEQ}``
(also ``?after=SEQ`` on connecting): when the table has moved on since ``SEQ`` the current
view is sent at once; when it has not, nothing is resent. On a table's stream, also the REST
contract's commands, ``{"type": "command", "idempotency_key", "command" | "commands"}``, each
answered to its sender alone with ``{"type": "ack", …}`` or ``{"type": "refused", …}``
(:mod:`.socket_commands`; a flood closes with 4429). Nothing else: CSP-12 forbids any
advice, chat or strategy channel into a Caribbean Stud table, and a view stream is not one —
anything but those messages (one holding more than :data:`_MAX_NESTING` arrays and objects is
refused before it is parsed) closes the socket with 1008 (policy violation) and a reason;
the server never relays anything a client says. Refusals (each closes the socket after the
``error`` message): a message over ``body_limit_bytes`` (1009), an unknown table (4404), a
table served by another process (4409), a client too slow to take its messages (its queue of
``websocket_queue`` meters, hits and pongs overflowed: 4408 — the table never waits for it;
table views do not pile up, see below), too many
connections in the process or from one client (1013, try again later), and a table stream
whose session or token has expired (4401, ``auth.session_expired``: checked by the runtime's
clock before each message is sent and every ``tick_seconds`` meanwhile — the socket does not
stay signed in; the jackpot stream, public, goes on) or no longer stands (4401,
``auth.session_unknown``: its user signed out or was disabled, on any server process — the
process asks the store about every open table stream's session in one read every
``session_check_seconds``, :mod:`.session_watch`).

Views are coalesced: each section is whole, so a socket whose previous update has not been sent
yet when the next event comes gets only the newest (a burst of bets, a slow reader: one message
per send, not one per event; ``seq`` may jump, as after a resume), and a section equal to the
last one sent on the socket is not sent again. Each distinct section is built once: the table
service makes one view per audience and event, all sharing one public view and the players one
seat view (:func:`~macau_tables.tables.publish.shared_publisher`); the shared and seat texts are
encoded once per event for the whole table and a part once per event and audience and role
(:class:`_Texts`; a part serves only the very update object it was made from). A session's
expiry is checked before each message is sent and, meanwhile, every ``tick_seconds`` by one
task per event loop for all its sockets (:class:`_Expiries`), not a timer per socket and
message.

Threads: the table service publishes from the thread that committed (a request's worker, a
committer thread of the group commit, the tick thread, PostgreSQL's listener); each
connection's callback puts the update in its slot and, only when the slot was empty, has its
event loop woken — once for all the sockets of that loop the update reaches
(``loop.call_soon_threadsafe``), never blocking the table; the loop encodes the message when
the socket's turn to send comes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final, Generic, TypeVar

from fastapi import APIRouter, WebSocket
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocketDisconnect, WebSocketState

from .. import codec
from ..errors import MacauTablesError, RuleViolation
from ..rounds import Audience, Expected, Role, TableMode
from ..tables.cycle import offered
from ..tables.publish import MeterUpdate, TableUpdate
from ..tables.service import TableService
from ..visibility import not_own, own_fields
from . import auth, session_watch
from .api_tables import MAX_SLIP, audience_of, expectation
from .errors import error_body, for_client, language_of, status_for
from .paytables import linked_awards
from .principal import Principal, UserRole
from .runtime import Runtime, get_runtime
from .socket_commands import CLOSE_FLOOD, CommandLane, LaneClose

__all__ = [
    "CLOSE_FLOOD",
    "CLOSE_OVERSIZED",
    "CLOSE_POLICY",
    "CLOSE_SIGNED_OUT",
    "CLOSE_SLOW",
    "CLOSE_TABLE_ELSEWHERE",
    "CLOSE_TABLE_UNKNOWN",
    "CLOSE_TRY_LATER",
    "router",
]

log = logging.getLogger(__name__)

router = APIRouter()

CLOSE_POLICY: Final = 1008
"""A message the stream does not take (CSP-12: no advice, chat or strategy channel)."""
CLOSE_OVERSIZED: Final = 1009
"""A client message over ``body_limit_bytes``."""
CLOSE_TRY_LATER: Final = 1013
"""Too many connections (the process's or the client's cap): try again later."""
CLOSE_SIGNED_OUT: Final = 4401
"""The session or token the table stream was opened with expired (sign in again)."""
CLOSE_TABLE_UNKNOWN: Final = 4404
"""No such table."""
CLOSE_SLOW: Final = 4408
"""The client did not take its updates: its queue overflowed (reconnect with ``?after``)."""
CLOSE_TABLE_ELSEWHERE: Final = 4409
"""Another server process serves the table (connect to that one)."""

_MAX_NESTING: Final = 8 * (MAX_SLIP + 2)
"""The most arrays and objects a client's message may hold in all (a control message is one flat
object; a ``command`` message a bet slip of at most ``MAX_SLIP`` commands, each a few objects
deep), far below the JSON parser's recursion: anything past this is refused unparsed, as any
other message (1008)."""

_STATUS_CLOSE: Final = {404: CLOSE_TABLE_UNKNOWN, 409: CLOSE_TABLE_ELSEWHERE}

BEARER_PROTOCOL: Final = "bearer"
"""The subprotocol a browser names before its token: ``new WebSocket(url, ["bearer", token])``."""
_REASON_BYTES: Final = 123
"""A close frame's reason is at most 123 bytes (RFC 6455 5.5)."""


VERSION: Final = 3
"""The table messages' format (``"v"``): one ``table`` message per update sent, holding the
sections that changed for the socket — the shared part, the seat part (players), the socket's
own part (the module docstring); version 2 sent each part as a message of its own, and a
player's part held the layout; version 1 each audience's whole view in one message."""

PART_TYPES: Final = {Role.PLAYER: "mine"}
"""The section of a socket's own part by the audience's role: ``mine`` (a player's personal
part); ``role`` for the dealer's and a supervisor's (the public's sockets get no part)."""


def _now_of(
    service: TableService, update: TableUpdate, principal: Principal | None
) -> dict[str, Any]:
    """What the ``table`` message adds to the view, as ``GET /api/tables/{id}`` says it: the
    table's ``status`` and :func:`.api_tables.expectation` (``expected``, ``can_issue``) of
    the update's round. Called in the publishing thread, which holds the table's lock: it
    matches the update."""
    expected = _texts_of(service).expected(update.round, service.setup.mode)
    return {"status": service.status.value, **expectation(expected, principal, update.audience)}


def _meter_message(meter_id: str, amount: int) -> dict[str, Any]:
    return {"type": "meter", "meter_id": meter_id, "amount": amount}


def _dumps(message: dict[str, Any]) -> str:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class _Shared:
    """A table's shared section as made for the update at ``seq`` (``key``: that record, the
    table's status and what else of the table the shared part shows — a table closed or
    reopened changes its status without a record): its ``body`` (the section's JSON text, the
    very same text object while it reads the same, for every socket of the table), the public
    view encoded (``view``: what a seat or role part holds beyond it is computed against it) and
    ``expected`` as the public reads it."""

    seq: int
    key: tuple[Any, ...]
    body: str
    view: dict[str, Any] | None
    expected: Any


@dataclass(frozen=True, slots=True)
class _Seat:
    """A table's seat section (what every player at the table sees alike) as made from the seat
    view ``source`` (one object per publish) over the shared section ``shared``: its ``body``
    (the same text object while it reads the same) and the seat view encoded whole (``view``:
    what a personal part holds beyond it is computed against it)."""

    source: Any
    shared: str
    body: str
    view: dict[str, Any] | None


def _shared_of(
    update: TableUpdate, status: str, expected: Any
) -> tuple[str, dict[str, Any] | None]:
    """The shared part's JSON body of ``update`` and its public view encoded."""
    view = None if update.public is None else codec.encode(update.public)
    body = {
        "round_id": update.round_id,
        "view": view,
        "expected": expected,
        "cycle": None if update.cycle is None else update.cycle.to_json(),
        "status": status,
        "fault": update.fault,
        "meter_link": update.meter_link,
    }
    return _dumps(body), view


def _laid(own: dict[str, Any] | None, base: dict[str, Any] | None) -> dict[str, Any]:
    """A part's ``view`` and ``drop``: what the encoded view ``own`` holds beyond ``base`` (the
    view it is laid over) and the fields of ``base`` it has not."""
    out: dict[str, Any] = {"view": own_fields(own, base)}
    drop = not_own(own, base)
    if drop:
        out["drop"] = drop
    return out


def _fingerprint(own: Any, base: Any) -> tuple[Any, ...] | None:
    """What makes a part of the view ``own`` laid over the view ``base`` (both as the round
    made them, not encoded): the class and each field of ``own`` that ``base`` does not hold
    alike, with its value — equal fingerprints make the same part (a field equal in both encodes
    alike), so an audience's part is not encoded again while another player's bet changes only
    the seat view; ``None`` when they are not views of one class (the part is made afresh)."""
    if own is None or base is None or type(own) is not type(base):
        return None
    names = getattr(type(own), "__dataclass_fields__", None)
    if names is None:
        return None
    return (type(own), tuple((n, v) for n in names if (v := getattr(own, n)) != getattr(base, n)))


Section = tuple[str, str]
"""A section of a ``table`` message: its name (``shared``, ``seat``, ``mine``, ``role``) and its
JSON text, which a socket is sent again only when it reads otherwise than the last one sent."""


def _frame(table_id: str, seq: int, sections: list[Section]) -> str:
    """The ``table`` message of record ``seq`` holding ``sections`` (pre-encoded texts)."""
    head = _dumps({"type": "table", "v": VERSION, "table_id": table_id, "seq": seq})[:-1]
    return head + "".join(f',"{name}":{body}' for name, body in sections) + "}"


class _Texts:
    """One table's sections as sent: the shared section encoded once per update and the same
    text object sent to every socket of the table (kept as it was while the shared part does
    not change); the seat section once per publish for every player's socket; a socket's own
    part encoded once per update, audience and role and sent as is to every socket of that
    audience and role. A part serves only the very update it was made from (``is``), so a text
    never reaches a socket its view was not made for; entries older than the table's newest
    ``seq`` are dropped."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seq = -1
        self._made: dict[tuple[Audience, UserRole | None], tuple[TableUpdate, Any, str, str]] = {}
        self._shared: _Shared | None = None
        self._seat: _Seat | None = None
        self._last_parts: dict[
            tuple[Audience, UserRole | None], tuple[tuple[Any, ...] | None, Any, Any, str]
        ] = {}
        self._expected: tuple[object, Expected | None] = (None, None)

    def expected(self, round_: Any, mode: TableMode) -> Expected | None:
        """``round_.expected_next()`` with only the commands a table of ``mode`` offers
        (:func:`~macau_tables.tables.cycle.offered`; ``None`` without a round), asked once
        per round value for all the table's sockets (a round is a frozen value: the same one
        expects the same; a table's mode does not change)."""
        if round_ is None:
            return None
        last, expected = self._expected
        if last is not round_:
            expected = offered(round_.expected_next(), mode)
            self._expected = (round_, expected)  # replaced whole: safe from any thread
        return expected

    def shared(self, update: TableUpdate, status: str, mode: TableMode) -> _Shared:
        """The shared section of ``update`` at a table of ``mode`` (made once per update for
        the whole table; the text object of the last one while it reads the same)."""
        key = (update.seq, status, update.fault, update.meter_link, update.cycle)
        with self._lock:
            last = self._shared
        if last is not None and last.key == key:
            return last
        expected = expectation(self.expected(update.round, mode), None, Audience.public())[
            "expected"
        ]
        body, view = _shared_of(update, status, expected)
        if last is not None and last.body == body:
            body = last.body  # the same text object: a socket that has it compares it at once
        made = _Shared(update.seq, key, body, view, expected)
        with self._lock:
            if self._shared is None or self._shared.seq <= made.seq:
                self._shared = made
        return made

    def seat(self, update: TableUpdate, shared: _Shared) -> _Seat:
        """The seat section of a player's ``update`` over ``shared``: the seat view's fields
        beyond the shared view (:func:`macau_tables.visibility.own_fields`), made once per
        publish (the seat view is one object for all the players' updates of a publish)."""
        with self._lock:
            last = self._seat
        if last is not None and last.source is update.seat and last.shared is shared.body:
            return last
        view = None if update.seat is None else codec.encode(update.seat)
        body = _dumps(_laid(view, shared.view))
        if last is not None and last.body == body:
            body = last.body
        made = _Seat(update.seat, shared.body, body, view)
        with self._lock:
            self._seat = made
        return made

    def part(
        self,
        update: TableUpdate,
        extra: dict[str, Any],
        role: UserRole | None,
        shared: _Shared,
        seat: _Seat | None,
    ) -> str | None:
        """The own section of ``update`` for a socket of ``role`` (``None``: the public's
        socket, which the shared section serves whole): what the audience's view holds beyond
        the seat view (a player's) or the shared view (the staff's)
        (:func:`macau_tables.visibility.own_fields`), its ``expected`` when it reads otherwise
        than the shared part's, its ``can_issue``. A part that reads as the audience's last one
        did is that very text object (the socket that has it is not sent it again)."""
        if update.audience.role is Role.PUBLIC:
            return None
        key = (update.audience, role)
        base = shared.body if seat is None else seat.body
        with self._lock:
            made = self._made.get(key)
        if made is not None and made[0] is update and made[1] == extra and made[2] is base:
            return made[3]
        # a player's (the staff's part changes with every wager: not worth the comparison)
        print_ = None if seat is None else _fingerprint(update.view, update.seat)
        with self._lock:
            last = self._last_parts.get(key)
        if (
            print_ is not None
            and last is not None
            and last[0] == print_
            and last[1] == extra
            and last[2] == shared.expected
        ):
            body = last[3]  # the same own fields with the same values: the same text object
        else:
            own = None if update.view is None else codec.encode(update.view)
            part: dict[str, Any] = {
                "audience": codec.encode(update.audience),
                **_laid(own, shared.view if seat is None else seat.view),
                "can_issue": extra["can_issue"],
            }
            if extra["expected"] != shared.expected:
                part["expected"] = extra["expected"]
            body = _dumps(part)
            if last is not None and last[3] == body:
                body = last[3]  # the part reads as it did: the same text object
        with self._lock:
            self._last_parts[key] = (print_, extra, shared.expected, body)
            if update.seq > self._seq:
                self._made.clear()
                self._seq = update.seq
            if update.seq == self._seq:
                self._made[key] = (update, extra, base, body)
        return body

    def sections(
        self, update: TableUpdate, extra: dict[str, Any], role: UserRole | None, mode: TableMode
    ) -> list[Section]:
        """Every section of ``update`` for a socket of ``role``, in the order a client lays
        them: the shared part, the seat part (a player's socket), its own part (none for the
        public)."""
        shared = self.shared(update, extra["status"], mode)
        out = [("shared", shared.body)]
        seat = None
        if update.audience.role is Role.PLAYER:
            seat = self.seat(update, shared)
            out.append(("seat", seat.body))
        part = self.part(update, extra, role, shared, seat)
        if part is not None:
            out.append((PART_TYPES.get(update.audience.role, "role"), part))
        return out


_K = TypeVar("_K")
_V = TypeVar("_V")


class _OnePer(Generic[_K, _V]):
    """One ``make()`` per key object (a table's service, a process's runtime), made at its
    first use and forgotten with the key; guarded by a lock (requests' threads and the sockets'
    loops ask at once)."""

    def __init__(self, make: Callable[[], _V]) -> None:
        self._make = make
        self._lock = threading.Lock()
        self._made: weakref.WeakKeyDictionary[_K, _V] = weakref.WeakKeyDictionary()

    def __call__(self, key: _K) -> _V:
        with self._lock:
            value = self._made.get(key)
            if value is None:
                value = self._made[key] = self._make()
            return value


_texts_of: Final[_OnePer[TableService, _Texts]] = _OnePer(_Texts)
"""The message texts of a service's table (one per service)."""


# -- connection caps ------------------------------------------------------------------------


class _Gate:
    """The open sockets of this process, in all and per client (a signed-in user by name,
    anyone else by address); guarded by a lock (test clients run sockets on several loops)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.total = 0
        self.by_client: dict[str, int] = {}

    def enter(self, client: str, *, total: int, per_client: int) -> bool:
        with self._lock:
            if self.total >= total or self.by_client.get(client, 0) >= per_client:
                return False
            self.total += 1
            self.by_client[client] = self.by_client.get(client, 0) + 1
            return True

    def leave(self, client: str) -> None:
        with self._lock:
            self.total -= 1
            left = self.by_client.get(client, 1) - 1
            if left > 0:
                self.by_client[client] = left
            else:
                self.by_client.pop(client, None)


_gate: Final[_OnePer[Runtime, _Gate]] = _OnePer(_Gate)
"""The connection counts of a runtime's process (one per runtime)."""


def _client_key(websocket: WebSocket, principal: Principal | None) -> str:
    if principal is not None:
        return f"user:{principal.name}"
    client = websocket.client
    return f"addr:{client.host if client is not None else '-'}"


# -- one connection -------------------------------------------------------------------------


_Closing = LaneClose
"""End the connection with ``code`` after sending ``first`` (a command's ``refused`` message,
when there is one) and ``error``: the one close of a socket, raised here and by its commands'
lane (:mod:`.socket_commands`)."""


class _Marker:
    """The queue's entry for "the latest table update waits in the outbox's slot"."""


_TABLE: Final = _Marker()

Pending = tuple[TableUpdate, dict[str, Any]]
"""A table update and what its message adds (``status``, ``expected``, ``can_issue``)."""


class _Wakeups:
    """The outboxes of one event loop whose table slot was filled since the loop last took
    them. The thread that publishes a table's update fills the slots of all its sockets and
    calls into their loop once for them all (one ``call_soon_threadsafe``: one write to the
    loop's wake-up pipe and one wake-up while it still runs, not one per socket)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._due: list[_Outbox] = []

    def wake(self, outbox: _Outbox) -> None:
        """From any thread: ``outbox``'s slot was empty and is filled; the loop puts the
        slot's marker in its queue (calls it unless a call is already on its way)."""
        with self._lock:
            self._due.append(outbox)
            if len(self._due) > 1:
                return  # the loop is already called for the ones before: it takes them all
        try:
            outbox.loop.call_soon_threadsafe(self._deliver)
        except RuntimeError:  # the loop is closed: its sockets are gone
            with self._lock:
                self._due.clear()

    def _deliver(self) -> None:
        """In the loop: every outbox woken since the last call gets its slot's marker."""
        with self._lock:
            due, self._due = self._due, []
        for outbox in due:
            outbox._put(_TABLE)


@dataclass
class _Outbox:
    """A connection's bounded queue of messages, filled from any thread through the loop, and
    the slot of its latest table update.

    Table updates are coalesced: a view is a whole snapshot of the table at ``seq``, so an
    update the sender has not taken yet is replaced by the next one (the slot), and the sender
    takes the newest when it is ready — a client that reads slowly, or a burst of events,
    costs one message per send, not one per event; the queue holds one marker for the slot.
    Other messages (``meter``, ``hits``, ``pong``) queue in order: a client that lets ``size``
    of them pile up is too slow, the queue is marked ``overflowed`` and the sender closes the
    socket; the table never waits for it."""

    loop: asyncio.AbstractEventLoop
    size: int
    queue: asyncio.Queue[dict[str, Any] | _Marker | None] = field(init=False)
    overflowed: bool = False
    _slot: Pending | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _wakeups: _Wakeups = field(init=False)

    def __post_init__(self) -> None:
        self.queue = asyncio.Queue(maxsize=self.size + 1)  # + 1: room for the end marker
        self._wakeups = _wakeups_of(self.loop)

    def offer_table(self, update: TableUpdate, extra: dict[str, Any]) -> None:
        """From any thread: ``update`` is the table's newest; it replaces one not sent yet
        (the loop is woken only when the slot was empty, with the other sockets of the same
        update: :class:`_Wakeups`)."""
        with self._lock:
            waiting = self._slot is not None
            self._slot = (update, extra)
        if not waiting:
            self._wakeups.wake(self)

    def take_table(self) -> Pending | None:
        """The newest table update not sent yet (the slot is emptied)."""
        with self._lock:
            pending, self._slot = self._slot, None
            return pending

    def pending_table(self) -> bool:
        """Whether a table update waits to be sent."""
        with self._lock:
            return self._slot is not None

    def offer_threadsafe(self, build: Callable[[], dict[str, Any] | None]) -> None:
        """From any thread: build the message in the loop and queue it (never blocks)."""
        with contextlib.suppress(RuntimeError):  # the loop is closed: the socket is gone
            self.loop.call_soon_threadsafe(self.offer, build)

    def offer(self, build: Callable[[], dict[str, Any] | None]) -> None:
        """In the loop: build the message (``None``: nothing to send) and queue it."""
        if self.overflowed:
            return
        message = build()
        if message is not None:
            self._put(message)

    def _put(self, message: dict[str, Any] | _Marker) -> None:
        if self.overflowed:
            return
        if self.queue.qsize() >= self.size:
            self.overflowed = True
            self.queue.put_nowait(None)  # wakes the sender up: it closes the socket
            return
        self.queue.put_nowait(message)


_wakeups_of: Final[_OnePer[asyncio.AbstractEventLoop, _Wakeups]] = _OnePer(_Wakeups)
"""The table wake-ups of each event loop (one per loop)."""


async def _session(websocket: WebSocket) -> auth.SocketSession | None:
    """Who connected, with their session or token (:func:`.auth.websocket_session`: a bearer
    token in the ``Authorization`` header, ``?token=`` or offered as the subprotocols ``bearer,
    TOKEN``, or the session cookie); ``None``: the public."""
    return await auth.websocket_session(_with_protocol_token(websocket))


def _protocol_token(websocket: WebSocket) -> str | None:
    """The token a browser offered as ``Sec-WebSocket-Protocol: bearer, TOKEN`` (a browser
    cannot set ``Authorization`` on a socket); ``None`` when it did not."""
    offered = websocket.scope.get("subprotocols") or []
    if len(offered) == 2 and offered[0] == BEARER_PROTOCOL and offered[1]:
        return str(offered[1])
    return None


def _with_protocol_token(websocket: WebSocket) -> WebSocket:
    """``websocket`` seen with its subprotocol token as the ``Authorization`` header (unless it
    has one), so the one authentication reads it."""
    token = _protocol_token(websocket)
    if token is None or "authorization" in websocket.headers:
        return websocket
    scope = dict(websocket.scope)
    scope["headers"] = [*websocket.scope["headers"], (b"authorization", f"Bearer {token}".encode())]
    return WebSocket(scope, websocket.receive, websocket.send)


def _subprotocol(websocket: WebSocket) -> str | None:
    """The subprotocol to echo (browsers refuse a socket whose offered subprotocol is not
    echoed): ``bearer`` when the token came that way."""
    return BEARER_PROTOCOL if _protocol_token(websocket) is not None else None


async def _close(websocket: WebSocket, code: int, error: MacauTablesError | None = None) -> None:
    """Send ``error`` (``{"type": "error", "error": {...}}``) and close with ``code``, the
    error's key as the reason."""
    if WebSocketState.DISCONNECTED in (websocket.application_state, websocket.client_state):
        return
    reason = ""
    if error is not None:
        error = for_client(error)  # a store failure: its URL for the log only
        with contextlib.suppress(Exception):
            await websocket.send_text(
                _dumps({"type": "error", **error_body(error, language_of(websocket))})
            )
        reason = error.key.encode()[:_REASON_BYTES].decode(errors="ignore")
    with contextlib.suppress(Exception):
        await websocket.close(code=code, reason=reason)


class _Expiries:
    """The signed-in table sockets of one event loop, whose sessions' expiry (by the runtime's
    clock) is checked every ``tick_seconds`` by one task for them all — one timer a tick per
    loop, not one per socket and message (:meth:`_Connection.expiry_due`)."""

    def __init__(self) -> None:
        self._connections: set[_Connection] = set()
        self._task: asyncio.Task[None] | None = None

    def add(self, connection: _Connection) -> None:
        """In the loop: check ``connection`` at every tick until :meth:`discard`."""
        self._connections.add(connection)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._sweep())

    def discard(self, connection: _Connection) -> None:
        self._connections.discard(connection)

    async def _sweep(self) -> None:
        while self._connections:
            tick = min(c.runtime.settings.tick_seconds for c in self._connections)
            await asyncio.sleep(tick)
            for connection in list(self._connections):
                try:
                    connection.expiry_due()
                except Exception:
                    log.exception("a session's expiry could not be checked")


_expiries_of: Final[_OnePer[asyncio.AbstractEventLoop, _Expiries]] = _OnePer(_Expiries)
"""The expiry checks of each event loop's table sockets (one per loop)."""


class _Connection:
    """One accepted socket: its outbox, the receive loop and the send loop."""

    def __init__(
        self, websocket: WebSocket, runtime: Runtime, session: auth.SocketSession | None = None
    ) -> None:
        self.websocket = websocket
        self.runtime = runtime
        self.session = session  # closed at the next push or tick after its expiry
        self.max_bytes = runtime.settings.body_limit_bytes
        self.outbox = _Outbox(asyncio.get_running_loop(), runtime.settings.websocket_queue)
        self.on_resume: Callable[[int], None] = lambda after: None
        self.render_table: Callable[[TableUpdate, dict[str, Any]], str | None] = (
            lambda update, extra: None
        )
        self.last_sent: dict[str, str] = {}
        """The last text sent of each kind (a ``table`` message's sections, the meters): one
        equal to it is not sent again."""
        self.lane: CommandLane | None = None  # a table stream's commands (socket_commands)
        # why the process's session watch found the session no longer standing (session_watch)
        self.revoked: asyncio.Future[MacauTablesError] = asyncio.get_running_loop().create_future()

    def revoke(self, refusal: MacauTablesError) -> None:
        """From any thread (the session watch's): the session no longer stands; the socket
        closes (4401) with ``refusal``."""

        def settle() -> None:
            if not self.revoked.done():
                self.revoked.set_result(refusal)

        with contextlib.suppress(RuntimeError):  # the loop is closed: the socket is gone
            self.revoked.get_loop().call_soon_threadsafe(settle)

    async def run(self) -> None:
        """Send the queue, read the client, run its commands (a table stream) and wait for the
        session watch's word, until one ends; close with the reason."""
        sender = asyncio.create_task(self._send_loop())
        receiver = asyncio.create_task(self._receive_loop())
        tasks = {sender, receiver}
        if self.lane is not None:
            tasks.add(asyncio.create_task(self._command_loop(self.lane)))
        expiries = None
        if self.session is not None:
            tasks.add(asyncio.create_task(self._session_ended()))
            if self.runtime.settings.tick_seconds > 0:
                expiries = _expiries_of(asyncio.get_running_loop())
                expiries.add(self)
        try:
            done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if expiries is not None:
                expiries.discard(self)
        for task in pending:
            task.cancel()
        for task in pending:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for task in done:
            exc = task.exception()
            if isinstance(exc, _Closing):
                if exc.first is not None:
                    with contextlib.suppress(Exception):
                        await self.websocket.send_text(_dumps(exc.first))
                await _close(self.websocket, exc.code, exc.error)
                return
            if exc is not None and not isinstance(exc, WebSocketDisconnect):
                log.error("stream failed", exc_info=exc)
                await _close(self.websocket, 1011)
                return
        await _close(self.websocket, 1000)

    def _signed_in(self) -> None:
        """Close (4401) a socket whose session or token has expired by the runtime's clock."""
        if self.session is not None and self.runtime.clock.now() >= self.session.expires:
            expired = self.session.expires.isoformat(timespec="seconds")
            raise _Closing(
                CLOSE_SIGNED_OUT, MacauTablesError("auth.session_expired", expired=expired)
            )

    def _still_signed_in(self) -> None:
        """Close (4401) a socket whose session or token no longer stands in the store (signed
        out, its user disabled — on any server process): the process's session watch asks the
        store about every socket's session in one read every ``session_check_seconds``
        (:mod:`.session_watch`) and tells this one (:meth:`revoke`)."""
        if self.revoked.done():
            raise _Closing(CLOSE_SIGNED_OUT, self.revoked.result())

    def expiry_due(self) -> None:
        """In the loop, at a tick (:class:`_Expiries`): a session expired by the runtime's
        clock ends the socket (4401) as a revoked one does, though nothing is being sent."""
        session = self.session
        if (
            session is not None
            and not self.revoked.done()
            and self.runtime.clock.now() >= session.expires
        ):
            expired = session.expires.isoformat(timespec="seconds")
            self.revoked.set_result(MacauTablesError("auth.session_expired", expired=expired))

    async def _session_ended(self) -> None:
        """Close (4401) the socket as soon as the session watch says its session ended."""
        raise _Closing(CLOSE_SIGNED_OUT, await self.revoked)

    async def _command_loop(self, lane: CommandLane) -> None:
        """Run the client's commands (:mod:`.socket_commands`), in order, off the loop."""
        await lane.run()  # a close it raises (LaneClose) is the connection's

    async def _next(self) -> dict[str, Any] | _Marker | None:
        """The next message to send; with a session, its expiry and whether it still stands
        are checked before each one is sent (and, while none comes, at every tick by the
        loop's one :class:`_Expiries`, and every ``session_check_seconds`` by the session
        watch) — no timer per message."""
        queue = self.outbox.queue
        message = queue.get_nowait() if not queue.empty() else await queue.get()
        if self.session is not None:
            self._signed_in()
            self._still_signed_in()
        return message

    async def _send_loop(self) -> None:
        while True:
            message = await self._next()
            if message is None:
                raise _Closing(
                    CLOSE_SLOW, MacauTablesError("streams.too_slow", size=self.outbox.size)
                )
            if isinstance(message, _Marker):
                # Let what is ready run first (a request's answer, the other sockets' sends):
                # the view is taken when this socket's turn comes, the newest by then.
                await asyncio.sleep(0)
                pending = self.outbox.take_table()
                text = None if pending is None else self.render_table(*pending)
                if text is not None:
                    await self.websocket.send_text(text)
                continue
            text = _dumps(message)
            if message["type"] == "meters":
                if self.last_sent.get("meters") == text:
                    continue  # the same meters again: not resent
                self.last_sent["meters"] = text
            await self.websocket.send_text(text)

    async def _receive_loop(self) -> None:
        while True:
            received = await self.websocket.receive()
            if received["type"] == "websocket.disconnect":
                return
            text = received.get("text")
            data = received.get("bytes")
            size = len(text.encode()) if text is not None else len(data or b"")
            if size > self.max_bytes:
                raise _Closing(
                    CLOSE_OVERSIZED,
                    MacauTablesError("streams.oversized", size=size, limit=self.max_bytes),
                )
            self._handle(text)

    def _handle(self, text: str | None) -> None:
        """Take ``ping``, ``resume`` and, on a table stream, ``command``
        (:mod:`.socket_commands`); refuse everything else (CSP-12)."""
        message = _parsed(text)
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "command" and isinstance(message, dict) and self.lane is not None:
            self.lane.take(message)  # run in order, answered "ack" or "refused"; a flood: 4429
            return
        if kind == "ping" and isinstance(message, dict) and set(message) == {"type"}:
            self.outbox.offer(lambda: {"type": "pong"})
            return
        if kind == "resume" and isinstance(message, dict) and set(message) == {"type", "after"}:
            after = message["after"]
            if isinstance(after, int) and not isinstance(after, bool) and after >= 0:
                self.on_resume(after)
                return
        # CSP-12: no advice, chat or strategy channel into a table — whatever the game, the
        # stream takes nothing but its two control messages and the REST contract's commands
        # (answered to their sender alone, never relayed).
        raise _Closing(
            CLOSE_POLICY, RuleViolation("CSP-12", "streams.refused", message=_shown(text))
        )


def _parsed(text: str | None) -> object:
    """``text`` as JSON; ``None`` when it is not JSON, or holds more than :data:`_MAX_NESTING`
    arrays and objects — counted before parsing, so a message nested thousands deep never
    reaches the parser's recursion (and a ``RecursionError`` is caught all the same)."""
    if text is None or text.count("[") + text.count("{") > _MAX_NESTING:
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _shown(text: str | None) -> str:
    if text is None:
        return "(binary)"
    return text if len(text) <= 60 else text[:59] + "…"


def _after_param(websocket: WebSocket) -> int | None:
    raw = websocket.query_params.get("after")
    if raw is None:
        return None
    if not raw.isdigit():
        raise _Closing(CLOSE_POLICY, MacauTablesError("streams.bad_after", after=_shown(raw)))
    return int(raw)


async def _admit(
    websocket: WebSocket, runtime: Runtime
) -> tuple[auth.SocketSession | None, str] | None:
    """Accept the socket, sign the client in and check the caps: who (their session; ``None``:
    the public) and the client's key; ``None`` once refused."""
    session = await _session(websocket)
    principal = None if session is None else session.principal
    await websocket.accept(subprotocol=_subprotocol(websocket))
    client = _client_key(websocket, principal)
    total = runtime.settings.max_websockets
    per_client = runtime.settings.max_websockets_per_client
    if not _gate(runtime).enter(client, total=total, per_client=per_client):
        await _close(
            websocket,
            CLOSE_TRY_LATER,
            MacauTablesError("streams.too_many", total=total, per_client=per_client),
        )
        return None
    return session, client


@router.websocket("/ws/tables/{table_id}")
async def table_stream(websocket: WebSocket, table_id: str) -> None:
    """The table's view for the signed-in audience, now and after every event (see the
    module docstring)."""
    runtime = get_runtime(websocket)
    admitted = await _admit(websocket, runtime)
    if admitted is None:
        return
    session, client = admitted
    try:
        await _serve_table(websocket, runtime, table_id, session)
    finally:
        _gate(runtime).leave(client)


async def _serve_table(
    websocket: WebSocket,
    runtime: Runtime,
    table_id: str,
    session: auth.SocketSession | None,
) -> None:
    principal = None if session is None else session.principal
    audience = audience_of(principal)
    try:
        after = _after_param(websocket)
        service = await run_in_threadpool(runtime.service, table_id)
    except _Closing as exc:
        await _close(websocket, exc.code, exc.error)
        return
    except MacauTablesError as exc:
        await _close(websocket, _STATUS_CLOSE.get(status_for(exc), CLOSE_POLICY), exc)
        return
    conn = _Connection(websocket, runtime, session)
    texts = _texts_of(service)
    role = None if principal is None else principal.role
    mode = service.setup.mode
    # the last update taken to be sent (touched in the loop only)
    latest: list[Pending] = []
    skip = [after]  # the first update is not sent when the client already has its seq

    def render(update: TableUpdate, extra: dict[str, Any]) -> str | None:
        """The ``table`` message of ``update`` for this socket: the sections (shared, seat,
        own part) that read otherwise than the last ones sent on it; ``None`` when none does."""
        latest[:] = [(update, extra)]
        if skip[0] is not None:
            already = update.seq == skip[0]
            skip[0] = None
            if already:
                return None
        sent = conn.last_sent
        changed = [
            (name, body)
            for name, body in texts.sections(update, extra, role, mode)
            if sent.get(name) is not body and sent.get(name) != body
        ]
        if not changed:
            return None
        sent.update(changed)
        return _frame(update.table_id, update.seq, changed)

    def resume(after: int) -> None:
        if conn.outbox.pending_table():
            return  # a newer view is on its way
        if latest and latest[0][0].seq != after:
            conn.last_sent.clear()
            conn.outbox.offer_table(*latest[0])

    conn.render_table = render
    conn.on_resume = resume
    conn.lane = CommandLane(
        runtime,
        table_id,
        session,
        lambda message: conn.outbox.offer(lambda: message),
        language_of(websocket),
    )

    def callback(update: object) -> None:
        if isinstance(update, TableUpdate):
            conn.outbox.offer_table(update, _now_of(service, update, principal))
        elif isinstance(update, MeterUpdate):
            message = _meter_message(update.meter_id, update.amount)
            conn.outbox.offer_threadsafe(lambda: message)

    subscription = await run_in_threadpool(service.subscribe, audience, callback)
    if principal is not None and principal.role is UserRole.PLAYER:
        # A player came to the table: an idle table wakes (tables/cycle.py).
        with contextlib.suppress(MacauTablesError):
            await run_in_threadpool(service.wake, principal.name)
    # its session checked with every other socket's, in one read per interval (session_watch)
    unwatch = (
        None if session is None else session_watch.watch_of(runtime).watch(session, conn.revoke)
    )
    try:
        await conn.run()
    finally:
        subscription.close()
        if unwatch is not None:
            unwatch()


@router.websocket("/ws/jackpot")
async def jackpot_stream(websocket: WebSocket) -> None:
    """Every linked meter's amount now and on every change, with the last hits (public)."""
    runtime = get_runtime(websocket)
    admitted = await _admit(websocket, runtime)
    if admitted is None:
        return
    _, client = admitted  # public: the meters stream on after a session's end
    try:
        await _serve_jackpot(websocket, runtime)
    finally:
        _gate(runtime).leave(client)


HITS_SHOWN: Final = 10
"""How many of a meter's last hits the jackpot stream shows."""


def _hit(hit: Any) -> dict[str, Any]:
    return {
        "meter_id": hit.meter_id,
        "seq": hit.seq,
        "table_id": hit.table_id,
        "round_id": hit.round_id,
        "box": hit.box,
        "place": hit.place,
        "combination": hit.combination,
        "amount": hit.amount,
        "at": hit.at.isoformat(),
    }


def _meters_now(runtime: Runtime) -> dict[str, Any]:
    def read(tx: Any) -> dict[str, Any]:
        meters = tx.meters()
        tables = tx.tables()
        hits = [_hit(h) for m in meters for h in tx.hits(m.meter_id, last=HITS_SHOWN)]
        return {
            "type": "meters",
            "meters": [
                {
                    "meter_id": m.meter_id,
                    "game": m.game,
                    "amount": m.amount,
                    "seed": m.seed,
                    "tables_awards": linked_awards(tx, m.meter_id, tables),
                }
                for m in meters
            ],
            "hits": hits,
        }

    result: dict[str, Any] = runtime.store.read(read)
    return result


def _hits_of(runtime: Runtime, meter_id: str) -> dict[str, Any]:
    hits = runtime.store.read(lambda tx: tx.hits(meter_id, last=HITS_SHOWN))
    return {"type": "hits", "meter_id": meter_id, "hits": [_hit(h) for h in hits]}


async def _serve_jackpot(websocket: WebSocket, runtime: Runtime) -> None:
    conn = _Connection(websocket, runtime)
    amounts: dict[str, int] = {}
    loop = asyncio.get_running_loop()

    def build(meter_id: str, amount: int) -> dict[str, Any] | None:
        before = amounts.get(meter_id)
        if before == amount:
            return None
        amounts[meter_id] = amount
        if before is not None and amount < before:  # an award was paid: show the hits
            task = loop.run_in_executor(None, _hits_of, runtime, meter_id)
            task.add_done_callback(lambda f: None if f.exception() else conn.outbox.offer(f.result))
        return _meter_message(meter_id, amount)

    def callback(meter_id: str, amount: int) -> None:
        conn.outbox.offer_threadsafe(lambda: build(meter_id, amount))

    listener = runtime.subscribe_meters(callback)
    try:
        first = await run_in_threadpool(_meters_now, runtime)
        for m in first["meters"]:
            amounts.setdefault(m["meter_id"], m["amount"])
        await websocket.send_text(_dumps(first))
        await conn.run()
    finally:
        listener.close()

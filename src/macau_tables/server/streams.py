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

Messages the server sends (JSON text). A table's view comes in parts (version 2, ``"v": 2``;
the gate :mod:`macau_tables.visibility` makes all of them):

* ``{"type": "table", "v": 2, "table_id", "seq", "shared": {"round_id", "view", "expected",
  "cycle", "status", "fault", "meter_link"}}`` — the **shared part**, what every socket of the
  table may receive: the public's view, what the round waits for without any player id (the
  public reads none: BAC-15, CSP-12), the round cycle's public state (``cycle``: ``{"step",
  "at", "idle", "paused"}``, the countdown's deadline in ISO 8601 UTC; a player's socket wakes
  an idle table), the table's status, fault and meter link. Encoded once per event for the
  whole table and sent as the same text to every socket; ``seq`` is the record after which it
  took this value — an event that leaves it as it was (a bet: the public sees no wager) sends
  it to nobody again;
* ``{"type": "mine" | "role", "v": 2, "table_id", "seq", "shared_seq", "part": {"audience",
  "view", "drop"?, "expected"?, "can_issue"}}`` — a player's **personal part** (``mine``) or the
  dealer's or a supervisor's **role part** (``role``), after record ``seq`` (the event id a
  client resumes from), to be laid over the shared message whose ``seq`` is ``shared_seq``:
  ``view`` holds the fields of the audience's view that the shared view does not hold alike
  (:func:`macau_tables.visibility.own_fields`: own wagers, held cards, a box's cards, the
  layout…; ``null`` before the first round), ``drop`` the shared view's fields the audience's
  view has not; ``expected`` as the audience may read it, when it reads otherwise than the
  shared one (a due naming this player; the staff read every name); ``can_issue`` which of the
  expected commands the connected user's role may send. Whole, never a difference from the
  previous part: a socket that fell behind gets only the latest. The public's socket gets no
  part. A part that reads as it did against a newer shared part is not sent again (it keeps its
  ``seq`` and ``shared_seq``); a part that changed is sent before the shared message it names:
  a client shows its latest part laid over its latest shared message unless the part names a
  newer one (``shared_seq`` above the shared message's ``seq``: that one comes next;
  ``static/js/socket.js`` ``tableParts``), and the pair is the same
  state as ``GET /api/tables/{id}`` (its ``view``, ``expected``, ``can_issue``:
  :func:`.api_tables.expectation`): a page needs no request after a message;
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

Views are coalesced: each part is whole, so a socket whose previous update has not been sent
yet when the next event comes gets only the newest (a burst of bets, a slow reader: one part
and at most one shared message per send, not one per event; ``seq`` may jump, as after a
resume), and a part or shared text equal to the last one sent on the socket is not sent again.
Each distinct message is built once: the table service makes one view per audience and event,
all sharing one public view (:func:`~macau_tables.tables.publish.shared_publisher`); the shared
text is encoded once per event for the whole table and a part once per event and audience and
role (:class:`_Texts`; a part serves only the very update object it was made from).

Threads: the table service publishes from the thread that committed (a request's worker, the
tick thread, PostgreSQL's listener); each connection's callback puts the update in its slot
and, only when the slot was empty, has its event loop woken — once for all the sockets of
that loop the update reaches (``loop.call_soon_threadsafe``), never blocking the table; the
loop encodes the message when the socket's turn to send comes.
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


VERSION: Final = 2
"""The table messages' format (``"v"``): a shared part and a role or personal part (the
module docstring); version 1 sent each audience's whole view in one ``table`` message."""

PART_TYPES: Final = {Role.PLAYER: "mine"}
"""The type of a part message by the audience's role: ``mine`` (a player's personal part);
``role`` for the dealer's and a supervisor's (the public's sockets get no part)."""


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
    """A table's shared message as made for the update at ``seq`` (``key``: that record, the
    table's status and what else of the table the shared part shows — a table closed or
    reopened changes its status without a record): its ``text`` (the same for every socket),
    ``since`` (the ``seq`` it carries: the update at which the shared part last
    changed), its ``body`` as encoded (compared with the next update's) and the public view
    encoded (``view``: what a part holds beyond it is computed against it)."""

    seq: int
    key: tuple[Any, ...]
    since: int
    body: str
    text: str
    view: dict[str, Any] | None
    expected: Any


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


def _framed(head: dict[str, Any], name: str, body: str) -> str:
    """``head`` with the pre-encoded JSON ``body`` as its last field ``name``."""
    return f'{_dumps(head)[:-1]},"{name}":{body}}}'


class _Texts:
    """One table's messages as sent: the shared message encoded once per update and the same
    text sent to every socket of the table (kept as it was — its text and ``seq`` — while the
    shared part does not change); a part encoded once per update, audience and role and sent
    as is to every socket of that audience and role. A part serves only the very update it was
    made from (``is``), so a text never reaches a socket its view was not made for; entries
    older than the table's newest ``seq`` are dropped."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seq = -1
        self._made: dict[
            tuple[Audience, UserRole | None], tuple[TableUpdate, dict[str, Any], int, str]
        ] = {}
        self._shared: _Shared | None = None
        self._last_parts: dict[tuple[Audience, UserRole | None], tuple[str, int, str]] = {}
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
        """The shared message of ``update`` at a table of ``mode`` (made once per update for
        the whole table)."""
        key = (update.seq, status, update.fault, update.meter_link, update.cycle)
        with self._lock:
            last = self._shared
        if last is not None and last.key == key:
            return last
        expected = expectation(self.expected(update.round, mode), None, Audience.public())[
            "expected"
        ]
        body, view = _shared_of(update, status, expected)
        if last is not None and last.body == body and last.seq <= update.seq:
            made = _Shared(update.seq, key, last.since, body, last.text, last.view, last.expected)
        else:
            head = {"type": "table", "v": VERSION, "table_id": update.table_id, "seq": update.seq}
            text = _framed(head, "shared", body)
            made = _Shared(update.seq, key, update.seq, body, text, view, expected)
        with self._lock:
            if self._shared is None or self._shared.seq <= made.seq:
                self._shared = made
        return made

    def part(
        self, update: TableUpdate, extra: dict[str, Any], role: UserRole | None, shared: _Shared
    ) -> str | None:
        """The part message of ``update`` for a socket of ``role`` (``None``: the public's
        socket, which the shared message serves whole): what the audience's view holds beyond
        the shared one (:func:`macau_tables.visibility.own_fields`), its ``expected`` when it
        reads otherwise than the shared part's, its ``can_issue``. A part that reads as the
        audience's last one did (made against the shared part now) is that very text, with its
        ``seq`` and ``shared_seq``: laid over the newer shared part it still makes the
        audience's view, so it is not sent again (a new round phase sends most sockets the
        shared message alone)."""
        if update.audience.role is Role.PUBLIC:
            return None
        key = (update.audience, role)
        with self._lock:
            made = self._made.get(key)
        if made is not None and made[0] is update and made[1] == extra and made[2] == shared.since:
            return made[3]
        own = None if update.view is None else codec.encode(update.view)
        part: dict[str, Any] = {
            "audience": codec.encode(update.audience),
            "view": own_fields(own, shared.view),
            "can_issue": extra["can_issue"],
        }
        drop = not_own(own, shared.view)
        if drop:
            part["drop"] = drop
        if extra["expected"] != shared.expected:
            part["expected"] = extra["expected"]
        body = _dumps(part)
        with self._lock:
            last = self._last_parts.get(key)
        if last is not None and last[0] == body and last[1] <= update.seq:
            text = last[2]  # the part reads as it did, against this shared part too: kept
        else:
            head = {
                "type": PART_TYPES.get(update.audience.role, "role"),
                "v": VERSION,
                "table_id": update.table_id,
                "seq": update.seq,
                "shared_seq": shared.since,
            }
            text = _framed(head, "part", body)
            with self._lock:
                self._last_parts[key] = (body, update.seq, text)
        with self._lock:
            if update.seq > self._seq:
                self._made.clear()
                self._seq = update.seq
            if update.seq == self._seq:
                self._made[key] = (update, extra, shared.since, text)
        return text


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
        self.render_table: Callable[[TableUpdate, dict[str, Any]], list[tuple[str, str]]] = (
            lambda update, extra: []
        )
        self.last_sent: dict[str, str] = {}
        """The last text sent of each kind (the shared message, the part, the meters): one equal
        to it is not sent again."""
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
        if self.session is not None:
            tasks.add(asyncio.create_task(self._session_ended()))
        done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
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

    async def _still_signed_in(self) -> None:
        """Close (4401) a socket whose session or token no longer stands in the store (signed
        out, its user disabled — on any server process): the process's session watch asks the
        store about every socket's session in one read every ``session_check_seconds``
        (:mod:`.session_watch`) and tells this one (:meth:`revoke`)."""
        if self.revoked.done():
            raise _Closing(CLOSE_SIGNED_OUT, self.revoked.result())

    async def _session_ended(self) -> None:
        """Close (4401) the socket as soon as the session watch says its session ended."""
        raise _Closing(CLOSE_SIGNED_OUT, await self.revoked)

    async def _command_loop(self, lane: CommandLane) -> None:
        """Run the client's commands (:mod:`.socket_commands`), in order, off the loop."""
        await lane.run()  # a close it raises (LaneClose) is the connection's

    async def _next(self) -> dict[str, Any] | _Marker | None:
        """The next message to send; with a session, the expiry is checked at every tick
        (``tick_seconds``) while none comes, and before each one is sent — and every
        ``session_check_seconds`` whether it still stands."""
        tick = self.runtime.settings.tick_seconds
        queue = self.outbox.queue
        while True:
            if not queue.empty():
                message = queue.get_nowait()
            elif self.session is None or tick <= 0:
                message = await queue.get()
            else:
                try:
                    async with asyncio.timeout(tick):
                        message = await queue.get()
                except TimeoutError:
                    self._signed_in()
                    await self._still_signed_in()
                    continue
            self._signed_in()
            await self._still_signed_in()
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
                texts = [] if pending is None else self.render_table(*pending)
            else:
                text = _dumps(message)
                texts = [("meters" if message["type"] == "meters" else "", text)]
            for kind, text in texts:
                if kind and self.last_sent.get(kind) == text:
                    continue  # the same part again (a publish that changed it not): not resent
                await self.websocket.send_text(text)
                if kind:
                    self.last_sent[kind] = text

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
    # the last update taken to be sent (touched in the loop only)
    latest: list[Pending] = []
    skip = [after]  # the first update is not sent when the client already has its seq

    def render(update: TableUpdate, extra: dict[str, Any]) -> list[tuple[str, str]]:
        """The texts of ``update`` for this socket, in the order sent: its part (none for the
        public), then the shared message — a client lays the part over the shared message
        whose ``seq`` its ``shared_seq`` names."""
        latest[:] = [(update, extra)]
        if skip[0] is not None:
            already = update.seq == skip[0]
            skip[0] = None
            if already:
                return []
        shared = texts.shared(update, extra["status"], service.setup.mode)
        part = texts.part(update, extra, role, shared)
        out = [("shared", shared.text)]
        return out if part is None else [("part", part), *out]

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

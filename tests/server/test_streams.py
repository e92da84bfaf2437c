"""The table server's WebSockets (issue 10, item 3): views per audience, resume, CSP-12, the
jackpot stream, and the refusals (unknown table, oversized message, too many connections)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import threading
import time
from collections.abc import Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from tests.db_fixtures import on_sqlite_first_on_both
from tests.server.support import add_held_table, login, watch
from tests.support import VISIBLE, cards_in
from tests.tables.support import close_betting, open_round

from macau_tables.baccarat.bets import seat
from macau_tables.baccarat.commands import PlaceWager
from macau_tables.baccarat.rules import WagerKind
from macau_tables.caribbean.commands import CloseBetting, Fold, PlaceAnte, PlaceJackpotWager, Raise
from macau_tables.errors import StoreError
from macau_tables.rounds import Audience, TableMode
from macau_tables.server import auth, streams
from macau_tables.server.principal import UserRole
from macau_tables.server.runtime import Runtime
from macau_tables.tables.casino import UNIT
from macau_tables.tables.publish import Hub, TableUpdate

T = TypeVar("T")

Socket = Any  # starlette.testclient.WebSocketTestSession


@pytest.fixture
def served_tables() -> tuple[str, ...]:
    """The tables these tests use (the others need no loading at each start): ``bac-hold`` once
    a test adds it."""
    return ("bac-1", "csp-1", "bac-hold")


def _token(client: TestClient, name: str) -> str:
    return login(client, name)["Authorization"].removeprefix("Bearer ")


def _submit(runtime: Runtime, table: str, command: object, key: str, actor: str) -> int:
    return runtime.service(table).submit(command, idempotency_key=key, actor=actor).last_seq


def _until(ws: Socket, seq: int) -> list[dict[str, Any]]:
    """The messages ``ws`` receives up to the table view of record ``seq``."""
    got: list[dict[str, Any]] = []
    while True:
        message = ws.receive_json()
        got.append(message)
        if message["type"] == "table" and message["seq"] >= seq:
            return got


def _closed(ws: Socket) -> tuple[dict[str, Any], WebSocketDisconnect]:
    """The error message the server sent before it closed ``ws``, and the close."""
    error = ws.receive_json()
    assert error["type"] == "error", error
    with pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_json()
    return error["error"], closed.value


def _check_sessions_every(runtime: Runtime, seconds: float) -> None:
    """Ticks and session checks (``session_check_seconds``) fast enough for a test."""
    runtime.settings = dataclasses.replace(
        runtime.settings, tick_seconds=0.02, session_check_seconds=seconds
    )


class _Checks:
    """The session checks the streams make (``auth.session_refusals``, counted and passed
    on, or answered by ``answer``): a test waits for some to have run, not for a time."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, answer: Any = None) -> None:
        self.count = 0
        self._changed = threading.Condition()
        real = answer or auth.session_refusals

        def counted(*args: Any, **kwargs: Any) -> Any:
            with self._changed:
                self.count += 1
                self._changed.notify_all()
            return real(*args, **kwargs)

        monkeypatch.setattr(auth, "session_refusals", counted)

    def wait_for(self, more: int) -> None:
        """Until ``more`` checks beyond those made so far have run."""
        with self._changed:
            target = self.count + more
            assert self._changed.wait_for(lambda: self.count >= target, timeout=60)


def _sign_out(client: TestClient, token: str) -> None:
    out = client.post("/api/auth/logout", headers={"Authorization": f"Bearer {token}"})
    assert out.status_code == 200, out.text


def _play_caribbean_round(runtime: Runtime, n: int) -> int:
    """alice (box 1, with the jackpot wager) and bruno (box 2) play one round of ``csp-1``."""
    svc = runtime.service("csp-1")
    open_round(runtime.service("csp-1"))
    _submit(runtime, "csp-1", PlaceAnte(1, "alice", UNIT), f"a{n}", "alice")
    _submit(runtime, "csp-1", PlaceJackpotWager(1, "alice"), f"j{n}", "alice")
    _submit(runtime, "csp-1", PlaceAnte(2, "bruno", UNIT), f"b{n}", "bruno")
    seq = close_betting(runtime.service("csp-1"), CloseBetting()).last_seq
    while not svc.round.is_over:  # the decisions (CSP-6.5): alice raises, bruno folds
        due = svc.expected().due[0]  # type: ignore[union-attr]
        box, player = due.position, due.player
        assert isinstance(box, int) and player is not None
        cmd: object = Raise(box, player, 2 * UNIT) if box == 1 else Fold(box, player)
        seq = _submit(runtime, "csp-1", cmd, f"d{n}{box}", player)
    assert svc.round.is_over
    return seq


@pytest.fixture
def sockets(client: TestClient) -> Iterator[dict[str, Socket]]:
    """``csp-1`` watched by alice, bruno, the dealer, the supervisor and the public."""
    names = ("alice", "bruno", "dealer", "supervisor")
    tokens = {name: _token(client, name) for name in names}
    opened: dict[str, Socket] = {}
    try:
        for name in names:
            opened[name] = watch(client, f"/ws/tables/csp-1?token={tokens[name]}")
        opened["public"] = watch(client, "/ws/tables/csp-1")
        yield opened
    finally:
        for ws in opened.values():
            ws.__exit__(None, None, None)


def test_every_audience_gets_its_view_now_and_after_each_command_CSP_12(
    runtime: Runtime, sockets: dict[str, Socket]
) -> None:
    expected = {
        "alice": Audience.of_player("alice"),
        "bruno": Audience.of_player("bruno"),
        "dealer": Audience.dealer(),
        "supervisor": Audience.supervisor(),
        "public": Audience.public(),
    }
    svc = runtime.service("csp-1")
    for ws in sockets.values():
        first = ws.receive_json()
        assert first["type"] == "table" and first["table_id"] == "csp-1"
    svc_rounds: dict[int, Any] = {}
    recorder = svc.subscribe(
        Audience.public(), lambda u: svc_rounds.__setitem__(getattr(u, "seq", -1), svc.round)
    )
    try:
        last = _play_caribbean_round(runtime, 1)
    finally:
        recorder.close()
    visible = VISIBLE["caribbean"]
    for name, ws in sockets.items():
        received = [m for m in _until(ws, last) if m["type"] == "table"]
        assert received[-1]["seq"] == last
        # Every view is the socket's own audience's, and carries no card it may not see.
        for message in received:
            assert message["audience"]["role"] == expected[name].role.value
            assert message["audience"].get("player") == expected[name].player
            allowed = visible(svc_rounds[message["seq"]], expected[name])
            assert set(cards_in(message)) <= allowed, (name, message["seq"])
    # The server sends views, meters and pongs, nothing else: no advice, no chat (CSP-12).
    for ws in sockets.values():
        ws.send_json({"type": "ping"})
        kinds = set()
        while (message := ws.receive_json())["type"] != "pong":
            kinds.add(message["type"])
        assert kinds <= {"table", "meter"} and message == {"type": "pong"}


def test_a_player_never_gets_another_box_s_cards(
    runtime: Runtime, sockets: dict[str, Socket]
) -> None:
    svc = runtime.service("csp-1")
    open_round(runtime.service("csp-1"))
    _submit(runtime, "csp-1", PlaceAnte(1, "alice", UNIT), "a", "alice")
    _submit(runtime, "csp-1", PlaceAnte(2, "bruno", UNIT), "b", "bruno")
    seq = close_betting(runtime.service("csp-1"), CloseBetting()).last_seq  # the cards are out
    box1, box2 = svc.round.box(1), svc.round.box(2)
    assert len(box1.cards) == len(box2.cards) == 5
    alice = {c for m in _until(sockets["alice"], seq) for c in cards_in(m)}
    bruno = {c for m in _until(sockets["bruno"], seq) for c in cards_in(m)}
    public = {c for m in _until(sockets["public"], seq) for c in cards_in(m)}
    assert set(box1.cards) <= alice and not alice & set(box2.cards)
    assert set(box2.cards) <= bruno and not bruno & set(box1.cards)
    assert not public & (set(box1.cards) | set(box2.cards))
    # The dealer's face-down cards reach nobody before the showdown (CSP-7).
    r = svc.round
    down = {c for c, up in zip(r.dealer_cards, r.dealer_face_up, strict=True) if not up}
    assert down and not down & (alice | bruno | public)


def test_a_reconnecting_client_resumes_from_the_last_seq(
    client: TestClient, runtime: Runtime
) -> None:
    with watch(client, "/ws/tables/csp-1") as ws:
        seen = ws.receive_json()["seq"]
    moved = open_round(runtime.service("csp-1")).last_seq
    assert moved > seen
    # The table moved on since: the current view at once.
    with watch(client, f"/ws/tables/csp-1?after={seen}") as ws:
        assert ws.receive_json()["seq"] == moved
    # Nothing changed since: nothing is resent (the first answer is the pong).
    with watch(client, f"/ws/tables/csp-1?after={moved}") as ws:
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
        # As a message: an old seq gets the view again, the current one nothing.
        ws.send_json({"type": "resume", "after": seen})
        assert ws.receive_json()["seq"] == moved
        ws.send_json({"type": "resume", "after": moved})
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
        later = _submit(runtime, "csp-1", PlaceAnte(1, "alice", UNIT), "a", "alice")
        assert ws.receive_json()["seq"] == later


REFUSED: list[object] = [
    {"type": "chat", "text": "raise, the dealer shows a king"},
    {"type": "advice", "box": 1, "action": "raise"},
    {"type": "strategy"},
    {"type": "ping", "to": "bruno"},
    {"type": "resume", "after": "latest"},
    "hello",
    b'{"type":"ping"}',
]


def test_anything_but_ping_and_resume_closes_the_socket_1008_CSP_12(
    client: TestClient, runtime: Runtime
) -> None:
    token = _token(client, "alice")
    open_round(runtime.service("csp-1"))
    _submit(runtime, "csp-1", PlaceAnte(1, "alice", UNIT), "a", "alice")
    close_betting(runtime.service("csp-1"), CloseBetting())
    svc = runtime.service("csp-1")
    assert svc.expected().due[0].kind.value == "decision"  # type: ignore[union-attr]
    before = svc.view(Audience.public()).seq
    for message in REFUSED:
        with watch(client, f"/ws/tables/csp-1?token={token}") as ws:
            ws.receive_json()
            if isinstance(message, bytes):
                ws.send_bytes(message)
            elif isinstance(message, str):
                ws.send_text(message)
            else:
                ws.send_json(message)
            error, closed = _closed(ws)
        assert closed.code == streams.CLOSE_POLICY == 1008, message
        assert closed.reason == "streams.refused"
        assert (error["key"], error["rule"]) == ("streams.refused", "CSP-12")
    assert error["params"]["message"] == "(binary)"
    assert svc.view(Audience.public()).seq == before  # nothing changed at the table


@on_sqlite_first_on_both(
    "nested",
    [
        "[" * 30_000 + "]" * 30_000,  # deeper than the JSON parser's recursion
        '{"type": "ping", "x": ' + "[" * 30_000,  # unfinished
        '{"a":' * 10_000 + "1" + "}" * 10_000,  # (within body_limit_bytes)
        "[" * 40 + "]" * 40,  # shallow, but more than a control message holds
    ],
)
def test_a_deeply_nested_message_closes_1008_without_a_traceback(
    client: TestClient, caplog: pytest.LogCaptureFixture, nested: str
) -> None:
    """A message nested 30,000 deep is refused as any other message that is not a control
    message (CSP-12: 1008, ``streams.refused``), before it is parsed: no 1011, nothing logged
    as an error — on a table's stream and on the jackpot's."""
    for path in ("/ws/tables/csp-1", "/ws/jackpot"):
        caplog.clear()
        with client.websocket_connect(path) as ws:
            ws.receive_json()
            ws.send_text(nested)
            error, closed = _closed(ws)
        assert (closed.code, closed.reason) == (streams.CLOSE_POLICY, "streams.refused"), path
        assert (error["key"], error["rule"]) == ("streams.refused", "CSP-12")
        assert len(error["params"]["message"]) <= 60
        assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL") or r.exc_info]


def test_unknown_tables_bad_seqs_and_oversized_messages_are_closed_with_a_reason(
    client: TestClient, runtime: Runtime
) -> None:
    with watch(client, "/ws/tables/no-such-table") as ws:
        error, closed = _closed(ws)
    assert closed.code == streams.CLOSE_TABLE_UNKNOWN == 4404
    assert error["key"] == "server.table_unknown" and closed.reason == "server.table_unknown"
    with watch(client, "/ws/tables/csp-1?after=-3") as ws:
        error, closed = _closed(ws)
    assert closed.code == 1008 and error["key"] == "streams.bad_after"
    limit = runtime.settings.body_limit_bytes
    with watch(client, "/ws/tables/csp-1") as ws:
        ws.receive_json()
        ws.send_text(json.dumps({"type": "ping", "pad": "x" * limit}))
        error, closed = _closed(ws)
    assert closed.code == streams.CLOSE_OVERSIZED == 1009
    assert error["key"] == "streams.oversized" and error["params"]["limit"] == limit


def test_a_token_as_query_header_or_subprotocol_signs_in_a_forged_one_is_the_public(
    client: TestClient,
) -> None:
    token = _token(client, "bruno")
    with watch(client, "/ws/tables/csp-1", subprotocols=["bearer", token]) as ws:
        assert ws.accepted_subprotocol == "bearer"
        assert ws.receive_json()["audience"] == {
            "type": "core.Audience",
            "v": 1,
            "role": "player",
            "player": "bruno",
        }
    with watch(client, "/ws/tables/csp-1", headers={"Authorization": f"Bearer {token}"}) as ws:
        assert ws.receive_json()["audience"]["player"] == "bruno"
    with watch(client, "/ws/tables/csp-1?token=forged") as ws:
        assert ws.receive_json()["audience"]["role"] == "public"


def test_a_flood_of_connections_is_refused_1013(client: TestClient, runtime: Runtime) -> None:
    runtime.settings = runtime.settings.replace(max_websockets_per_client=2)
    dealer = login(client, "dealer")
    with client.websocket_connect("/ws/jackpot") as first:
        first.receive_json()
        with watch(client, "/ws/tables/bac-1") as second:
            second.receive_json()
            with watch(client, "/ws/tables/csp-1") as third:
                error, closed = _closed(third)
            assert closed.code == streams.CLOSE_TRY_LATER == 1013
            assert error["key"] == "streams.too_many"
            # Another client (a signed-in user) still gets in.
            with watch(client, "/ws/tables/csp-1", headers=dealer) as other:
                assert other.receive_json()["audience"]["role"] == "dealer"
        with watch(client, "/ws/tables/csp-1") as again:  # a place came free
            assert again.receive_json()["type"] == "table"
        # The process's cap applies to everyone, signed in or not.
        runtime.settings = runtime.settings.replace(max_websockets=1)
        with watch(client, "/ws/tables/csp-1", headers=dealer) as other:
            _, closed = _closed(other)
        assert closed.code == 1013


def _run_apart(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coroutine)`` on a thread of its own: this thread may already run a loop
    (Playwright's sync API, once a browser test ran on this test worker, keeps one running)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def test_a_slow_client_s_queue_overflows_and_never_blocks_the_table() -> None:
    async def fill() -> tuple[bool, list[object]]:
        outbox = streams._Outbox(asyncio.get_running_loop(), 3)
        for n in range(10):
            outbox.offer(lambda n=n: {"type": "table", "seq": n})  # type: ignore[misc]
        items = []
        while not outbox.queue.empty():
            items.append(outbox.queue.get_nowait())
        return outbox.overflowed, items

    overflowed, items = _run_apart(fill())
    assert overflowed
    assert items == [{"type": "table", "seq": 0}, {"type": "table", "seq": 1},
                     {"type": "table", "seq": 2}, None]  # fmt: skip


def _update(seq: int, audience: Audience) -> TableUpdate:
    return TableUpdate("t-1", seq, audience, "r-1", None, None, True)


def test_table_updates_are_coalesced_a_slow_reader_gets_the_newest_view() -> None:
    async def burst() -> tuple[bool, list[object], object, object]:
        outbox = streams._Outbox(asyncio.get_running_loop(), 3)
        for n in range(10):  # ten events before the sender took any: no overflow
            outbox.offer_table(_update(n, Audience.public()), {"status": "open"})
        await asyncio.sleep(0)  # the loop takes what the publishing thread handed over
        items = []
        while not outbox.queue.empty():
            items.append(outbox.queue.get_nowait())
        return outbox.overflowed, items, outbox.take_table(), outbox.take_table()

    overflowed, items, taken, then = _run_apart(burst())
    assert not overflowed
    assert items == [streams._TABLE]  # one marker for the slot, however many events
    assert isinstance(taken, tuple) and taken[0].seq == 9  # the newest view, whole
    assert then is None


def _extra(can_issue: list[str] | None = None) -> dict[str, Any]:
    return {"status": "open", "expected": None, "can_issue": can_issue or []}


def test_one_shared_text_per_table_event_one_seat_text_one_part_per_audience() -> None:
    texts = streams._Texts()
    mode = TableMode.VIRTUAL
    public = _update(5, Audience.public())
    alice, bruno = _update(5, Audience.of_player("alice")), _update(5, Audience.of_player("bruno"))
    shared = texts.shared(public, "open", mode)
    # every socket of the table, whoever watches: the one shared text of the event
    assert texts.shared(alice, "open", mode) is shared
    assert texts.sections(public, _extra(), None, mode) == [("shared", shared.body)]
    mine = dict(texts.sections(alice, _extra(), UserRole.PLAYER, mode))
    theirs = dict(texts.sections(bruno, _extra(), UserRole.PLAYER, mode))
    # the players' one seat text of the publish (its seat view, the same object in every
    # player's update: here None, before a round), and a part of each player's own
    assert set(mine) == {"shared", "seat", "mine"} and mine["seat"] is theirs["seat"]
    assert json.loads(mine["mine"])["audience"]["player"] == "alice"
    assert json.loads(theirs["mine"])["audience"]["player"] == "bruno"
    again = dict(texts.sections(alice, _extra(), UserRole.PLAYER, mode))
    assert again["mine"] is mine["mine"]  # made once per update and audience
    # a later update that reads the same: the very same texts (a socket that has them is sent
    # nothing); one that reads otherwise: a new part
    later = _update(6, Audience.of_player("alice"))
    kept = dict(texts.sections(later, _extra(), UserRole.PLAYER, mode))
    assert kept["shared"] is mine["shared"] and kept["mine"] is mine["mine"]
    changed = dict(texts.sections(later, _extra(["y"]), UserRole.PLAYER, mode))
    assert json.loads(changed["mine"])["can_issue"] == ["y"]
    # staff get a role part with their role's can_issue, and no seat part
    staff = dict(
        texts.sections(_update(6, Audience.dealer()), _extra(["x"]), UserRole.DEALER, mode)
    )
    assert set(staff) == {"shared", "role"} and json.loads(staff["role"])["can_issue"] == ["x"]
    # a change of what the shared part shows makes a new shared text
    closed = texts.shared(_update(7, Audience.public()), "closed", mode)
    assert json.loads(closed.body)["status"] == "closed"
    frame = json.loads(streams._frame("t-1", 7, [("shared", closed.body)]))
    assert frame == {"type": "table", "v": streams.VERSION, "table_id": "t-1", "seq": 7,
                     "shared": json.loads(closed.body)}  # fmt: skip


def test_another_player_s_bet_changes_the_seat_part_not_a_player_s_own(
    client: TestClient, runtime: Runtime
) -> None:
    """The layout (the stakes per area, seen by every player at the table: BAC view rules) is
    in the seat part, sent to the players' sockets alone: bruno's bet sends alice the seat part
    only — her own part reads as it did — and bruno his own part too; the public and the staff
    are sent no seat part (the public sees no wager; the staff's part holds every wager)."""
    add_held_table(runtime.store, reason="stream test")
    runtime.tick()
    svc = runtime.service("bac-hold")
    open_round(svc, ((1, "alice"), (2, "bruno")))
    names = ("alice", "bruno", "dealer")
    sockets = {n: watch(client, f"/ws/tables/bac-hold?token={_token(client, n)}") for n in names}
    sockets["public"] = watch(client, "/ws/tables/bac-hold")
    try:
        for ws in sockets.values():
            first = ws.receive_json()
            assert first["type"] == "table"
        bet = PlaceWager("bruno", seat(2), WagerKind.BANKER, 5 * UNIT)
        last = svc.submit(bet, idempotency_key="b", actor="bruno").last_seq
        for who in names:
            assert _until(sockets[who], last)[-1]["seq"] == last
        sockets["public"].send_json({"type": "ping"})  # the public sees no wager: sent nothing
        assert sockets["public"].receive_json() == {"type": "pong"}
        (to_alice,) = [m for m in sockets["alice"].raw if m.get("seq") == last]
        assert set(to_alice) - {"type", "v", "table_id", "seq"} == {"seat"}
        layout = sockets["alice"].whole()["view"]["layout"]
        assert [(x["kind"], x["amount"]) for x in layout] == [("banker", 5 * UNIT)]
        (to_bruno,) = [m for m in sockets["bruno"].raw if m.get("seq") == last]
        assert {"seat", "mine"} <= set(to_bruno)
        assert len(sockets["bruno"].whole()["view"]["wagers"]) == 1
        for who in ("public", "dealer"):
            assert not any("seat" in m for m in sockets[who].raw), who
        # laid together, each socket's sections are the view GET /api/tables/{id} answers
        for who in names:
            shown = client.get("/api/tables/bac-hold", headers=login(client, who)).json()
            assert sockets[who].whole()["view"] == shown["view"], who
    finally:
        for ws in sockets.values():
            ws.__exit__(None, None, None)


def test_the_hub_makes_each_audience_s_update_once_per_publish() -> None:
    hub = Hub()
    made: list[Audience] = []
    got: dict[int, list[object]] = {}
    alice = Audience.of_player("alice")
    audiences = [Audience.public(), Audience.public(), alice, alice]
    audiences += [Audience.of_player("bruno"), Audience.dealer()]
    for n, audience in enumerate(audiences):
        hub.add(audience, lambda u, n=n: got.setdefault(n, []).append(u))  # type: ignore[misc]

    def make(audience: Audience) -> object:
        made.append(audience)
        return ("view of", audience)

    hub.publish(make)
    assert sorted(made, key=repr) == sorted(set(audiences), key=repr)
    assert got[0][0] is got[1][0] and got[2][0] is got[3][0]
    assert got[2][0] == ("view of", Audience.of_player("alice"))
    assert got[4][0] == ("view of", Audience.of_player("bruno"))


def test_the_jackpot_stream_sees_a_contribution(client: TestClient, runtime: Runtime) -> None:
    with client.websocket_connect("/ws/jackpot") as ws:
        first = ws.receive_json()
        assert first["type"] == "meters"
        before = {m["meter_id"]: m["amount"] for m in first["meters"]}
        assert set(before) == {"m-baccarat", "m-caribbean"}
        assert first["hits"] == []
        _play_caribbean_round(runtime, 3)  # alice's jackpot wager contributes (CSP-10)
        while True:
            message = ws.receive_json()
            if message["type"] == "meter" and message["meter_id"] == "m-caribbean":
                break
        assert message["amount"] > before["m-caribbean"]
        assert message["amount"] == runtime.store.read(lambda tx: tx.meter_amount("m-caribbean"))


def test_the_jackpot_stream_shows_the_last_hits(client: TestClient, runtime: Runtime) -> None:
    runtime.store.run(
        lambda tx: tx.record_hit(
            "m-caribbean",
            table_id="csp-1",
            round_id="csp-1-1",
            box=3,
            combination="royal_flush",
            amount=1_000_000,
        )
    )
    with client.websocket_connect("/ws/jackpot") as ws:
        (hit,) = ws.receive_json()["hits"]
    assert hit["meter_id"] == "m-caribbean" and hit["seq"] == 1
    assert (hit["table_id"], hit["box"], hit["amount"]) == ("csp-1", 3, 1_000_000)


def test_the_table_message_carries_expected_and_can_issue_as_the_get_answer(
    client: TestClient, runtime: Runtime
) -> None:
    """The ``table`` message says what the round waits for and which of its commands the
    user's role may send, exactly as ``GET /api/tables/{id}`` does: a page needs no request
    after a message (a player may bet, the public nothing; at a virtual table the round cycle
    closes the betting, so the dealer is not offered it), and the cycle's countdown."""
    headers = {name: login(client, name) for name in ("alice", "dealer", "supervisor")}
    urls = {name: f"/ws/tables/csp-1?token={h['Authorization'].removeprefix('Bearer ')}"
            for name, h in headers.items()}  # fmt: skip
    urls["public"] = "/ws/tables/csp-1"
    headers["public"] = {}
    with contextlib.ExitStack() as stack:
        sockets = {name: stack.enter_context(watch(client, u)) for name, u in urls.items()}
        for ws in sockets.values():
            first = ws.receive_json()
            assert first["expected"] is None and first["can_issue"] == []
        seq = open_round(runtime.service("csp-1")).last_seq
        for name, ws in sockets.items():
            message = _until(ws, seq)[-1]
            shown = client.get("/api/tables/csp-1", headers=headers[name]).json()
            assert shown["seq"] == message["seq"] == seq
            for key in ("status", "expected", "can_issue", "round_id", "view", "fault", "cycle"):
                assert message[key] == shown[key], (name, key)
            assert message["expected"]["phase"] == "betting"
            assert message["cycle"]["step"] == "close" and message["cycle"]["at"]
        # (with an ante in, the round could close: the cycle's, never offered to the dealer)
        _submit(runtime, "csp-1", PlaceAnte(2, "bruno", 5 * UNIT), "ante-x", "bruno")
        commands = {name: set(sockets_can) for name, sockets_can in (
            (n, client.get("/api/tables/csp-1", headers=headers[n]).json()["can_issue"])
            for n in sockets)}  # fmt: skip
    assert "caribbean.PlaceAnte" in commands["alice"]
    assert "caribbean.PlaceAnte" not in commands["dealer"]
    assert "caribbean.CloseBetting" not in commands["dealer"]
    assert commands["dealer"].isdisjoint(commands["alice"])
    assert commands["public"] == set()


def test_a_virtual_tables_socket_offers_no_physical_act_CSP_11(
    client: TestClient, runtime: Runtime
) -> None:
    """CSP-11, BAC-10 at a virtual table: the ``table`` message's ``expected`` and
    ``can_issue`` list only what the table's mode accepts (``MODES``) — no exposure report,
    misdeal, dead hand, shuffler failure or card by hand — as ``GET /api/tables/{id}`` does."""
    token = login(client, "dealer")["Authorization"].removeprefix("Bearer ")
    physical = {
        "caribbean.ReportExposedCard",
        "caribbean.ReportMisdeal",
        "caribbean.DealtToEmptyBox",
        "caribbean.ShufflerFailure",
        "caribbean.DealCard",
    }
    with watch(client, f"/ws/tables/csp-1?token={token}") as ws:
        ws.receive_json()
        open_round(runtime.service("csp-1"))
        _submit(runtime, "csp-1", PlaceAnte(1, "alice", 5 * UNIT), "ante-m", "alice")
        seq = close_betting(runtime.service("csp-1"), CloseBetting()).last_seq
        message = _until(ws, seq)[-1]
    assert message["expected"]["phase"] == "deciding"
    assert not physical & set(message["expected"]["commands"])
    assert not physical & set(message["can_issue"])
    shown = client.get("/api/tables/csp-1", headers=login(client, "dealer")).json()
    assert (shown["expected"], shown["can_issue"]) == (message["expected"], message["can_issue"])


def test_a_table_stream_closes_once_its_session_expires(
    client: TestClient, runtime: Runtime
) -> None:
    """A socket does not stay signed in after its token's end: at the next message after the
    expiry (by the runtime's clock) the server sends ``auth.session_expired`` and closes with
    4401; before it, the stream goes on. The public jackpot stream is not closed."""
    token = _token(client, "alice")
    with (
        watch(client, f"/ws/tables/csp-1?token={token}") as ws,
        client.websocket_connect(f"/ws/jackpot?token={token}") as jackpot,
    ):
        assert ws.receive_json()["type"] == "table"
        assert jackpot.receive_json()["type"] == "meters"
        runtime.clock.advance(runtime.settings.session_seconds - 60)  # type: ignore[attr-defined]
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
        runtime.clock.advance(61)  # type: ignore[attr-defined]
        open_round(runtime.service("csp-1"))  # a push
        error, closed = _closed(ws)
        assert error["key"] == "auth.session_expired" and closed.code == streams.CLOSE_SIGNED_OUT
        jackpot.send_json({"type": "ping"})
        assert jackpot.receive_json() == {"type": "pong"}
    # reconnecting with the expired token watches as the public (sign in again for more)
    with watch(client, f"/ws/tables/csp-1?token={token}") as again:
        assert again.receive_json()["audience"]["role"] == "public"


def test_a_table_stream_closes_once_its_user_signs_out_or_is_disabled(
    client: TestClient, runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A socket does not outlive its session: once its user signs out or an administrator
    disables them (the store says so, whichever server process did it), the stream finds out
    within ``session_check_seconds`` and closes with 4401 ``auth.session_unknown``; while a
    session stands its stream goes on, and another user's stream is not touched."""
    _check_sessions_every(runtime, 0.05)
    checks = _Checks(monkeypatch)
    alice, bruno = _token(client, "alice"), _token(client, "bruno")
    admin = login(client, "admin")
    with (
        watch(client, f"/ws/tables/csp-1?token={alice}") as a,
        watch(client, f"/ws/tables/csp-1?token={bruno}") as b,
    ):
        assert a.receive_json()["type"] == "table" and b.receive_json()["type"] == "table"
        checks.wait_for(3)  # several checks: both sessions stand
        for ws in (a, b):
            ws.send_json({"type": "ping"})
            assert ws.receive_json() == {"type": "pong"}
        _sign_out(client, alice)
        error, closed = _closed(a)
        assert error["key"] == "auth.session_unknown" and closed.code == streams.CLOSE_SIGNED_OUT
        b.send_json({"type": "ping"})
        assert b.receive_json() == {"type": "pong"}  # bruno's session still stands
        off = client.post("/api/admin/users/bruno/disable", json={"reason": "test"}, headers=admin)
        assert off.status_code == 200, off.text
        error, closed = _closed(b)
        assert error["key"] == "auth.session_unknown" and closed.code == streams.CLOSE_SIGNED_OUT


def test_a_session_check_the_store_cannot_answer_leaves_the_stream_open(
    client: TestClient, runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store unreachable for a moment does not close every signed-in socket: the check is
    tried again at the next interval (and then closes a signed-out user's socket)."""
    _check_sessions_every(runtime, 0.05)
    real = auth.session_refusals
    failing = True

    def unreachable(*args: Any, **kwargs: Any) -> Any:
        if failing:
            raise StoreError("store.unavailable", url="test", error="test")
        return real(*args, **kwargs)

    checks = _Checks(monkeypatch, unreachable)
    alice = _token(client, "alice")
    with watch(client, f"/ws/tables/csp-1?token={alice}") as ws:
        assert ws.receive_json()["type"] == "table"
        checks.wait_for(2)  # asked, failed, asked again
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
        failing = False
        _sign_out(client, alice)
        error, closed = _closed(ws)
        assert error["key"] == "auth.session_unknown" and closed.code == streams.CLOSE_SIGNED_OUT


def test_with_no_session_check_only_the_expiry_closes_a_stream(
    client: TestClient, runtime: Runtime
) -> None:
    """``session_check_seconds = 0``: the store is not asked; the socket of a signed-out user
    goes on until its session's expiry (the operator's choice, documented)."""
    _check_sessions_every(runtime, 0)
    alice = _token(client, "alice")
    with watch(client, f"/ws/tables/csp-1?token={alice}") as ws:
        assert ws.receive_json()["type"] == "table"
        _sign_out(client, alice)
        time.sleep(0.2)
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
        runtime.clock.advance(runtime.settings.session_seconds + 1)  # type: ignore[attr-defined]
        error, closed = _closed(ws)
        assert error["key"] == "auth.session_expired" and closed.code == streams.CLOSE_SIGNED_OUT


def test_an_idle_table_stream_closes_at_the_tick_after_its_session_expires(
    client: TestClient, runtime: Runtime
) -> None:
    """No message to send: the connection checks its session every ``tick_seconds``."""
    runtime.settings = dataclasses.replace(runtime.settings, tick_seconds=0.05)
    token = _token(client, "alice")
    with watch(client, f"/ws/tables/csp-1?token={token}") as ws:
        assert ws.receive_json()["type"] == "table"
        runtime.clock.advance(runtime.settings.session_seconds + 1)  # type: ignore[attr-defined]
        error, closed = _closed(ws)  # nothing was pushed: the tick closed it
        assert error["key"] == "auth.session_expired" and closed.code == streams.CLOSE_SIGNED_OUT

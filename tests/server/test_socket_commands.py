"""Bets over the table socket (issue 21, item 2): a player's commands on ``/ws/tables/{id}``
under the REST contract — the same body, decoding, authorisation, idempotency keys and
refusals — acknowledged on the socket; every command checks the session; CSP-12 still closes
anything else; a flood is closed without slowing the other sockets; a command whose sender
disconnected completes; the sessions of all open sockets are checked in one read. SQLite and
PostgreSQL (the ``runtime`` fixture)."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from tests.server.socket_support import (
    answer,
    closed,
    send_command,
    token,
    view_after,
    wager,
)
from tests.server.support import cycle_step, login, watch

from macau_tables import codec
from macau_tables.server import streams
from macau_tables.server.principal import Principal, UserRole
from macau_tables.server.runtime import Runtime
from macau_tables.server.session_watch import watch_of
from macau_tables.server.settings import Settings
from macau_tables.store import users_ops

Json = dict[str, Any]


@pytest.fixture
def served_tables() -> tuple[str, ...]:
    """The tables these tests use (the others need no loading at each start)."""
    return ("bac-1", "csp-1")


def _balance(runtime: Runtime, player: str) -> int:
    return int(runtime.store.read(lambda tx: tx.player(player).balance))


def _open_bac_1(client: TestClient) -> None:
    """bac-1's round cycle opens a round: betting."""
    assert cycle_step(client, "bac-1", {"type": "tables.OpenRound"})["phase"] == "betting"


def _rest(client: TestClient, name: str, body: Json) -> Any:
    return client.post("/api/tables/bac-1/commands", json=body, headers=login(client, name))


@pytest.fixture
def alice_ws(client: TestClient) -> Iterator[Any]:
    """alice's socket on bac-1, its first view read."""
    with watch(client, f"/ws/tables/bac-1?token={token(client, 'alice')}") as ws:
        assert ws.receive_json()["type"] == "table"
        yield ws


def test_a_bet_over_the_socket_is_acknowledged_and_shown_in_the_next_view(
    client: TestClient, runtime: Runtime, alice_ws: Any
) -> None:
    """The ack carries the REST answer (the Submitted); the stake left the wallet before it;
    the next view shows alice's wager."""
    _open_bac_1(client)
    before = _balance(runtime, "alice")
    send_command(alice_ws, "s1", wager("alice", 1_000))
    ack, received = answer(alice_ws, "s1")
    assert ack["type"] == "ack", ack
    result = ack["result"]
    assert result["type"] == "tables.Submitted"
    assert result["events"] == ["baccarat.WagerPlaced"]
    assert _balance(runtime, "alice") == before - 1_000  # committed before the ack
    view = view_after(alice_ws, result["last_seq"], received)
    mine = [(w["player"], w["amount"]) for w in view["view"]["wagers"]]
    assert mine == [("alice", 1_000)]


def test_a_bet_slip_over_the_socket_is_all_or_nothing(
    client: TestClient, runtime: Runtime, alice_ws: Any
) -> None:
    _open_bac_1(client)
    before = _balance(runtime, "alice")
    over_limit = [wager("alice", 1_000), wager("alice", 10**9, kind="tie")]
    send_command(alice_ws, "slip-1", commands=over_limit)
    refused, _ = answer(alice_ws, "slip-1")
    assert refused["type"] == "refused" and refused["status"] == 409, refused
    assert refused["error"]["rule"]  # out of the table's limits: a rule of the law
    assert _balance(runtime, "alice") == before  # nothing of the slip
    send_command(alice_ws, "slip-2", commands=[wager("alice", 1_000)] * 2)
    ack, _ = answer(alice_ws, "slip-2")
    assert ack["result"]["events"] == ["baccarat.WagerPlaced"] * 2
    assert _balance(runtime, "alice") == before - 2_000


def test_one_key_one_answer_over_the_socket_and_rest(
    client: TestClient, runtime: Runtime, alice_ws: Any
) -> None:
    """The socket's and REST's commands share the key namespace ``api:{user}:{key}``: a retry
    on the other path answers the first result and applies nothing; another request under the
    key is refused ``tables.idempotency_mismatch`` on both."""
    _open_bac_1(client)
    before = _balance(runtime, "alice")
    send_command(alice_ws, "same", wager("alice", 1_000))
    ack, _ = answer(alice_ws, "same")
    again = _rest(client, "alice", {"idempotency_key": "same", "command": wager("alice", 1_000)})
    assert again.status_code == 200 and again.json() == ack["result"]
    assert _balance(runtime, "alice") == before - 1_000  # applied once
    other = _rest(client, "alice", {"idempotency_key": "same", "command": wager("alice", 2_000)})
    assert other.status_code == 409
    assert other.json()["error"]["key"] == "tables.idempotency_mismatch"
    # REST first, the socket's retry second
    first = _rest(client, "alice", {"idempotency_key": "rest", "command": wager("alice", 3_000)})
    assert first.status_code == 200, first.text
    send_command(alice_ws, "rest", wager("alice", 3_000))
    retried, _ = answer(alice_ws, "rest")
    assert retried["type"] == "ack" and retried["result"] == first.json()
    send_command(alice_ws, "rest", wager("alice", 4_000))
    mismatch, _ = answer(alice_ws, "rest")
    assert (mismatch["status"], mismatch["error"]["key"]) == (409, "tables.idempotency_mismatch")
    assert _balance(runtime, "alice") == before - 4_000


REFUSED_ALIKE: list[tuple[str, Json]] = [
    ("alice", {"idempotency_key": "r1", "command": wager("bruno", 1_000)}),  # 403, another
    ("dealer", {"idempotency_key": "r2", "command": wager("alice", 1_000)}),  # 403, money
    ("alice", {"idempotency_key": "r3", "command": {"type": "nope.Nope"}}),  # 422
    ("alice", {"idempotency_key": "r4", "command": {"type": "caribbean.Showdown"}}),  # 403
    ("alice", {"idempotency_key": "r5", "command": {"type": "core.Meter"}}),  # 400
    ("alice", {"idempotency_key": "r6"}),  # 422 api.command_or_commands
    ("alice", {"idempotency_key": "r7", "command": wager("alice", 1_000), "chat": "hi"}),
    ("alice", {"idempotency_key": "r8", "command": {**wager("alice", 1_000), "zz": 1}}),
    ("alice", {"idempotency_key": "r9", "command": wager("alice", 10**9)}),  # 409, the limits
    ("alice", {"idempotency_key": "", "command": wager("alice", 1_000)}),  # 422, the key
]


def test_a_refusal_is_rest_s_and_keeps_the_socket_open(
    client: TestClient, runtime: Runtime
) -> None:
    """Each refused request answers over the socket what REST answers it — status, key,
    params, text, rule — and the socket stays open: a ping is answered, the next bet taken."""
    _open_bac_1(client)
    for name, body in REFUSED_ALIKE:
        rest_key = body["idempotency_key"] and body["idempotency_key"] + "-r"
        rest = _rest(client, name, {**body, "idempotency_key": rest_key})
        ws_token = token(client, name)
        with watch(client, f"/ws/tables/bac-1?token={ws_token}") as ws:
            ws.receive_json()
            ws.send_json({"type": "command", **body, "idempotency_key": body["idempotency_key"]})
            refused, _ = answer(ws, body["idempotency_key"])
            assert refused["type"] == "refused", (body, refused)
            assert refused["status"] == rest.status_code, (body, refused, rest.text)
            assert refused["error"] == rest.json()["error"], body
            ws.send_json({"type": "ping"})
            assert answer_pong(ws)
    with watch(client, f"/ws/tables/bac-1?token={token(client, 'alice')}") as ws:
        ws.receive_json()
        send_command(ws, "fine", wager("alice", 1_000))
        assert answer(ws, "fine")[0]["type"] == "ack"


def answer_pong(ws: Any) -> bool:
    while True:
        message = ws.receive_json()
        if message["type"] == "pong":
            return True
        assert message["type"] == "table", message


def test_the_public_s_command_is_refused_401_and_its_socket_stays_open(
    client: TestClient,
) -> None:
    _open_bac_1(client)
    with watch(client, "/ws/tables/bac-1") as ws:
        ws.receive_json()
        send_command(ws, "p", wager("alice", 1_000))
        refused, _ = answer(ws, "p")
        assert (refused["status"], refused["error"]["key"]) == (401, "auth.unauthenticated")
        ws.send_json({"type": "ping"})
        assert answer_pong(ws)


def test_a_command_with_a_signed_out_session_is_refused_and_the_socket_closes_4401(
    client: TestClient, runtime: Runtime
) -> None:
    """Each command checks the session in the store, as a REST request does: signed out, the
    command is refused (401 ``auth.session_unknown``, nothing done) and the socket closes
    4401 — before the interval's session check (switched off here) would have closed it."""
    runtime.settings = dataclasses.replace(runtime.settings, session_check_seconds=0)
    _open_bac_1(client)
    before = _balance(runtime, "alice")
    alice = token(client, "alice")
    with watch(client, f"/ws/tables/bac-1?token={alice}") as ws:
        ws.receive_json()
        out = client.post("/api/auth/logout", headers={"Authorization": f"Bearer {alice}"})
        assert out.status_code == 200, out.text
        send_command(ws, "late", wager("alice", 1_000))
        error, close, before_error = closed(ws)
    refused = [m for m in before_error if m["type"] == "refused"]
    assert [(m["status"], m["error"]["key"]) for m in refused] == [(401, "auth.session_unknown")]
    assert refused[0]["idempotency_key"] == "late"
    assert error["key"] == "auth.session_unknown"
    assert close.code == streams.CLOSE_SIGNED_OUT == 4401
    assert _balance(runtime, "alice") == before


def test_a_command_after_the_session_s_expiry_is_refused_and_the_socket_closes_4401(
    client: TestClient, runtime: Runtime
) -> None:
    _open_bac_1(client)
    before = _balance(runtime, "alice")
    with watch(client, f"/ws/tables/bac-1?token={token(client, 'alice')}") as ws:
        ws.receive_json()
        runtime.clock.advance(runtime.settings.session_seconds + 1)  # type: ignore[attr-defined]
        send_command(ws, "late", wager("alice", 1_000))
        error, close, _ = closed(ws)
    assert error["key"] == "auth.session_expired" and close.code == 4401
    assert _balance(runtime, "alice") == before


@pytest.mark.parametrize(
    "message",
    [
        {"type": "chat", "text": "bank on the banker"},
        {"type": "advice", "to": "bruno", "command": wager("bruno", 1_000)},
        {"type": "commands", "idempotency_key": "x", "command": wager("alice", 1_000)},
    ],
)
def test_anything_but_ping_resume_and_command_still_closes_1008_CSP_12(
    client: TestClient, runtime: Runtime, alice_ws: Any, message: Json
) -> None:
    """CSP-12: no advice, chat or strategy channel — a table socket takes its control
    messages and the REST contract's commands, nothing else (1008); nothing is done."""
    _open_bac_1(client)
    before = _balance(runtime, "alice")
    alice_ws.send_json(message)
    error, close, _ = closed(alice_ws)
    assert (close.code, error["key"], error["rule"]) == (1008, "streams.refused", "CSP-12")
    assert _balance(runtime, "alice") == before


def test_the_jackpot_stream_takes_no_command_CSP_12(client: TestClient) -> None:
    with client.websocket_connect(f"/ws/jackpot?token={token(client, 'alice')}") as ws:
        ws.receive_json()
        send_command(ws, "j", wager("alice", 1_000))
        error, close, _ = closed(ws)
    assert (close.code, error["key"]) == (1008, "streams.refused")


class _Held:
    """A player's socket commands at bac-1 held before the table's group commit takes them
    (a slow commit; ``TableService.submit_later`` wrapped on the runtime's service) until
    released: ``started`` once one arrived, ``done`` once it was answered (its encoded answer
    in ``results``)."""

    def __init__(self, runtime: Runtime, player: str, monkeypatch: pytest.MonkeyPatch) -> None:
        self.player = player
        self.started = threading.Event()
        self.release = threading.Event()
        self.done = threading.Event()
        self.results: list[Json] = []
        service = runtime.service("bac-1")
        self.real = service.submit_later
        monkeypatch.setattr(service, "submit_later", self)

    def __call__(self, commands: Any, *, actor: str, answered: Any, **kw: Any) -> bool:
        if actor != self.player:
            return bool(self.real(commands, actor=actor, answered=answered, **kw))
        self.started.set()

        def told(outcome: Any) -> None:
            self.results.append(codec.encode(outcome))
            answered(outcome)
            self.done.set()

        def later() -> None:
            assert self.release.wait(30)
            assert self.real(commands, actor=actor, answered=told, **kw)

        threading.Thread(target=later, daemon=True).start()
        return True


def test_a_flood_is_closed_4429_and_never_slows_another_socket(
    client: TestClient, runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice's command is held in its commit; she sends more than ``websocket_commands``:
    her socket is closed 4429 (``streams.too_many_commands``) while bruno's bet, sent after,
    is acknowledged — hers never stood in its way. Her held command still completes."""
    runtime.settings = runtime.settings.replace(websocket_commands=2)
    held = _Held(runtime, "alice", monkeypatch)
    _open_bac_1(client)
    alice, bruno = token(client, "alice"), token(client, "bruno")
    try:
        with (
            watch(client, f"/ws/tables/bac-1?token={alice}") as a,
            watch(client, f"/ws/tables/bac-1?token={bruno}") as b,
        ):
            a.receive_json()
            b.receive_json()
            send_command(a, "f1", wager("alice", 1_000))
            assert held.started.wait(30)
            send_command(a, "f2", wager("alice", 1_000))  # waits behind f1: two in flight
            send_command(a, "f3", wager("alice", 1_000))  # one more: the flood
            error, close, before = closed(a)
            assert (close.code, error["key"]) == (streams.CLOSE_FLOOD, "streams.too_many_commands")
            assert close.code == 4429 and error["params"]["limit"] == 2
            assert not [m for m in before if m["type"] in ("ack", "refused")]
            send_command(b, "b1", wager("bruno", 1_000, kind="player", number=2))
            ack, _ = answer(b, "b1")
            assert ack["type"] == "ack"
            assert not held.done.is_set()  # alice's command still held: bruno did not wait
    finally:
        held.release.set()
    assert held.done.wait(30)
    retry = _rest(client, "alice", {"idempotency_key": "f1", "command": wager("alice", 1_000)})
    assert retry.status_code == 200 and retry.json() == held.results[0]
    f2 = _rest(client, "alice", {"idempotency_key": "f2", "command": wager("alice", 1_000)})
    assert f2.status_code == 200  # never run before: runs now


def test_a_command_whose_sender_disconnected_completes_and_its_retry_gets_its_answer(
    client: TestClient, runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = _Held(runtime, "alice", monkeypatch)
    _open_bac_1(client)
    before = _balance(runtime, "alice")
    try:
        with watch(client, f"/ws/tables/bac-1?token={token(client, 'alice')}") as ws:
            ws.receive_json()
            send_command(ws, "gone", wager("alice", 1_000))
            assert held.started.wait(30)
        # the client is gone; its command is still running
    finally:
        held.release.set()
    assert held.done.wait(30)
    assert _balance(runtime, "alice") == before - 1_000
    retry = _rest(client, "alice", {"idempotency_key": "gone", "command": wager("alice", 1_000)})
    assert retry.status_code == 200 and retry.json() == held.results[0]
    assert _balance(runtime, "alice") == before - 1_000  # applied once


def test_the_sessions_of_all_open_sockets_are_checked_in_one_read(
    client: TestClient, runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process's session watch asks the store about every open table socket's session in
    ONE read (one ``users_ops.sessions`` call for all of them, not one per socket) and closes
    (4401) only the socket whose session ended."""
    runtime.settings = runtime.settings.replace(session_check_seconds=3600)  # checked by hand
    asked: list[list[str]] = []
    real = users_ops.sessions

    def counted(tx: Any, digests: Any) -> Any:
        asked.append(list(digests))
        return real(tx, digests)

    monkeypatch.setattr(users_ops, "sessions", counted)
    names = ("alice", "bruno", "dealer", "supervisor")
    tokens = {name: token(client, name) for name in names}
    watcher = watch_of(runtime)
    opened = [watch(client, f"/ws/tables/csp-1?token={tokens[n]}") for n in names]
    sockets = dict(zip(names, (ws.__enter__() for ws in opened), strict=True))
    try:
        for ws in sockets.values():
            assert ws.receive_json()["type"] == "table"
        with watch(client, "/ws/tables/csp-1") as public:  # no session: not watched
            public.receive_json()
            assert watcher.watched() == len(names)
            assert watcher.check() == 0
        assert len(asked) == 1 and len(asked[0]) == len(names)
        out = client.post(
            "/api/auth/logout", headers={"Authorization": f"Bearer {tokens['bruno']}"}
        )
        assert out.status_code == 200
        assert watcher.check() == 1  # bruno's socket told
        assert len(asked) == 2
        error, close, _ = closed(sockets["bruno"])
        assert (error["key"], close.code) == ("auth.session_unknown", 4401)
        for name in ("alice", "dealer", "supervisor"):
            sockets[name].send_json({"type": "ping"})
            assert answer_pong(sockets[name])
    finally:
        for ws in opened:
            ws.__exit__(None, None, None)


def test_the_socket_caps_default_fits_a_thousand_players_from_one_address() -> None:
    """1,000 signed-in players from one address (a load generator on loopback, a stadium
    behind one router), each with a table page and the lobby open: none is refused by the
    default caps — the per-client cap counts a signed-in user by name, the public by
    address."""
    settings = Settings()
    gate = streams._Gate()

    class Loopback:
        client = type("Address", (), {"host": "127.0.0.1"})()

    keys = [
        streams._client_key(Loopback(), Principal(f"p{n}", UserRole.PLAYER))  # type: ignore[arg-type]
        for n in range(1_000)
    ]
    assert len(set(keys)) == 1_000
    total, per_client = settings.max_websockets, settings.max_websockets_per_client
    assert all(gate.enter(k, total=total, per_client=per_client) for k in keys for _ in (1, 2))
    public = streams._client_key(Loopback(), None)  # type: ignore[arg-type]
    admitted = [gate.enter(public, total=total, per_client=per_client) for _ in range(40)]
    assert admitted.count(True) == per_client  # the public of one address: its cap


def test_a_dealer_s_command_over_the_socket_is_taken_as_over_rest(
    client: TestClient, runtime: Runtime
) -> None:
    """Who may send what follows REST (``api_tables.authorise``): the dealer's fault report is
    acknowledged on the dealer's socket and holds the table (BAC-10)."""
    with watch(client, f"/ws/tables/bac-1?token={token(client, 'dealer')}") as ws:
        ws.receive_json()
        send_command(ws, "fault", {"type": "tables.ReportFault", "reason": "a card on the floor"})
        ack, _ = answer(ws, "fault")
    assert ack["type"] == "ack", ack
    assert ack["result"]["events"] == ["tables.TableFaulted"]
    assert client.get("/api/tables/bac-1").json()["fault"]


def test_the_sessions_read_answers_each_session_as_the_one_by_one_lookup(
    client: TestClient, runtime: Runtime
) -> None:
    """``auth.session_refusals`` (one read, ``users_ops.sessions``) says of each session what
    the per-session lookup says: standing, signed out, of a disabled user, expired, unknown —
    over more sessions than SQLite's oldest builds take parameters in one statement."""
    from macau_tables.server import auth

    names = ("alice", "bruno", "dealer", "supervisor")
    tokens = {name: token(client, name) for name in names}
    client.post("/api/auth/logout", headers={"Authorization": f"Bearer {tokens['bruno']}"})
    off = client.post(
        "/api/admin/users/dealer/disable", json={"reason": "test"}, headers=login(client, "admin")
    )
    assert off.status_code == 200, off.text
    now = runtime.clock.now()
    sessions = [
        auth.SocketSession(Principal(n, UserRole.PLAYER), now, tokens[n], "token") for n in names
    ]
    sessions += [
        auth.SocketSession(Principal("x", UserRole.PLAYER), now, f"unknown-{n}", "token")
        for n in range(1005)  # more than a statement could take as a parameter each
    ]
    together = auth.session_refusals(runtime.store, sessions, runtime.clock.now)
    one_by_one = [auth.session_refusal(runtime.store, s, runtime.clock.now) for s in sessions[:6]]
    keys = [None if r is None else r.key for r in together]
    assert keys[:4] == [None, "auth.session_unknown", "auth.session_unknown", None]
    assert set(keys[4:]) == {"auth.session_unknown"}
    assert keys[:6] == [None if r is None else r.key for r in one_by_one]
    runtime.clock.advance(runtime.settings.session_seconds + 1)  # type: ignore[attr-defined]
    expired = auth.session_refusals(runtime.store, sessions[:1], runtime.clock.now)[0]
    assert expired is not None and expired.key == "auth.session_expired"


def test_a_socket_command_s_session_is_read_in_the_transaction_that_commits_it(
    client: TestClient, runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command checks its session after it arrived, as REST does, but with no read of its
    own: in the write transaction that commits it (``SessionWatch.guard``, one statement for
    the commands committed together). alice's bet: one sessions read, hers, in a write
    transaction; bruno, signed out meanwhile: the same, and nothing of his is written."""
    runtime.settings = runtime.settings.replace(session_check_seconds=3600)  # no periodic read
    _open_bac_1(client)
    tokens = {name: token(client, name) for name in ("alice", "bruno")}
    reads: list[tuple[int, bool]] = []
    real = users_ops.sessions

    def counted(tx: Any, digests: Any) -> Any:
        digests = list(digests)
        reads.append((len(digests), not tx.readonly))
        return real(tx, digests)

    monkeypatch.setattr(users_ops, "sessions", counted)
    with watch(client, f"/ws/tables/bac-1?token={tokens['alice']}") as ws:
        ws.receive_json()
        send_command(ws, "a1", wager("alice", 1_000))
        ack, _ = answer(ws, "a1")
    assert ack["type"] == "ack", ack
    assert reads == [(1, True)]
    reads.clear()
    bruno_before = _balance(runtime, "bruno")
    with watch(client, f"/ws/tables/bac-1?token={tokens['bruno']}") as ws:
        ws.receive_json()
        out = client.post(
            "/api/auth/logout", headers={"Authorization": f"Bearer {tokens['bruno']}"}
        )
        assert out.status_code == 200, out.text
        send_command(ws, "b1", wager("bruno", 1_000))
        refused, _ = answer(ws, "b1")
    assert (refused["status"], refused["error"]["key"]) == (401, "auth.session_unknown")
    assert reads == [(1, True)]
    assert _balance(runtime, "bruno") == bruno_before

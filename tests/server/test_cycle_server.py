"""The electronic table's round cycle through the server (tables/cycle.py), on both databases:
``bac-1`` and ``csp-1`` cycle rounds by the runtime's tick alone, nobody at the dealer
console, while players' sockets are open; a player's socket wakes an idle table; the cycle's
public state reaches every audience the same."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from tests.server.support import login, watch

from macau_tables.rounds import Audience
from macau_tables.server.runtime import Runtime
from macau_tables.tables.clock import FakeClock

STANDING_BANKER: dict[str, Any] = {
    "type": "baccarat.PlaceWager",
    "player": "alice",
    "area": {"type": "baccarat.Area", "seated": False, "number": 1},
    "kind": "banker",
    "amount": 1_000,
}


@pytest.fixture
def served_tables() -> tuple[str, ...]:
    """The tables these tests use (the others need no loading at each start)."""
    return ("bac-1", "csp-1")


def _token(client: TestClient, name: str) -> str:
    return login(client, name)["Authorization"].removeprefix("Bearer ")


def _latest(ws: Any, seq: int) -> dict[str, Any]:
    """The table messages ``ws`` receives up to record ``seq``; the last one."""
    while True:
        message = ws.receive_json()
        if message["type"] == "table" and message["seq"] >= seq:
            return dict(message)


def test_rounds_cycle_with_nobody_at_the_console_while_a_player_watches(
    client: TestClient, runtime: Runtime
) -> None:
    """The runtime's tick opens ``bac-1``'s round, closes its betting at the countdown's end
    (15 s), deals and settles it, shows the result (5 s) and opens the next; alice's socket
    sees the countdown's deadline and each round, and her wager placed during the countdown
    is settled."""
    clock = runtime.clock
    assert isinstance(clock, FakeClock)
    alice = login(client, "alice")
    svc = runtime.service("bac-1")
    with watch(client, f"/ws/tables/bac-1?token={_token(client, 'alice')}") as ws:
        ws.receive_json()
        runtime.tick()
        first = svc.round.round_id
        message = _latest(ws, svc.view(Audience.public()).seq)
        assert message["cycle"]["step"] == "close" and message["cycle"]["at"]
        assert message["round_id"] == first and message["expected"]["phase"] == "betting"
        body = {"idempotency_key": "bet-1", "command": STANDING_BANKER}
        placed = client.post("/api/tables/bac-1/commands", json=body, headers=alice)
        assert placed.status_code == 200, placed.text
        clock.advance(15)
        runtime.tick()  # betting closed at zero: dealt and settled by the virtual table
        assert svc.round.round_id == first and svc.round.is_over
        message = _latest(ws, svc.view(Audience.public()).seq)
        assert message["cycle"]["step"] == "open" and message["view"]["results"]
        clock.advance(5)
        runtime.tick()
        message = _latest(ws, svc.view(Audience.public()).seq)
        assert message["round_id"] != first and message["cycle"]["step"] == "close"
    played = runtime.store.read(lambda tx: tx.round_ids("bac-1"))
    assert first in played


def test_an_idle_table_wakes_when_a_player_opens_its_socket(
    client: TestClient, runtime: Runtime
) -> None:
    """Three countdowns with no wager and ``csp-1`` idles (no countdown, the page says it
    waits for players); a player's socket wakes it, a fresh countdown from now; the
    public's socket does not."""
    clock = runtime.clock
    assert isinstance(clock, FakeClock)
    svc = runtime.service("csp-1")
    runtime.tick()
    for _ in range(3):
        clock.advance(20)
        runtime.tick()
    shown = client.get("/api/tables/csp-1").json()
    assert shown["cycle"] == {"step": None, "at": None, "idle": True, "paused": False}
    board = client.get("/api/tables/csp-1/board").json()
    assert board["seconds_left"] is None
    with watch(client, "/ws/tables/csp-1") as ws:  # the public: no wake
        ws.receive_json()
    assert svc.state.cycle.idle
    with watch(client, f"/ws/tables/csp-1?token={_token(client, 'bruno')}") as ws:
        message = ws.receive_json()  # the view now, or before the wake (then the wake's next)
        if message["cycle"]["idle"]:
            message = ws.receive_json()
        assert message["cycle"]["idle"] is False and message["cycle"]["step"] == "close"
    assert client.get("/api/tables/csp-1/board").json()["seconds_left"] == 20
    log = [r.type for r in runtime.store.read(lambda tx: tx.read_events("csp-1"))]
    assert log.count("tables.CycleIdle") == 1 and log[-2:] == [
        "tables.CycleWoken",
        "tables.CycleDeadline",
    ]

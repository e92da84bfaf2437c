"""Large jackpot awards held for a supervisor over the API (issue 10, item 2: "supervisors
authorise … jackpot payments above a threshold"; BAC-17), on SQLite and PostgreSQL.

The demonstration casino's live baccarat table (``bac-live``) under a server whose
``jackpot_supervisor_threshold`` is 1,000.00: a four of a kind (2,000.00, BAC-17) is held —
listed by ``GET /api/authorisations``, the wallet without it — until the supervisor's
``tables.ReleaseAward`` through ``POST /api/tables/{id}/commands`` pays it once (audited);
a dealer or a player cannot release it (403), a second release is refused (409); a double pair
(200.00) is paid at once; ``GET /api/verify`` holds throughout.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from tests.server.support import demo_casino, login, server_settings

from macau_tables.server.app import create_app
from macau_tables.server.runtime import Runtime
from macau_tables.tables.clock import FakeClock

Json = dict[str, Any]
THRESHOLD = 100_000
SEAT_1: Json = {"type": "baccarat.Area", "seated": True, "number": 1}
OPEN: Json = {"type": "tables.OpenRound", "seated": [[1, "alice"]]}


@pytest.fixture
def served_tables() -> tuple[str, ...]:
    """The tables these tests use (the others need no loading at each start)."""
    return ("bac-live",)


@pytest.fixture
def held_client(store: Any) -> Iterator[tuple[TestClient, Runtime]]:
    """The demonstration casino served with a threshold of :data:`THRESHOLD`."""
    demo_casino(store)
    rt = Runtime(server_settings(jackpot_supervisor_threshold=THRESHOLD), store, clock=FakeClock())
    rt.start()
    try:
        with TestClient(create_app(rt), raise_server_exceptions=False) as c:
            yield c, rt
    finally:
        rt.stop()


class Live:
    """``bac-live`` driven through the API."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.headers: dict[str, dict[str, str]] = {}
        self.n = 0

    def as_(self, name: str) -> dict[str, str]:
        if name not in self.headers:
            self.headers[name] = login(self.client, name)
        return self.headers[name]

    def send(self, name: str, command: Json, key: str | None = None) -> Any:
        self.n += 1
        return self.client.post(
            "/api/tables/bac-live/commands",
            json={"idempotency_key": key or f"h{self.n}", "command": command},
            headers=self.as_(name),
        )

    def ok(self, name: str, command: Json, key: str | None = None) -> Json:
        response = self.send(name, command, key)
        assert response.status_code == 200, response.text
        result: Json = response.json()
        return result

    def refused(self, name: str, command: Json, status: int, key: str) -> None:
        response = self.send(name, command)
        assert response.status_code == status, response.text
        assert response.json()["error"]["key"] == key, response.text

    def round_with(self, cards: tuple[str, ...]) -> Json:
        """alice bets the banker and the jackpot (BAC-17) at seat 1; the dealer deals
        ``cards`` (the round's every card, in dealing order)."""
        self.ok("dealer", OPEN)
        for kind, amount in (("banker", 1_000), ("jackpot", 1_000)):
            wager = {
                "type": "baccarat.PlaceWager",
                "player": "alice",
                "area": SEAT_1,
                "kind": kind,
                "amount": amount,
            }
            self.ok("alice", wager)
        self.ok("dealer", {"type": "baccarat.CloseBetting"})
        last: Json = {}
        for card in cards:
            last = self.ok("dealer", {"type": "baccarat.DealCard", "card": card})
        assert last["phase"] == "settled", last
        return last

    def start_shoe(self) -> None:
        self.ok("dealer", {"type": "tables.OpenShoe"})
        cut = {"type": "baccarat.Cut", "cutter": "dealer", "cutter_id": "dealer", "position": 100}
        self.ok("dealer", cut)
        self.ok("dealer", {"type": "baccarat.Burn", "cards": [None] * 8})  # BAC-2.1
        self.ok("dealer", OPEN)  # the demonstration round (BAC-2.2)
        for card in ("2s", "3s", "4s", "5s"):
            self.ok("dealer", {"type": "baccarat.DealCard", "card": card})


def balance(rt: Runtime, player: str) -> int:
    return int(rt.store.read(lambda tx: tx.player(player).balance))


def verify_ok(client: TestClient, t: Live) -> None:
    response = client.get("/api/verify", headers=t.as_("supervisor"))
    assert response.status_code == 200, response.text
    assert response.json()["ok"], response.json()


def waiting_awards(client: TestClient, t: Live) -> list[Json]:
    response = client.get("/api/authorisations", headers=t.as_("supervisor"))
    assert response.status_code == 200, response.text
    return [w for w in response.json()["waiting"] if w["kind"] == "award"]


def test_a_large_jackpot_award_waits_for_a_supervisor_BAC_17(
    held_client: tuple[TestClient, Runtime],
) -> None:
    client, rt = held_client
    t = Live(client)
    t.start_shoe()
    before = balance(rt, "alice")
    # Four twos in four suits (BAC-13.4(3)): 2,000.00 (BAC-17). Player 4 draws a 5 (9),
    # banker 4 draws a king (4): the banker wager loses.
    settled = t.round_with(("2s", "2h", "2d", "2c", "5s", "Ks"))
    assert "tables.AwardHeld" in settled["events"]
    (item,) = waiting_awards(client, t)
    award = item["award"]
    assert (item["table"], item["commands"]) == ("bac-live", ["ReleaseAward"])
    assert (award["player"], award["combination"], award["amount"]) == (
        "alice",
        "four_of_a_kind",
        200_000,
    )
    assert award["hold_id"].startswith(item["round_id"] + ":")
    # The wallet: both wagers lost, the award held.
    assert balance(rt, "alice") == before - 2_000
    verify_ok(client, t)

    release: Json = {
        "type": "tables.ReleaseAward",
        "hold_id": award["hold_id"],
        "supervisor": "supervisor",
        "reason": "four of a kind checked on camera",
    }
    t.refused("dealer", {**release, "supervisor": "dealer"}, 403, "api.role_cannot_issue")
    t.refused("alice", {**release, "supervisor": "alice"}, 403, "api.role_cannot_issue")
    t.refused("admin", {**release, "supervisor": "admin"}, 403, "api.role_cannot_issue")
    t.refused("supervisor", {**release, "supervisor": "boss"}, 403, "api.acts_for_another")
    t.refused("supervisor", {**release, "hold_id": "bac-live-99:1"}, 404, "holds.hold_unknown")
    assert balance(rt, "alice") == before - 2_000

    done = t.ok("supervisor", release, key="release-1")
    assert done["events"] == ["tables.AwardReleased"]
    assert balance(rt, "alice") == before - 2_000 + 200_000
    assert waiting_awards(client, t) == []
    assert t.ok("supervisor", release, key="release-1") == done  # the same request: once
    t.refused("supervisor", release, 409, "holds.already_released")
    assert balance(rt, "alice") == before - 2_000 + 200_000
    entries = rt.store.read(lambda tx: tx.audit_entries(table_id="bac-live"))
    released = [e for e in entries if e.action == "award_released"]
    assert [(e.actor, e.reason) for e in released] == [
        ("supervisor", "four of a kind checked on camera")
    ]
    assert any(e.action == "command tables.ReleaseAward" for e in entries)
    recalled = client.get("/api/tables/bac-live/recall?last=1", headers=t.as_("supervisor"))
    assert recalled.status_code == 200, recalled.text
    (rec,) = recalled.json()
    assert [(h["hold_id"], h["state"], h["released_by"]) for h in rec["holds"]] == [
        (award["hold_id"], "released", "supervisor")
    ]
    verify_ok(client, t)

    # A double pair (BAC-13.4(4), 200.00: under the threshold) is paid at once.
    before = balance(rt, "alice")
    settled = t.round_with(("4s", "5s", "4h", "5h"))  # player 8 natural, banker 0
    assert "tables.AwardHeld" not in settled["events"]
    assert waiting_awards(client, t) == []
    assert balance(rt, "alice") == before - 2_000 + 20_000
    verify_ok(client, t)

"""A jackpot award names the winning box or seat (CSP-10.4, BAC-15, BAC-17), on SQLite and
PostgreSQL: recall (the API's and the CLI's text, in English and Chinese), ``GET /api/meters``
and ``/ws/jackpot`` show the ``place`` the round's settlement gives the wager it paid — a
Caribbean Stud box (``"box 1"``), a baccarat seat (``"seat 3"``), never the award's key (at
baccarat a wager id). A hit recorded before places were has none and shows none (``None``),
and the store still verifies."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from tests.server.support import login
from tests.tables.support import close_betting, open_round

from macau_tables.cards import DECK, Card
from macau_tables.caribbean.commands import CloseBetting, PlaceAnte, PlaceJackpotWager, Raise
from macau_tables.cli.audit_cli import describe_award
from macau_tables.rng import SeededRandom
from macau_tables.rounds import Audience
from macau_tables.server.runtime import Runtime
from macau_tables.tables.audit import verify_database
from macau_tables.tables.casino import UNIT
from macau_tables.tables.recall import recall

Json = dict[str, Any]

STRAIGHT_FLUSH = ("5h", "6h", "7h", "8h", "9h")  # CSP-10: 10 % of the meter at least
DEALER = ("2c", "3d", "4s", "Jc", "Kd")


@pytest.fixture
def served_tables() -> tuple[str, ...]:
    """The tables these tests use (the others need no loading at each start)."""
    return ("bac-live", "csp-1")


class Stacked(SeededRandom):
    """A demonstration table's source whose next shuffle puts ``first`` on top of the deck
    (Fisher-Yates run backwards from the order wanted); then seeded."""

    def __init__(self, first: tuple[str, ...]) -> None:
        super().__init__(1)
        wanted = [Card.parse(c) for c in first]
        target = wanted + [c for c in DECK if c not in wanted]
        out, self.draws = list(DECK), []
        for i in range(len(out) - 1, 0, -1):
            j = out.index(target[i])
            self.draws.append(j)
            out[i], out[j] = out[j], out[i]

    def randbelow(self, n: int) -> int:
        return self.draws.pop(0) if self.draws else super().randbelow(n)


def _submit(runtime: Runtime, table: str, command: object, actor: str) -> None:
    svc = runtime.service(table)
    svc.submit(command, idempotency_key=f"{table}-{len(svc.round.events)}-{actor}", actor=actor)


def _caribbean_hit_at_box_1(runtime: Runtime) -> None:
    """alice, alone at box 1 of ``csp-1`` with the jackpot wager, is dealt a straight flush
    (box by box: box 1's five cards, then the dealer's) and raises."""
    svc = runtime.service("csp-1")
    svc.rng = Stacked(STRAIGHT_FLUSH + DEALER)
    open_round(svc)
    svc.submit(PlaceAnte(1, "alice", UNIT), idempotency_key="a", actor="alice")
    svc.submit(PlaceJackpotWager(1, "alice"), idempotency_key="j", actor="alice")
    close_betting(svc, CloseBetting())
    svc.submit(Raise(1, "alice", 2 * UNIT), idempotency_key="r", actor="alice")
    assert svc.round.is_over


class Live:
    """``bac-live`` driven through the API (the dealer enters every card)."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.headers: dict[str, dict[str, str]] = {}
        self.n = 0

    def ok(self, name: str, command: Json) -> Json:
        if name not in self.headers:
            self.headers[name] = login(self.client, name)
        self.n += 1
        response = self.client.post(
            "/api/tables/bac-live/commands",
            json={"idempotency_key": f"p{self.n}", "command": command},
            headers=self.headers[name],
        )
        assert response.status_code == 200, response.text
        result: Json = response.json()
        return result

    def royal_flush_at_seat_3(self) -> None:
        """A shoe opened, cut, burned and its demonstration round dealt (BAC-2.1, BAC-2.2);
        then alice, seated at seat 3, bets the banker and the jackpot (BAC-17) and the first
        five cards are a royal flush (BAC-13.4: the whole meter)."""
        self.ok("dealer", {"type": "tables.OpenShoe"})
        cut = {"type": "baccarat.Cut", "cutter": "dealer", "cutter_id": "dealer", "position": 100}
        self.ok("dealer", cut)
        self.ok("dealer", {"type": "baccarat.Burn", "cards": [None] * 8})
        self.ok("dealer", {"type": "tables.OpenRound", "seated": [[3, "alice"]]})
        for card in ("2s", "3s", "4s", "5s"):
            self.ok("dealer", {"type": "baccarat.DealCard", "card": card})
        self.ok("dealer", {"type": "tables.OpenRound", "seated": [[3, "alice"]]})
        seat_3 = {"type": "baccarat.Area", "seated": True, "number": 3}
        for kind in ("banker", "jackpot"):
            wager = {
                "type": "baccarat.PlaceWager",
                "player": "alice",
                "area": seat_3,
                "kind": kind,
                "amount": 1_000,
            }
            self.ok("alice", wager)
        self.ok("dealer", {"type": "baccarat.CloseBetting"})
        last: Json = {}
        for card in ("Ts", "Js", "Qs", "Ks", "As", "2c"):  # P1 B1 P2 B2 P3 B3
            last = self.ok("dealer", {"type": "baccarat.DealCard", "card": card})
        assert last["phase"] == "settled", last


def _places(client: TestClient, runtime: Runtime, table: str, meter: str) -> list[Any]:
    """The last award's place as recall (the store's, the API's, the CLI's text in both
    languages), ``GET /api/meters`` and ``/ws/jackpot`` show it."""
    (recalled,) = runtime.store.read(
        lambda tx: recall(tx, table, 1, audience=Audience.supervisor())
    )
    (award,) = recalled.awards
    response = client.get(
        f"/api/tables/{table}/recall", params={"last": 1}, headers=login(client, "supervisor")
    )
    assert response.status_code == 200, response.text
    (api_award,) = response.json()[-1]["awards"]
    meters = {m["id"]: m for m in client.get("/api/meters").json()["meters"]}
    with client.websocket_connect("/ws/jackpot") as ws:
        first = ws.receive_json()
    (streamed,) = [h for h in first["hits"] if h["meter_id"] == meter]
    return [
        award.place,
        api_award["place"],
        meters[meter]["last_hits"][0]["place"],
        streamed["place"],
        describe_award(award, "en").partition(":")[0],
        describe_award(award, "zh-Hant").partition("：")[0],
    ]


def test_a_caribbean_jackpot_hit_names_its_box_CSP_10_4(
    client: TestClient, runtime: Runtime
) -> None:
    _caribbean_hit_at_box_1(runtime)
    places = _places(client, runtime, "csp-1", "m-caribbean")
    assert places == ["box 1"] * 5 + ["第 1 門"]
    verified = verify_database(runtime.store)
    assert verified.ok, verified


def test_a_baccarat_jackpot_hit_names_its_seat_not_its_wager_id_BAC_17(
    client: TestClient, runtime: Runtime
) -> None:
    Live(client).royal_flush_at_seat_3()
    (hit,) = runtime.store.read(lambda tx: tx.hits("m-baccarat"))
    assert hit.box != 3  # the award's key is alice's jackpot wager's id, not her seat
    places = _places(client, runtime, "bac-live", "m-baccarat")
    assert places == ["seat 3"] * 5 + ["第 3 號座位"]
    verified = verify_database(runtime.store)
    assert verified.ok, verified


def test_a_hit_recorded_without_a_place_shows_none_and_verifies(
    client: TestClient, runtime: Runtime
) -> None:
    """A hit of before places were recorded (schema v9) reads with no place, never a guessed
    one; the meter's log re-derives it as before."""
    runtime.store.run(
        lambda tx: tx.record_hit(
            "m-caribbean", table_id="csp-1", round_id="r-1", box=8, combination="flush", amount=0
        )
    )
    (meter,) = [m for m in client.get("/api/meters").json()["meters"] if m["id"] == "m-caribbean"]
    assert [(h["box"], h["place"]) for h in meter["last_hits"]] == [(8, None)]
    with client.websocket_connect("/ws/jackpot") as ws:
        assert [h["place"] for h in ws.receive_json()["hits"]] == [None]
    verified = verify_database(runtime.store)
    assert verified.ok, verified

"""The game pages' routes (issue 11, :mod:`macau_tables.server.pages_tables`): the roadmaps'
JSON (baccarat's read-model ``roads``) is exactly :mod:`macau_tables.baccarat.roads` of the
shoe's settled rounds (demonstration rounds, BAC-2.2, left out), the board's seating follows
who asks (BAC-15), the shoe's awaited dealer command (BAC-2.1), and the pages' role rules for a
browser. SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from tests.server.support import cycle_step, login

from macau_tables.baccarat.read_models import shoe_statistics
from macau_tables.baccarat.roads import RoadEntry, bead_plate, big_road, big_road_grid
from macau_tables.baccarat.sides import Side
from macau_tables.server.runtime import Runtime

HTML = {"Accept": "text/html"}


BANKER = {
    "type": "baccarat.PlaceWager",
    "player": "alice",
    "area": {"type": "baccarat.Area", "seated": False, "number": 1},
    "kind": "banker",
    "amount": 1_000,
}


def _send(
    client: TestClient, table: str, who: dict[str, str], command: dict[str, Any], key: str
) -> Any:
    response = client.post(
        f"/api/tables/{table}/commands",
        json={"idempotency_key": key, "command": command},
        headers=who,
    )
    assert response.status_code == 200, response.text
    return response.json()


def _results(runtime: Runtime, table: str) -> list[RoadEntry]:
    """The settled, non-demonstration rounds of the table's log, read independently."""
    events = runtime.store.read(lambda tx: tx.read_events(table))
    demo = {e.round_id for e in events if e.type == "baccarat.RoundStarted" and e.data()["demo"]}
    out = []
    for e in events:
        if e.type == "baccarat.RoundSettled" and e.round_id not in demo:
            r = e.data()["result"]
            out.append(
                RoadEntry(Side(r["winner"]), r["banker_pair"], r["player_pair"], r["natural"])
            )
    return out


def test_the_roads_are_the_library_s_of_the_shoe_s_settled_rounds(
    client: TestClient, runtime: Runtime
) -> None:
    alice = login(client, "alice")

    def one_round(n: int) -> None:
        """The round cycle opens; alice bets (a round with no wager is not dealt); it closes."""
        cycle_step(client, "bac-1", {"type": "tables.OpenRound"})
        _send(client, "bac-1", alice, BANKER, f"bet-{n}")
        cycle_step(client, "bac-1", {"type": "baccarat.CloseBetting"})

    for n in range(5):
        one_round(n)
    response = client.get("/api/tables/bac-1/read/roads")  # public: results of settled rounds
    assert response.status_code == 200, response.text
    roads = response.json()
    entries = _results(runtime, "bac-1")
    assert roads["rounds"] == len(entries) == 5  # the demonstration round is not on the roads
    assert [c["outcome"] for c in roads["bead_plate"]] == [
        c.outcome.letter for c in bead_plate(entries)
    ]
    assert [(c["col"], c["row"], c["winner"]) for c in roads["big_road"]] == [
        (p.col, p.row, p.item.winner.letter) for p in big_road_grid(big_road(entries))
    ]
    assert set(roads["ask"]) == {"banker", "player"}
    # the shoe's statistics beside the roads: its results only (no card of the shoe)
    assert roads["last"] == [e.winner.letter for e in entries]
    assert roads["streaks"] == shoe_statistics(entries)["streaks"]
    assert roads["shoe"]["number"] == 1
    assert roads["shoe"]["commitment"].startswith("merkle-v2:")  # the shoe's Merkle root
    # read again after one more round: only the new events are read, the same answer grows
    one_round(5)
    assert client.get("/api/tables/bac-1/read/roads").json()["rounds"] == 6
    # a game that offers no roads answers none (only how far the log was read); an unknown
    # table is 404
    assert set(client.get("/api/tables/csp-1/read/roads").json()) == {"table_id", "seq"}
    unknown = client.get("/api/tables/nope/read/roads")
    assert unknown.status_code == 404 and unknown.json()["error"]["key"] == "server.table_unknown"


def test_the_board_shows_seating_as_the_caller_may_see_it(client: TestClient) -> None:
    dealer = login(client, "dealer")
    cycle_step(
        client, "bac-1", {"type": "tables.OpenRound", "seated": [[1, "alice"], [2, "bruno"]]}
    )
    assert client.get("/api/tables/bac-1/board", headers=dealer).json()["seated"] == [
        [1, "alice"],
        [2, "bruno"],
    ]
    alice = client.get("/api/tables/bac-1/board", headers=login(client, "alice")).json()
    assert alice["seated"] == [[1, "alice"]]  # a player sees their own seat only
    public = client.get("/api/tables/bac-1/board").json()
    # the betting countdown of the round cycle (bac-1: 15 s), by the server's clock
    assert public["seated"] == [] and public["seconds_left"] == 15
    # Caribbean Stud: the decision timer (CSP-6.4) by the server's clock
    cycle_step(client, "csp-1", {"type": "tables.OpenRound"})
    _send(
        client,
        "csp-1",
        login(client, "bruno"),
        {"type": "caribbean.PlaceAnte", "box": 2, "player": "bruno", "amount": 1_000},
        "ca",
    )
    cycle_step(client, "csp-1", {"type": "caribbean.CloseBetting"})
    board = client.get("/api/tables/csp-1/board").json()
    assert board["seconds_left"] is not None and 0 < board["seconds_left"] <= 30


def test_the_board_names_the_shoe_s_awaited_dealer_command(client: TestClient) -> None:
    dealer = login(client, "dealer")
    assert client.get("/api/tables/bac-live/board").json()["shoe_waits"] == "tables.OpenShoe"
    _send(client, "bac-live", dealer, {"type": "tables.OpenShoe"}, "s1")
    assert client.get("/api/tables/bac-live/board").json()["shoe_waits"] == "baccarat.Cut"
    cut = {"type": "baccarat.Cut", "cutter": "dealer", "cutter_id": "dealer", "position": 200}
    _send(client, "bac-live", dealer, cut, "s2")
    assert client.get("/api/tables/bac-live/board").json()["shoe_waits"] == "baccarat.Burn"
    _send(client, "bac-live", dealer, {"type": "baccarat.Burn", "cards": ["8h", *[None] * 7]}, "s3")
    assert client.get("/api/tables/bac-live/board").json()["shoe_waits"] is None
    assert client.get("/api/tables/csp-1/board").json()["shoe_waits"] is None


def test_the_game_pages_role_rules_for_a_browser(client: TestClient) -> None:
    anonymous = client.get("/tables/bac-1", headers=HTML, follow_redirects=False)
    assert anonymous.status_code == 303
    assert anonymous.headers["location"].startswith("/login?next=%2Ftables%2Fbac-1")
    dealer = {**HTML, **login(client, "dealer")}
    assert client.get("/tables/bac-1", headers=dealer).status_code == 403  # players play
    assert client.get("/dealer/bac-1", headers=dealer).status_code == 200
    alice = {**HTML, **login(client, "alice")}
    assert client.get("/dealer/bac-1", headers=alice).status_code == 403
    page = client.get("/tables/csp-1", headers=alice)
    assert page.status_code == 200 and 'id="my-cards"' in page.text
    assert client.get("/tables/nope", headers=alice).status_code == 404
    supervisor = {**HTML, **login(client, "supervisor")}
    assert client.get("/dealer/bac-live", headers=supervisor).status_code == 200

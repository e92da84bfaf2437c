"""Card-by-card shoe commitments over HTTP (Common rules "Randomness", CSP-12): each audience is
proved exactly the cards its view shows (``GET /api/tables/{id}/proofs``), and the public shoe
list (``GET /api/shoes``) never holds a folded Caribbean box's cards, nor the dealer's hole
cards, nor any card the public view did not show; on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from tests.server.support import login
from tests.tables.support import by_cycle

from macau_tables import codec
from macau_tables.baccarat.bets import seat
from macau_tables.baccarat.commands import CloseBetting as BacClose
from macau_tables.baccarat.commands import PlaceWager
from macau_tables.baccarat.rules import WagerKind
from macau_tables.cards import Card
from macau_tables.caribbean.commands import CloseBetting, Fold, PlaceAnte, Raise
from macau_tables.rng import SCHEME_MERKLE, CardProof
from macau_tables.rounds import Audience
from macau_tables.server.runtime import Runtime
from macau_tables.tables.model import OpenRound

KEYS = iter(range(10**6))


@pytest.fixture
def served_tables() -> tuple[str, ...]:
    """The tables these tests use (the others need no loading at each start)."""
    return ("bac-1", "bac-live", "csp-1")


def _send(client: TestClient, who: str, command: object, table: str = "csp-1") -> None:
    service = client.app.state.runtime.service(table)  # type: ignore[attr-defined]
    if by_cycle(service, command):
        return  # a virtual table's open and close: its round cycle's, run at once
    response = client.post(
        f"/api/tables/{table}/commands",
        json={"idempotency_key": f"proofs-{next(KEYS)}", "command": codec.encode(command)},
        headers=login(client, who),
    )
    assert response.status_code == 200, response.text


def _proofs(client: TestClient, who: str | None, round_id: str, table: str = "csp-1") -> Any:
    headers = login(client, who) if who else {}
    response = client.get(
        f"/api/tables/{table}/proofs", params={"round": round_id}, headers=headers
    )
    assert response.status_code == 200, response.text
    return response.json()


def _proved(answer: Any) -> list[Card]:
    """The cards of a proofs answer, each checked against its shoe's published root."""
    out = []
    for shoe in answer["shoes"]:
        assert shoe["commitment"].startswith(SCHEME_MERKLE + ":")
        for c in shoe["cards"]:
            proof = CardProof(
                c["position"], Card.parse(c["card"]), c["salt"], tuple(c["path"]), shoe["size"]
            )
            assert proof.verifies(shoe["commitment"]), c
            out.append(Card.parse(c["card"]))
    return out


def _strings(payload: object) -> str:
    return json.dumps(payload)


def test_the_public_shoe_list_never_holds_a_folded_box_CSP_12(
    client: TestClient, runtime: Runtime
) -> None:
    """alice raises, bruno folds: bruno's cards are proved to bruno alone (while they were his
    view's), never to alice, the dealer, a supervisor or the public, and never in /api/shoes;
    the dealer's hole cards are proved to a player only after the showdown."""
    svc = runtime.service("csp-1")
    hidden: set[Card] = set()
    rounds = []
    for _ in range(3):
        _send(client, "dealer", OpenRound())
        _send(client, "alice", PlaceAnte(1, "alice", 1_000))
        _send(client, "bruno", PlaceAnte(2, "bruno", 1_000))
        _send(client, "dealer", CloseBetting())
        r = svc.round
        round_id = r.round_id
        rounds.append(round_id)
        mine = set(r.box(1).cards)
        # before the decisions: alice is proved her five cards and the dealer's up card only
        during = _proofs(client, "alice", round_id)
        assert set(_proved(during)) == mine | {r.dealer_cards[-1]}
        assert _proved(_proofs(client, None, round_id)) == []  # the public sees no card
        _send(client, "alice", Raise(1, "alice", 2_000))
        _send(client, "bruno", Fold(2, "bruno"))
        r = svc.round
        assert r.is_over
        folded = set(r.box(2).cards)
        hidden |= folded
        after = set(_proved(_proofs(client, "alice", round_id)))
        assert after == mine | set(r.dealer_cards)  # the showdown turned the dealer's hand
        assert not after & folded
        for who in (None, "dealer", "supervisor", "admin"):
            assert not set(_proved(_proofs(client, who, round_id))) & folded, who
    shoes = client.get("/api/shoes", params={"table": "csp-1"}).json()["shoes"]
    assert len(shoes) == 3
    for shoe in shoes:
        assert (shoe["scheme"], shoe["size"], shoe["proofs"]) == (SCHEME_MERKLE, 52, [])
        assert "order" not in shoe
    text = _strings(shoes)
    assert not any(f'"{c}"' in text for c in hidden)
    # the answer is the same for every caller (a public list)
    assert (
        client.get("/api/shoes", headers=login(client, "supervisor")).json()["shoes"]
        == (client.get("/api/shoes").json()["shoes"])
    )


def test_the_public_is_proved_the_baccarat_hands_and_the_list_verifies(
    client: TestClient, runtime: Runtime
) -> None:
    """Baccarat (virtual): the public view shows the cards of the hands; each is proved to the
    public (the proofs endpoint now, the shoe list once the shoe has ended) and verifies."""
    svc = runtime.service("bac-1")
    _send(client, "dealer", OpenRound(((1, "alice"),)), "bac-1")
    _send(client, "alice", PlaceWager("alice", seat(1), WagerKind.BANKER, 1_000), "bac-1")
    _send(client, "dealer", BacClose(), "bac-1")
    r = svc.round
    assert r.is_over
    public = _proved(_proofs(client, None, r.round_id, "bac-1"))
    assert sorted(public) == sorted(r.accepted_cards()) and len(public) >= 4
    # the shoe has not ended: nothing of it is listed yet
    assert client.get("/api/shoes", params={"table": "bac-1"}).json()["shoes"] == []
    # what the public was proved is what the public view shows, no more
    shown = codec.encode(svc.view(Audience.public()).view)
    assert all(f'"{c}"' in json.dumps(shown) for c in public)


def test_an_unknown_round_is_refused_404(client: TestClient) -> None:
    response = client.get("/api/tables/csp-1/proofs", params={"round": "nope"})
    assert response.status_code == 404
    assert response.json()["error"]["key"] == "tables.unknown_round"
    assert client.get("/api/tables/csp-1/proofs").status_code == 422


def test_a_client_may_not_send_a_cards_leaf(client: TestClient) -> None:
    """The leaf of a card (its position and salt) is the table's to record, never a client's."""
    leaf = {"type": "core.CardLeaf", "v": 1, "shoe_no": 1, "position": 0, "salt": "00" * 32}
    body = {
        "idempotency_key": "leaf-1",
        "command": {"type": "baccarat.DealCard", "v": 1, "card": "As", "leaf": leaf},
    }
    response = client.post(
        "/api/tables/bac-live/commands", json=body, headers=login(client, "dealer")
    )
    assert response.status_code == 422, response.text
    assert response.json()["error"]["key"] == "tables.leaf_from_client"

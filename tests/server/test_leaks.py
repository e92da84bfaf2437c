"""No card reaches a client before the law reveals it to that client (issue 10, item 5).

A session of rounds — Caribbean Stud (``csp-1``), baccarat (``bac-1``) and baccarat with card
holding (``bac-hold``, configured here: BAC-16) — is played by four players, the dealer and the
service through the HTTP API, while every table is watched over WebSockets by each player, the
dealer, a supervisor and the public. EVERY message each client receives is recorded and checked
against the law, not against the views' own code: the oracle is the contract suite's
(``tests/test_round_contract.py``: ``ADAPTERS[game].visible`` — CSP-6.5 / CSP-7 / CSP-12: a
player sees their own five cards and the dealer's face-up card until the showdown, never
another box's nor the dealer's face-down cards; BAC-16: a held side's cards are face down to
everyone but the holder until revealed; BAC-10: a withdrawn card only to the staff) applied to
the round as the law had it at the message's ``seq``. So neither the shoe's order (a card not
yet dealt), nor a burned card, nor the dealer's hole cards, nor another box's hand, nor a held
baccarat card reaches anyone early.

The same session asks, for every role (each player, the dealer, a supervisor, an admin, the
public), ``GET /api/tables/{id}/proofs`` of the round in play (at its first decision or reveal
and once it is over) and ``GET /api/shoes``: no role is proved a card the law does not show it
then (Common rules "Randomness"), and the public shoe list holds no card the public was not
shown — a folded Caribbean box's cards, the dealer's hole cards, burned or undealt cards.

SQLite runs the full session (200 rounds); PostgreSQL a shorter one in ``make test`` and the
full one under ``make test-slow``.
"""

from __future__ import annotations

import itertools
import os
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from tests.server.conftest import PASSWORD, add_held_table
from tests.test_round_contract import ADAPTERS, _cards_in

from macau_tables import codec
from macau_tables.baccarat.bets import seat
from macau_tables.baccarat.commands import CloseBetting as BacClose
from macau_tables.baccarat.commands import PlaceWager, Reveal
from macau_tables.baccarat.rules import WagerKind
from macau_tables.cards import Card
from macau_tables.caribbean.actions import CloseBetting as CspClose
from macau_tables.caribbean.actions import Fold, PlaceAnte, PlaceJackpotWager, Raise
from macau_tables.rng import CardProof
from macau_tables.rounds import DEALER, Audience, DueKind
from macau_tables.server import auth
from macau_tables.server.principal import UserRole
from macau_tables.server.runtime import Runtime
from macau_tables.tables.casino import UNIT
from macau_tables.tables.model import OpenRound

PLAYERS = ("alice", "bruno", "carmen", "daniel")
TABLES = ("csp-1", "bac-1", "bac-hold")
EXTRA_PASSWORD = "leak-test-password-1234"
SENT_TYPES = {"table", "meter", "pong"}
"""All the server ever sends on a table's socket besides an error before closing: no advice,
no chat, no strategy channel (CSP-12)."""


def _add_held_table(runtime: Runtime) -> None:
    """``bac-hold``: the demonstration baccarat table with card holding on (BAC-16.1)."""
    add_held_table(runtime.store, reason="leak test")
    runtime.tick()  # the runtime takes the new table
    assert "bac-hold" in runtime.table_ids()


def _token(client: TestClient, name: str, password: str) -> str:
    response = client.post("/api/auth/token", json={"name": name, "password": password})
    assert response.status_code == 200, response.text
    token: str = response.json()["token"]
    return token


class Session:
    """The clients of the session: an HTTP caller per user and a socket per (table, viewer),
    every received message recorded; the law's round at each ``(table, seq)``."""

    def __init__(self, client: TestClient, runtime: Runtime) -> None:
        self.client = client
        self.runtime = runtime
        for name in PLAYERS[2:]:
            auth.create_user(runtime.store, name, UserRole.PLAYER, EXTRA_PASSWORD)
        self.tokens = {
            name: _token(client, name, PASSWORD.get(name, EXTRA_PASSWORD))
            for name in (*PLAYERS, "dealer", "supervisor", "admin")
        }
        self.audiences = {
            **{p: Audience.of_player(p) for p in PLAYERS},
            "dealer": Audience.dealer(),
            "supervisor": Audience.supervisor(),
            "public": Audience.public(),
        }
        self.provers = {**self.audiences, "admin": Audience.supervisor()}
        """Who asks for proofs: every role (an admin sees a table as a supervisor does)."""
        self.proved: Counter[tuple[str, str]] = Counter()
        self.keys = itertools.count()
        self.refused: Counter[str] = Counter()
        self.received: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self.law: dict[tuple[str, int], Any] = {}
        self._subs = [self._record_law(t) for t in TABLES]
        self.sockets: dict[tuple[str, str], Any] = {}
        for table in TABLES:
            for viewer in self.audiences:
                query = "" if viewer == "public" else f"?token={self.tokens[viewer]}"
                ws = client.websocket_connect(f"/ws/tables/{table}{query}").__enter__()
                self.sockets[(table, viewer)] = ws
                self.received[(table, viewer)] = []

    def _record_law(self, table: str) -> Any:
        svc = self.runtime.service(table)
        # Called under the service's lock right after each commit: the round the law has then.
        return svc.subscribe(
            Audience.supervisor(),
            lambda u: (
                self.law.__setitem__((table, u.seq), svc.round) if hasattr(u, "seq") else None
            ),
        )

    def close(self) -> None:
        for ws in self.sockets.values():
            ws.__exit__(None, None, None)
        for sub in self._subs:
            sub.close()

    # -- commands over HTTP ---------------------------------------------------------------

    def send(self, table: str, who: str, command: object, *, may_refuse: bool = False) -> bool:
        response = self.client.post(
            f"/api/tables/{table}/commands",
            json={"idempotency_key": f"leak-{next(self.keys)}", "command": codec.encode(command)},
            headers={"Authorization": f"Bearer {self.tokens[who]}"},
        )
        assert response.status_code < 500, response.text
        if response.status_code != 200:
            assert may_refuse, response.text
            self.refused[response.json()["error"]["key"]] += 1
            return False
        return True

    def service(self, table: str) -> Any:
        return self.runtime.service(table)

    def check_proofs(self, table: str) -> None:
        """Every role's proofs of the round in play now: only cards the law shows it now, each
        verifying against its shoe's published root."""
        svc = self.service(table)
        r = svc.round
        adapter = ADAPTERS[svc.setup.game]
        for viewer, audience in self.provers.items():
            headers = (
                {} if viewer == "public" else {"Authorization": f"Bearer {self.tokens[viewer]}"}
            )
            response = self.client.get(
                f"/api/tables/{table}/proofs", params={"round": r.round_id}, headers=headers
            )
            assert response.status_code == 200, response.text
            answer = response.json()
            proved = set(_cards_in(answer["shoes"]))
            leaked = proved - adapter.visible(r, audience)
            assert not leaked, (table, viewer, r.round_id, sorted(map(str, leaked)))
            for shoe in answer["shoes"]:
                for c in shoe["cards"]:
                    proof = CardProof(
                        c["position"],
                        Card.parse(c["card"]),
                        c["salt"],
                        tuple(c["path"]),
                        shoe["size"],
                    )
                    assert proof.verifies(shoe["commitment"]), (table, viewer, c)
                    self.proved[(table, viewer)] += 1

    # -- the socket side --------------------------------------------------------------------

    def drain(self, table: str) -> None:
        """Read every socket of ``table`` up to the table's current record."""
        seq = self.service(table).view(Audience.public()).seq
        for viewer in self.audiences:
            ws, got = self.sockets[(table, viewer)], self.received[(table, viewer)]
            while not got or got[-1].get("seq", -1) < seq or got[-1]["type"] != "table":
                got.append(ws.receive_json())


# -- the players' side of a round ---------------------------------------------------------


def _caribbean_round(s: Session, rnd: random.Random) -> None:
    svc = s.service("csp-1")
    s.send("csp-1", "dealer", OpenRound())
    carried = {w.box for w in svc.state.carried()}
    for box, player in enumerate(PLAYERS, start=1):
        if rnd.random() < 0.2 and box > 1:
            continue  # sits this one out
        s.send("csp-1", player, PlaceAnte(box, player, UNIT * rnd.randint(1, 5)), may_refuse=True)
        if box not in carried and rnd.random() < 0.4:
            s.send("csp-1", player, PlaceJackpotWager(box, player), may_refuse=True)
    s.send("csp-1", "dealer", CspClose())
    s.check_proofs("csp-1")  # the decisions: each player's own cards and the up card
    for _ in range(16):
        r = svc.round
        if r.is_over:
            s.check_proofs("csp-1")
            return
        due = r.expected_next().due[0]
        assert due.kind is DueKind.DECISION, due
        box = r.box(due.position)
        command: object = (
            Raise(box.box, box.player, 2 * box.ante)
            if rnd.random() < 0.7
            else Fold(box.box, box.player)
        )
        if not s.send("csp-1", box.player, command, may_refuse=True):
            s.send("csp-1", box.player, Fold(box.box, box.player))
    raise AssertionError(f"csp-1 round did not end: {svc.round.expected_next()}")


def _baccarat_round(s: Session, table: str, rnd: random.Random) -> None:
    svc = s.service(table)
    s.send(table, "dealer", OpenRound(tuple(enumerate(PLAYERS, start=1))))
    rules = svc.state.rules
    carried = {w.player for w in svc.state.carried()}
    for number, player in enumerate(PLAYERS, start=1):
        if player not in carried:
            kind = WagerKind.BANKER if rnd.random() < 0.5 else WagerKind.PLAYER
            stake = UNIT * rnd.randint(1, 8)
            s.send(table, player, PlaceWager(player, seat(number), kind, stake), may_refuse=True)
        if rnd.random() < 0.2:
            extra = rnd.choice([WagerKind.TIE, WagerKind.BANKER_PAIR, WagerKind.PLAYER_PAIR])
            stake = max(rules.limits[extra].minimum, UNIT)
            s.send(table, player, PlaceWager(player, seat(number), extra, stake), may_refuse=True)
    s.send(table, "dealer", BacClose())
    s.check_proofs(table)  # the first reveal (or the round over): held cards to the holder alone
    for _ in range(16):
        r = svc.round
        if r.is_over:
            s.check_proofs(table)
            return
        due = r.expected_next().due[0]
        assert due.kind is DueKind.REVEAL, due  # BAC-16: the holder turns the cards
        step = r.pending_reveal()
        by = due.player or DEALER
        s.send(table, "dealer" if by is DEALER else by, Reveal(step.side, step.part, by))
    raise AssertionError(f"{table} round did not end: {svc.round.expected_next()}")


# -- the check ------------------------------------------------------------------------------


def _check(s: Session) -> Counter[str]:
    """Every recorded message against the law; returns what was seen (for non-vacuity)."""
    seen: Counter[str] = Counter()
    for table in TABLES:
        adapter = ADAPTERS[s.service(table).setup.game]
        public = {m["seq"]: set(_cards_in(m)) for m in s.received[(table, "public")] if "seq" in m}
        for viewer, audience in s.audiences.items():
            _check_viewer(s, table, viewer, adapter, audience, public, seen)
    return seen


def _check_viewer(
    s: Session,
    table: str,
    viewer: str,
    adapter: Any,
    audience: Audience,
    public: dict[int, set[Any]],
    seen: Counter[str],
) -> None:
    """What ``viewer`` received from ``table`` against the law (counted in ``seen``)."""
    for message in s.received[(table, viewer)]:
        assert message["type"] in SENT_TYPES, (table, viewer, message)
        if message["type"] != "table":
            assert not set(_cards_in(message)), (table, viewer, message)
            continue
        assert codec.decode(message["audience"]) == audience
        law = s.law[(table, message["seq"])]
        shown = set(_cards_in(message))
        leaked = shown - (set() if law is None else adapter.visible(law, audience))
        assert not leaked, (table, viewer, message["seq"], sorted(map(str, leaked)))
        seen["messages"] += 1
        if audience.player is not None and shown - public.get(message["seq"], set()):
            seen[f"private {table}"] += 1  # cards the law showed this player alone


@pytest.fixture
def session(client: TestClient, runtime: Runtime) -> Iterator[Session]:
    _add_held_table(runtime)
    s = Session(client, runtime)
    try:
        yield s
    finally:
        s.close()


def _play(s: Session, rounds: int) -> None:
    rnd = random.Random(20261203)
    plan = [TABLES[n % len(TABLES)] for n in range(rounds)]
    for table in plan:
        if table == "csp-1":
            _caribbean_round(s, rnd)
        else:
            _baccarat_round(s, table, rnd)
        s.drain(table)


def _check_shoe_list(s: Session) -> None:
    """``GET /api/shoes`` for every role: the same public list, never a card the public was not
    shown (Caribbean Stud: none at all, CSP-12; baccarat: the hands' cards), never an order."""
    for table in TABLES:
        public = {c for m in s.received[(table, "public")] for c in _cards_in(m)}
        answers = []
        for viewer in s.provers:
            headers = {} if viewer == "public" else {"Authorization": f"Bearer {s.tokens[viewer]}"}
            response = s.client.get("/api/shoes", params={"table": table}, headers=headers)
            assert response.status_code == 200, response.text
            answers.append(response.json())
        assert all(a == answers[0] for a in answers)
        for shoe in answers[0]["shoes"]:
            assert "order" not in shoe and "salt" not in shoe
            listed = set(_cards_in(shoe))
            assert listed <= public, (table, sorted(map(str, listed - public)))
            if s.service(table).setup.game == "caribbean":
                assert shoe["proofs"] == []


def _session(s: Session, rounds: int) -> None:
    _play(s, rounds)
    seen = _check(s)
    _check_shoe_list(s)
    # Not vacuous: players were proved their own Caribbean cards, the public the baccarat hands,
    # and never a Caribbean card (its public view shows none).
    assert all(s.proved[("csp-1", p)] > 0 for p in PLAYERS[:2])
    assert s.proved[("bac-1", "public")] > 0 and s.proved[("csp-1", "public")] == 0
    # Not vacuous: every viewer got views, players were shown their own Caribbean hands and
    # the holder the held baccarat cards before anyone else; every round was played out.
    assert seen["messages"] >= rounds * 5 * len(s.audiences)
    assert seen["private csp-1"] > 0 and seen["private bac-hold"] > 0
    assert seen["private bac-1"] == 0  # without holding every card is turned as dealt
    assert all(s.service(t).round.is_over for t in TABLES)


ROUNDS = {"sqlite": int(os.environ.get("LEAK_ROUNDS", 200)), "postgresql": 45}
"""The rounds of the session in ``make test`` (PostgreSQL: the full 200 in ``make test-slow``)."""


def test_no_card_reaches_a_client_before_the_law_reveals_it(
    session: Session, request: pytest.FixtureRequest
) -> None:
    _session(session, ROUNDS[request.node.callspec.params["store"]])


@pytest.mark.slow
@pytest.mark.parametrize("store", ["postgresql"], indirect=True)
def test_no_card_leaks_in_a_200_round_session_on_postgresql(session: Session) -> None:
    _session(session, 200)

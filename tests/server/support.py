"""Helpers shared by the server's tests (tests/server/conftest.py has the fixtures that use
them): the one-time users' test passwords and roles, the test client's ``Origin``, in-process
settings, a cycle step at a virtual table, bearer-token logins, refusals and audit entries, and
extra demonstration tables. Test files import these from here, never from another test file."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from fastapi.testclient import TestClient
from tests.db_fixtures import filled

from macau_tables import codec
from macau_tables.baccarat.demo import demo_rules as demo_baccarat_rules
from macau_tables.rounds import Audience
from macau_tables.server.runtime import Runtime, demo_users, prepare
from macau_tables.server.settings import Settings
from macau_tables.store import Store, TableMode, TableStatus
from macau_tables.visibility import merged

PASSWORD: dict[str, str] = {name: f"{name}-password-1234" for name, _ in demo_users()}
"""The test password of each one-time user."""

ROLE: dict[str, str] = dict(demo_users())
"""Each one-time user's role."""

SAME_ORIGIN: dict[str, str] = {"Origin": "http://testserver"}
"""The ``Origin`` a browser sends from the test client's own pages."""


def demo_casino(store: Store) -> None:
    """Make the ``store`` fixture's empty, migrated store what a first start makes of it: the
    demonstration casino and the five one-time users with their :data:`PASSWORD`
    (:func:`~macau_tables.server.runtime.prepare`) — run once per worker and backend, then
    copied (:func:`tests.db_fixtures.filled`)."""
    filled(store, "demo casino", lambda s: prepare(s, password=PASSWORD.__getitem__, upgrade=False))


def server_settings(**changes: Any) -> Settings:
    """Settings for an in-process test: no tick thread, no request log, and the tables' first
    openings not spread (each test moves the clock itself; ``test_spread_openings.py`` shows
    the spread)."""
    return Settings.of(
        {"tick_seconds": 0.0, "log_requests": False, "spread_openings": False, **changes}
    )


def cycle_step(client: TestClient, table_id: str, command: dict[str, Any]) -> dict[str, Any]:
    """What the dealer's ``command`` (``tables.OpenRound`` or a game's ``CloseBetting``, as a
    codec payload) did at a virtual table before its round cycle: there the cycle opens and
    closes (a client's is refused, ``tables.cycle_owns``), so the cycle's step is run at once
    in-process (:meth:`TableService.cycle_step`, not reachable over the server), opening with
    the command's seating. Returns the encoded :class:`~macau_tables.tables.Submitted`."""
    from tests.tables.support import close_betting, open_round

    from macau_tables import codec

    service = client.app.state.runtime.service(table_id)  # type: ignore[attr-defined]
    if command["type"] == "tables.OpenRound":
        seated = tuple((int(n), str(p)) for n, p in command.get("seated", ()))
        done = open_round(service, seated)
    else:
        done = close_betting(service, None)
    return codec.encode(done)


def login(client: TestClient, name: str) -> dict[str, str]:
    """The bearer-token headers of one-time user ``name``."""
    response = client.post("/api/auth/token", json={"name": name, "password": PASSWORD[name]})
    assert response.status_code == 200, response.text
    token = response.json()["token"]
    return {"Authorization": f"Bearer {token}"}


def add_demo_table(
    store: Store,
    table_id: str,
    *,
    name: str,
    game: str,
    mode: TableMode,
    config_id: str,
    rules: Any,
    meter_id: str,
    reason: str,
) -> None:
    """One more open demonstration table ``table_id`` of ``game`` in ``mode`` on its own
    configuration ``config_id`` (``rules``) and the demonstration meter ``meter_id``."""

    def build(tx: Any) -> None:
        tx.put_config(game, config_id, rules)
        tx.create_table(
            table_id,
            name=name,
            game=game,
            mode=mode,
            demo=True,
            config_id=config_id,
            meter_id=meter_id,
        )
        tx.set_table_status(table_id, TableStatus.OPEN, actor="test", reason=reason)

    store.run(build)


def add_held_table(store: Store, *, reason: str, **rules: Any) -> None:
    """``bac-hold``: the demonstration baccarat table with card holding on (BAC-16.1), open
    (the leak session and the squeeze's browser test play it); ``rules``: more changes to its
    rules (e.g. its round cycle's ``betting_seconds``)."""
    add_demo_table(
        store,
        "bac-hold",
        name="Baccarat (card holding)",
        game="baccarat",
        mode=TableMode.VIRTUAL,
        config_id="bac-8d-hold",
        rules=replace(demo_baccarat_rules(), card_holding=True, **rules),
        meter_id="m-baccarat",
        reason=reason,
    )


def refused(response: Any, status: int, key: str | None = None) -> dict[str, Any]:
    """The refusal's error (the one shape), checked: ``status``, never a 5xx."""
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    assert set(error) == {"key", "params", "text", "rule"}
    assert error["text"]
    if key is not None:
        assert error["key"] == key, error
    return error


def audit(runtime: Runtime, action: str) -> list[Any]:
    """The audit log's entries of ``action``."""
    return runtime.store.read(lambda tx: tx.audit_entries(action=action))


class Viewer:
    """A table socket (``/ws/tables/{id}``) read as whole views: each version 3 ``table``
    message holds the sections that changed for the socket — ``shared``, ``seat`` (a player's),
    ``mine`` / ``role`` — and the latest of each, laid together
    (:func:`macau_tables.visibility.merged`: the seat part over the shared view, the own part
    over that), make the state a page shows, in the shape of ``GET /api/tables/{id}``
    (``type`` ``"table"``, ``seq``, ``round_id``, ``audience``, ``view``, ``expected``,
    ``can_issue``, ``status``, ``fault``, ``cycle``, ``meter_link``); any other message
    (``pong``, ``meter``, ``error``) as it came. ``raw``: every message received, as sent (the
    leak tests check each section too)."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.raw: list[dict[str, Any]] = []
        self.sections: dict[str, dict[str, Any]] = {}
        self.seq: int | None = None
        self.table_id: str | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.ws, name)

    def __enter__(self) -> Viewer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.ws.__exit__(*exc)

    def receive_json(self) -> dict[str, Any]:
        """The next whole view (or other message)."""
        while True:
            message: dict[str, Any] = self.ws.receive_json()
            self.raw.append(message)
            if message.get("type") != "table" or message.get("v") != 3:
                return message
            for name in ("shared", "seat", "mine", "role"):
                if name in message:
                    self.sections["own" if name in ("mine", "role") else name] = message[name]
            self.seq = message["seq"] if self.seq is None else max(self.seq, message["seq"])
            self.table_id = message["table_id"]
            whole = self.whole()
            if whole is not None:
                return whole

    def whole(self) -> dict[str, Any] | None:
        """The view as the page shows it now (``None``: no shared part yet)."""
        body = self.sections.get("shared")
        if body is None:
            return None
        seat = self.sections.get("seat", {})
        mine = self.sections.get("own", {})
        view = merged(body["view"], seat.get("view"), seat.get("drop", ()))
        return {
            "type": "table",
            "table_id": self.table_id,
            "seq": self.seq,
            "round_id": body["round_id"],
            "audience": mine.get("audience", codec.encode(Audience.public())),
            "view": view
            if mine.get("view") is None
            else merged(view, mine["view"], mine.get("drop", ())),
            "expected": mine.get("expected", body["expected"]),
            "can_issue": mine.get("can_issue", []),
            "status": body["status"],
            "fault": body["fault"],
            "cycle": body["cycle"],
            "meter_link": body["meter_link"],
        }


def watch(client: TestClient, path: str, **kwargs: Any) -> Viewer:
    """``client.websocket_connect(path, **kwargs)`` opened and read as a :class:`Viewer` (a
    context manager: ``with watch(client, path) as ws``)."""
    return Viewer(client.websocket_connect(path, **kwargs).__enter__())

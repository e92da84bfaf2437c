"""``POST /api/admin/tables/{id}/config`` (issue 10 item 2: admins configure tables, options,
approvals): a new configuration version, only between rounds, validated by the rules, audited;
on SQLite and PostgreSQL (the ``store`` fixture)."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient
from tests.server.support import audit, login, refused
from tests.tables.support import open_round

from macau_tables import codec
from macau_tables.games import GAMES
from macau_tables.server.auth import endpoint_rules
from macau_tables.server.principal import UserRole
from macau_tables.server.runtime import Runtime
from macau_tables.tables.bots import Bots

URL = "/api/admin/tables/csp-1/config"

APPROVAL_80 = {
    "option": "royal_flush_odds",
    "value": 80,
    "reference": "DICJ-TEST-80",
    "applied_on": "2025-12-01",
    "effective_on": "2025-12-05",  # three working days later (CSP-13)
}


@pytest.fixture
def served_tables() -> tuple[str, ...]:
    """The tables these tests use (the others need no loading at each start)."""
    return ("bac-1", "csp-1")


def change(client: TestClient, headers: dict[str, str], url: str = URL, **body: Any) -> Any:
    body.setdefault("reason", "new paytable approved")
    body.setdefault("idempotency_key", uuid.uuid4().hex)
    return client.post(url, json=body, headers=headers)


def config_id(runtime: Runtime, table_id: str = "csp-1") -> str:
    return runtime.store.read(lambda tx: tx.table(table_id).config_id)


def configs(runtime: Runtime) -> dict[str, str]:
    """Every table's configuration id and the number of configurations stored."""
    return runtime.store.read(lambda tx: {t.table_id: t.config_id for t in tx.tables()})


def test_a_new_approval_makes_the_option_openable_CSP_13(
    client: TestClient, runtime: Runtime
) -> None:
    admin, supervisor = login(client, "admin"), login(client, "supervisor")
    close = client.post("/api/tables/csp-1/close", json={"reason": "paytable"}, headers=supervisor)
    assert close.status_code == 200, close.text
    # A closed table takes the option; it cannot open without the regulator's approval.
    done = change(client, admin, changes={"royal_flush_odds": 80})
    assert done.status_code == 200, done.text
    first = done.json()
    assert first["old_config_id"] == "csp-v1" and first["fields"] == ["royal_flush_odds"]
    assert first["new_config_id"] == config_id(runtime) != "csp-v1"
    error = refused(
        client.post("/api/tables/csp-1/open", json={"reason": "x"}, headers=supervisor), 409
    )
    assert error["rule"] == "CSP-13" and error["key"] == "core.approval_missing"
    # The approval record: a new version again, and now the table opens with 80:1.
    done = change(client, admin, approvals=[APPROVAL_80])
    assert done.status_code == 200, done.text
    second = done.json()
    assert second["approvals_added"] == 1 and second["old_config_id"] == first["new_config_id"]
    opened = client.post("/api/tables/csp-1/open", json={"reason": "approved"}, headers=supervisor)
    assert opened.status_code == 200, opened.text
    assert runtime.service("csp-1").state.rules.royal_flush_odds == 80
    listed = client.get("/api/admin/tables", headers=admin).json()["tables"]
    csp = next(t for t in listed if t["table_id"] == "csp-1")
    assert csp["config_id"] == second["new_config_id"] and csp["approved_today"] is True
    assert "DICJ-TEST-80" in [a["reference"] for a in csp["approvals"]]
    # Audited: who, why, old and new configuration ids.
    entries = audit(runtime, "admin_table_config")
    assert len(entries) == 2
    assert {(e.actor, e.reason) for e in entries} == {("admin", "new paytable approved")}
    details = sorted((e.detail["old_config_id"], e.detail["new_config_id"]) for e in entries)
    assert ("csp-v1", first["new_config_id"]) in details
    # Only the admin configures tables.
    refused(change(client, supervisor, changes={"royal_flush_odds": 90}), 403)
    refused(change(client, login(client, "alice"), changes={"royal_flush_odds": 90}), 403)


def test_an_unapproved_option_is_refused_at_an_open_table_CSP_13(
    client: TestClient, runtime: Runtime
) -> None:
    admin = login(client, "admin")
    error = refused(change(client, admin, changes={"royal_flush_odds": 80}), 409)
    assert error["rule"] == "CSP-13"
    assert config_id(runtime) == "csp-v1" and audit(runtime, "admin_table_config") == []
    done = change(client, admin, changes={"royal_flush_odds": 80}, approvals=[APPROVAL_80])
    assert done.status_code == 200, done.text


def test_bad_values_are_refused_with_the_rules_own_key(
    client: TestClient, runtime: Runtime
) -> None:
    admin = login(client, "admin")
    before = configs(runtime)
    error = refused(change(client, admin, changes={"royal_flush_odds": 101}), 422)
    assert error["key"] == "caribbean.royal_odds_range"
    refused(change(client, admin, changes={"ante_minimum": 1_500}), 422)  # not a unit multiple
    refused(change(client, admin, changes={"no_such_field": 1}), 422)
    refused(change(client, admin, changes={"royal_flush_odds": "80"}), 422)
    refused(change(client, admin, changes={"approvals": []}), 422, "tables.config_field_fixed")
    refused(
        change(client, admin, changes={"royal_flush_odds": 100}), 422, "tables.config_unchanged"
    )
    refused(change(client, admin, changes={"decision_timeout_seconds": 45}, reason=" "), 422)
    late = dict(APPROVAL_80, effective_on="2025-11-30")  # before it was applied for
    refused(change(client, admin, approvals=[late]), 422, "core.approval_effective_before_applied")
    refused(change(client, admin, url="/api/admin/tables/nope/config", changes={"boxes": 7}), 404)
    assert configs(runtime) == before and audit(runtime, "admin_table_config") == []


def test_a_change_is_refused_during_a_round_and_takes_effect_from_the_next(
    client: TestClient, runtime: Runtime
) -> None:
    admin = login(client, "admin")
    service = runtime.service("csp-1")
    Bots(service, ["alice", "bruno"], seed=7, actor="test").play(1)  # a round under csp-v1
    open_round(service)
    ante = GAMES[service.setup.game].bots.filler(service.state, "alice")  # her smallest ante
    service.submit(ante, idempotency_key=uuid.uuid4().hex, actor="alice")
    body = {"changes": {"royal_flush_odds": 80}, "approvals": [APPROVAL_80]}
    refused(change(client, admin, **body), 409, "tables.config_round_open")
    assert config_id(runtime) == "csp-v1" and audit(runtime, "admin_table_config") == []
    assert service.state.rules.royal_flush_odds == 100  # the round in progress keeps its rules


def test_a_change_goes_through_while_the_cycle_holds_an_empty_round_open(
    client: TestClient, runtime: Runtime
) -> None:
    """A virtual table's cycle keeps a round taking bets open while nobody bets: nothing is at
    stake, so the change is taken; that round keeps the rules it opened with, the next round
    runs the new version (CSP-13)."""
    admin = login(client, "admin")
    service = runtime.service("csp-1")
    open_round(service)
    empty = service.round
    assert empty is not None and not empty.is_over and not service.state.round_at_stake
    body = {"changes": {"royal_flush_odds": 80}, "approvals": [APPROVAL_80]}
    done = change(client, admin, **body)
    assert done.status_code == 200, done.text
    assert service.state.rules.royal_flush_odds == 80  # from the next round
    assert service.round is not None and service.round.round_id == empty.round_id
    assert service.round.rules.royal_flush_odds == 100  # the empty round keeps its rules
    Bots(service, ["alice", "bruno"], seed=9, actor="test").play(2)
    assert service.round.rules.royal_flush_odds == 80


def test_the_next_round_runs_the_new_version_and_old_rounds_still_verify(
    client: TestClient, runtime: Runtime
) -> None:
    admin = login(client, "admin")
    service = runtime.service("csp-1")
    Bots(service, ["alice", "bruno"], seed=7, actor="test").play(1)  # under csp-v1
    key = uuid.uuid4().hex
    body = {"changes": {"royal_flush_odds": 80}, "approvals": [APPROVAL_80]}
    done = change(client, admin, idempotency_key=key, **body)
    assert done.status_code == 200, done.text
    new_id = done.json()["new_config_id"]
    # The same key again: the first answer, nothing written twice; another request: refused.
    again = change(client, admin, idempotency_key=key, **body)
    assert again.status_code == 200 and again.json() == done.json()
    refused(change(client, admin, idempotency_key=key, changes={"royal_flush_odds": 90}), 409)
    assert len(audit(runtime, "admin_table_config")) == 1
    assert service.state.rules.royal_flush_odds == 80 and service.setup.config_id == new_id
    Bots(service, ["alice", "bruno"], seed=8, actor="test").play(1)  # under the new version
    refs = runtime.store.read(
        lambda tx: {
            (r.round_id, ref)
            for r in tx.read_events("csp-1")
            for ref, _ in codec.stored_rules_refs(json.loads(r.payload))
        }
    )
    used = {ref for _, ref in refs}
    assert used == {"csp-v1", new_id}, refs
    # The old version still resolves for the old rounds: verification is clean.
    verified = client.get("/api/verify", headers=admin)
    assert verified.status_code == 200, verified.text
    assert verified.json()["ok"] is True, verified.json()
    assert runtime.store.read(lambda tx: tx.get_config("csp-v1")).royal_flush_odds == 100


def test_the_route_has_its_one_role_rule(client: TestClient) -> None:
    rules = endpoint_rules(client.app)  # type: ignore[arg-type]
    assert rules[("POST", "/api/admin/tables/{table_id}/config")] == frozenset({UserRole.ADMIN})


def test_new_shoe_settings_wait_for_the_next_shoe_BAC_1(
    client: TestClient, runtime: Runtime
) -> None:
    admin = login(client, "admin")
    Bots(runtime.service("bac-1"), ["alice", "bruno"], seed=7, actor="test").play(1)
    shoe = codec.encode(runtime.service("bac-1").state.rules.shoe)
    refused(
        change(client, admin, url="/api/admin/tables/bac-1/config", changes={"shoe": shoe}),
        422,
        "tables.config_unchanged",
    )
    shoe["decks"] = 6
    url = "/api/admin/tables/bac-1/config"
    refused(
        change(client, admin, url=url, changes={"shoe": shoe}), 409, "tables.config_shoe_in_play"
    )
    assert config_id(runtime, "bac-1") == "bac-8d-v1"
    # Other settings change at once (from the next round); the shoe goes on.
    done = change(client, admin, url=url, changes={"holding_timeout_seconds": 45})
    assert done.status_code == 200, done.text
    Bots(runtime.service("bac-1"), ["alice", "bruno"], seed=8, actor="test").play(1)
    assert runtime.service("bac-1").state.rules.holding_timeout_seconds == 45

"""The operations API (issue 10, item 2): wallets, cashier, meters, authorisations waiting,
verify, the daily report, the audit archive and log, the tables' approvals — on SQLite and
PostgreSQL (the ``runtime`` fixture)."""

from __future__ import annotations

import hashlib
import io
import uuid
import zipfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from tests.server.support import audit, demo_casino, login, refused, server_settings
from tests.tables.support import open_round

from macau_tables.baccarat import shoe as S
from macau_tables.baccarat.bets import standing
from macau_tables.baccarat.commands import DealCard, PlaceWager
from macau_tables.baccarat.rules import WagerKind
from macau_tables.baccarat.tableau import CardSlot
from macau_tables.cards import Card
from macau_tables.errors import ConfigError
from macau_tables.messages import render
from macau_tables.money import format_minor
from macau_tables.server.app import create_app
from macau_tables.server.auth import endpoint_rules
from macau_tables.server.principal import UserRole
from macau_tables.server.runtime import Runtime
from macau_tables.tables.archive_check import verify_archive
from macau_tables.tables.bots import Bots
from macau_tables.tables.clock import FakeClock, opening_date
from macau_tables.tables.model import OpenRound, OpenShoe, ReportFault
from macau_tables.tables.signing import generate_key, write_key


def cash(
    client: TestClient,
    headers: dict[str, str],
    kind: str,
    *,
    player: str = "alice",
    amount: Any = 5_000,
    reason: Any = "cash at the cage",
    key: str | None = None,
) -> Any:
    body = {
        "player": player,
        "amount": amount,
        "reason": reason,
        "idempotency_key": key or uuid.uuid4().hex,
    }
    return client.post(f"/api/cashier/{kind}", json=body, headers=headers)


def ledger(runtime: Runtime) -> tuple[int, int, int, int]:
    """(ledger total, cashier balance, alice's wallet, number of transactions)."""
    return runtime.store.read(
        lambda tx: (
            tx.ledger_total(),
            tx.balance("cashier"),
            tx.wallet_balance("alice"),
            len(tx.transactions()),
        )
    )


def today(runtime: Runtime) -> str:
    return runtime.store.read(lambda tx: opening_date(tx.now())).isoformat()


# -- the role rules ---------------------------------------------------------------------------

ADMIN, SUPERVISOR, PLAYER = UserRole.ADMIN, UserRole.SUPERVISOR, UserRole.PLAYER
RULES: dict[tuple[str, str], frozenset[UserRole] | None] = {
    ("GET", "/api/wallets/me"): frozenset({PLAYER}),
    ("GET", "/api/wallets"): frozenset({SUPERVISOR, ADMIN}),
    ("POST", "/api/cashier/deposit"): frozenset({ADMIN}),
    ("POST", "/api/cashier/withdraw"): frozenset({ADMIN}),
    ("GET", "/api/meters"): None,
    ("GET", "/api/meters/{meter_id}"): None,
    ("POST", "/api/meters/{meter_id}/params"): frozenset({ADMIN}),
    ("GET", "/api/authorisations"): frozenset({SUPERVISOR}),
    ("GET", "/api/verify"): frozenset({SUPERVISOR, ADMIN}),
    ("GET", "/api/reports/daily"): frozenset({SUPERVISOR, ADMIN}),
    ("GET", "/api/reports/positions"): frozenset({SUPERVISOR, ADMIN}),
    ("GET", "/api/audit/archive"): frozenset({ADMIN}),
    ("GET", "/api/audit/log"): frozenset({ADMIN}),
    ("GET", "/api/admin/tables"): frozenset({ADMIN}),
}
"""The role rule of every route of the operations API (None: public)."""


def test_every_operations_route_has_its_one_role_rule(client: TestClient) -> None:
    rules = endpoint_rules(client.app)  # type: ignore[arg-type]
    assert {k: rules[k] for k in RULES} == RULES


# -- wallets and cashier --------------------------------------------------------------------


def test_deposit_and_withdrawal_are_balanced_audited_and_idempotent(
    client: TestClient, runtime: Runtime
) -> None:
    admin = login(client, "admin")
    total, cashier, alice, count = ledger(runtime)
    key = uuid.uuid4().hex
    response = cash(client, admin, "deposit", amount=5_000, key=key)
    assert response.status_code == 200, response.text
    done = response.json()
    assert done["balance"] == alice + 5_000
    assert (done["kind"], done["actor"], done["reason"]) == ("deposit", "admin", "cash at the cage")
    # the same key again: the first answer, nothing posted twice
    again = cash(client, admin, "deposit", amount=5_000, key=key)
    assert again.status_code == 200 and again.json() == done
    # the same key for another request: refused
    refused(
        cash(client, admin, "deposit", amount=6_000, key=key), 409, "tables.idempotency_mismatch"
    )
    out = cash(client, admin, "withdraw", amount=2_000, reason="paid out")
    assert out.status_code == 200, out.text
    assert out.json()["balance"] == alice + 3_000
    after = ledger(runtime)
    assert after == (total, cashier - 3_000, alice + 3_000, count + 2)  # money only moved
    tx = runtime.store.read(lambda t: t.transaction(done["tx_id"]))
    assert (tx.kind, tx.actor, tx.reason) == ("deposit", "admin", "cash at the cage")
    entries = audit(runtime, "cashier_deposit") + audit(runtime, "cashier_withdrawal")
    assert [(e.actor, e.reason, e.detail["amount"]) for e in entries] == [
        ("admin", "cash at the cage", 5_000),
        ("admin", "paid out", 2_000),
    ]
    assert entries[0].detail["role"] == "admin"
    wallet = client.get("/api/wallets/me", headers=login(client, "alice"))
    assert wallet.json()["balance"] == alice + 3_000


def test_an_overdraft_is_refused_with_nothing_written(client: TestClient, runtime: Runtime) -> None:
    admin = login(client, "admin")
    before = ledger(runtime)
    response = cash(client, admin, "withdraw", amount=before[2] + 1)
    # A withdrawal is said in its own words, not a bet's "deposit first or wager less"; the
    # amounts read in major units, the parameters stay ints of minor units.
    error = refused(response, 409, "ledger.withdrawal_over_balance")
    assert error["params"] == {"player": "alice", "balance": before[2], "amount": before[2] + 1}
    balance, amount = format_minor(before[2]), format_minor(before[2] + 1)
    assert error["text"] == (
        f"player alice's wallet holds {balance}; a withdrawal of {amount} is more than that"
    )
    assert "wager" not in error["text"]
    zh = render("ledger.withdrawal_over_balance", error["params"], "zh-Hant")
    assert f"{balance}" in zh and f"提款 {amount}" in zh and "投注" not in zh
    assert ledger(runtime) == before
    assert audit(runtime, "cashier_withdrawal") == []


def test_a_player_sees_only_their_own_wallet(client: TestClient, runtime: Runtime) -> None:
    alice, bruno = login(client, "alice"), login(client, "bruno")
    mine = client.get("/api/wallets/me", headers=alice)
    assert mine.status_code == 200
    assert mine.json()["player"] == "alice"
    assert client.get("/api/wallets/me", headers=bruno).json()["player"] == "bruno"
    refused(client.get("/api/wallets", headers=alice), 403, "auth.forbidden")
    refused(client.get("/api/wallets"), 401)
    everyone = client.get("/api/wallets", headers=login(client, "supervisor"))
    assert everyone.status_code == 200
    assert {w["player"] for w in everyone.json()["wallets"]} >= {"alice", "bruno", "grace"}


def test_only_the_admin_is_the_cashier(client: TestClient, runtime: Runtime) -> None:
    before = ledger(runtime)
    for name in ("dealer", "supervisor", "alice"):
        refused(cash(client, login(client, name), "deposit"), 403, "auth.forbidden")
    refused(cash(client, {}, "deposit"), 401)
    assert ledger(runtime) == before


BAD_CASH: list[tuple[dict[str, Any], int, str]] = [
    ({"amount": 10.0}, 422, "server.invalid_request"),
    ({"amount": 10.5}, 422, "server.invalid_request"),
    ({"amount": "1000"}, 422, "server.invalid_request"),
    ({"amount": -100}, 422, "server.invalid_request"),
    ({"amount": 0}, 422, "server.invalid_request"),
    ({"amount": True}, 422, "server.invalid_request"),
    ({"player": "nobody"}, 404, "store.unknown_player"),
    ({"reason": ""}, 422, "server.invalid_request"),
    ({"reason": "   "}, 422, "admin.reason_required"),
    ({"reason": None}, 422, "server.invalid_request"),
    ({"player": "a\x00b"}, 422, "server.invalid_request"),  # PostgreSQL cannot hold a NUL
    ({"reason": "why\x00"}, 422, "server.invalid_request"),
]


def test_bad_cashier_input_is_refused_with_nothing_written(
    client: TestClient, runtime: Runtime
) -> None:
    admin = login(client, "admin")
    before = ledger(runtime)
    for kind in ("deposit", "withdraw"):
        for changes, status, key in BAD_CASH:
            refused(cash(client, admin, kind, **changes), status, key)
        missing = {"player": "alice", "amount": 100, "idempotency_key": "k-1"}  # no reason
        refused(client.post(f"/api/cashier/{kind}", json=missing, headers=admin), 422)
        refused(client.post(f"/api/cashier/{kind}", content=b"{", headers=admin), 422)
    assert ledger(runtime) == before


# -- meters -----------------------------------------------------------------------------------


def test_the_meters_are_public_with_fixed_awards_and_hits(
    client: TestClient, runtime: Runtime
) -> None:
    runtime.store.run(
        lambda tx: tx.record_hit(
            "m-caribbean", table_id="csp-1", round_id="r-1", box=3, combination="flush", amount=0
        )
    )
    response = client.get("/api/meters")
    assert response.status_code == 200, response.text
    meters = {m["id"]: m for m in response.json()["meters"]}
    assert set(meters) == {"m-baccarat", "m-caribbean"}
    bac, csp = meters["m-baccarat"], meters["m-caribbean"]
    assert (bac["game"], bac["amount"], bac["seed"]) == ("baccarat", 1_000_000, 1_000_000)
    assert bac["tables"] == ["bac-1", "bac-live", "bac-squeeze"]
    assert csp["fixed_awards"]["royal_flush"] == 5_000_000  # CSP-10.3
    assert csp["fixed_awards"]["flush"] == 10_000
    assert [(h["table"], h["box"], h["round_id"]) for h in csp["last_hits"]] == [
        ("csp-1", 3, "r-1")
    ]
    one = client.get("/api/meters/m-caribbean")
    assert one.status_code == 200 and one.json() == csp
    refused(client.get("/api/meters/nope"), 404, "store.unknown_meter")


def test_meter_parameters_change_between_rounds_only(client: TestClient, runtime: Runtime) -> None:
    admin = login(client, "admin")
    url = "/api/meters/m-baccarat/params"
    refused(
        client.post(url, json={"seed": 2_000_000, "reason": "x"}, headers=login(client, "dealer")),
        403,
    )
    refused(client.post(url, json={"seed": 1.5, "reason": "x"}, headers=admin), 422)
    refused(client.post(url, json={"seed": 2_000_000}, headers=admin), 422)
    refused(
        client.post("/api/meters/nope/params", json={"seed": 1, "reason": "x"}, headers=admin), 404
    )
    bac = runtime.service("bac-1")
    open_round(bac)
    # the empty round the cycle holds open stops nothing; a wager in it does (CSP-10.8)
    assert not bac.state.round_at_stake
    bet = PlaceWager("alice", standing(1), WagerKind.BANKER, bac.state.rules.bet_unit * 10)
    bac.submit(bet, idempotency_key=uuid.uuid4().hex, actor="alice")
    refused(
        client.post(url, json={"seed": 2_000_000, "reason": "new promotion"}, headers=admin),
        409,
        "tables.meter_round_open",
    )
    csp = client.post(
        "/api/meters/m-caribbean/params",
        json={"params": {"contribution": "7/10", "wager": 1000}, "reason": "new sign"},
        headers=admin,
    )
    assert csp.status_code == 200, csp.text
    assert csp.json()["params_pending"] == {"contribution": "7/10", "wager": 1000}
    entries = audit(runtime, "meter_params")
    assert [(e.actor, e.reason) for e in entries] == [("admin", "new sign")]


# -- authorisations ---------------------------------------------------------------------------


def test_authorisations_list_what_waits_for_a_supervisor(
    client: TestClient, runtime: Runtime
) -> None:
    supervisor = login(client, "supervisor")
    refused(client.get("/api/authorisations", headers=login(client, "dealer")), 403)
    empty = client.get("/api/authorisations", headers=supervisor)
    assert empty.status_code == 200, empty.text
    assert empty.json() == {"waiting": [], "elsewhere": []}
    runtime.service("csp-1").submit(
        ReportFault("shuffler jammed"), idempotency_key="fault-1", actor="dealer"
    )
    expected = [("csp-1", "fault", "shuffler jammed", ["ClearFault"])]
    waiting = client.get("/api/authorisations", headers=supervisor).json()["waiting"]
    assert [(w["table"], w["kind"], w["reason"], w["commands"]) for w in waiting] == expected
    # A process that does not serve csp-1 reads what waits there from the store.
    other = Runtime(server_settings(tables=("bac-1",)), runtime.store, clock=FakeClock())
    other.start()
    try:
        with TestClient(create_app(other), raise_server_exceptions=False) as second:
            found = second.get("/api/authorisations", headers=login(second, "supervisor")).json()
    finally:
        other.stop()
    assert found["elsewhere"] == ["bac-live", "bac-squeeze", "csp-1"]
    assert [(w["table"], w["kind"], w["reason"]) for w in found["waiting"]] == [
        e[:3] for e in expected
    ]


def test_a_round_held_by_a_fault_report_waits_for_the_supervisors_decision_BAC_10_CSP_11_4(
    client: TestClient, runtime: Runtime
) -> None:
    """Dealers report, supervisors decide: the fault and the round it holds are listed with the
    supervisor's choices — clear the fault (the round goes on) or void the round."""
    svc = runtime.service("csp-1")
    open_round(svc)
    svc.submit(ReportFault("card on the floor"), idempotency_key="held-2", actor="dealer")
    waiting = client.get("/api/authorisations", headers=login(client, "supervisor")).json()
    assert [(w["kind"], w["phase"], w["commands"]) for w in waiting["waiting"]] == [
        ("fault", "betting", ["ClearFault", "Void"])
    ]


def test_a_failed_shuffler_waits_for_the_supervisor_to_record_it_replaced_CSP_11_4(
    client: TestClient, runtime: Runtime
) -> None:
    """CSP-11.4, second sentence: after a shuffling machine failed the table is listed until a
    supervisor records it replaced (``ShufflerReplaced``, through the commands API); then it
    deals again."""
    svc = runtime.service("csp-1")
    svc.state = replace(svc.state, shuffler_out=True)  # (as after a live ShufflerFailure)
    headers = login(client, "supervisor")
    waiting = client.get("/api/authorisations", headers=headers).json()
    assert [(w["table"], w["kind"], w["commands"]) for w in waiting["waiting"]] == [
        ("csp-1", "shuffler", ["ShufflerReplaced"])
    ]
    command = {"type": "tables.ShufflerReplaced", "supervisor": "supervisor", "reason": "SN-77"}
    sent = client.post(
        "/api/tables/csp-1/commands",
        headers=headers,
        json={"idempotency_key": "replaced-1", "command": command},
    )
    assert sent.status_code == 200, sent.text
    assert not svc.state.shuffler_out
    assert client.get("/api/authorisations", headers=headers).json()["waiting"] == []


def test_a_refused_live_card_waits_for_a_supervisor_BAC_10(
    client: TestClient, runtime: Runtime
) -> None:
    live = runtime.service("bac-live")
    for n, command in enumerate(
        (
            OpenShoe(),
            S.Cut(S.Cutter.DEALER, "dealer", 200),
            S.Burn((None,) * 8),
            OpenRound(((1, "alice"),)),
            DealCard(Card.parse("5h"), slot=CardSlot.BANKER_1),  # P1 is due (BAC-7): refused
        )
    ):
        live.submit(command, idempotency_key=f"live-{n}", actor="dealer")
    waiting = client.get("/api/authorisations", headers=login(client, "supervisor")).json()
    (item,) = waiting["waiting"]
    assert (item["table"], item["kind"], item["round_id"]) == (
        "bac-live",
        "round",
        live.round.round_id,
    )
    assert set(item["commands"]) == {"Correct", "Void"}


# -- verify, report, audit --------------------------------------------------------------------


def test_verify_is_clean_after_a_round(client: TestClient, runtime: Runtime) -> None:
    Bots(runtime.service("csp-1"), ["alice", "bruno"], seed=7, actor="test").play(1)
    refused(client.get("/api/verify", headers=login(client, "dealer")), 403)
    response = client.get("/api/verify", headers=login(client, "supervisor"))
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["ok"] is True and body["failure"] is None
    assert body["counts"]["rounds"] >= 1 and body["counts"]["tables"] == 4


def test_the_daily_report_and_the_audit_archive_of_today(
    client: TestClient, runtime: Runtime
) -> None:
    Bots(runtime.service("csp-1"), ["alice"], seed=3, actor="test").play(1)
    admin, day = login(client, "admin"), today(runtime)
    report = client.get(f"/api/reports/daily?day={day}", headers=login(client, "supervisor"))
    assert report.status_code == 200, report.text
    body = report.json()
    assert body["day"] == day
    assert [t["table_id"] for t in body["tables"]] == ["bac-1", "bac-live", "bac-squeeze", "csp-1"]
    csp = body["tables"][3]
    assert csp["rounds"] == 1 and csp["drop"] > 0
    assert body["totals"]["drop"] == csp["drop"]
    as_csv = client.get(f"/api/reports/daily?day={day}&format=csv", headers=admin)
    assert as_csv.status_code == 200
    assert as_csv.headers["content-type"].startswith("text/csv")
    assert as_csv.text.splitlines()[0].startswith("table_id,game,rounds")
    refused(client.get(f"/api/audit/archive?day={day}", headers=login(client, "supervisor")), 403)
    archive = client.get(f"/api/audit/archive?day={day}", headers=admin)
    assert archive.status_code == 200, archive.text
    assert archive.headers["content-type"] == "application/zip"
    assert archive.headers["x-archive-sha256"] == hashlib.sha256(archive.content).hexdigest()
    with zipfile.ZipFile(io.BytesIO(archive.content)) as zf:
        assert "manifest.json" in zf.namelist() and "events.jsonl" in zf.namelist()
    log = client.get("/api/audit/log?limit=1", headers=admin)
    assert log.status_code == 200
    (latest,) = log.json()["entries"]
    assert (latest["action"], latest["actor"]) == ("audit_archive", "admin")
    assert latest["detail"]["day"] == day


def test_the_report_per_betting_position_adds_up_to_the_table(
    client: TestClient, runtime: Runtime
) -> None:
    """STANDARDS: meters for drop, wagers and payouts per betting position."""
    Bots(runtime.service("csp-1"), ["alice", "bob"], seed=5, actor="test").play(2)
    supervisor, day = login(client, "supervisor"), today(runtime)
    found = client.get(f"/api/reports/positions?day={day}", headers=supervisor)
    assert found.status_code == 200, found.text
    rows = found.json()["positions"]
    assert rows and {r["table_id"] for r in rows} == {"csp-1"}
    assert all(r["position"].startswith("box ") for r in rows)
    table = client.get(f"/api/reports/daily?day={day}", headers=supervisor).json()["tables"][3]
    assert sum(r["drop"] for r in rows) == table["drop"]
    assert sum(r["contributions"] for r in rows) == table["contributions"]
    as_csv = client.get(f"/api/reports/positions?day={day}&format=csv", headers=supervisor)
    assert as_csv.status_code == 200 and as_csv.headers["content-type"].startswith("text/csv")
    assert as_csv.text.splitlines()[0].startswith("table_id,position,wagers,drop")
    refused(client.get(f"/api/reports/positions?day={day}", headers=login(client, "alice")), 403)


def test_the_audit_archive_is_signed_with_the_servers_key(store: Any, tmp_path: Path) -> None:
    """With ``audit_sign_key`` the archives handed out are signed by it (who exported the day,
    checked offline with the public key); a file holding no key stops the server at start."""
    key = generate_key()
    write_key(key, tmp_path / "archive.key")
    demo_casino(store)
    settings = server_settings(audit_sign_key=str(tmp_path / "archive.key"))
    rt = Runtime(settings, store, clock=FakeClock())
    rt.start()
    try:
        with TestClient(create_app(rt)) as client:
            day = today(rt)
            archive = client.get(f"/api/audit/archive?day={day}", headers=login(client, "admin"))
    finally:
        rt.stop()
    assert archive.status_code == 200, archive.text
    assert archive.headers["x-archive-signed-by"] == key.public
    path = tmp_path / "day.zip"
    path.write_bytes(archive.content)
    checked = verify_archive(path, public_key=key.public)
    assert checked.ok and checked.signed_by == key.public, checked.finding
    (tmp_path / "notes.txt").write_text("not a key")
    with pytest.raises(ConfigError) as refused:
        Runtime(server_settings(audit_sign_key=str(tmp_path / "notes.txt")), store)
    assert refused.value.key == "operations.sign_key_bad"


BAD_QUERIES: list[tuple[str, str]] = [
    ("/api/reports/daily?day=2026-13-01", "cli.bad_day"),
    ("/api/reports/daily?day=yesterday", "cli.bad_day"),
    ("/api/reports/daily", "server.invalid_request"),
    ("/api/reports/daily?day=2026-01-05&format=xml", "server.invalid_request"),
    ("/api/audit/archive?day=05/01/2026", "cli.bad_day"),
    ("/api/audit/log?limit=0", "server.invalid_request"),
    ("/api/audit/log?limit=abc", "server.invalid_request"),
    ("/api/reports/daily?day=0001-01-01", "admin.day_out_of_range"),
    ("/api/reports/positions?day=yesterday", "cli.bad_day"),
    ("/api/audit/archive?day=9999-12-31", "admin.day_out_of_range"),
    ("/api/audit/log?action=%00", "server.invalid_request"),
    ("/api/meters/m%00", "server.invalid_request"),
]


def test_bad_queries_are_refused(client: TestClient) -> None:
    admin = login(client, "admin")
    for url, key in BAD_QUERIES:
        refused(client.get(url, headers=admin), 422, key)


# -- tables and approvals ---------------------------------------------------------------------


def test_the_tables_approvals_are_listed_for_the_admin(client: TestClient) -> None:
    refused(client.get("/api/admin/tables", headers=login(client, "supervisor")), 403)
    response = client.get("/api/admin/tables", headers=login(client, "admin"))
    assert response.status_code == 200, response.text
    tables = {t["table_id"]: t for t in response.json()["tables"]}
    assert set(tables) == {"bac-1", "bac-live", "bac-squeeze", "csp-1"}
    csp = tables["csp-1"]
    assert [(o["option"], o["rule"]) for o in csp["options"]] == [("royal_flush_odds", "CSP-13")]
    assert [a["reference"] for a in csp["approvals"]] == ["DEMO-ONLY"]
    assert csp["approved_today"] is True and csp["refusal"] is None
    assert len(csp["config_sha256"]) == 64

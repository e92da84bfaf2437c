"""The exact math of a change of a table's options, before saving it:
``POST /api/admin/tables/{id}/analysis`` and ``GET /api/admin/analysis/{job}``, computed by
the analysis package in the analysis worker process (never the server's), cached by the
configuration's digest; CSP-9.5 / CSP-13 (the royal flush odds), BAC-18 (the commission
option), CSP-10 / BAC-17 (the jackpot's return and break-even meter)."""

from __future__ import annotations

import dataclasses
import os
import signal
from concurrent.futures import Future
from fractions import Fraction
from typing import Any

import pytest
from fastapi.testclient import TestClient
from tests.analysis.support import par_analysis
from tests.server.support import login, refused

from macau_tables import codec
from macau_tables.analysis.baccarat_exact import (
    JackpotAwards,
    break_even_meter,
    full_shoe,
    jackpot_counts,
    jackpot_return,
    main_counts,
    pair_count,
    wager_stats,
)
from macau_tables.analysis.caribbean_exact import CaribbeanAnalysis, analyze_jackpot
from macau_tables.baccarat.rules import BaccaratRules, CommissionMode
from macau_tables.server.analysis_worker import AnalysisJobs, _Figures, _Job, jobs
from macau_tables.server.auth import endpoint_rules
from macau_tables.server.principal import UserRole
from macau_tables.server.runtime import Runtime

WAIT = 600.0
"""The most seconds a test waits for the worker (a cold numba compile on a busy machine)."""


@pytest.fixture
def served_tables() -> tuple[str, ...]:
    """The tables these tests use (the others need no loading at each start)."""
    return ("bac-1", "bac-live", "csp-1")


def submit(client: TestClient, headers: dict[str, str], table: str, **changes: Any) -> Any:
    return client.post(
        f"/api/admin/tables/{table}/analysis", json={"changes": changes}, headers=headers
    )


def finished(client: TestClient, headers: dict[str, str], job: str) -> dict[str, Any]:
    """The job's answer once the worker has computed it (waited for on its futures)."""
    jobs.wait(job, WAIT)
    answer = client.get(f"/api/admin/analysis/{job}", headers=headers)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    assert body["state"] == "done", body
    return body


def config_id(runtime: Runtime, table: str) -> str:
    return runtime.store.read(lambda tx: tx.table(table).config_id)


def edges(figures: dict[str, Any]) -> dict[str, Fraction]:
    return {w["wager"]: Fraction(w["house_edge"]) for w in figures["wagers"]}


def test_no_commission_shows_the_exact_banker_edge_and_the_difference_BAC_18(
    client: TestClient, runtime: Runtime
) -> None:
    admin = login(client, "admin")
    before = config_id(runtime, "bac-1")
    started = submit(client, admin, "bac-1", commission="no_commission")
    assert started.status_code == 200, started.text
    first = started.json()
    rules = runtime.service("bac-1").state.rules
    candidate = dataclasses.replace(rules, commission=CommissionMode.NO_COMMISSION)
    # The digests are the configurations' own (the stored version's name comes from them).
    assert first["current_sha256"] == codec.sha256(rules)
    assert first["candidate_sha256"] == codec.sha256(candidate)
    assert [o["option"] for o in first["options"]] == [
        o.option for o in candidate.options_requiring_approval()
    ]
    assert "bac.no_commission" in [o["option"] for o in first["options"]]
    body = finished(client, admin, first["job"])
    # Exactly the analysis package's figures, 8 decks (BAC-1), per unit wagered.
    full = full_shoe(rules.shoe.decks)
    stats = wager_stats(main_counts(full), pair_count(full))
    old, new = edges(body["current"]), edges(body["candidate"])
    assert old["banker"] == stats["banker"].house_edge == Fraction(114753351728, 10847218479825)
    assert new["banker"] == stats["banker_no_commission"].house_edge
    assert old["player"] == new["player"] == stats["player"].house_edge
    assert old["tie"] == stats["tie"].house_edge
    change = {w["wager"]: w["house_edge"] for w in body["difference"]["wagers"]}
    assert Fraction(change["banker"]) == new["banker"] - old["banker"] > 0
    assert Fraction(change["player"]) == 0
    for figures in (body["current"], body["candidate"]):
        for w in figures["wagers"]:
            assert Fraction(w["return"]) == 1 - Fraction(w["house_edge"])
    # Computed in the worker process, never the server's (its event loop, its commits).
    assert body["current"]["worker_pid"] != os.getpid()
    assert body["progress"] == {"done": 6, "total": 6, "step": "jackpot"}
    # Nothing saved: the table runs on its configuration.
    assert config_id(runtime, "bac-1") == before
    # The same configurations again: answered from the cache, done at once.
    again = submit(client, admin, "bac-1", commission="no_commission").json()
    assert again["cached"] is True and again["state"] == "done"
    assert again["candidate"] == body["candidate"] and again["job"] != first["job"]


@pytest.fixture(scope="module")
def royal_100(tmp_path_factory: pytest.TempPathFactory) -> CaribbeanAnalysis:
    """The analysis package's own exact analysis of the royal flush at 100:1 (CSP-9.5), in the
    tests' processes (the PAR sheet's, computed once per session with the analysis tests':
    tests/analysis/support.py): what the worker's figures are checked against."""
    return par_analysis(tmp_path_factory, "macau")


def test_royal_flush_odds_show_the_exact_edge_jackpot_return_and_break_even_CSP_9_5(
    client: TestClient, runtime: Runtime, royal_100: CaribbeanAnalysis
) -> None:
    admin = login(client, "admin")
    started = submit(client, admin, "csp-1", royal_flush_odds=50)
    assert started.status_code == 200, started.text
    first = started.json()
    assert first["progress"]["total"] == 8  # hands, strengths, sweep, jackpot: twice
    body = finished(client, admin, first["job"])
    assert body["progress"] == {"done": 8, "total": 8, "step": "jackpot"}
    old, new = edges(body["current"]), edges(body["candidate"])
    # The law's ranking (CSP-8), per ante, as docs/methods.md publishes them.
    assert old["ante"] == royal_100.house_edge == Fraction(3337606931, 63888559350)  # 100:1
    assert new["ante"] == Fraction(7243120413, 138425211925)  # royal flush 50:1
    change = body["difference"]["wagers"][0]
    assert change["wager"] == "ante"
    assert Fraction(change["house_edge"]) == new["ante"] - old["ante"]
    # The jackpot at the table's meter (CSP-10.2), as the analysis package computes it with
    # the table's own jackpot settings.
    meter = first["meter"]
    assert meter == runtime.store.read(lambda tx: tx.meter(str(tx.table("csp-1").meter_id)).amount)
    rules = runtime.service("csp-1").state.rules
    jackpot = analyze_jackpot(dataclasses.replace(royal_100, rules=rules), meter)
    assert Fraction(body["current"]["jackpot"]["return"]) == jackpot.return_rate(meter)
    assert Fraction(body["current"]["jackpot"]["house_edge"]) == 1 - jackpot.return_rate(meter)
    assert body["current"]["jackpot"]["break_even_meter"] == jackpot.break_even_meter() > meter
    # A box wins the jackpot only if it raised (CSP-10.2), and the odds change only which
    # high-card hands raise: the jackpot's figures stay, exactly.
    assert body["candidate"]["jackpot"] == body["current"]["jackpot"]
    assert body["difference"]["jackpot"] == {"return": "0/1", "break_even_meter": 0}
    assert body["candidate"]["worker_pid"] != os.getpid()


def test_the_baccarat_jackpot_at_the_meter_BAC_17(client: TestClient, runtime: Runtime) -> None:
    admin = login(client, "admin")
    tables = client.get("/api/admin/tables", headers=admin).json()["tables"]
    with_jackpot = [
        t for t in tables if t["game"] == "baccarat" and "jackpot" in t["rules"]["limits"]
    ]
    assert with_jackpot, "the demonstration casino has a baccarat table with the jackpot"
    table = with_jackpot[0]
    awards = dict(table["rules"]["jackpot_fixed_awards"], single_pair=700)
    first = submit(client, admin, table["table_id"], jackpot_fixed_awards=awards).json()
    body = finished(client, admin, first["job"])
    rules = runtime.service(table["table_id"]).state.rules
    meter = table["meter_amount"]
    assert first["meter"] == meter
    full = full_shoe(rules.shoe.decks)
    counts, total = jackpot_counts(full), main_counts(full).total
    paid = JackpotAwards.from_rules(rules, meter)
    assert Fraction(body["current"]["jackpot"]["return"]) == (
        jackpot_return(counts, total, paid).total_return
    )
    assert body["current"]["jackpot"]["break_even_meter"] == break_even_meter(counts, total, paid)
    more = Fraction(body["difference"]["jackpot"]["return"])
    assert more > 0  # a larger single pair award returns more


def test_a_bad_configuration_is_refused_with_its_field_and_nothing_runs(
    client: TestClient, runtime: Runtime
) -> None:
    admin = login(client, "admin")
    before = config_id(runtime, "csp-1")
    error = refused(submit(client, admin, "csp-1", royal_flush_odds=120), 422)
    assert error["key"] == "caribbean.royal_odds_range" and error["params"]["value"] == 120
    refused(submit(client, admin, "csp-1", approvals=[]), 422, "tables.config_field_fixed")
    refused(submit(client, admin, "csp-1", no_such_field=1), 422)
    refused(submit(client, admin, "bac-1", bet_unit=30), 422)  # 5 % of 30 is not exact
    refused(submit(client, admin, "nope", royal_flush_odds=50), 404)
    assert config_id(runtime, "csp-1") == before
    refused(client.get("/api/admin/analysis/" + "0" * 32, headers=admin), 404)


def test_only_an_admin_asks_for_the_math(client: TestClient) -> None:
    for name in ("alice", "dealer", "supervisor"):
        refused(submit(client, login(client, name), "csp-1", royal_flush_odds=50), 403)
        refused(client.get("/api/admin/analysis/" + "0" * 32, headers=login(client, name)), 403)
    refused(submit(client, {}, "csp-1", royal_flush_odds=50), 401)
    rules = endpoint_rules(client.app)  # type: ignore[arg-type]
    assert rules[("POST", "/api/admin/tables/{table_id}/analysis")] == frozenset({UserRole.ADMIN})
    assert rules[("GET", "/api/admin/analysis/{job_id}")] == frozenset({UserRole.ADMIN})


def test_card_holding_changes_no_figure_and_needs_no_approval_BAC_16(
    client: TestClient, runtime: Runtime
) -> None:
    """Card holding (the squeeze) is the house's decision (BAC-16, not a BAC-19 option): the
    page's control for it shows the figures unchanged, and the change saves without a record."""
    admin = login(client, "admin")
    first = submit(client, admin, "bac-live", card_holding=True).json()
    body = finished(client, admin, first["job"])
    assert body["candidate"]["wagers"] == body["current"]["wagers"]
    assert {Fraction(w["house_edge"]) for w in body["difference"]["wagers"]} == {Fraction(0)}
    rules = runtime.service("bac-live").state.rules
    assert first["options"] == [
        {"option": o.option, "value": o.value, "rule": o.rule, "description": o.description}
        for o in rules.options_requiring_approval()
    ]


def test_a_worker_that_dies_is_started_again_and_its_job_asked_again() -> None:
    """The analysis worker killed while computing: that job fails (``analysis.job_failed``),
    the same figures asked again are computed by a new worker, nothing is stuck."""
    jobs.shutdown()  # a fresh worker: it is still starting when it is killed below
    rules = dataclasses.replace(
        BaccaratRules(), shoe=dataclasses.replace(BaccaratRules().shoe, decks=7)
    )
    job = jobs.submit(rules, rules, 0)
    (process,) = jobs.processes()
    os.kill(process, signal.SIGKILL)
    jobs.wait(job, WAIT)
    first = jobs.status(job)
    assert first is not None and first["state"] in ("done", "failed")
    if first["state"] == "failed":
        assert first["error"] == {"key": "analysis.job_failed", "params": {}}
    again = jobs.submit(rules, rules, 0)
    jobs.wait(again, WAIT)
    answer = jobs.status(again)
    assert answer is not None and answer["state"] == "done", answer
    assert answer["current"]["worker_pid"] not in (process, os.getpid())


def test_figures_answered_before_the_worker_s_last_stage_reports_show_every_stage_done() -> None:
    """The worker's stage reports (a queue) and its answer (the job's future) travel apart: an
    answer may come before the report of its last stage. The job then shows every stage done,
    the last one named, not the stage whose report came last."""
    answered: Future[dict[str, Any]] = Future()
    answered.set_result(
        {"game": "caribbean", "meter": 0, "wagers": [], "jackpot": {"offered": False}}
    )
    waiting = AnalysisJobs()  # no worker: the answer is set here, no report ever comes
    waiting._figures["x@0"] = _Figures("caribbean", answered, steps=["hands", "strengths"])
    waiting._jobs["job"] = _Job("x@0", "x@0", False)
    status = waiting.status("job")
    assert status is not None and status["state"] == "done", status
    assert status["progress"] == {"done": 4, "total": 4, "step": "jackpot"}

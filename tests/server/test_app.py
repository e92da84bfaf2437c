"""The application's frame (issue 10): health, readiness, metrics, the refusal shape."""

from __future__ import annotations

import dataclasses
import json
import logging
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from tests.server.serving import wait_for
from tests.server.support import login, server_settings
from tests.tables.support import close_betting, open_round

from macau_tables.caribbean.commands import CloseBetting as CaribbeanClose
from macau_tables.caribbean.commands import PlaceAnte
from macau_tables.errors import ConfigError, MacauTablesError, RuleViolation
from macau_tables.server.app import create_app
from macau_tables.server.errors import STATUS_BY_KEY, status_for
from macau_tables.server.runtime import Runtime
from macau_tables.server.settings import Settings
from macau_tables.store import Store
from macau_tables.tables.bots import Bots
from macau_tables.tables.clock import FakeClock


def test_healthz_answers(client: TestClient) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_readyz_names_the_tables_served(client: TestClient) -> None:
    response = client.get("/readyz")
    assert response.status_code == 200, response.text
    assert response.json()["tables"] == ["bac-1", "bac-live", "bac-squeeze", "csp-1"]


def test_the_apps_of_one_process_share_their_routes_and_each_serves_its_own_runtime(
    client: TestClient, store: Store
) -> None:
    """The routes are made once per process (``server/app.py``): a second app's requests
    reach its own runtime — here one holding no table, the first holds them all."""
    other = Runtime(server_settings(), store, clock=FakeClock(), owner="elsewhere:1:serve")
    other.start()
    try:
        app = create_app(other)
        shared = {id(route) for route in client.app.routes}  # type: ignore[attr-defined]
        assert len(shared & {id(route) for route in app.routes}) >= 10
        with TestClient(app, raise_server_exceptions=False) as second:
            assert second.get("/readyz").json()["problems"] == ["server.no_tables"]
            refused = second.get("/api/tables/bac-1")
            assert refused.status_code == 409
            assert refused.json()["error"]["key"] == "server.table_elsewhere"
        assert client.get("/readyz").json()["tables"] == [
            "bac-1",
            "bac-live",
            "bac-squeeze",
            "csp-1",
        ]
        assert client.get("/api/tables/bac-1").status_code == 200  # served here
    finally:
        other.stop()


def test_metrics_show_the_meters(client: TestClient, runtime: Runtime) -> None:
    response = client.get("/metrics")
    assert response.status_code == 200
    assert 'macau_tables_meter_amount{meter="m-baccarat"} 1e+06' in response.text


def test_an_unknown_path_is_a_404_in_the_refusal_shape(client: TestClient) -> None:
    response = client.get("/nowhere")
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["key"] == "server.not_found"
    assert set(error) == {"key", "params", "text", "rule"}


# -- the runtime ------------------------------------------------------------------------------


def test_the_tick_issues_the_decision_time_out(runtime: Runtime) -> None:
    """CSP-6.4: an absent player's hand is folded when the decision time runs out — issued by
    the runtime's tick, not by a client."""
    service = runtime.service("csp-1")
    open_round(service)
    service.submit(PlaceAnte(1, "alice", 1_000), idempotency_key="t-ante", actor="alice")
    close_betting(service, CaribbeanClose())
    assert service.expected() is not None and service.expected().phase == "deciding"
    assert [d for d in runtime.tick() if d.table_id == "csp-1"] == []  # nothing ripe yet
    clock = runtime.clock
    assert isinstance(clock, FakeClock)
    clock.advance(31)
    issued = [d for d in runtime.tick() if d.table_id == "csp-1"]  # (bac-1 cycles by itself)
    assert [s.phase for s in issued] == ["settled"]  # folded by the clock, then settled
    assert "caribbean.DecisionMade" in issued[0].events
    assert service.round.is_over
    accepted = runtime.counters.snapshot()["accepted"]
    assert accepted[("csp-1", "DecisionTimeout")] == 1


def test_played_rounds_and_refusals_are_counted_on_metrics(
    client: TestClient, runtime: Runtime
) -> None:
    service = runtime.service("bac-1")
    played = Bots(service, ["alice", "bruno"], seed=7).play(2)
    with pytest.raises(MacauTablesError):
        service.submit(CaribbeanClose(), idempotency_key="t-bad", actor="dealer")
    client.get("/healthz")
    text = client.get("/metrics").text
    settled = 2 - played.voided
    assert f'macau_tables_rounds_settled_total{{table="bac-1"}} {float(settled)}' in text
    assert 'macau_tables_commands_accepted_total{command="OpenRound",table="bac-1"} 2.0' in text
    assert re.search(
        r'macau_tables_commands_refused_total\{key="[a-z_.]+",table="bac-1"\} 1\.0', text
    )
    assert (
        'macau_tables_request_seconds_count{method="GET",route="/healthz",status="200"} 1.0' in text
    )


def test_a_table_held_by_another_process_is_refused_then_taken_over(
    runtime: Runtime, store: Store
) -> None:
    other = Runtime(server_settings(), store, clock=FakeClock(), owner="elsewhere:1:serve")
    other.start()
    try:
        assert other.table_ids() == []
        assert other.elsewhere() == {
            t: "tables.leased" for t in ("bac-1", "bac-live", "bac-squeeze", "csp-1")
        }
        with pytest.raises(MacauTablesError) as held:
            other.service("bac-1")
        assert held.value.key == "server.table_elsewhere" and status_for(held.value) == 409
        with pytest.raises(MacauTablesError) as unknown:
            other.service("bac-9")
        assert unknown.value.key == "server.table_unknown" and status_for(unknown.value) == 404
        assert other.ready() == ["server.no_tables"]

        runtime.stop()  # the holder stops: its leases are released
        other.tick()
        assert other.table_ids() == ["bac-1", "bac-live", "bac-squeeze", "csp-1"]
        assert other.ready() == []
    finally:
        other.stop()


def test_a_runtime_that_lost_its_lease_stops_serving_the_table(
    runtime: Runtime, store: Store
) -> None:
    store.run(lambda tx: tx.release_lease("bac-1", runtime.owner))
    until = datetime.now(UTC) + timedelta(minutes=5)
    assert store.run(lambda tx: tx.acquire_lease("bac-1", "thief:1:x", until=until))
    clock = runtime.clock
    assert isinstance(clock, FakeClock)
    clock.advance(3600)  # past the half-life: the tick renews, and finds the lease taken
    runtime.tick()
    assert runtime.table_ids() == ["bac-live", "bac-squeeze", "csp-1"]
    assert runtime.elsewhere() == {"bac-1": "tables.leased"}


def test_the_tick_thread_reads_the_tables_again_only_while_one_waits_or_after_the_interval(
    runtime: Runtime, store: Store
) -> None:
    """Serving every table it is configured to, the tick thread does not read the casino's
    tables and leases again at every tick, only once ``REFRESH_EVERY_SECONDS`` passed (a new
    table); while a table waits for its take-over (its lease held elsewhere), at every tick."""
    from macau_tables.server import runtime as runtime_module

    runtime.tick()
    assert not runtime._refresh_due()  # just read, every table served
    runtime._refreshed -= runtime_module.REFRESH_EVERY_SECONDS  # the interval passed
    assert runtime._refresh_due()
    runtime.tick(refresh=runtime._refresh_due())
    assert not runtime._refresh_due()
    store.run(lambda tx: tx.release_lease("bac-1", runtime.owner))
    until = datetime.now(UTC) + timedelta(minutes=5)
    assert store.run(lambda tx: tx.acquire_lease("bac-1", "thief:1:x", until=until))
    clock = runtime.clock
    assert isinstance(clock, FakeClock)
    clock.advance(3600)  # the tick renews, finds the lease taken: bac-1 waits for its take-over
    runtime.tick(refresh=runtime._refresh_due())
    assert runtime.elsewhere() == {"bac-1": "tables.leased"}
    assert runtime._refresh_due()  # at every tick now, however recent the last read


def test_meter_changes_fan_out_to_subscribers_and_the_gauge(
    runtime: Runtime, store: Store, client: TestClient
) -> None:
    seen: list[tuple[str, int]] = []
    listener = runtime.subscribe_meters(lambda m, a: seen.append((m, a)))
    store.run(lambda tx: tx.adjust_meter("m-caribbean", 500, actor="test", reason="fan-out"))
    wait_for("the meter change", lambda: ("m-caribbean", 1_000_500) in seen)
    assert runtime.meters()["m-caribbean"] == 1_000_500
    assert (
        'macau_tables_meter_amount{meter="m-caribbean"} 1.0005e+06' in client.get("/metrics").text
    )
    listener.close()
    store.run(lambda tx: tx.adjust_meter("m-caribbean", 1, actor="test", reason="fan-out"))
    wait_for("the gauge", lambda: runtime.meters()["m-caribbean"] == 1_000_501)
    assert ("m-caribbean", 1_000_501) not in seen


def test_readyz_is_503_when_the_runtime_does_not_serve(
    client: TestClient, runtime: Runtime
) -> None:
    runtime.stop()
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json() == {
        "status": "not ready",
        "problems": ["server.not_started"],
        "elsewhere": {},
    }
    assert client.get("/healthz").status_code == 200


# -- refusals ---------------------------------------------------------------------------------


def test_malformed_json_is_a_422_in_the_refusal_shape(client: TestClient) -> None:
    response = client.post(
        "/api/auth/token", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["key"] == "server.invalid_request" and error["rule"] is None
    assert error["text"].startswith("the request cannot be read")


def test_an_oversized_body_is_refused_before_it_is_read(client: TestClient) -> None:
    response = client.post(
        "/api/auth/token",
        content=b"x" * (server_settings().body_limit_bytes + 1),
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 413
    assert response.json()["error"]["key"] == "server.body_too_large"


def test_a_wrong_method_is_a_405_in_the_refusal_shape(client: TestClient) -> None:
    response = client.delete("/healthz")
    assert response.status_code == 405
    assert response.json()["error"]["key"] == "server.method_not_allowed"


def test_refusals_speak_traditional_chinese_when_asked(client: TestClient) -> None:
    response = client.get("/nowhere", headers={"accept-language": "zh-Hant"})
    assert response.json()["error"]["text"] == "/nowhere 沒有內容"


def test_every_refusal_status_is_a_4xx_or_503() -> None:
    for key, status in STATUS_BY_KEY.items():
        assert 400 <= status < 500 or status == 503, key
    assert (
        status_for(RuleViolation("CSP-6.6", "caribbean.raise_not_twice_ante", wanted=2, amount=1))
        == 409
    )
    assert status_for(MacauTablesError("server.table_elsewhere", table="x")) == 409


def test_one_json_line_per_request_names_the_user(
    runtime: Runtime, caplog: pytest.LogCaptureFixture
) -> None:
    runtime.settings = runtime.settings.replace(log_requests=True)
    with TestClient(create_app(runtime)) as client:
        headers = login(client, "alice")
        with caplog.at_level(logging.INFO, logger="macau_tables.server.access"):
            client.get("/api/auth/me", headers=headers)
            client.get("/nowhere")
            with client.websocket_connect("/ws/jackpot") as ws:
                ws.receive_json()
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name.endswith(".access")]
    me, nowhere, socket = lines
    assert socket["method"] == "WS" and socket["path"] == "/ws/jackpot"
    assert socket["status"] == 1000
    assert me["method"] == "GET" and me["path"] == "/api/auth/me" and me["status"] == 200
    assert me["user"] == "alice" and me["error"] is None and me["ms"] >= 0
    assert nowhere["status"] == 404 and nowhere["user"] is None
    assert nowhere["error"] == "server.not_found"


# -- settings ---------------------------------------------------------------------------------


def test_settings_come_from_the_file_then_the_environment_then_the_options(
    tmp_path: Path,
) -> None:
    config = tmp_path / "server.toml"
    config.write_text('port = 8100\nhost = "0.0.0.0"\n[server]\ntables = ["bac-1"]\n')
    env = {"MACAU_TABLES_PORT": "8200", "MACAU_TABLES_LEASE_SECONDS": "2.5"}
    s = Settings.load(config, env=env, port=8300, host=None)
    assert (s.host, s.port, s.tables, s.lease_seconds) == ("0.0.0.0", 8300, ("bac-1",), 2.5)
    assert Settings.load(env={"MACAU_TABLES_CONFIG": str(config)}).port == 8100
    assert Settings.load(env={"MACAU_TABLES_TABLES": "bac-1, csp-1"}).tables == ("bac-1", "csp-1")
    assert s.serves("bac-1") and not s.serves("csp-1")


@pytest.mark.parametrize(
    ("text", "env", "key"),
    [
        ("prot = 8000\n", {}, "server.settings_unknown"),
        ('port = "8000"\n', {}, "server.settings_invalid"),
        ("port = -1\n", {}, "server.settings_invalid"),
        ("port = 65536\n", {}, "server.settings_invalid"),
        ("tables = 3\n", {}, "server.settings_invalid"),
        ("", {"MACAU_TABLES_PORT": "eighty"}, "server.settings_invalid"),
        ("", {"MACAU_TABLES_LOG_REQUESTS": "maybe"}, "server.settings_invalid"),
        ("port = \n", {}, "server.settings_file"),
        ('trusted_proxies = ["proxy.internal"]\n', {}, "server.settings_invalid"),
        ('trusted_proxies = ["10.0.0.5/24"]\n', {}, "server.settings_invalid"),
        ("", {"MACAU_TABLES_TRUSTED_PROXIES": "10.0.0.5, *"}, "server.settings_invalid"),
    ],
)
def test_a_bad_setting_is_refused_naming_it(
    tmp_path: Path, text: str, env: dict[str, str], key: str
) -> None:
    config = tmp_path / "server.toml"
    config.write_text(text)
    with pytest.raises(ConfigError) as refused:
        Settings.load(config, env=env)
    assert refused.value.key == key
    where = next(iter(env), None)
    assert str(refused.value.params["path" if key.endswith("file") else "source"]).endswith(
        str(config) if where is None else where
    )


def test_the_documented_example_file_holds_every_setting_at_its_default() -> None:
    example = Path(__file__).parents[2] / "docs" / "server.example.toml"
    assert Settings.load(example, env={}) == Settings()
    documented = (Path(__file__).parents[2] / "docs" / "server.md").read_text(encoding="utf-8")
    for f in dataclasses.fields(Settings):
        assert f"`{f.name}`" in documented, f.name


def test_an_unexpected_error_is_logged_and_answered_without_detail(
    runtime: Runtime, caplog: pytest.LogCaptureFixture
) -> None:
    """The last resort: a bug (never bad input) is a 500 ``server.internal`` saying nothing of
    the exception, and the traceback goes to the log."""
    app = create_app(runtime)

    @app.get("/boom")
    def boom() -> None:
        raise RuntimeError("secret detail")

    with (
        TestClient(app, raise_server_exceptions=False) as client,
        caplog.at_level(logging.ERROR, logger="macau_tables.server"),
    ):
        response = client.get("/boom")
    assert response.status_code == 500
    assert response.json()["error"]["key"] == "server.internal"
    assert "secret" not in response.text
    assert any("secret detail" in (r.exc_text or "") for r in caplog.records)


def test_a_replayed_request_is_counted_once(runtime: Runtime) -> None:
    service = runtime.service("csp-1")
    open_round(service)  # the round cycle's opening, counted as its OpenRound
    for _ in range(2):
        service.submit(PlaceAnte(1, "alice", 1_000), idempotency_key="t-replay", actor="alice")
    assert runtime.counters.snapshot()["accepted"] == {
        ("csp-1", "OpenRound"): 1,
        ("csp-1", "PlaceAnte"): 1,
    }


def test_a_round_left_open_by_a_stop_is_resolved_by_the_next_holder_CSP_11_4(
    runtime: Runtime, store: Store
) -> None:
    """A graceful stop leaves an open round as the store holds it (every request committed on
    its own); whoever serves the table next resolves it by the law as it loads it: a round
    still taking wagers was not being dealt, so CSP-11.4 gives no ground to void it — it
    resumes, its ante in place."""
    service = runtime.service("csp-1")
    open_round(service)
    service.submit(PlaceAnte(1, "alice", 1_000), idempotency_key="t-ante", actor="alice")
    assert service.round is not None and not service.round.is_over
    runtime.stop()
    other = Runtime(server_settings(), store, clock=FakeClock(), owner="next:1:serve")
    other.start()
    try:
        taken = other.service("csp-1")
        assert taken.round is not None and not taken.round.is_over
        assert taken.round.round_id == service.round.round_id
        assert taken.expected() is not None and taken.expected().phase == "betting"
        assert [(b.box, b.player, b.ante) for b in taken.round.in_play] == [(1, "alice", 1_000)]
    finally:
        other.stop()


@pytest.mark.parametrize("every", [100, 0])
def test_the_app_sets_how_often_a_full_garbage_collection_may_come(
    runtime: Runtime, every: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``gc_full_every``: when the app starts, the collector's third threshold (how many middle
    generation collections between two chances of a full one) is the setting's; ``0`` leaves
    Python's."""
    import gc

    before = gc.get_threshold()
    gc.set_threshold(before[0], before[1], 7)
    try:
        monkeypatch.setattr(runtime, "settings", runtime.settings.replace(gc_full_every=every))
        with TestClient(create_app(runtime)):
            pass
        assert gc.get_threshold() == (before[0], before[1], every or 7)
    finally:
        gc.set_threshold(*before)

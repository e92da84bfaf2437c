"""The application's frame (issue 10): health, readiness, metrics, the refusal shape."""

from __future__ import annotations

from fastapi.testclient import TestClient

from macau_tables.server.runtime import Runtime


def test_healthz_answers(client: TestClient) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_readyz_names_the_tables_served(client: TestClient) -> None:
    response = client.get("/readyz")
    assert response.status_code == 200, response.text
    assert response.json()["tables"] == ["bac-1", "bac-live", "csp-1"]


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

"""Schemathesis against the app's own OpenAPI document (issue 10, "Security tests"): requests
generated from the schema, sent in-process (ASGI) anonymously and with the bearer token of
each role, never get a 5xx, and every answer conforms to the document (status code, content
type, body schema). Bounded: a few examples per operation (three valid and two invalid on
purpose, path parameters mostly real ids so the requests reach the tables) and role."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema_rs
import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.python import asgi as schemathesis_asgi
from tests.server.support import login

from macau_tables import codec
from macau_tables.server.analysis_worker import jobs
from macau_tables.server.api_tables import _decode
from macau_tables.server.schemas import ERROR_RESPONSES, client_commands, payload_schema

ROLES = ("alice", "dealer", "supervisor", "admin")
EXAMPLES = 3
"""Valid requests generated per operation (each sent by every caller)."""
INVALID = 2
"""Requests invalid on purpose generated per operation (each sent by every caller)."""
# Path parameters: a real id most of the time (``""``: keep the generated one).
KNOWN = {
    "table_id": st.sampled_from(["bac-1", "bac-live", "csp-1", ""]),
    "meter_id": st.sampled_from(["m-baccarat", "m-caribbean", ""]),
    "name": st.sampled_from(["bruno", ""]),  # not a caller below: disabling them ends tokens
}
CHECKS = [not_a_server_error, content_type_conformance, response_schema_conformance]
# Operations that would end the caller's own session (the other roles' tokens stay valid).
SKIPPED = r"^/api/auth/logout$"


@pytest.fixture(scope="module", autouse=True)
def worker_stopped_after() -> Iterator[None]:
    """At the module's end, the analysis worker the admin's analysis requests started is
    stopped as a server stops it, and Schemathesis's ASGI event-loop thread (kept for the
    process, and its apps' lifespans with it) as it does at exit: their threads would stay in
    this test process, where ``verify --jobs`` then spawns its processes instead of forking
    them (each spawned process imports the package again)."""
    yield
    jobs.shutdown()
    at_exit = getattr(schemathesis_asgi, "_shutdown", None)
    if at_exit is not None:
        at_exit()


@pytest.fixture
def tokens(client: TestClient) -> list[dict[str, str]]:
    return [{}] + [login(client, name) for name in ROLES]


def documented(app: FastAPI) -> frozenset[str]:
    """The paths whose operations all document every refusal (``schemas.ERROR_RESPONSES``) —
    every API route: auth and users, tables, operations, the pages' JSON (``create_app``)."""
    wanted = {str(status) for status in ERROR_RESPONSES}
    return frozenset(
        path
        for path, item in app.openapi()["paths"].items()
        if all(wanted <= set(op.get("responses", {})) for op in item.values())
    )


def _fuzz(operation: Any, tokens: list[dict[str, str]], documented: frozenset[str]) -> None:
    """Send ``operation`` generated requests as each caller — :data:`EXAMPLES` valid ones and
    :data:`INVALID` invalid on purpose (a 4xx), each mode at least once; every answer checked
    (its status too when the route documents its refusals)."""
    checks = CHECKS + [status_code_conformance] * (operation.path in documented)
    takes = [operation.path_parameters, operation.query, operation.headers, operation.body]
    for mode, examples in ((GenerationMode.POSITIVE, EXAMPLES), (GenerationMode.NEGATIVE, INVALID)):
        if mode is GenerationMode.NEGATIVE and not any(takes):
            continue  # nothing to make invalid (``/healthz``, ``/metrics``)

        @given(case=operation.as_strategy(mode), known=st.fixed_dictionaries(KNOWN))
        @settings(
            max_examples=examples,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def fuzz(case: Any, known: dict[str, str]) -> None:
            for name in case.path_parameters or {}:  # mostly real ids, so requests go deep
                if known.get(name):
                    case.path_parameters[name] = known[name]
            for headers in tokens:
                response = case.call(headers=headers)
                case.validate_response(response, checks=checks, headers=headers)

        try:
            fuzz()
        except Exception as exc:
            exc.add_note(f"operation: {operation.label} ({mode.value})")
            raise


def test_no_5xx_and_every_answer_conforms(client: TestClient, tokens: list[dict[str, str]]) -> None:
    schema = schemathesis.openapi.from_asgi("/openapi.json", client.app).exclude(path_regex=SKIPPED)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert any(op.path == "/api/tables/{table_id}/commands" for op in operations)
    checked = documented(client.app)  # type: ignore[arg-type]
    # every API route's status codes are checked (ops: /healthz, /readyz, /metrics are not API)
    assert {op.path for op in operations if op.path.startswith("/api/")} <= checked
    for operation in operations:
        _fuzz(operation, tokens, checked)


@pytest.mark.parametrize("store", ["sqlite"], indirect=True)  # no database is read
def test_every_command_the_schema_allows_the_codec_reads(client: TestClient) -> None:
    """The document and the codec agree: a command body generated from the schema decodes
    (no codec refusal), and the decoded command's encoding satisfies its own schema."""
    schema = schemathesis.openapi.from_asgi("/openapi.json", client.app).include(
        path_regex=r"/commands$"
    )
    (operation,) = [result.ok() for result in schema.get_all_operations()]
    validators = {
        codec.type_name(cls): jsonschema_rs.validator_for(payload_schema(cls))
        for cls in client_commands()
    }
    seen: set[str] = set()

    @given(case=operation.as_strategy(GenerationMode.POSITIVE))
    @settings(
        max_examples=100, deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    def agree(case: Any) -> None:
        body = case.body
        for payload in [body["command"]] if "command" in body else body["commands"]:
            command = _decode(payload, -1)  # the route's own reading (a CodecError fails)
            name = codec.type_name(type(command))
            seen.add(name)
            encoded = codec.encode(command)
            assert validators[name].is_valid(encoded), encoded

    agree()
    assert len(seen) >= len(validators) // 2  # most command types were tried

"""Schemathesis against the app's own OpenAPI document (issue 10, "Security tests"): requests
generated from the schema, sent in-process (ASGI) anonymously and with the bearer token of
each role, never get a 5xx, and every answer conforms to the document (status code, content
type, body schema). Bounded: a few examples per operation (valid and invalid on purpose, path
parameters mostly real ids so the requests reach the tables) and role."""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
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
from tests.server.conftest import login

# One backend is enough to fuzz the HTTP layer (the store is tested on both elsewhere).
pytestmark = pytest.mark.parametrize("store", ["sqlite"], indirect=True)

ROLES = ("alice", "dealer", "supervisor", "admin")
EXAMPLES = 10
# Path parameters: a real id most of the time (``""``: keep the generated one).
KNOWN = {
    "table_id": st.sampled_from(["bac-1", "bac-live", "csp-1", ""]),
    "meter_id": st.sampled_from(["m-baccarat", "m-caribbean", ""]),
    "name": st.sampled_from(["bruno", ""]),  # not a caller below: disabling them ends tokens
}
CHECKS = [not_a_server_error, content_type_conformance, response_schema_conformance]
# Routes whose refusals are all documented (every 4xx they answer is in the document).
DOCUMENTED = "/api/tables"
# Operations that would end the caller's own session (the other roles' tokens stay valid).
SKIPPED = r"^/api/auth/logout$"


@pytest.fixture
def tokens(client: TestClient) -> list[dict[str, str]]:
    return [{}] + [login(client, name) for name in ROLES]


def _fuzz(operation: Any, tokens: list[dict[str, str]]) -> None:
    """Send ``operation`` generated requests as each caller; every answer checked."""
    checks = CHECKS + [status_code_conformance] * operation.path.startswith(DOCUMENTED)
    cases = st.one_of(
        operation.as_strategy(GenerationMode.POSITIVE),
        operation.as_strategy(GenerationMode.NEGATIVE),  # invalid on purpose: a 4xx
    )

    @given(case=cases, known=st.fixed_dictionaries(KNOWN))
    @settings(
        max_examples=EXAMPLES,
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
        exc.add_note(f"operation: {operation.label}")
        raise


def test_no_5xx_and_every_answer_conforms(client: TestClient, tokens: list[dict[str, str]]) -> None:
    schema = schemathesis.openapi.from_asgi("/openapi.json", client.app).exclude(path_regex=SKIPPED)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert any(op.path == "/api/tables/{table_id}/commands" for op in operations)
    for operation in operations:
        _fuzz(operation, tokens)

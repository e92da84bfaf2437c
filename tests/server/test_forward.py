"""The forwarding layer of ``serve --workers`` in process (issue 21, "Serve on both cores"):
which paths name a table, who a lease owner's private socket is, and that a request saying it
was forwarded is believed (its client and scheme) only with the group's secret — a client
cannot claim another address to escape the login throttling or the per-client socket cap.
The end-to-end behaviour (two worker processes) is tests/server/test_workers.py."""

from __future__ import annotations

import asyncio
import socket
from types import SimpleNamespace
from typing import Any

from macau_tables.server.forward import FORWARD_HEADER, Forwarder, table_of
from macau_tables.server.workers import address_of, worker_owner


def test_the_paths_that_name_a_table() -> None:
    assert table_of("/api/tables/bac-1") == "bac-1"
    assert table_of("/api/tables/bac-1/commands") == "bac-1"
    assert table_of("/api/admin/tables/csp-1/config") == "csp-1"
    assert table_of("/ws/tables/bac-live") == "bac-live"
    assert table_of("/tables/bac-1") == "bac-1"
    assert table_of("/dealer/bac-1") == "bac-1"
    assert table_of("/api/tables") is None
    assert table_of("/api/wallets/me") is None
    assert table_of("/ws/jackpot") is None


def test_a_workers_lease_owner_names_its_private_socket_on_this_host_only(tmp_path: Any) -> None:
    path = tmp_path / "worker-0.sock"
    owner = worker_owner(path)
    assert address_of(owner) == str(path)
    assert address_of(f"{socket.gethostname()}:123:serve") is None  # a single serve
    assert address_of(owner.replace(socket.gethostname(), "elsewhere", 1)) is None


class _Runtime:
    settings = SimpleNamespace(body_limit_bytes=1024)

    def serves_now(self, table_id: str) -> bool:
        return True

    def holder(self, table_id: str) -> str | None:
        return None


def _seen(headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
    """The scope the app behind the forwarder sees for a request with ``headers``."""
    seen: dict[str, Any] = {}

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen.update(scope)

    forwarder = Forwarder(app, _Runtime(), "s3cret")  # type: ignore[arg-type]
    scope = {
        "type": "http",
        "method": "GET",
        "path": "/api/auth/me",
        "scheme": "http",
        "client": ("10.0.0.9", 5555),
        "headers": headers,
    }

    async def nothing() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    async def ignore(message: Any) -> None:
        return None

    asyncio.run(forwarder(scope, nothing, ignore))
    return seen


def test_a_forwarded_request_is_believed_only_with_the_groups_secret() -> None:
    claims = [(b"x-macau-client", b"1.2.3.4:80"), (b"x-macau-scheme", b"https")]
    believed = _seen([(FORWARD_HEADER, b"s3cret"), *claims, (b"accept", b"*/*")])
    assert believed["client"] == ("1.2.3.4", 80) and believed["scheme"] == "https"
    assert believed["headers"] == [(b"accept", b"*/*")]  # our headers go no further

    for forged in ([(FORWARD_HEADER, b"guess"), *claims], claims):
        scope = _seen(forged)
        assert scope["client"] == ("10.0.0.9", 5555) and scope["scheme"] == "http"
        assert scope["headers"] == []

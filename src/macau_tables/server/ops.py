"""Health and metrics: ``/healthz``, ``/readyz``, ``/metrics``; the request log.

* ``GET /healthz`` — the process answers: ``200 {"status": "ok"}``.
* ``GET /readyz`` — ``200 {"status": "ready", "tables": [...], "elsewhere": {...}}`` when the
  store is reachable with its schema current (``store.check()``) and this process serves at
  least one table; else ``503 {"status": "not ready", "problems": [keys]}`` (a load balancer
  stops sending it requests).
* ``GET /metrics`` — Prometheus text: commands accepted (per table and command) and refused
  (per table and message key), rounds settled, events recorded per type (bets are the wager
  events), each meter's amount (minor units, updated on every committed change of any process:
  ``LISTEN/NOTIFY`` on PostgreSQL), the tables served, and the request latency histogram (per
  method and route).

:class:`RequestLog` is the ASGI middleware writing one JSON line per request on the
``macau_tables.server.access`` logger — ``method``, ``path``, ``status``, ``ms``, ``user`` (the
principal the auth dependency put on ``request.state.principal``, else ``null``) and ``error``
(the refusal's message key) — and observing the latency histogram; and one line per WebSocket
when it ends (``method`` ``"WS"``, ``status`` its close code, ``ms`` how long it was open); a
command sent on a table socket writes its own (``"WS-COMMAND"``, :mod:`.socket_commands`).
:class:`BodyLimit` refuses a body larger than ``settings.body_limit_bytes`` (413
``server.body_too_large``).

All three routes are public: a load balancer and a Prometheus scraper carry no credentials.
They say nothing a player could use (no card, no wallet).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from typing import Any

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import MacauTablesError
from . import auth
from .errors import error_body, language_of
from .runtime import Runtime, RuntimeDep

__all__ = ["BodyLimit", "Metrics", "RequestLog", "router"]

access_log = logging.getLogger("macau_tables.server.access")

router = APIRouter(tags=["operations"], dependencies=[Depends(auth.public)])


@router.get("/healthz", summary="The process is alive")
def healthz() -> dict[str, str]:
    """``{"status": "ok"}`` while the process answers."""
    return {"status": "ok"}


@router.get("/readyz", summary="The store is reachable and current, tables are served")
def readyz(runtime: RuntimeDep) -> JSONResponse:
    """200 when ready (module docstring), else 503 with the problems' keys."""
    problems = runtime.ready()
    if problems:
        return JSONResponse(
            {"status": "not ready", "problems": problems, "elsewhere": runtime.elsewhere()},
            status_code=503,
        )
    return JSONResponse(
        {"status": "ready", "tables": runtime.table_ids(), "elsewhere": runtime.elsewhere()}
    )


@router.get("/metrics", summary="Prometheus metrics", response_class=Response)
def metrics(request: Request) -> Response:
    """The Prometheus text exposition of this process's metrics."""
    registry: CollectorRegistry = request.app.state.metrics.registry
    return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)


class _RuntimeCollector(Collector):
    """Reads the runtime's counters and meters at every scrape."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    def collect(self) -> Iterator[Any]:
        counts = self.runtime.counters.snapshot()
        accepted = CounterMetricFamily(
            "macau_tables_commands_accepted",
            "Commands the tables accepted",
            labels=["table", "command"],
        )
        for (table, command), n in sorted(counts["accepted"].items()):
            accepted.add_metric([table, command], n)
        refused = CounterMetricFamily(
            "macau_tables_commands_refused",
            "Commands the tables refused, by message key",
            labels=["table", "key"],
        )
        for (table, key), n in sorted(counts["refused"].items()):
            refused.add_metric([table, key], n)
        settled = CounterMetricFamily(
            "macau_tables_rounds_settled", "Rounds settled", labels=["table"]
        )
        for table, n in sorted(counts["settled"].items()):
            settled.add_metric([table], n)
        events = CounterMetricFamily(
            "macau_tables_events",
            "Events recorded, by type (bets: the wager events)",
            labels=["table", "event"],
        )
        for (table, event), n in sorted(counts["events"].items()):
            events.add_metric([table, event], n)
        meters = GaugeMetricFamily(
            "macau_tables_meter_amount",
            "A linked progressive meter's amount, in minor units",
            labels=["meter"],
        )
        for meter, amount in sorted(self.runtime.meters().items()):
            meters.add_metric([meter], amount)
        served = GaugeMetricFamily(
            "macau_tables_table_served",
            "1 for a table this process serves, 0 for one served elsewhere",
            labels=["table"],
        )
        for table in self.runtime.table_ids():
            served.add_metric([table], 1)
        for table in sorted(self.runtime.elsewhere()):
            served.add_metric([table], 0)
        yield from (accepted, refused, settled, events, meters, served)


class Metrics:
    """One app's metrics: its own registry (several apps in one process never mix)."""

    def __init__(self, runtime: Runtime) -> None:
        self.registry = CollectorRegistry()
        self.registry.register(_RuntimeCollector(runtime))
        self.latency = Histogram(
            "macau_tables_request_seconds",
            "Request latency, by method and route",
            ["method", "route", "status"],
            registry=self.registry,
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
        )


def _route_of(scope: Scope) -> str:
    route = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) else "-"


class RequestLog:
    """ASGI middleware: one JSON line per HTTP request, and the latency histogram."""

    def __init__(self, app: ASGIApp, metrics: Metrics, *, log_requests: bool = True) -> None:
        self.app = app
        self.metrics = metrics
        self.log_requests = log_requests

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            seconds = time.perf_counter() - start
            route = _route_of(scope)
            self.metrics.latency.labels(scope["method"], route, str(status)).observe(seconds)
            self._log(scope, scope["method"], status, seconds)

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A WebSocket's line when it ends: ``method`` ``"WS"``, ``status`` the close code
        (1000 normal; 1006 when it ended without a close), ``ms`` how long it was open."""
        start = time.perf_counter()
        code: int | None = None

        async def sending(message: Message) -> None:
            nonlocal code
            if message["type"] == "websocket.close" and code is None:
                code = int(message.get("code", 1000))
            elif message["type"] == "websocket.http.response.start" and code is None:
                code = int(message["status"])
            await send(message)

        async def receiving() -> Message:
            nonlocal code
            message = await receive()
            if message["type"] == "websocket.disconnect" and code is None:
                code = int(message.get("code", 1000))
            return message

        try:
            await self.app(scope, receiving, sending)
        finally:
            self._log(scope, "WS", 1006 if code is None else code, time.perf_counter() - start)

    def _log(self, scope: Scope, method: str, status: int, seconds: float) -> None:
        if not self.log_requests:
            return
        state = scope.get("state") or {}
        principal = state.get("principal")
        access_log.info(
            json.dumps(
                {
                    "method": method,
                    "path": scope["path"],
                    "status": status,
                    "ms": round(seconds * 1000, 2),
                    "user": getattr(principal, "name", None),
                    "error": state.get("error_key"),
                },
                separators=(",", ":"),
            )
        )


class BodyLimit:
    """ASGI middleware: refuse a request body over ``limit`` bytes (413), by its declared
    length or, without one, as it arrives."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await self._refuse(scope, send)
            return
        seen = 0
        too_large = False

        async def receiving() -> Message:
            nonlocal seen, too_large
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    too_large = True
                    raise _TooLarge
            return message

        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receiving, sending)
        except _TooLarge:
            if not started:
                await self._refuse(scope, send)

    async def _refuse(self, scope: Scope, send: Send) -> None:
        err = MacauTablesError("server.body_too_large", limit=self.limit)
        state = scope.setdefault("state", {})
        state["error_key"] = err.key
        body = json.dumps(error_body(err, language_of(HTTPConnection(scope)))).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


class _TooLarge(Exception):
    pass

"""The application factory: :func:`create_app` ``(runtime) -> FastAPI``.

The app serves one :class:`~.runtime.Runtime` (``app.state.runtime``; routers reach it with
:func:`~.runtime.get_runtime`). It includes the routers of :mod:`.auth` (``/api/auth/…``),
:mod:`.api_tables` and :mod:`.api_admin` (``/api/…``), :mod:`.streams` (``/ws/…``) and
:mod:`.ops` (``/healthz``, ``/readyz``, ``/metrics``); answers every refusal as 4xx JSON
(:mod:`.errors`); logs one JSON line per request and measures its latency
(:class:`.ops.RequestLog`); refuses oversized bodies (:class:`.ops.BodyLimit`).

The routes are made once per process (:func:`_routes`) and shared by every app it creates:
FastAPI analyses an included router's routes (each parameter's model, each dependency) for
each app on its first request, ~100 ms of CPU that a process serving one app pays once and a
process creating an app per test paid per test. No route holds the app or its runtime (a
request reaches them through ``request.app``), so a shared route serves each app as its own
did; FastAPI's ``app.dependency_overrides`` does not reach them (nothing here uses it).

The app does not start or stop the runtime: whoever made the runtime owns it (``macau-tables
serve`` starts it before serving and stops it after the last request; a test uses the
``runtime`` fixture). ``create_app(runtime, manage=True)`` ties the runtime's life to the
app's lifespan instead.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from starlette.routing import BaseRoute
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from .. import __version__
from . import api_admin, api_tables, auth, ops, pages, pages_tables, streams
from .errors import install_handlers
from .runtime import Runtime
from .schemas import ERROR_RESPONSES

__all__ = ["create_app", "freeze_startup_objects"]

_FROZEN = threading.Event()
_ROUTES: list[BaseRoute] = []
_ROUTES_MADE = threading.Lock()


def _routes() -> list[BaseRoute]:
    """Every route of the app but FastAPI's own (the OpenAPI document and its viewers): the
    routers of :mod:`.ops`, :mod:`.auth`, :mod:`.api_tables`, :mod:`.api_admin` (each API
    route documenting the refusals it may answer, one shape: ``schemas.ERROR_RESPONSES``),
    :mod:`.streams`, :mod:`.pages` and :mod:`.pages_tables`, in that order, included into an
    app made for that alone once per process (module docstring). The routers have no start-up
    or shut-down work of their own (each app's lifespan is :func:`create_app`'s)."""
    with _ROUTES_MADE:
        if not _ROUTES:
            owner = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)
            owner.include_router(ops.router)
            for api in (auth.router, api_tables.router, api_admin.router):
                owner.include_router(api, responses=ERROR_RESPONSES)
            owner.include_router(streams.router)
            pages.install(owner)
            pages_tables.install(owner)
            if owner.router.on_startup or owner.router.on_shutdown:
                raise RuntimeError("a router's start-up or shut-down work would be lost")
            _ROUTES.extend(owner.router.routes)
        return _ROUTES


def freeze_startup_objects() -> bool:
    """Move every object alive now (the app, its routes and schemas, the tables' services)
    out of the cyclic garbage collector's sight (``gc.freeze``, after a collection), once per
    process: a full collection then scans only what was made since — milliseconds, not the
    ~150 ms pause (every request stalled) of scanning the ~180,000 objects of a started
    server. Returns whether this call froze them."""
    if _FROZEN.is_set():
        return False
    _FROZEN.set()
    gc.collect()
    gc.freeze()
    return True


def create_app(runtime: Runtime, *, manage: bool = False) -> FastAPI:
    """The FastAPI application serving ``runtime`` (module docstring)."""

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if manage:
            runtime.start()
        if runtime.settings.gc_freeze:
            freeze_startup_objects()
        if runtime.settings.gc_full_every > 0:
            young, middle, _full = gc.get_threshold()
            gc.set_threshold(young, middle, runtime.settings.gc_full_every)
        try:
            yield
        finally:
            if manage:
                runtime.stop()

    app = FastAPI(
        title="macau-tables",
        version=__version__,
        summary="Macau Baccarat and Caribbean Stud Poker tables: the round contract over HTTP",
        lifespan=lifespan,
    )
    app.state.runtime = runtime
    app.state.settings = runtime.settings
    metrics = ops.Metrics(runtime)
    app.state.metrics = metrics
    install_handlers(app)
    app.router.routes.extend(_routes())
    # Outermost last: the request log sees the body limit's refusals too.
    app.add_middleware(ops.BodyLimit, limit=runtime.settings.body_limit_bytes)
    app.add_middleware(ops.RequestLog, metrics=metrics, log_requests=runtime.settings.log_requests)
    if runtime.settings.trusted_proxies:
        # Outermost: every part of the app (throttling, the socket caps, the request log, the
        # cookies' Secure flag) sees the client and scheme a trusted proxy forwarded.
        app.add_middleware(
            ProxyHeadersMiddleware, trusted_hosts=list(runtime.settings.trusted_proxies)
        )
    return app

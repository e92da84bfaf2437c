"""``macau-tables serve``: the table server on uvicorn.

``macau-tables serve [--host 127.0.0.1] [--port 8000] [--database URL] [--config FILE]
[--tables bac-1,bac-live]`` — the settings of :mod:`macau_tables.server.settings` (TOML file,
``MACAU_TABLES_*`` environment, these options). On start it

0. binds its port (:func:`listen`): a port in use ends it with one line, ``error: … is in use
   already …``, and exit code 2, before anything is printed or created;
1. opens the database, creating or migrating its schema (``db upgrade``);
2. creates the demonstration casino when the database holds none (``casino init``);
3. on the first start (no user yet), creates the one-time users — admin, supervisor, dealer
   and the two first demonstration players (their wallets are theirs) — with random passwords,
   and prints them with the address (only then: a later start says the users exist);
4. serves the tables whose lease it gets (:class:`~macau_tables.server.runtime.Runtime`) until
   SIGINT or SIGTERM: uvicorn stops taking requests and finishes those running, then every
   table's service is closed (its lease released). A round left open stays as the store holds
   it — every request committed on its own — and whoever serves the table next resolves it by
   the law (CSP-11.4, BAC-10).

``--workers N`` (PostgreSQL only): N server processes share the port, the tables spread
among them by lease, each forwarding what names a table another one holds
(:mod:`macau_tables.server.workers`, :mod:`macau_tables.server.forward`).

Logs are JSON lines on standard error (one per request: method, path, status, ms, user).
"""

from __future__ import annotations

import errno
import json
import logging
import os
import re
import signal
import socket
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, Final

import typer

from ..errors import ConfigError
from ..store import Store
from ..store.engine import resolve_url
from .apps import app
from .database import DATABASE_HELP, refusals
from .output import refuse

if TYPE_CHECKING:
    from ..server.settings import Settings

__all__ = ["JsonLines", "listen", "serve"]

log = logging.getLogger("macau_tables.server")

HANDLED: tuple[signal.Signals, ...] = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def _signals_after_uvicorn() -> Iterator[list[int]]:
    """Uvicorn stops on SIGINT / SIGTERM, then raises the signal again for the handler that
    was in place before it: this one records it (the list yielded) instead of ending the
    process, so that the tables are closed and their leases released before it exits."""
    received: list[int] = []

    def record(sig: int, _frame: FrameType | None) -> None:
        received.append(sig)

    before = {sig: signal.signal(sig, record) for sig in HANDLED}
    try:
        yield received
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


# A bearer token given in a URL (``/ws/tables/t?token=…``, as browsers' WebSockets must) is
# a credential: uvicorn's own lines (``"WebSocket /ws/…?token=…" [accepted]``) would write it
# to the log, where anyone reading logs could sign in with it. Its value is replaced.
_SECRET_IN_URL: Final = re.compile(r"([?&](?:token|access_token)=)[^&\s\"']+", re.IGNORECASE)


def redact(message: str) -> str:
    """``message`` with the value of every ``token=`` / ``access_token=`` URL parameter
    replaced by ``[redacted]``."""
    if "token=" not in message.lower():
        return message
    return _SECRET_IN_URL.sub(r"\1[redacted]", message)


class JsonLines(logging.Formatter):
    """A log record as one JSON line: ``time``, ``level``, ``logger``, ``message`` — or, for a
    message that is itself a JSON object (the request log), its fields beside them. A token in
    a URL is never written (:func:`redact`)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
        }
        message = redact(record.getMessage())
        parsed: object = None
        if message.startswith("{"):
            try:
                parsed = json.loads(message)
            except ValueError:
                parsed = None
        if isinstance(parsed, dict):
            line.update(parsed)
        else:
            line["message"] = message
        if record.exc_info:
            line["exception"] = redact(self.formatException(record.exc_info))
        return json.dumps(line, ensure_ascii=False, default=str)


def _configure_logging() -> dict[str, object]:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLines())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logging.getLogger(name).handlers[:] = []
        logging.getLogger(name).propagate = True
    return {"version": 1, "disable_existing_loggers": False}


@app.command("serve")
def serve(
    host: str | None = typer.Option(
        None, "--host", help="Address to listen on (default 127.0.0.1; $MACAU_TABLES_HOST)."
    ),
    port: int | None = typer.Option(
        None, "--port", min=0, max=65535, help="Port (default 8000; $MACAU_TABLES_PORT)."
    ),
    database: str | None = typer.Option(None, "--database", help=DATABASE_HELP),
    config: str | None = typer.Option(
        None,
        "--config",
        help="Settings file (TOML; docs/server.example.toml); default $MACAU_TABLES_CONFIG.",
    ),
    tables: str | None = typer.Option(
        None,
        "--tables",
        help="Tables this process serves, comma-separated (default: all; $MACAU_TABLES_TABLES).",
    ),
    workers: int | None = typer.Option(
        None,
        "--workers",
        help="Server processes sharing the port, the tables spread among them by lease "
        "(PostgreSQL only; default 1; $MACAU_TABLES_WORKERS).",
    ),
    worker_index: int | None = typer.Option(None, "--worker-index", hidden=True),
    worker_group: str | None = typer.Option(None, "--worker-group", hidden=True),
    worker_fd: int | None = typer.Option(None, "--worker-fd", hidden=True),
) -> None:
    """Serve the casino's tables over HTTP and WebSockets (docs/server.md)."""
    from ..server.app import create_app
    from ..server.runtime import Runtime, prepare
    from ..server.settings import Settings
    from ..server.workers import check_backend, run_group

    with refusals():
        settings = Settings.load(
            config,
            host=host,
            port=port,
            database=database,
            tables=None if tables is None else [t for t in tables.split(",") if t.strip()],
            workers=workers,
        )
        check_backend(resolve_url(settings.database).get_backend_name(), settings.workers)
    if worker_group is not None and worker_fd is not None:
        with refusals():
            store = Store.open(settings.database)
        _serve_worker(settings, store, Path(worker_group), worker_index or 0, worker_fd)
        return
    # The port first: a busy one is said in one line before anything is printed or created.
    listener = listen(settings.host, settings.port)
    try:
        with refusals():
            store = Store.open(settings.database)
    except BaseException:
        listener.close()
        raise
    try:
        with refusals():
            runtime = Runtime(settings, store)  # (a bad audit_sign_key is refused here)
            first = prepare(store, users=settings.demo_users)
        address = _address(settings.host, listener.getsockname()[1])
        typer.echo(f"macau-tables serving {store.url} at {address}")
        if first.created_casino:
            ids = store.read(lambda tx: sorted(t.table_id for t in tx.tables()))
            typer.echo(f"Demonstration casino created (tables {', '.join(ids)}).")
        if first.users:
            typer.echo("")
            typer.echo("One-time credentials (shown only now; keep them safe):")
            for name, role, password in first.users:
                typer.echo(f"  {role:<10} {name:<10} {password}")
            typer.echo("")
            typer.echo(
                f"Pages: open {address}/ in a browser and sign in "
                f"(jackpot display: {address}/jackpot)."
            )
            typer.echo(
                f'API: POST {address}/api/auth/token {{"name", "password"}} gives a bearer token.'
            )
        else:
            typer.echo("Users exist already (their credentials were printed on the first start).")
        sys.stdout.flush()
        log_config = _configure_logging()
        if settings.workers > 1:
            argv = ["serve", *_given(host, port, database, config, tables, settings.workers)]
            typer.echo(f"{settings.workers} workers (docs/server.md, 'Several workers')")
            sys.stdout.flush()
            listener.close()  # run_group binds the workers' shared socket itself
            try:
                code = run_group(settings.host, settings.port, settings.workers, argv)
            except OSError as exc:  # taken between the check and the group's bind
                raise _cannot_listen(settings.host, settings.port, exc) from None
            log.info("stopped: every worker")
            raise typer.Exit(code)
        with refusals():
            runtime.start()
        try:
            _run_uvicorn(create_app(runtime), settings, log_config, [listener])
        finally:
            runtime.stop()
            log.info("stopped: every table released")
    finally:
        listener.close()
        store.close()


def _address(host: str, port: int) -> str:
    """The address people open, e.g. ``http://127.0.0.1:8000`` (``[::1]`` for IPv6)."""
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _cannot_listen(host: str, port: int, exc: OSError) -> typer.Exit:
    """``error: http://HOST:PORT is in use already …`` (or why else it cannot be listened on),
    one line on stderr; the exit (code 2) for the caller to raise."""
    address = _address(host, port)
    if exc.errno == errno.EADDRINUSE:
        return refuse(ConfigError("cli.port_in_use", address=address))
    reason = exc.strerror or str(exc)
    return refuse(ConfigError("cli.cannot_listen", address=address, reason=reason))


def listen(host: str, port: int) -> socket.socket:
    """The server's listening socket, bound to ``host:port`` (``SO_REUSEADDR``, as uvicorn
    binds) before ``serve`` prints or creates anything; uvicorn serves on this very socket, so
    no other process can take the port between the check and the serving.

    A port in use (another server) ends the command with one line, ``error: http://HOST:PORT
    is in use already …: choose another port with --port …`` and exit code 2; an address that
    cannot be listened on otherwise (not this machine's, a port below 1024) the same way."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        return socket.create_server((host, port), family=family, backlog=2048)
    except OSError as exc:
        raise _cannot_listen(host, port, exc) from None


def _uvicorn_config(app: Any, settings: Settings, log_config: dict[str, object]) -> Any:
    import uvicorn

    return uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_config=log_config,
        access_log=False,
        timeout_graceful_shutdown=5,
        ws_max_size=settings.body_limit_bytes,
        # Views are small and sent on loopback or a casino's LAN: compressing each
        # message for hundreds of sockets costs the event loop more than it saves.
        ws_per_message_deflate=False,
        # The app believes forwarded headers from `trusted_proxies` only (its own
        # middleware, create_app); uvicorn's would trust 127.0.0.1 by default.
        proxy_headers=False,
    )


def _run_uvicorn(
    app: Any,
    settings: Settings,
    log_config: dict[str, object],
    sockets: list[socket.socket] | None = None,
) -> None:
    import uvicorn

    server = uvicorn.Server(_uvicorn_config(app, settings, log_config))
    with _signals_after_uvicorn() as received:
        server.run(sockets=sockets)
    if received:
        log.info("stopping on %s", signal.Signals(received[0]).name)


def _given(
    host: str | None,
    port: int | None,
    database: str | None,
    config: str | None,
    tables: str | None,
    workers: int,
) -> list[str]:
    """The options a worker is started with: those given to the parent (the environment is
    inherited), and the count."""
    given = {"--host": host, "--port": port, "--database": database, "--config": config}
    given["--tables"] = tables
    argv = [p for name, value in given.items() if value is not None for p in (name, str(value))]
    return [*argv, "--workers", str(workers)]


def _serve_worker(settings: Settings, store: Store, group: Path, index: int, fd: int) -> None:
    """One worker of ``serve --workers`` (:mod:`macau_tables.server.workers`): the parent
    prepared the database; this process serves its share of the tables on the inherited
    socket and forwards the rest to their holders."""
    from ..server.app import create_app
    from ..server.forward import Forwarder
    from ..server.runtime import Runtime
    from ..server.workers import read_secret, watch_parent, worker_owner, worker_sockets

    parent = os.getppid()
    try:
        log_config = _configure_logging()
        shared, private, path = worker_sockets(fd, group, index)
        with refusals():
            runtime = Runtime(settings, store, owner=worker_owner(path), worker=index)
            runtime.start()
        try:
            app = create_app(runtime)
            app.add_middleware(Forwarder, runtime=runtime, secret=read_secret(group))
            watch_parent(parent)
            log.info("worker %d serving %s", index, ",".join(runtime.table_ids()) or "no table yet")
            _run_uvicorn(app, settings, log_config, [shared, private])
        finally:
            runtime.stop()
            path.unlink(missing_ok=True)
            log.info("worker %d stopped: its tables released", index)
    finally:
        store.close()

"""``serve --workers N``: several server processes on one machine, one port, one PostgreSQL.

The parent process (:func:`run_group`) prepares the database once (schema, demonstration
casino, one-time users: ``serve``'s first start), binds the listening socket and starts N
workers, each ``macau-tables serve`` again with the inherited socket and the group's private
directory (a fresh ``0700`` temporary directory holding the group's secret). Then it only
waits: SIGINT or SIGTERM is passed to every worker, which stops as a single ``serve`` does
(its tables' leases released); a worker that dies is not started again — the others take its
tables once their leases run out (``lease_seconds``; :meth:`.runtime.Runtime._within_share`).

Each worker (:func:`worker_sockets`) accepts on the shared socket (the kernel hands each new
connection to one of them) and on its own private Unix socket in the group's directory, whose
path is part of its lease owner's name (:func:`worker_owner`: ``"<host>:<pid>:serve@unix:
<path>"``), so the store says where every table is served. A worker takes its share of the
tables (the configured tables over N, rounded up) and forwards a request or socket for a table
another worker holds to it (:mod:`.forward`).

SQLite is served by one process: it has one writer, and every worker's commits would queue on
its lock (``server.workers_sqlite``).
"""

from __future__ import annotations

import logging
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import Final

from ..errors import ConfigError
from ..tables.links import default_owner

__all__ = [
    "address_of",
    "check_backend",
    "read_secret",
    "run_group",
    "watch_parent",
    "worker_owner",
    "worker_sockets",
]

log = logging.getLogger("macau_tables.server")

_MARK: Final = "@unix:"
SECRET_FILE: Final = "secret"


def check_backend(dialect: str, workers: int) -> None:
    """Refuse several workers on anything but PostgreSQL (``server.workers_sqlite``), and a
    count below one (``server.settings_invalid``)."""
    if workers < 1:
        raise ConfigError(
            "server.settings_invalid", name="workers", source="--workers", value=str(workers)
        )
    if workers > 1 and dialect != "postgresql":
        raise ConfigError("server.workers_sqlite", workers=workers, dialect=dialect)


def worker_owner(private: Path) -> str:
    """The lease owner's name of the worker reached at the Unix socket ``private``."""
    return f"{default_owner('serve')}{_MARK}{private}"


def address_of(owner: str) -> str | None:
    """The private socket's path of a lease owner named by :func:`worker_owner` on this host;
    ``None`` for any other owner (a single ``serve``, another host's process)."""
    name, mark, path = owner.partition(_MARK)
    if not mark or not path or name.partition(":")[0] != socket.gethostname():
        return None
    return path


def read_secret(group: Path) -> str:
    """The group's secret (forwarded requests carry it)."""
    return (group / SECRET_FILE).read_text(encoding="ascii").strip()


def worker_sockets(fd: int, group: Path, index: int) -> tuple[socket.socket, socket.socket, Path]:
    """The shared listening socket (inherited as ``fd``) and this worker's private Unix socket
    (listening, only its user may connect), with the private socket's path."""
    shared = socket.socket(fileno=fd)
    path = group / f"worker-{index}.sock"
    path.unlink(missing_ok=True)
    private = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    private.bind(str(path))
    os.chmod(path, 0o600)
    private.listen(2048)
    return shared, private, path


def watch_parent(parent: int, every: float = 1.0) -> None:
    """Stop this worker (SIGTERM to itself) when the process that started it is gone: a
    group whose parent was killed does not go on serving without it."""

    def watch() -> None:
        while True:
            threading.Event().wait(every)
            if os.getppid() != parent:
                os.kill(os.getpid(), signal.SIGTERM)
                return

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


def run_group(host: str, port: int, workers: int, argv: Sequence[str]) -> int:
    """Start ``workers`` workers — each ``macau-tables serve`` with ``argv`` and the group's
    hidden options — on a socket bound to ``host:port``, and wait for them (module
    docstring). Returns 0 when every worker stopped cleanly after a signal, else 1."""
    group = Path(tempfile.mkdtemp(prefix="macau-tables-workers-"))
    (group / SECRET_FILE).write_text(secrets.token_hex(32), encoding="ascii")
    os.chmod(group / SECRET_FILE, 0o600)
    listener = socket.create_server((host, port), backlog=2048)
    listener.set_inheritable(True)
    children: dict[int, tuple[int, subprocess.Popen[bytes]]] = {}
    received: list[int] = []

    def forward(sig: int, _frame: FrameType | None) -> None:
        received.append(sig)
        for _, child in children.values():
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)

    before = {sig: signal.signal(sig, forward) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        for index in range(workers):
            command = [
                sys.executable,
                "-c",
                "from macau_tables.cli.app import app; app()",
                *argv,
                "--worker-index",
                str(index),
                "--worker-group",
                str(group),
                "--worker-fd",
                str(listener.fileno()),
            ]
            child = subprocess.Popen(command, pass_fds=(listener.fileno(),), start_new_session=True)
            children[child.pid] = (index, child)
            log.info("worker %d started (pid %d)", index, child.pid)
        listener.close()  # the workers hold it: connections go to them only
        failed = False
        while any(child.poll() is None for _, child in children.values()):
            try:
                pid, status = os.wait()
            except ChildProcessError:
                break
            if pid not in children:
                continue
            index, child = children[pid]
            child.returncode = os.waitstatus_to_exitcode(status)
            if child.returncode != 0 or not received:
                failed = True
                log.warning(
                    "worker %d (pid %d) exited with %d; the others take its tables when their "
                    "leases run out",
                    index,
                    pid,
                    child.returncode,
                )
        return 0 if received and not failed else 1
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
        for _, child in children.values():
            if child.poll() is None:
                child.kill()
                child.wait()
        shutil.rmtree(group, ignore_errors=True)

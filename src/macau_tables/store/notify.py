"""PostgreSQL ``LISTEN``: a thread with its own connection calls back on each notification."""

from __future__ import annotations

import contextlib
import logging
import select
import socket
import threading
from collections.abc import Callable

import psycopg
from sqlalchemy.engine import URL

__all__ = ["parse_payload", "pg_listen"]

log = logging.getLogger(__name__)


def parse_payload(payload: str) -> tuple[str, int] | None:
    """``"<meter_id>:<amount>"`` as ``(meter_id, amount)``; ``None`` for anything else."""
    meter_id, sep, amount = payload.rpartition(":")
    if not sep or not meter_id:
        return None
    try:
        return meter_id, int(amount)
    except ValueError:
        return None


def pg_listen(url: URL, channel: str, callback: Callable[[str, int], None]) -> _PgListener:
    """Start listening on ``channel`` of the database at ``url``; returns the listener (its
    ``close()`` stops the thread and closes the connection). Refuses nothing: an unreachable
    database raises psycopg's ``OperationalError`` at once."""
    conninfo = url.set(drivername="postgresql").render_as_string(hide_password=False)
    return _PgListener(psycopg.connect(conninfo, autocommit=True), channel, callback)


class _PgListener:
    """The listening thread: it sleeps in ``select`` on the connection's socket and on a
    socket pair of its own, reads the notifications when the server sends some, and ends at
    once when :meth:`close` writes to the pair (no polling: a closing store, a runtime's stop,
    does not wait for a poll's interval to run out)."""

    def __init__(
        self,
        connection: psycopg.Connection[tuple[object, ...]],
        channel: str,
        callback: Callable[[str, int], None],
    ) -> None:
        self._connection = connection
        self._callback = callback
        self._stop = threading.Event()
        self._wake, self._woken = socket.socketpair()
        connection.execute(f'LISTEN "{channel}"')
        self._thread = threading.Thread(target=self._loop, name=f"listen-{channel}", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        sources: list[int] = [self._connection.fileno(), self._woken.fileno()]
        while True:
            try:
                # what arrived (during LISTEN too), without waiting: timeout=0 reads once
                for notify in self._connection.notifies(timeout=0):
                    parsed = parse_payload(notify.payload)
                    if parsed is None:
                        continue
                    try:
                        self._callback(*parsed)
                    except Exception:
                        log.exception("meter callback failed")
            except psycopg.Error:
                if not self._stop.is_set():
                    log.exception("meter listener lost its connection")
                return
            if self._stop.is_set():
                return
            # until the server sends something (or closes the connection: the read above
            # then fails) or close() wakes this thread
            try:
                ready, _, _ = select.select(sources, [], [])
            except (OSError, ValueError):  # the connection's socket closed under it
                if not self._stop.is_set():
                    log.exception("meter listener lost its connection")
                return
            if sources[1] in ready:
                return

    @property
    def alive(self) -> bool:
        """Still listening (its connection not lost, not closed)."""
        return self._thread.is_alive()

    def close(self) -> None:
        self._stop.set()
        with contextlib.suppress(OSError):  # closed already
            self._wake.send(b"x")
        self._thread.join(timeout=5)
        self._connection.close()
        self._wake.close()
        self._woken.close()

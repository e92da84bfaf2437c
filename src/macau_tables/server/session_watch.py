"""Whether the sessions of a process's open table sockets still stand: one read for all of them.

A table socket signed in with a session or token is closed (4401) once that session no longer
stands — its user signed out or was disabled, on any server process (:mod:`.streams`). Asking
the store per socket would cost a thousand reads an interval for a thousand players; instead
one :class:`SessionWatch` per runtime (process) holds the sessions of every open table socket
and, every ``session_check_seconds``, asks the store about all of them in ONE read
(:func:`.auth.session_refusals`, :func:`macau_tables.store.users_ops.sessions`: one statement
and one parameter, however many sessions), then tells each socket whose session no longer stands
(its ``on_refused(refusal)``, called from the watch's thread: the socket hands it to its own
event loop).

The watch runs in a thread of its own while at least one socket is watched (it ends with the
last one and starts again with the next). A check the store cannot answer (unreachable) is
logged and tried again at the next interval: a moment without the database closes nobody.
``session_check_seconds = 0`` checks nothing (only the expiry closes a socket, by its clock).

A socket's command checks its session as a REST request looks its token up, but in the very
transaction that commits the command (:meth:`SessionWatch.guard`, a
:class:`~macau_tables.tables.group.Guard`): the commands of a group are checked by one statement
for all their sessions, with no read of their own before it (a read that begins after the
command arrived, as REST's).
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final

from ..errors import MacauTablesError
from ..store import Tx
from ..tables.group import Guard
from . import auth

if TYPE_CHECKING:
    from .runtime import Runtime

__all__ = ["SessionEnded", "SessionWatch", "watch_of"]

log = logging.getLogger("macau_tables.server")

_IDLE_WAIT: Final = 1.0
"""How long the watch waits before reading ``session_check_seconds`` again when it is 0."""

OnRefused = Callable[[MacauTablesError], None]


class SessionEnded(Exception):
    """A command's session no longer stands (:meth:`SessionWatch.guard`): ``refusal`` says
    why (``auth.session_unknown``, ``auth.session_expired``); the socket closes (4401)."""

    def __init__(self, refusal: MacauTablesError) -> None:
        super().__init__(refusal.key)
        self.refusal = refusal


class SessionWatch:
    """The sessions of one process's open table sockets, checked together (module
    docstring)."""

    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime
        self._lock = threading.Lock()
        self._watched: dict[int, tuple[auth.SocketSession, OnRefused]] = {}
        self._ids = itertools.count()
        self._thread: threading.Thread | None = None
        self._wake = threading.Event()

    def watch(self, session: auth.SocketSession, on_refused: OnRefused) -> Callable[[], None]:
        """Check ``session`` with the others from now on; ``on_refused(refusal)`` (from the
        watch's thread, at most once) when it no longer stands. Returns the function that
        stops watching it (the socket closed)."""
        with self._lock:
            number = next(self._ids)
            self._watched[number] = (session, on_refused)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._loop, name="macau-tables-sessions", daemon=True
                )
                self._thread.start()

        def unwatch() -> None:
            with self._lock:
                self._watched.pop(number, None)
                if not self._watched:
                    self._wake.set()  # the thread ends now rather than at its next check

        return unwatch

    def watched(self) -> int:
        """How many sockets are watched."""
        with self._lock:
            return len(self._watched)

    def check(self) -> int:
        """Ask the store about every watched session in one read and tell the sockets of those
        that no longer stand (each is then watched no more). Returns how many were told. A
        store that cannot answer tells nobody (logged; asked again at the next check)."""
        with self._lock:
            watched = list(self._watched.items())
        if not watched:
            return 0
        runtime = self._runtime
        try:
            refusals = auth.session_refusals(
                runtime.store, [session for _, (session, _) in watched], runtime.clock.now
            )
        except MacauTablesError as exc:
            log.warning("session check failed: %s", exc.key)
            return 0
        told = 0
        for (number, (_, on_refused)), refusal in zip(watched, refusals, strict=True):
            if refusal is None:
                continue
            with self._lock:
                if self._watched.pop(number, None) is None:
                    continue  # closed meanwhile
            told += 1
            try:
                on_refused(refusal)
            except Exception:  # one socket's failure must not spare the others
                log.exception("telling a socket its session ended failed")
        return told

    def guard(self, session: auth.SocketSession) -> Guard:
        """What a command sent on ``session``'s socket needs to stand, checked in the
        transaction that commits it (module docstring): refused with :class:`SessionEnded`."""
        return Guard(self._standing, session)

    def _standing(
        self, tx: Tx, sessions: Sequence[auth.SocketSession]
    ) -> list[BaseException | None]:
        """The sessions of a group's commands, in one statement, at the runtime's clock."""
        refusals = auth.sessions_refused(tx, sessions, self._runtime.clock.now())
        return [None if r is None else SessionEnded(r) for r in refusals]

    def _loop(self) -> None:
        while True:
            interval = self._runtime.settings.session_check_seconds
            self._wake.wait(interval if interval > 0 else _IDLE_WAIT)
            self._wake.clear()
            with self._lock:
                if not self._watched:
                    self._thread = None
                    return
            if self._runtime.settings.session_check_seconds > 0:
                self.check()


_watches_lock: Final = threading.Lock()
_ATTRIBUTE: Final = "_macau_tables_session_watch"


def watch_of(runtime: Runtime) -> SessionWatch:
    """The process's watch of ``runtime`` (one per runtime, kept on it: gone with it)."""
    with _watches_lock:
        watch = getattr(runtime, _ATTRIBUTE, None)
        if not isinstance(watch, SessionWatch):
            watch = SessionWatch(runtime)
            setattr(runtime, _ATTRIBUTE, watch)
        return watch

"""A player's commands over the table socket ``/ws/tables/{id}``: the REST contract, acknowledged
on the socket.

A client signed in on a table's socket may send the commands it would ``POST`` to
``/api/tables/{id}/commands`` as messages of the socket:

* ``{"type": "command", "idempotency_key": K, "command": {…}}`` — one command;
* ``{"type": "command", "idempotency_key": K, "commands": [{…}, …]}`` — a bet slip (at most
  32, all accepted or none).

The rest of the message is the REST body (:class:`.api_tables.CommandRequest`), read and run by
the one function REST runs (:func:`.api_tables.read_request`, :func:`.api_tables.run_request`):
the same decoding, authorisation (:func:`.api_tables.authorise`: a player for themselves, a
dealer's command from a dealer or a supervisor, …), idempotency key namespace
(``api:{user}:{K}``: a retry over REST finds the socket's answer and the other way round; the
same key with another request is 409 ``tables.idempotency_mismatch``) and refusals. The server
answers each command with one message:

* ``{"type": "ack", "idempotency_key": K, "result": {…}}`` — the codec's encoding of the
  :class:`~macau_tables.tables.model.Submitted`, as REST answers it; sent only once the command
  is committed (durable);
* ``{"type": "refused", "idempotency_key": K, "status": S, "error": {"key", "params", "text",
  "rule"}}`` — the HTTP status and error REST would answer. A refusal does not close the
  socket, with one exception: a session that no longer stands (signed out, the user disabled:
  ``auth.session_unknown``; expired: ``auth.session_expired``) is refused (401) and the socket
  then closes with 4401, as the session check closes it. A socket of the public (not signed
  in) is refused 401 ``auth.unauthenticated`` and stays open (it watches as before).

``K`` is echoed as sent (``null`` when it was not a text). Each command checks the socket's
session in the store first, as a REST request does: a read that begins after the command
arrived, then the command's own transaction. The commands of the process's sockets that arrive
while such a read is in flight are checked together, in the next read (one statement for all:
:meth:`.session_watch.SessionWatch.now`), so a burst of bets costs a few reads, not one a bet.
The commands of one socket run in the order sent, one at a time, each in a worker
thread (the store is blocking; the event loop never waits for a commit). At most
``websocket_commands`` may be in flight (sent, not answered yet): one more closes the socket with
:data:`CLOSE_FLOOD` (4429, ``streams.too_many_commands``) — a flood costs the other sockets
nothing but its own bounded queue. A client that disconnects while its command runs does not
stop it: the command completes (its thread is not interrupted) and a retry with its key gets
its answer; commands still waiting behind it are not run (never acknowledged either). Messages
not yet sent when a socket closes (an ack among them) are not sent: a retry with the key
answers.

Anything else a client sends still closes the socket (CSP-12: no advice, chat or strategy
channel, :mod:`.streams`); a command message is not relayed to anyone.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

import anyio.to_thread

from ..errors import AuthError, MacauTablesError
from . import auth
from .api_tables import read_request, run_request
from .errors import error_body, for_client, status_for
from .ops import access_log
from .session_watch import watch_of

if TYPE_CHECKING:
    from .runtime import Runtime

__all__ = ["CLOSE_FLOOD", "CLOSE_SIGNED_OUT", "CommandLane", "LaneClose"]

log = logging.getLogger("macau_tables.server")

CLOSE_FLOOD: Final = 4429
"""More than ``websocket_commands`` commands waiting on one socket (a flood)."""
CLOSE_SIGNED_OUT: Final = 4401
"""A command found the socket's session ended (as :data:`.streams.CLOSE_SIGNED_OUT`)."""


class LaneClose(Exception):
    """Close the socket with ``code`` after sending ``first`` (a ``refused`` message, when
    there is one) and ``error``."""

    def __init__(
        self, code: int, error: MacauTablesError, first: dict[str, Any] | None = None
    ) -> None:
        super().__init__(error.key)
        self.code = code
        self.error = error
        self.first = first


class _SessionEnded(Exception):
    def __init__(self, refusal: MacauTablesError) -> None:
        super().__init__(refusal.key)
        self.refusal = refusal


class CommandLane:
    """One socket's commands: taken in the loop (:meth:`take`), run in order, one at a time,
    off the loop (:meth:`run`, the connection's task), each answered through ``send`` (the
    connection's outbox: in the loop)."""

    def __init__(
        self,
        runtime: Runtime,
        table_id: str,
        session: auth.SocketSession | None,
        send: Callable[[dict[str, Any]], None],
        language: str,
    ) -> None:
        self.runtime = runtime
        self.table_id = table_id
        self.session = session
        self.send = send
        self.language = language
        self.limit = max(1, runtime.settings.websocket_commands)
        self.waiting: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.in_flight = 0  # taken and not answered yet (the one running included)

    def take(self, message: dict[str, Any]) -> None:
        """In the loop: queue ``message`` (a ``command`` message) behind the others; a socket
        with ``websocket_commands`` in flight already is closed (:data:`CLOSE_FLOOD`)."""
        if self.in_flight >= self.limit:
            raise LaneClose(
                CLOSE_FLOOD, MacauTablesError("streams.too_many_commands", limit=self.limit)
            )
        self.in_flight += 1
        self.waiting.put_nowait(message)

    async def run(self) -> None:
        """Run the commands as they come, in order, until cancelled (the socket closed) or a
        session that no longer stands closes the socket (:class:`LaneClose`)."""
        while True:
            message = await self.waiting.get()
            try:
                await self._one(message)
            finally:
                self.in_flight -= 1

    async def _one(self, message: dict[str, Any]) -> None:
        started = time.perf_counter()
        answer = await self._answer(message)
        if answer["type"] == "refused":
            status, error = answer["status"], answer["error"]["key"]
        else:
            status, error = 200, None
        self._log(status, error, time.perf_counter() - started)
        self.send(answer)

    def _log(self, status: int, error: str | None, seconds: float) -> None:
        """The command's line in the request log (``log_requests``), as a request's: method
        ``"WS-COMMAND"``, the socket's path, the answer's status, ``ms``, ``user``, ``error``."""
        if not self.runtime.settings.log_requests:
            return
        user = None if self.session is None else self.session.principal.name
        line = {
            "method": "WS-COMMAND",
            "path": f"/ws/tables/{self.table_id}",
            "status": status,
            "ms": round(seconds * 1000, 2),
            "user": user,
            "error": error,
        }
        access_log.info(json.dumps(line, separators=(",", ":")))

    async def _answer(self, message: dict[str, Any]) -> dict[str, Any]:
        sent_key = message.get("idempotency_key")
        key = sent_key if isinstance(sent_key, str) else None
        body = {k: v for k, v in message.items() if k != "type"}
        try:
            # The thread is not interrupted when the socket closes meanwhile: the command
            # completes, its answer kept for a retry with its key.
            result = await anyio.to_thread.run_sync(self._run, body, abandon_on_cancel=True)
        except _SessionEnded as ended:
            refusal = for_client(ended.refusal)
            raise LaneClose(CLOSE_SIGNED_OUT, refusal, self._refused(key, refusal)) from None
        except MacauTablesError as exc:
            return self._refused(key, for_client(exc))
        except Exception:  # a bug: said as REST says it (500, nothing more)
            log.exception("socket command failed at %s", self.table_id)
            refused = self._refused(key, MacauTablesError("server.internal"))
            return {**refused, "status": 500}
        return {"type": "ack", "idempotency_key": key, "result": result}

    def _refused(self, key: str | None, error: MacauTablesError) -> dict[str, Any]:
        return {
            "type": "refused",
            "idempotency_key": key,
            "status": status_for(error),
            **error_body(error, self.language),
        }

    def _run(self, body: dict[str, Any]) -> dict[str, Any]:
        """In a worker thread: who asks (the public: 401), the request read as REST reads it,
        the session checked in the store (as REST looks its token up: with the other commands
        that came meanwhile, :meth:`.session_watch.SessionWatch.now`), then the command run
        (:func:`.api_tables.run_request`)."""
        if self.session is None:
            raise AuthError("auth.unauthenticated")
        request = read_request(body)
        refusal = watch_of(self.runtime).now(self.session)
        if refusal is not None:
            raise _SessionEnded(refusal)
        return run_request(self.runtime, self.table_id, self.session.principal, request)

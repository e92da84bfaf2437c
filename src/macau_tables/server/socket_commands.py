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
session in the store, as a REST request does, in the transaction that commits it (a read that
begins after the command arrived: :meth:`.session_watch.SessionWatch.guard`): the commands
committed together are checked together, by one statement, so a burst of bets costs no session
read of its own.

The commands of one socket run in the order sent, one at a time. The event loop never waits
for a commit, and no thread waits for a command: the loop reads and checks it (as REST), hands
it to its table's group commit (:meth:`~macau_tables.tables.service.TableService.submit_later`)
and sends its answer when the committing thread says it is durable — a burst of bets costs a
hand-over a group, not a thread a bet. A supervisor's command (recorded in the audit log after
it) and a table not served here now (its refusal needs a read) run in a worker thread instead.
At most ``websocket_commands`` may be in flight (sent, not answered yet): one more closes the
socket with :data:`CLOSE_FLOOD` (4429, ``streams.too_many_commands``) — a flood costs the
other sockets nothing but its own bounded queue. A client that disconnects while its command
runs does not stop it: the command completes (neither its commit nor its thread is
interrupted) and a retry with its key gets its answer; commands still waiting behind it are
not run (never acknowledged either). Messages not yet sent when a socket closes (an ack among
them) are not sent: a retry with the key answers.

Anything else a client sends still closes the socket (CSP-12: no advice, chat or strategy
channel, :mod:`.streams`); a command message is not relayed to anyone.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

import anyio.to_thread

from .. import codec
from ..errors import AuthError, MacauTablesError
from ..rounds import Issuer
from ..tables.model import Submitted
from . import auth
from .api_tables import prepare_request, read_request, run_request
from .errors import error_body, for_client, status_for
from .ops import access_log
from .session_watch import SessionEnded, watch_of

if TYPE_CHECKING:
    from .runtime import Runtime

__all__ = ["CLOSE_FLOOD", "CLOSE_SIGNED_OUT", "CommandLane", "LaneClose"]

log = logging.getLogger("macau_tables.server")

CLOSE_FLOOD: Final = 4429
"""More than ``websocket_commands`` commands waiting on one socket (a flood)."""
CLOSE_SIGNED_OUT: Final = 4401
"""A command found the socket's session ended (as :data:`.streams.CLOSE_SIGNED_OUT`)."""


def _settle(answer: asyncio.Future[Submitted], outcome: Submitted | BaseException) -> None:
    """In the loop: a command's answer, unless its socket closed meanwhile."""
    if answer.done():
        return
    if isinstance(outcome, BaseException):
        answer.set_exception(outcome)
    else:
        answer.set_result(outcome)


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
            # Neither the commit nor a thread is interrupted when the socket closes meanwhile:
            # the command completes, its answer kept for a retry with its key.
            result = await self._later(body)
            if result is None:
                result = await anyio.to_thread.run_sync(self._run, body, abandon_on_cancel=True)
        except SessionEnded as ended:
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

    async def _later(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """In the loop: the request read and checked as REST reads it
        (:func:`.api_tables.prepare_request`, which reads nothing), then handed to its table's
        group commit with no thread waiting for it (:meth:`TableService.submit_later`, the
        session checked in the transaction that commits it); its answer once durable.
        ``None``, with nothing run, for a request that needs a worker thread (:meth:`_run`):
        a supervisor's command (recorded in the audit log after it), a table not served here
        now (the refusal needs a read), one off the group commit's path."""
        if self.session is None:
            raise AuthError("auth.unauthenticated")
        principal = self.session.principal
        request = read_request(body)
        commands, issuers, key = prepare_request(principal, request)
        service = self.runtime.served(self.table_id)
        if service is None or Issuer.SUPERVISOR in issuers:
            return None
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[Submitted] = loop.create_future()

        def answered(outcome: Submitted | BaseException) -> None:  # the committing thread
            with contextlib.suppress(RuntimeError):  # the loop closed: a retry gets it
                loop.call_soon_threadsafe(_settle, answer, outcome)

        queued = service.submit_later(
            commands,
            idempotency_key=key,
            actor=principal.name,
            answered=answered,
            guard=watch_of(self.runtime).guard(self.session),
            slip=request.commands is not None,
        )
        if not queued:
            return None
        return codec.encode(await answer)

    def _run(self, body: dict[str, Any]) -> dict[str, Any]:
        """In a worker thread: who asks (the public: 401), the request read as REST reads it,
        then the command run (:func:`.api_tables.run_request`) with the session checked in the
        store in its transaction (as REST looks its token up: with the other commands committed
        together, :meth:`.session_watch.SessionWatch.guard`)."""
        if self.session is None:
            raise AuthError("auth.unauthenticated")
        request = read_request(body)
        guard = watch_of(self.runtime).guard(self.session)
        return run_request(self.runtime, self.table_id, self.session.principal, request, guard)

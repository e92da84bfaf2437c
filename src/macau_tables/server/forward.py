"""A request or socket for a table another worker holds, forwarded to that worker.

``serve --workers N`` (:mod:`.workers`) runs N processes on one port; each serves the tables
whose lease it holds. :class:`Forwarder` is the outermost layer of each worker's app: a request
whose path names a table (``/api/tables/{id}…``, ``/api/admin/tables/{id}…``, ``/ws/tables/{id}``,
the pages ``/tables/{id}`` and ``/dealer/{id}``) that this process does not serve, while another
worker holds its lease, goes to that worker over the private local socket recorded with the
lease (:func:`.workers.address_of` the lease's owner):

* HTTP: the request (method, path, query, headers, body — streamed) is sent as is and the
  answer (status, headers, body) comes back as is: one extra local hop, nothing parsed;
* WebSocket: a socket is opened to the holder with the client's credentials (cookie,
  ``?token=``, ``Sec-WebSocket-Protocol``, ``Origin``); once it is up, the client's socket is
  accepted with the subprotocol the holder chose and every frame is relayed both ways; the
  holder's close (code and reason: 4401, 4409, 1008, …) is the client's.

The holder believes who the client is (its address and scheme: login throttling, the socket
caps, ``Secure`` cookies) from the headers ``x-macau-client`` / ``x-macau-scheme`` only when
the request carries the group's secret (``x-macau-forward``; the file only the workers can
read) — a forwarded request is never forwarded again: if the lease moved meanwhile the holder
answers as any process does (409 ``server.table_elsewhere``, close 4409) and the client
tries again. A holder that cannot be reached (it died; the others take its tables when its
lease runs out) leaves the request to this process's app, which answers the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import re
from typing import Final

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from websockets.asyncio.client import ClientConnection, unix_connect
from websockets.exceptions import InvalidHandshake
from websockets.typing import Subprotocol

from .runtime import Runtime
from .workers import address_of

__all__ = ["FORWARD_HEADER", "Forwarder", "table_of"]

log = logging.getLogger(__name__)

FORWARD_HEADER: Final = b"x-macau-forward"
"""The header carrying the worker group's secret on a forwarded request."""
_CLIENT_HEADER: Final = b"x-macau-client"
_SCHEME_HEADER: Final = b"x-macau-scheme"
_OURS: Final = frozenset({FORWARD_HEADER, _CLIENT_HEADER, _SCHEME_HEADER})
_HOP_BY_HOP: Final = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-connection",
        b"te",
        b"trailer",
        b"transfer-encoding",
        b"upgrade",
    }
)
_WS_HEADERS: Final = frozenset(
    {b"cookie", b"authorization", b"accept-language", b"x-forwarded-for", b"x-forwarded-proto"}
)
_TABLE_PATH: Final = re.compile(
    r"^/(?:api/tables|api/admin/tables|ws/tables|tables|dealer)/([^/]+)"
)
_ABNORMAL: Final = frozenset({1005, 1006, 1015})
"""Close codes that say no close frame came: never sent on."""
CLOSE_HOLDER_GONE: Final = 1012
"""The worker holding the table went away while relaying (service restart: reconnect)."""


def table_of(path: str) -> str | None:
    """The table a request's path names, ``None`` for any other path."""
    found = _TABLE_PATH.match(path)
    return None if found is None else found.group(1)


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope["headers"]:
        if key == name:
            return bytes(value)
    return None


class Forwarder:
    """ASGI middleware: forward what names a table another worker holds (module docstring)."""

    def __init__(self, app: ASGIApp, runtime: Runtime, secret: str, *, timeout: float = 60.0):
        self.app = app
        self.runtime = runtime
        self.secret = secret.encode()
        self.timeout = timeout
        self.limit = runtime.settings.body_limit_bytes
        self._pools: dict[str, _Pool] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            if scope["type"] == "lifespan":
                await self._lifespan(scope, receive, send)
                return
            await self.app(scope, receive, send)
            return
        token = _header(scope, FORWARD_HEADER)
        if token is not None or any(k in _OURS for k, _ in scope["headers"]):
            await self.app(self._inbound(scope, token), receive, send)
            return
        table_id = table_of(scope["path"])
        path = None
        if table_id is not None and not self.runtime.serves_now(table_id):
            holder = self.runtime.holder(table_id)
            if holder is None:  # not known yet here (a worker just started): ask the store
                holder = await anyio.to_thread.run_sync(self.runtime.holder_now, table_id)
            path = None if holder is None else address_of(holder)
        if path is None:
            await self.app(scope, receive, send)
        elif scope["type"] == "http":
            await self._http(path, scope, receive, send)
        else:
            await self._websocket(path, scope, receive, send)

    async def _lifespan(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.app(scope, receive, send)
        finally:
            for pool in self._pools.values():
                pool.close()
            self._pools.clear()

    def _inbound(self, scope: Scope, token: bytes | None) -> Scope:
        """A request that says it was forwarded: believed (its client and scheme restored)
        only with the group's secret; our headers are dropped either way."""
        client = _header(scope, _CLIENT_HEADER)
        scheme = _header(scope, _SCHEME_HEADER)
        scope = {**scope, "headers": [(k, v) for k, v in scope["headers"] if k not in _OURS]}
        if token is None or not hmac.compare_digest(token, self.secret):
            return scope
        if client:
            host, _, port = client.decode("latin-1").rpartition(":")
            if host and port.isdigit():
                scope["client"] = (host, int(port))
        if scheme in (b"http", b"https", b"ws", b"wss"):
            scope["scheme"] = scheme.decode()
        return scope

    def _ours(self, scope: Scope) -> list[tuple[bytes, bytes]]:
        client = scope.get("client")
        headers = [(FORWARD_HEADER, self.secret), (_SCHEME_HEADER, scope["scheme"].encode())]
        if client:
            headers.append((_CLIENT_HEADER, f"{client[0]}:{client[1]}".encode()))
        return headers

    def _pool(self, path: str) -> _Pool:
        pool = self._pools.get(path)
        if pool is None:
            pool = self._pools[path] = _Pool(path)
        return pool

    async def _http(self, path: str, scope: Scope, receive: Receive, send: Send) -> None:
        chunks: list[bytes] = []
        size = 0
        while True:  # the body (small: the holder refuses one over body_limit_bytes)
            message = await receive()
            if message["type"] != "http.request":
                return  # the client left
            chunk = message.get("body", b"")
            chunks.append(chunk)
            size += len(chunk)
            if size > self.limit:  # this process's own app refuses it (413)
                await self.app(scope, _replay(chunks, receive, message), send)
                return
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        headers = [
            (k, v)
            for k, v in scope["headers"]
            if k not in _HOP_BY_HOP and k not in _OURS and k != b"content-length"
        ]
        headers += self._ours(scope)
        headers.append((b"content-length", str(len(body)).encode()))
        target = scope.get("raw_path") or scope["path"].encode()
        query = scope.get("query_string", b"")
        head = b"%s %s%s HTTP/1.1\r\n" % (
            scope["method"].encode(),
            target,
            b"?" + query if query else b"",
        )
        head += b"".join(b"%s: %s\r\n" % (k, v) for k, v in headers) + b"\r\n"
        pool = self._pool(path)
        try:
            exchange = await pool.exchange(head + body, scope["method"] == "HEAD", self.timeout)
        except _Unanswered:
            await _plain(send, 502, b"the worker serving this table did not answer")
            return
        except OSError:  # the holder is gone (nothing was sent): as if not forwarded
            await self.app(scope, _replay([body], receive, None), send)
            return
        try:
            await exchange.relay(send)
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError):
            log.warning("forwarding %s to %s failed", scope["path"], path, exc_info=True)
            exchange.discard()
            if not exchange.started:
                await _plain(send, 502, b"the worker serving this table did not answer")
            return
        pool.release(exchange)

    async def _websocket(self, path: str, scope: Scope, receive: Receive, send: Send) -> None:
        host = (_header(scope, b"host") or b"localhost").decode("latin-1")
        query = scope.get("query_string", b"").decode("latin-1")
        uri = f"ws://{host}{scope['path']}" + (f"?{query}" if query else "")
        origin = _header(scope, b"origin")
        extra = [(k.decode(), v.decode("latin-1")) for k, v in scope["headers"] if k in _WS_HEADERS]
        extra += [(k.decode(), v.decode("latin-1")) for k, v in self._ours(scope)]
        protocols = [Subprotocol(p) for p in scope.get("subprotocols") or ()]
        try:
            upstream = await unix_connect(
                path,
                uri,
                origin=None if origin is None else origin.decode("latin-1"),
                subprotocols=protocols or None,
                additional_headers=extra,
                user_agent_header=None,
                compression=None,
                proxy=None,
                ping_interval=None,
                max_size=None,
                open_timeout=5.0,
            )
        except (OSError, InvalidHandshake, TimeoutError, ValueError):
            await self.app(scope, receive, send)  # the holder is gone: as if not forwarded
            return
        try:
            first = await receive()
            if first["type"] != "websocket.connect":
                return
            await send({"type": "websocket.accept", "subprotocol": upstream.subprotocol})
            await _relay(upstream, receive, send)
        finally:
            with contextlib.suppress(Exception):
                await upstream.close()


async def _relay(upstream: ClientConnection, receive: Receive, send: Send) -> None:
    """Frames both ways until either side closes; the holder's close is the client's."""

    async def down() -> None:
        async for data in upstream:
            if isinstance(data, str):
                await send({"type": "websocket.send", "text": data})
            else:
                await send({"type": "websocket.send", "bytes": data})

    async def up() -> None:
        while True:
            message: Message = await receive()
            if message["type"] == "websocket.disconnect":
                return
            if message.get("text") is not None:
                await upstream.send(message["text"])
            elif message.get("bytes") is not None:
                await upstream.send(message["bytes"])

    downward, upward = asyncio.create_task(down()), asyncio.create_task(up())
    done, pending = await asyncio.wait({downward, upward}, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    for task in pending:
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
    if downward not in done:
        return  # the client left (the holder's socket is closed by the caller)
    if not downward.cancelled() and downward.exception() is not None:
        log.debug("relay from the holder ended", exc_info=downward.exception())
    code = upstream.close_code
    reason = upstream.close_reason or ""
    if code is None or code in _ABNORMAL:
        code, reason = CLOSE_HOLDER_GONE, "worker gone"
    with contextlib.suppress(Exception):
        await send({"type": "websocket.close", "code": code, "reason": reason})


def _replay(chunks: list[bytes], receive: Receive, last: Message | None) -> Receive:
    """``receive`` that gives the body already read (``chunks``) again first."""
    queue: list[Message]
    if last is None or not last.get("more_body", False):  # the whole body was read
        queue = [{"type": "http.request", "body": b"".join(chunks), "more_body": False}]
    else:
        queue = [{"type": "http.request", "body": c, "more_body": True} for c in chunks]

    async def replayed() -> Message:
        if queue:
            return queue.pop(0)
        return await receive()

    return replayed


class _Unanswered(Exception):
    """The request reached the holder, its answer did not come back (never sent again)."""


class _Exchange:
    """One forwarded request's answer, read from the holder's connection."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        head_only: bool,
        timeout: float,
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.head_only = head_only
        self.timeout = timeout
        self.started = False
        self.reusable = True
        self.raw: bytes | None = None  # the answer's head, when already read

    async def status_line(self) -> bytes:
        async with asyncio.timeout(self.timeout):
            return await self.reader.readuntil(b"\r\n\r\n")

    async def relay(self, send: Send) -> None:
        """Send the answer (status, headers, body) on as it comes."""
        raw = self.raw if self.raw is not None else await self.status_line()
        lines = raw[:-4].split(b"\r\n")
        status = int(lines[0].split(b" ", 2)[1])
        headers: list[tuple[bytes, bytes]] = []
        length: int | None = None
        chunked = False
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            name, value = name.strip().lower(), value.strip()
            if name == b"content-length":
                length = int(value)
            elif name == b"transfer-encoding":
                chunked = b"chunked" in value.lower()
            elif name == b"connection" and b"close" in value.lower():
                self.reusable = False
            if name not in _HOP_BY_HOP:
                headers.append((name, value))
        no_body = self.head_only or status in (204, 304) or 100 <= status < 200
        self.started = True
        await send({"type": "http.response.start", "status": status, "headers": headers})
        if no_body:
            await send({"type": "http.response.body", "body": b""})
            return
        async with asyncio.timeout(self.timeout):
            if length is not None:
                left = length
                while left > 0:
                    chunk = await self.reader.read(min(left, 1 << 16))
                    if not chunk:
                        raise asyncio.IncompleteReadError(b"", left)
                    left -= len(chunk)
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
            elif chunked:
                while True:
                    size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
                    if size == 0:
                        await self.reader.readuntil(b"\r\n")  # no trailers from uvicorn
                        break
                    chunk = await self.reader.readexactly(size + 2)
                    await send(
                        {"type": "http.response.body", "body": chunk[:-2], "more_body": True}
                    )
            else:  # to the connection's end
                self.reusable = False
                while chunk := await self.reader.read(1 << 16):
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    def discard(self) -> None:
        self.reusable = False
        self.writer.close()


class _Pool:
    """Kept-alive connections to one worker's private socket."""

    KEEP: Final = 64
    IDLE_SECONDS: Final = 2.0
    """A connection idle this long is not used again: the holder (uvicorn) closes idle ones
    after 5 s, and a request must never meet a connection as it closes."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter, float]] = []

    async def exchange(self, request: bytes, head_only: bool, timeout: float) -> _Exchange:
        """Send ``request`` on a kept-alive connection (one the holder closed meanwhile is
        replaced: nothing was read from it) or a new one; the answer's head is read."""
        now = asyncio.get_running_loop().time()
        while self.idle:
            reader, writer, since = self.idle.pop()
            if writer.is_closing() or reader.at_eof() or now - since > self.IDLE_SECONDS:
                writer.close()
                continue
            exchange = _Exchange(reader, writer, head_only, timeout)
            try:
                writer.write(request)
                await writer.drain()
                raw = await exchange.status_line()
            except (ConnectionError, asyncio.IncompleteReadError) as exc:
                writer.close()
                if isinstance(exc, asyncio.IncompleteReadError) and exc.partial:
                    raise _Unanswered from exc  # the holder began to answer: never sent twice
                continue  # closed by the holder as it idled, nothing read: try another
            except TimeoutError as exc:
                writer.close()
                raise _Unanswered from exc
            exchange.raw = raw
            return exchange
        async with asyncio.timeout(5.0):
            reader, writer = await asyncio.open_unix_connection(self.path, limit=1 << 20)
        exchange = _Exchange(reader, writer, head_only, timeout)
        writer.write(request)
        await writer.drain()
        return exchange

    def release(self, exchange: _Exchange) -> None:
        writer = exchange.writer
        if exchange.reusable and len(self.idle) < self.KEEP and not writer.is_closing():
            self.idle.append((exchange.reader, writer, asyncio.get_running_loop().time()))
        else:
            exchange.writer.close()

    def close(self) -> None:
        for _, writer, _ in self.idle:
            writer.close()
        self.idle.clear()


async def _plain(send: Send, status: int, text: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/plain; charset=utf-8")],
        }
    )
    await send({"type": "http.response.body", "body": text})

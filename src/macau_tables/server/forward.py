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
from collections.abc import AsyncIterator
from typing import Final

import httpx
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
        self._clients: dict[str, httpx.AsyncClient] = {}

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
            for client in self._clients.values():
                with contextlib.suppress(Exception):
                    await client.aclose()
            self._clients.clear()

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

    def _client(self, path: str) -> httpx.AsyncClient:
        client = self._clients.get(path)
        if client is None:
            client = httpx.AsyncClient(
                transport=httpx.AsyncHTTPTransport(uds=path),
                timeout=httpx.Timeout(self.timeout, connect=5.0),
                limits=httpx.Limits(max_connections=None, max_keepalive_connections=64),
            )
            self._clients[path] = client
        return client

    async def _http(self, path: str, scope: Scope, receive: Receive, send: Send) -> None:
        headers = [(k, v) for k, v in scope["headers"] if k not in _HOP_BY_HOP and k not in _OURS]
        headers += self._ours(scope)
        query = scope.get("query_string", b"")
        target = scope.get("raw_path") or scope["path"].encode()
        url = "http://worker" + target.decode("latin-1") + ("?" + query.decode() if query else "")
        consumed = False

        async def body() -> AsyncIterator[bytes]:
            nonlocal consumed
            consumed = True
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    return
                yield message.get("body", b"")
                if not message.get("more_body", False):
                    return

        client = self._client(path)
        request = client.build_request(scope["method"], url, headers=headers, content=body())
        try:
            response = await client.send(request, stream=True)
        except httpx.TransportError:
            if consumed:
                log.warning("forwarding %s to %s failed", scope["path"], path, exc_info=True)
                await _plain(send, 502, b"the worker serving this table did not answer")
                return
            await self.app(scope, receive, send)  # the holder is gone: as if not forwarded
            return
        try:
            out = [
                (k.lower(), v)
                for k, v in response.headers.raw
                if k.lower() not in _HOP_BY_HOP and k.lower() != b"content-length"
            ]
            length = response.headers.get("content-length")
            if length is not None:
                out.append((b"content-length", length.encode()))
            status = response.status_code
            await send({"type": "http.response.start", "status": status, "headers": out})
            async for chunk in response.aiter_raw():
                if chunk:
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            await response.aclose()

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


async def _plain(send: Send, status: int, text: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/plain; charset=utf-8")],
        }
    )
    await send({"type": "http.response.body", "body": text})

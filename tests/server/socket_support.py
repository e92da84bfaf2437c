"""Helpers of the tests that talk to a table's socket (``/ws/tables/{id}``): sign in, send a
command message, read its answer, read the closing error.

``Socket`` is starlette's ``WebSocketTestSession`` (``client.websocket_connect(...)``)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from tests.server.support import login

Json = dict[str, Any]
Socket = Any


def token(client: TestClient, name: str) -> str:
    """A bearer token of one-time user ``name``."""
    return login(client, name)["Authorization"].removeprefix("Bearer ")


def wager(player: str, amount: int, kind: str = "banker", number: int = 1) -> Json:
    """A baccarat wager in standing area ``number`` (a virtual table's players stand)."""
    return {
        "type": "baccarat.PlaceWager",
        "player": player,
        "area": {"type": "baccarat.Area", "seated": False, "number": number},
        "kind": kind,
        "amount": amount,
    }


def send_command(
    ws: Socket, key: str, command: Json | None = None, *, commands: list[Json] | None = None
) -> None:
    """Send ``command`` (or the bet slip ``commands``) under idempotency key ``key``."""
    message: Json = {"type": "command", "idempotency_key": key}
    if commands is not None:
        message["commands"] = commands
    else:
        message["command"] = command
    ws.send_json(message)


def answer(ws: Socket, key: str | None) -> tuple[Json, list[Json]]:
    """The ``ack`` or ``refused`` of the command sent under ``key``, with the other messages
    received before it (table views)."""
    before: list[Json] = []
    while True:
        message = ws.receive_json()
        if message["type"] in ("ack", "refused") and message["idempotency_key"] == key:
            return message, before
        assert message["type"] not in ("ack", "refused", "error"), message
        before.append(message)


def view_after(ws: Socket, seq: int, received: list[Json] = ()) -> Json:  # type: ignore[assignment]
    """The first table view of record ``seq`` or later: among ``received`` already (a view may
    come before the command's ack: it is published at the commit), else the next ``ws``
    receives."""
    for message in received:
        if message["type"] == "table" and message["seq"] >= seq:
            return message
    while True:
        message = ws.receive_json()
        if message["type"] == "table" and message["seq"] >= seq:
            return message


def closed(ws: Socket) -> tuple[Json, WebSocketDisconnect, list[Json]]:
    """The error the server sent before it closed ``ws`` (views before it skipped), the close,
    and the messages received before the error."""
    before: list[Json] = []
    while True:
        message = ws.receive_json()
        if message["type"] == "error":
            break
        before.append(message)
    with pytest.raises(WebSocketDisconnect) as close:
        ws.receive_json()
    return message["error"], close.value, before

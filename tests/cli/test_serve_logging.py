"""The server's log lines (issue 10, item 1: structured logs) never carry a credential: a
bearer token given in a WebSocket's URL (``?token=``) is redacted from every line, uvicorn's
own included."""

from __future__ import annotations

import json
import logging

from macau_tables.cli.serve_cli import JsonLines, redact


def _line(message: str, *args: object, name: str = "uvicorn.error") -> dict[str, object]:
    record = logging.LogRecord(name, logging.INFO, __file__, 1, message, args, None)
    parsed = json.loads(JsonLines().format(record))
    assert isinstance(parsed, dict)
    return parsed


def test_a_token_in_a_websocket_url_is_not_written_to_the_log() -> None:
    secret = "mt_4f9c2a-b_Z"
    line = _line(
        '%s - "WebSocket %s" [accepted]',
        "127.0.0.1:50000",
        f"/ws/tables/bac-1?after=12&token={secret}",
    )
    assert secret not in json.dumps(line)
    assert line["message"] == (
        '127.0.0.1:50000 - "WebSocket /ws/tables/bac-1?after=12&token=[redacted]" [accepted]'
    )
    assert line["logger"] == "uvicorn.error"


def test_redact_covers_every_place_and_spelling_of_the_parameter() -> None:
    assert redact("/ws/jackpot?TOKEN=abc") == "/ws/jackpot?TOKEN=[redacted]"
    assert redact("/x?access_token=abc&y=1") == "/x?access_token=[redacted]&y=1"
    assert redact('"GET /x?a=1&token=abc" 200') == '"GET /x?a=1&token=[redacted]" 200'
    assert redact("no secret here: tokens=3") == "no secret here: tokens=3"


def test_an_exception_s_text_is_redacted_too() -> None:
    try:
        raise RuntimeError("while serving /ws/tables/t?token=s3cret")
    except RuntimeError:
        import sys

        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "failed", (), sys.exc_info())
    line = json.loads(JsonLines().format(record))
    assert "s3cret" not in line["exception"]
    assert "token=[redacted]" in line["exception"]

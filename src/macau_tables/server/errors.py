"""Errors as the API answers them: a clear 4xx JSON, never a 500.

Every refusal has one shape::

    {"error": {"key": "tables.table_closed", "params": {...}, "text": "…", "rule": null}}

``key`` is the message key (:mod:`macau_tables.messages`), ``params`` its parameters, ``text``
the sentence in the request's language (:func:`language_of`: the page's language cookie, else
``Accept-Language``; English by default), and
``rule`` the rule id of a :class:`~macau_tables.errors.RuleViolation` (``CSP-6.6``), else ``null``.

:func:`status_for` chooses the HTTP status of a :class:`~macau_tables.errors.MacauTablesError`
from its key (:data:`STATUS_BY_KEY`, exact keys first, then the status named by the
exception's ``http_status`` attribute if it has one) and its class. A module that adds its own
keys registers their status with :func:`register_status` at import time.

A store failure (``store.unavailable``, ``store.database_error``) carries, for the operator, the
database's URL (user, host, port, name) and the driver's message: a client is told only that the
store cannot serve it now (:func:`for_client`: ``server.store_unavailable``,
``server.store_failed``, no parameters), and the whole refusal goes to the server's log.

A request the framework cannot read (malformed JSON, a missing field) is a 422 in the same
shape (``server.invalid_request``: ``where`` the field's place, ``reason`` the framework's
English sentence and ``problem`` its kind, for machines).

The ``text`` a person reads names no JSON path nor class: a refusal about the request's shape
(a storable value the codec refuses, ``core.codec_*``; ``server.invalid_request``;
``api.nul_text``) shows the field in words (:func:`shown`: ``$.card`` reads 牌 / "the card", the
glossary's ``field <name>``), a command's type and an expected type as words, and the framework's
reason by its kind — while ``params`` keep the machine values (``"path": "$.card"``).

Anything else that escapes an endpoint is a bug: it is logged with its traceback and answered
``500`` ``server.internal`` without any detail — the issue's "never 500" is kept by design
(every refusal is a ``MacauTablesError``), and this handler is the last resort that makes a
breach visible without leaking anything.
"""

from __future__ import annotations

import logging
from typing import Any, Final

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import HTTPConnection

from .. import messages
from ..errors import (
    AuthError,
    CodecError,
    ConfigError,
    MacauTablesError,
    ParseError,
    RuleViolation,
    StoreError,
)
from ..messages.terms import TERMS, field_word, term
from . import i18n

__all__ = [
    "STATUS_BY_KEY",
    "error_body",
    "for_client",
    "install_handlers",
    "invalid_request",
    "language_of",
    "register_status",
    "shown",
    "status_for",
]

log = logging.getLogger("macau_tables.server")

STATUS_BY_KEY: Final[dict[str, int]] = {
    # the server's own
    "server.table_unknown": 404,
    "server.table_elsewhere": 409,
    "server.not_found": 404,
    "server.method_not_allowed": 405,
    "server.invalid_request": 422,
    "server.body_too_large": 413,
    "server.store_unavailable": 503,
    "server.store_failed": 503,
    # the table service's
    "tables.leased": 409,
    "tables.unknown_table": 404,
    "tables.idempotency_mismatch": 409,
    "tables.table_closed": 409,
    "tables.stale": 409,
    "tables.meter_unreachable": 503,
    "tables.meter_link_down": 503,
    # the store's
    "store.unknown_table": 404,
    "store.unknown_player": 404,
    "store.unknown_meter": 404,
    "store.unknown_account": 404,
    "store.unavailable": 503,
    "store.retries_exhausted": 503,
    "store.database_error": 503,
    # the ledger's
    "ledger.insufficient_funds": 409,
}
"""The HTTP status of a message key (exact match). Keys not here fall back on their class
(:func:`status_for`)."""


def for_client(exc: MacauTablesError) -> MacauTablesError:
    """What a client is told of refusal ``exc``: ``exc`` itself, except a store failure —
    ``store.unavailable`` (``server.store_unavailable``), ``store.database_error``
    (``server.store_failed``) — whose parameters are the operator's (the database's URL: user,
    host, port, name; the driver's message): it is logged whole (the URL without its password)
    and answered by the client's key alone, without parameters."""
    if exc.key == "store.unavailable":
        told = MacauTablesError("server.store_unavailable")
    elif exc.key == "store.database_error":
        told = MacauTablesError("server.store_failed")
    else:
        return exc
    log.warning("%s (answered %s): %s", exc.key, told.key, exc.message)
    return told


def register_status(key: str, status: int) -> None:
    """Answer refusals with ``key`` with ``status`` (a 4xx; 503 for "try again later")."""
    if not (400 <= status < 500 or status == 503):
        raise ValueError(f"{key}: a refusal's status is a 4xx (or 503), not {status}")
    STATUS_BY_KEY[key] = status


def status_for(exc: MacauTablesError) -> int:
    """The HTTP status of refusal ``exc``: by key (:data:`STATUS_BY_KEY`), by the exception's
    own ``http_status``, then by class — :class:`AuthError` 403 (401 for a missing or expired
    session: keys with ``unauthenticated``, ``session`` or ``token``), a rule of the law 409
    (the command does not fit the round's state: CSP, BAC), a value that cannot be read 422,
    the store 409, anything else 400. Never 500."""
    status = STATUS_BY_KEY.get(exc.key)
    if status is not None:
        return status
    own = getattr(exc, "http_status", None)
    if isinstance(own, int) and 400 <= own < 600:
        return own
    name = exc.key.rpartition(".")[2]
    if name.startswith("unknown_") or name.endswith("_unknown") or name.endswith("not_found"):
        return 404
    if isinstance(exc, AuthError):
        if any(w in exc.key for w in ("unauthenticated", "session", "token", "login")):
            return 401
        return 403
    if isinstance(exc, RuleViolation):
        return 409
    if isinstance(exc, ParseError | CodecError | ConfigError):
        return 422
    if isinstance(exc, StoreError):
        return 409
    return 400


def language_of(request: HTTPConnection) -> str:
    """The language of a refusal's ``text``: the page's (:func:`.i18n.language_of`: ``?lang=``,
    the language cookie, then the ``Accept-Language`` header by q-value — ``zh-Hant``,
    ``zh-TW``, ``zh-HK``, ``zh-MO`` or ``zh`` is Traditional Chinese, anything else English),
    so a refusal shown in a Chinese page is Chinese, its game words too (``{kind:term}``)."""
    return i18n.language_of(request)


_REQUEST_SHAPE: Final = ("core.codec_", "server.invalid_request", "api.nul_text")
"""The keys of the refusals about a request's shape (module docstring): their paths, field
names and types are shown in words."""


def _shown_param(name: str, value: object, language: str) -> object:
    if not isinstance(value, str):
        return value
    if name in ("path", "where", "field"):
        return field_word(value, language)
    if name in ("type", "expected"):
        return term(value.strip("'\""), language)
    return value


def shown(exc: MacauTablesError, language: str) -> MacauTablesError:
    """``exc`` as a person reads it in ``language`` (module docstring): a refusal about the
    request's shape with its paths, fields and types in words (a copy: ``exc`` and its
    ``params`` are not changed); any other refusal as it is."""
    nested = {k: shown(v, language) for k, v in exc.nested.items()}
    if not exc.key.startswith(_REQUEST_SHAPE) and all(
        a is b for a, b in zip(nested.values(), exc.nested.values(), strict=True)
    ):
        return exc
    copy = MacauTablesError.__new__(type(exc))
    copy.__dict__.update(exc.__dict__)
    copy._message = None
    copy.nested = nested
    if exc.key.startswith(_REQUEST_SHAPE):
        params = {k: _shown_param(k, v, language) for k, v in exc.params.items()}
        if exc.key == "server.invalid_request":
            problem = f"request {exc.params.get('problem', '')}"
            words = TERMS.get(language, TERMS["en"])
            params["reason"] = words.get(problem) or words["request invalid"]
        copy.params = params  # type: ignore[assignment]
    return copy


def error_body(exc: MacauTablesError, language: str = messages.DEFAULT_LANGUAGE) -> dict[str, Any]:
    """``{"error": {"key", "params", "text", "rule"}}`` for ``exc``: ``params`` as they are,
    ``text`` as a person reads it (:func:`shown`)."""
    return {
        "error": {
            "key": exc.key,
            "params": dict(exc.params),
            "text": shown(exc, language).text(language),
            "rule": getattr(exc, "rule", None),
        }
    }


def error_response(
    exc: MacauTablesError, language: str = messages.DEFAULT_LANGUAGE
) -> JSONResponse:
    """The JSON response for refusal ``exc`` (as a client may see it: :func:`for_client`)."""
    exc = for_client(exc)
    headers = getattr(exc, "http_headers", None)
    return JSONResponse(
        error_body(exc, language),
        status_code=status_for(exc),
        headers=headers if isinstance(headers, dict) else None,
    )


def invalid_request(exc: RequestValidationError) -> MacauTablesError:
    """``server.invalid_request`` (422) for a request the models do not take: ``where`` (the
    first error's place, ``body.command.amount``) and ``reason`` (its message)."""
    first: dict[str, Any] = dict(exc.errors()[0]) if exc.errors() else {}
    where = ".".join(str(p) for p in first.get("loc", ()))
    return MacauTablesError(
        "server.invalid_request",
        where=where or "-",
        reason=str(first.get("msg", "invalid")),
        problem=str(first.get("type", "invalid")),
    )


def install_handlers(app: FastAPI) -> None:
    """Answer every refusal in the one shape (module docstring)."""

    @app.exception_handler(MacauTablesError)
    async def refused(request: Request, exc: MacauTablesError) -> JSONResponse:
        request.state.error_key = exc.key
        return error_response(exc, language_of(request))

    @app.exception_handler(RequestValidationError)
    async def unreadable(request: Request, exc: RequestValidationError) -> JSONResponse:
        err = invalid_request(exc)
        request.state.error_key = err.key
        return error_response(err, language_of(request))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 404:
            err = MacauTablesError("server.not_found", path=request.url.path)
        elif exc.status_code == 405:
            err = MacauTablesError("server.method_not_allowed", method=request.method)
        else:
            err = MacauTablesError("server.http_error", status=exc.status_code)
        request.state.error_key = err.key
        status = exc.status_code if 400 <= exc.status_code < 500 else status_for(err)
        return JSONResponse(
            error_body(err, language_of(request)),
            status_code=status,
            headers=getattr(exc, "headers", None),
        )

    @app.exception_handler(Exception)
    async def bug(request: Request, exc: Exception) -> JSONResponse:  # pragma: no cover
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        err = MacauTablesError("server.internal")
        request.state.error_key = err.key
        return JSONResponse(error_body(err, language_of(request)), status_code=500)

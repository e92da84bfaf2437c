"""The web pages: server-rendered Jinja2 shells that small hand-written ES modules
(``static/js``) fill from the server's REST API — no build step, no Node.js.

Pages of this module (the game pages — player tables, dealer console — are
:mod:`.pages_tables`'):

========================  ======================  =================================================
path                      who                     what
========================  ======================  =================================================
``/``                     anyone                  the lobby: tables, limits, shoe progress, meters
``/login``                anyone                  sign in (``?next=`` a local path to go back to)
``/jackpot``              anyone                  the jackpot display (CSP-1, CSP-10.3), live
``/shoe-check``           anyone                  a finished shoe's commitment checked in the
                                                  browser (SHA-256, as ``rng.commitment_digest``)
``/supervisor``           supervisor, admin       tables (open, close), authorisations waiting,
                                                  recall of the last 10 rounds
``/supervisor/reports``   supervisor, admin       verify, the daily report, the audit archive
``/admin``                admin                   users, cashier, options and approvals, meters
========================  ======================  =================================================

Every route carries one role rule (``auth.public`` or ``auth.require``; the role × endpoint
matrix walks them). Routes use :class:`PageRoute`: a refusal of the role rule answers a
browser (``Accept: text/html``) with a page instead of JSON — no session (or an expired one):
``303`` to ``/login?next=…&reason=…``; a wrong role: the 403 page in the visitor's language.
API clients get the usual 401/403 JSON.

:func:`render` renders a template with what ``base.html`` needs: the language (:mod:`.i18n`),
``t``, the signed-in principal, the CSRF token for ``fetch`` (a ``<meta>``), the language
switch's addresses and the texts the page's scripts use (JSON). :func:`install` includes the
router and mounts ``/static`` (one line in :func:`.app.create_app`).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Coroutine, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Final
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, FastAPI, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from pydantic import BaseModel
from starlette.responses import Response

from .. import codec, messages
from ..errors import MacauTablesError
from ..games import GAMES
from ..money import format_minor
from ..rng import ShoeOpening, commitment_scheme, prove_all
from ..store import ShoeCursor, ShoeRecord, Tx
from ..tables.clock import MACAU
from . import auth, i18n
from .errors import register_status, status_for
from .principal import Principal, UserRole
from .runtime import Runtime, get_runtime, runtime_dependency
from .schemas import ERROR_RESPONSES, ProvedCard

__all__ = [
    "STATIC",
    "TEMPLATES",
    "PageRoute",
    "install",
    "render",
    "router",
    "templates",
    "wants_html",
]

HERE: Final = Path(__file__).resolve().parent
TEMPLATES: Final = HERE / "templates"
STATIC: Final = HERE / "static"

templates = Jinja2Templates(directory=str(TEMPLATES))
templates.env.filters["money"] = lambda amount: format_minor(int(amount))
templates.env.globals["LANGUAGES"] = messages.LANGUAGES

STAFF: Final = (UserRole.SUPERVISOR, UserRole.ADMIN)
REFUSAL_TEXTS: Final = ("tables.",)
"""The catalog namespaces of the refusals a supervisor's page may show (a view's refusal),
besides each game's own (:func:`refusal_texts`)."""


def refusal_texts() -> tuple[str, ...]:
    """:data:`REFUSAL_TEXTS` and each game's message namespace (its plug-in's ``messages``)."""
    return (*(plugin.messages for plugin in GAMES.values()), *REFUSAL_TEXTS)


CSP: Final = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
"""The pages' Content-Security-Policy: their own scripts, styles and sockets only (the texts
and data in ``<script type="application/json">`` are never run), no framing."""


def wants_html(request: Request) -> bool:
    """A browser asking for a page (``Accept`` names ``text/html``), not an API client."""
    return request.method in ("GET", "HEAD") and "text/html" in request.headers.get("accept", "")


def _script_json(value: object) -> str:
    """``value`` as JSON safe inside ``<script type="application/json">``."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render(
    request: Request,
    template: str,
    principal: Principal | None,
    *,
    status_code: int = 200,
    texts: Iterable[str] = (),
    data: object = None,
    **context: Any,
) -> Response:
    """Render ``template`` (extending ``base.html``) for ``principal`` in the request's language.

    ``texts``: key prefixes besides ``pages.`` whose messages the page's scripts need
    (``i18n.js``); ``data``: JSON for the page's script (``<script id="page-data">``, read
    with ``pageData()``); ``context``: the template's own variables."""
    language = i18n.language_of(request)
    csrf = (
        auth.csrf_token_of(request) if principal is not None and principal.via == "cookie" else None
    )
    base = {
        "lang": language,
        "t": i18n.Translator(language),
        "principal": principal,
        "role": principal.role.value if principal is not None else "",
        "csrf": csrf or "",
        "switch": {lang: i18n.switch_url(request, lang) for lang in messages.LANGUAGES},
        "texts_json": _script_json(i18n.texts_for(language, ("pages.", *texts))),
        "terms_json": _script_json(i18n.terms_for(language)),
        "data_json": _script_json(data),
        "path": request.url.path,
    }
    response = templates.TemplateResponse(
        request, template, {**base, **context}, status_code=status_code
    )
    i18n.remember(request, response)
    response.headers["Content-Security-Policy"] = CSP
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "same-origin"
    return response


def _login_redirect(request: Request, exc: MacauTablesError) -> Response:
    here = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    reason = "expired" if exc.key in ("auth.session_expired", "auth.session_unknown") else "login"
    response = RedirectResponse(
        "/login?" + urlencode({"next": here, "reason": reason}), status_code=303
    )
    if reason == "expired":
        response.delete_cookie(auth.SESSION_COOKIE, path="/", httponly=True, samesite="strict")
    return response


class PageRoute(APIRoute):
    """A page's route: a browser refused by the role rule gets a page, not JSON (module
    docstring)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        original = super().get_route_handler()

        async def handler(request: Request) -> Response:
            try:
                return await original(request)
            except MacauTablesError as exc:
                status = status_for(exc)
                if status not in (401, 403) or not wants_html(request):
                    raise
                if status == 401:
                    return _login_redirect(request, exc)
                principal = await auth.optional_principal(request)
                return render(
                    request, "forbidden.html", principal, status_code=403, refusal_key=exc.key
                )

        return handler


router = APIRouter(route_class=PageRoute, include_in_schema=False, tags=["pages"])

Anyone = Annotated[Principal | None, Depends(auth.optional_principal)]
Staff = Annotated[Principal, Depends(auth.require(*STAFF))]
Admin = Annotated[Principal, Depends(auth.require(UserRole.ADMIN))]
PUBLIC: Final = [Depends(auth.public)]


@router.get("/", response_class=HTMLResponse, dependencies=PUBLIC)
def lobby(request: Request, who: Anyone) -> Response:
    """The lobby: every table with its game, limits, seats and shoe progress, the latest
    roadmap, and the jackpot meters (filled by ``lobby.js`` from ``/api/tables``,
    ``/api/meters`` and ``/ws/jackpot``)."""
    return render(request, "lobby.html", who)


@router.get("/login", response_class=HTMLResponse, dependencies=PUBLIC)
def login_page(request: Request, who: Anyone) -> Response:
    """Sign in (``login.js`` posts to ``/api/auth/login``, then goes to ``next``)."""
    safe = auth.safe_next(request.query_params.get("next")) or ""
    reason = request.query_params.get("reason", "")
    return render(
        request,
        "login.html",
        who,
        next_path=safe,
        reason=reason if reason in ("expired", "login") else "",
    )


@router.get("/jackpot", response_class=HTMLResponse, dependencies=PUBLIC)
def jackpot(request: Request, who: Anyone) -> Response:
    """The jackpot display (CSP-1): large meters updated live over ``/ws/jackpot``, the fixed
    awards (CSP-10.3) and the last hits."""
    return render(request, "jackpot.html", who)


@router.get("/shoe-check", response_class=HTMLResponse, dependencies=PUBLIC)
def shoe_check(request: Request, who: Anyone) -> Response:
    """Check a finished shoe: its commitment against the revealed order and salt, in the
    browser (``shoe_check.js``)."""
    return render(
        request,
        "shoe_check.html",
        who,
        commitment=request.query_params.get("commitment", "")[:200],
    )


@router.get("/supervisor", response_class=HTMLResponse)
def supervisor(request: Request, who: Staff) -> Response:
    """Tables (open, close, options and approvals), authorisations waiting, and the recall
    of a table's last 10 rounds."""
    # the rule refusals a waiting round shows (a refused live card, BAC-10) in the page language
    return render(request, "supervisor.html", who, texts=refusal_texts())


@router.get("/supervisor/reports", response_class=HTMLResponse)
def reports(request: Request, who: Staff) -> Response:
    """Verify the store, the daily report (JSON, CSV) and the audit archive download."""
    today = get_runtime(request).clock.now().astimezone(MACAU).date().isoformat()
    return render(request, "reports.html", who, today=today)


@router.get("/admin", response_class=HTMLResponse)
def admin(request: Request, who: Admin) -> Response:
    """Users (add, disable, enable), the cashier (deposits, withdrawals) and the meters."""
    return render(request, "admin.html", who)


# -- the shoe check's JSON -------------------------------------------------------------------------

api_router = APIRouter(tags=["pages"], responses=ERROR_RESPONSES)

SHOES_SHOWN: Final = 20
"""The revealed shoes a page of ``GET /api/shoes`` lists unless asked for fewer or more."""

SHOES_MAX: Final = 100
"""The most a page of ``GET /api/shoes`` lists (``limit``)."""

register_status("pages.shoe_cursor_unknown", 422)


class RevealedShoe(BaseModel):
    """A finished virtual shoe as published: its ``scheme`` and ``commitment`` and, for a shoe
    committed card by card (``merkle-v2``), its number of leaves ``size`` and the ``proofs`` of
    the cards the public view showed — never the rest of its order (a folded box, a burned or
    withdrawn card, the undealt rest: CSP-12, Common rules "Randomness"). A shoe committed whole
    (``sha256-v1``, before) is listed by its commitment alone; its order and salt stay in the
    audit archive."""

    table_id: str
    shoe_no: int
    scheme: str
    commitment: str
    size: int | None
    proofs: list[ProvedCard]
    verified: bool | None
    revealed_at: datetime | None

    @classmethod
    def of(cls, shoe: ShoeRecord) -> RevealedShoe | None:
        """The published entry of ``shoe`` (``None`` while it is not finished)."""
        revealed = shoe.revealed
        if revealed is None:
            return None
        scheme, _ = commitment_scheme(shoe.commitment)
        size: int | None = None
        proofs: list[ProvedCard] = []
        if revealed.get("type") == codec.type_name(ShoeOpening):
            opening = codec.decode(revealed, expect=ShoeOpening)
            size = len(opening.leaves)
            wanted = [(c.position, c.card, c.salt) for c in opening.public]
            proofs = [ProvedCard.of(p) for p in prove_all(opening.leaves, wanted)]
        return cls(
            table_id=shoe.table_id,
            shoe_no=shoe.shoe_no,
            scheme=scheme,
            commitment=shoe.commitment,
            size=size,
            proofs=proofs,
            verified=shoe.verified,
            revealed_at=shoe.revealed_at,
        )


class RevealedShoes(BaseModel):
    """A page of revealed shoes, newest first, and ``next``: the ``before`` of the next (older)
    page, ``null`` when there is none."""

    shoes: list[RevealedShoe]
    next: str | None


def shoe_cursor_text(cursor: ShoeCursor) -> str:
    """``cursor`` as the opaque ``before`` of ``GET /api/shoes`` (URL-safe)."""
    raw = json.dumps(
        [cursor.revealed_at.isoformat(), cursor.table_id, cursor.shoe_no], separators=(",", ":")
    )
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def shoe_cursor(text: str) -> ShoeCursor:
    """The cursor ``text`` (:func:`shoe_cursor_text`) stands for; refuses any other text
    (``pages.shoe_cursor_unknown``)."""
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        at, table_id, shoe_no = json.loads(raw)
        when = datetime.fromisoformat(at)
        if (
            when.tzinfo is None
            or not isinstance(table_id, str)
            or type(shoe_no) is not int
            or shoe_cursor_text(ShoeCursor(when, table_id, shoe_no)) != text
        ):
            raise ValueError(text)
    except (ValueError, TypeError, RecursionError):  # (binascii.Error is a ValueError)
        raise MacauTablesError("pages.shoe_cursor_unknown", before=text[:40]) from None
    return ShoeCursor(when.astimezone(UTC), table_id, shoe_no)


@api_router.get(
    "/api/shoes",
    dependencies=PUBLIC,
    summary="The finished shoes, a page at a time: their commitment and the public's proofs",
)
def revealed_shoes(
    runtime: Annotated[Runtime, Depends(runtime_dependency)],
    table: Annotated[
        str | None, Query(min_length=1, max_length=64, pattern=r"^[^\x00-\x1f\x7f]+$")
    ] = None,
    before: Annotated[str | None, Query(min_length=1, max_length=400)] = None,
    limit: Annotated[int, Query(ge=1, le=SHOES_MAX)] = SHOES_SHOWN,
) -> RevealedShoes:
    """The finished virtual shoes of every table (or of ``table``), newest first, ``limit`` at
    a time (at most :data:`SHOES_MAX`), the older ones after ``before`` (the previous page's
    ``next``): what the shoe check verifies (each shoe's commitment and the proofs of the cards
    the public view showed, never the rest of its order; an unfinished one is never listed).
    A page reads at most ``limit + 1`` shoes, however many were ever recorded
    (:meth:`~macau_tables.store.Tx.revealed_shoes_page`)."""
    after = None if before is None else shoe_cursor(before)

    def read(tx: Tx) -> tuple[list[RevealedShoe], ShoeCursor | None]:
        page = tx.revealed_shoes_page(table, before=after, limit=limit)
        out: list[RevealedShoe] = []
        for shoe in page.shoes:
            entry = RevealedShoe.of(shoe)
            if entry is not None:
                out.append(entry)
        return out, page.next

    shoes, following = runtime.store.read(read)
    return RevealedShoes(
        shoes=shoes, next=None if following is None else shoe_cursor_text(following)
    )


def install(app: FastAPI) -> None:
    """Serve the pages, their JSON and their static files from ``app``."""
    app.include_router(router)
    app.include_router(api_router)
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")

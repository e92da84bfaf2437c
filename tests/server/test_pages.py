"""The pages' server side (issue 11), without a browser: the language (``?lang=``, the cookie,
``Accept-Language``), who may open which page (a browser is sent to the login page or shown a
403 page, an API client gets the JSON refusal), the CSRF token and the texts a page carries,
and ``GET /api/shoes``; on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from tests.server.support import PASSWORD

from macau_tables import messages
from macau_tables.cards import Card
from macau_tables.rng import commitment_digest
from macau_tables.server import i18n
from macau_tables.server.auth import csrf_token
from macau_tables.server.runtime import Runtime

HTML = {"Accept": "text/html,application/xhtml+xml"}


@pytest.fixture
def served_tables() -> tuple[str, ...]:
    """The tables these tests use (the others need no loading at each start)."""
    return ("bac-1", "csp-1")


def _texts(page: str) -> dict[str, str]:
    found = re.search(r'<script type="application/json" id="page-texts">(.*?)</script>', page)
    assert found, "the page carries its texts"
    texts: dict[str, str] = json.loads(found.group(1))
    return texts


@pytest.mark.parametrize(
    ("header", "language"),
    [
        ("zh-TW,zh;q=0.9,en;q=0.8", "zh-Hant"),
        ("zh-MO", "zh-Hant"),
        ("en-GB,en;q=0.9", "en"),
        ("fr-FR,zh-HK;q=0.8,en;q=0.5", "zh-Hant"),
        ("zh-CN,en;q=0.9", "en"),
        ("", "en"),
        ("zh;q=0, en", "en"),
        ("en;q=abc, zh-Hant", "zh-Hant"),
    ],
)
def test_accept_language_picks_the_page_language(header: str, language: str) -> None:
    assert i18n.language_from_header(header) == language


def test_the_language_follows_the_browser_then_the_switch_and_is_remembered(
    client: TestClient,
) -> None:
    first = client.get("/", headers={**HTML, "Accept-Language": "zh-HK"})
    assert '<html lang="zh-Hant">' in first.text
    assert i18n.LANG_COOKIE not in first.cookies  # nothing chosen yet
    switched = client.get("/?lang=en", headers={**HTML, "Accept-Language": "zh-HK"})
    assert '<html lang="en">' in switched.text
    assert switched.cookies.get(i18n.LANG_COOKIE) == "en"
    again = client.get("/jackpot", headers={**HTML, "Accept-Language": "zh-HK"})
    assert '<html lang="en">' in again.text  # the cookie wins over the browser
    bogus = client.get("/?lang=fr", headers=HTML)
    assert '<html lang="en">' in bogus.text
    texts = _texts(client.get("/?lang=zh-Hant", headers=HTML).text)
    assert texts["pages.lobby_title"] == messages.render("pages.lobby_title", {}, "zh-Hant")
    assert all(key.startswith("pages.") for key in texts)
    switch = client.get("/shoe-check?commitment=ab&lang=zh-Hant", headers=HTML).text
    assert 'href="/shoe-check?commitment=ab&amp;lang=en"' in switch


@pytest.mark.parametrize("path", ["/supervisor", "/supervisor/reports", "/admin"])
def test_a_page_needing_a_login_sends_a_browser_to_the_login_page(
    client: TestClient, path: str
) -> None:
    page = client.get(path, headers=HTML, follow_redirects=False)
    assert page.status_code == 303
    assert page.headers["location"] == f"/login?next=%2F{path[1:].replace('/', '%2F')}&reason=login"
    api = client.get(path, follow_redirects=False)
    assert api.status_code == 401 and api.json()["error"]["key"] == "auth.unauthenticated"


def test_an_ended_session_is_said_and_its_cookie_cleared(client: TestClient) -> None:
    client.cookies.set("macau_session", "not-a-session")
    page = client.get("/admin", headers=HTML, follow_redirects=False)
    assert page.status_code == 303 and page.headers["location"].endswith("reason=expired")
    assert 'macau_session=""' in page.headers["set-cookie"]
    client.cookies.clear()
    login = client.get("/login?next=/admin&reason=expired&lang=en", headers=HTML)
    assert "Your session has ended" in login.text
    assert 'name="next" value="/admin"' in login.text
    offsite = client.get("/login?next=//evil.example/x", headers=HTML)
    assert 'name="next" value="/"' in offsite.text  # only a path of this site


def test_pages_by_role_with_the_csrf_token_for_the_scripts(client: TestClient) -> None:
    signed = client.post(
        "/api/auth/login", json={"name": "supervisor", "password": PASSWORD["supervisor"]}
    )
    assert signed.status_code == 200, signed.text
    token = signed.json()["csrf_token"]
    page = client.get("/supervisor?lang=en", headers=HTML)
    assert page.status_code == 200
    assert f'<meta name="csrf-token" content="{token}">' in page.text
    assert token == csrf_token(client.cookies["macau_session"])
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"
    assert 'href="/supervisor/reports"' in page.text and 'href="/admin"' not in page.text
    forbidden = client.get("/admin?lang=en", headers=HTML)
    assert forbidden.status_code == 403 and "Not for this account" in forbidden.text
    refused = client.get("/admin")
    assert refused.status_code == 403 and refused.json()["error"]["key"] == "auth.forbidden"
    public = client.get("/jackpot", headers=HTML)
    assert (
        public.status_code == 200 and '<meta name="signed-in" content="supervisor">' in public.text
    )
    assert client.get("/static/js/api.js").status_code == 200
    assert client.get("/static/js/nothing.js").status_code == 404


def test_a_page_never_carries_markup_from_its_input(client: TestClient) -> None:
    evil = '"><script>alert(1)</script>'
    page = client.get("/shoe-check", params={"commitment": evil}, headers=HTML)
    assert "<script>alert(1)</script>" not in page.text
    assert "&#34;&gt;&lt;script&gt;" in page.text or "&quot;&gt;&lt;script&gt;" in page.text


def test_a_whole_shoe_commitment_of_before_is_listed_without_its_order(
    client: TestClient, runtime: Runtime
) -> None:
    """A shoe committed whole (scheme sha256-v1, recorded before the card-by-card scheme) is
    listed by its commitment alone: its order (a folded Caribbean box's cards among them,
    CSP-12) and salt stay in the audit archive (Common rules "Randomness")."""
    assert client.get("/api/shoes").json() == {"shoes": [], "next": None}
    order = [Card.from_index(i) for i in range(52)]
    salt = bytes(32)
    digest = commitment_digest(order, salt)

    def reveal(tx: object) -> None:
        tx.shoe_put("bac-1", 1, digest)  # type: ignore[attr-defined]
        tx.shoe_reveal(  # type: ignore[attr-defined]
            "bac-1", 1, {"order": [str(c) for c in order], "salt": salt.hex()}, True
        )
        tx.shoe_put("bac-1", 2, "0" * 64)  # type: ignore[attr-defined]  # not finished

    runtime.store.run(reveal)
    (shoe,) = client.get("/api/shoes").json()["shoes"]
    assert (shoe["table_id"], shoe["shoe_no"], shoe["commitment"]) == ("bac-1", 1, digest)
    assert (shoe["scheme"], shoe["size"], shoe["proofs"]) == ("sha256-v1", None, [])
    assert "order" not in shoe and "salt" not in shoe and salt.hex() not in json.dumps(shoe)
    assert client.get("/api/shoes?table=csp-1").json() == {"shoes": [], "next": None}
    refused = client.get("/api/shoes", params={"table": "bac\x00"})
    assert refused.status_code == 422


def test_the_shoes_are_listed_a_page_at_a_time_newest_first(
    client: TestClient, runtime: Runtime
) -> None:
    order = [Card.from_index(i) for i in range(52)]
    salt = bytes(32)
    digest = commitment_digest(order, salt)
    revealed = {"order": [str(c) for c in order], "salt": salt.hex()}

    def reveal(tx: Any) -> None:
        for n in range(1, 8):
            for table_id in ("bac-1", "csp-1"):
                tx.shoe_put(table_id, n, digest)
                tx.shoe_reveal(table_id, n, revealed, True)

    runtime.store.run(reveal)
    seen: list[tuple[str, int]] = []
    params: dict[str, Any] = {"limit": 3}
    while True:
        page = client.get("/api/shoes", params=params)
        assert page.status_code == 200, page.text
        body = page.json()
        seen += [(s["table_id"], s["shoe_no"]) for s in body["shoes"]]
        if body["next"] is None:
            break
        assert len(body["shoes"]) == 3
        params = {"limit": 3, "before": body["next"]}
    assert seen == [(t, n) for n in range(7, 0, -1) for t in ("csp-1", "bac-1")]
    first = client.get("/api/shoes").json()
    assert len(first["shoes"]) == 14 and first["next"] is None  # 20 by default
    csp = client.get("/api/shoes", params={"table": "csp-1", "limit": 4}).json()
    assert [s["shoe_no"] for s in csp["shoes"]] == [7, 6, 5, 4]
    older = client.get("/api/shoes", params={"table": "csp-1", "before": csp["next"]}).json()
    assert [s["shoe_no"] for s in older["shoes"]] == [3, 2, 1]
    for bad in ({"limit": 0}, {"limit": 101}, {"limit": "x"}):
        refused = client.get("/api/shoes", params=bad)
        assert refused.status_code == 422, refused.text
        assert refused.json()["error"]["key"] == "server.invalid_request"
    for forged in ("nonsense", "W10", "WyJ4IiwiYmFjLTEiLDFd", csp["next"] + "A"):
        refused = client.get("/api/shoes", params={"before": forged})
        assert refused.status_code == 422, refused.text
        error = refused.json()["error"]
        assert error["key"] == "pages.shoe_cursor_unknown"
        assert "before" in error["text"]


def test_a_new_catalog_language_is_chosen_and_listed_by_the_switch_of_every_page(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Adding a language is one line in ``messages.LANGUAGES`` (as Portuguese was): the
    browser's ``pt-BR`` chooses it, ``?lang=pt`` too, and the switch of every page lists every
    language by its own name (``pages.language_name``) with its address."""
    monkeypatch.setattr(messages, "LANGUAGES", ("en", "zh-Hant", "pt"))
    page = client.get("/jackpot", headers={**HTML, "Accept-Language": "pt-BR,en;q=0.5"})
    assert '<html lang="pt">' in page.text
    links = re.findall(
        r'<a href="([^"]+)" lang="([^"]+)" hreflang="[^"]+"[^>]*>([^<]+)</a>', page.text
    )
    assert [(url, lang) for url, lang, _ in links] == [
        ("/jackpot?lang=en", "en"),
        ("/jackpot?lang=zh-Hant", "zh-Hant"),
        ("/jackpot?lang=pt", "pt"),
    ]
    assert [name for _, _, name in links][:2] == ["English", "繁體中文"]
    chosen = client.get("/?lang=pt", headers=HTML)
    assert '<html lang="pt">' in chosen.text and chosen.cookies.get(i18n.LANG_COOKIE) == "pt"

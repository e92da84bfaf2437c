"""The public pages in a real browser (issue 11): lobby, login, jackpot display, shoe check."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import Live, axe_check, login, shot


def test_the_lobby_opens_and_the_language_switch_is_remembered(page: Any, live: Live) -> None:
    page.goto("/")
    assert page.locator("html").get_attribute("lang") == "en"
    page.locator(".lang-switch a[data-lang='zh-Hant']").click()
    page.wait_for_url("**/?lang=zh-Hant")
    assert page.locator("html").get_attribute("lang") == "zh-Hant"
    page.goto("/jackpot")
    assert page.locator("html").get_attribute("lang") == "zh-Hant"
    axe_check(page)
    shot(page, "smoke")


def test_login(page: Any, live: Live) -> None:
    login(page, "supervisor", then="/supervisor")
    assert page.url.endswith("/supervisor")

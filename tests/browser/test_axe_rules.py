"""The axe rules the page crawl runs in every language (``AXE_WORDS_RULES``, tests/browser/
support.py) are rules axe knows, and they fail what a missing translation makes: an empty
button or link name, a field with no label text, no ``lang``."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.support import AXE_WORDS_RULES, axe_check

UNNAMED = {
    "button-name": '<button type="button"></button>',
    "link-name": '<a href="/x"></a>',
    "select-name": "<label for='s'></label><select id='s'><option>1</option></select>",
    "label": "<label for='i'></label><input id='i' type='text'>",
}
"""A page's element whose words are missing, by the axe rule that fails it."""


def test_the_words_rules_are_axe_rules_and_fail_what_a_missing_word_leaves(browser: Any) -> None:
    page = browser.new_page()
    try:
        page.set_content(
            '<html lang="pt"><head><title>t</title></head><body><main>'
            "<h1>Mesa</h1><button type='button'>Apostar</button></main></body></html>"
        )
        assert axe_check(page, rules=AXE_WORDS_RULES) is not None  # all known: none refused
        known = set(page.evaluate("axe.getRules().map((r) => r.ruleId)"))
        assert set(AXE_WORDS_RULES) <= known, set(AXE_WORDS_RULES) - known
        for rule, html in UNNAMED.items():
            page.set_content(
                f'<html lang="pt"><head><title>t</title></head><body><main>'
                f"<h1>Mesa</h1>{html}</main></body></html>"
            )
            with pytest.raises(AssertionError, match=rule):
                axe_check(page, rules=AXE_WORDS_RULES)
        page.set_content(
            "<html><head><title>t</title></head><body><main><h1>Mesa</h1></main></body></html>"
        )
        with pytest.raises(AssertionError, match="html-has-lang"):
            axe_check(page, rules=AXE_WORDS_RULES)
    finally:
        page.close()


def test_a_check_within_a_part_of_the_page_checks_that_part_with_every_rule(browser: Any) -> None:
    """``axe_check(page, within=…)`` (the part of a page a test changed, on a page checked
    whole elsewhere) fails what is wrong inside the part — a low contrast, an unnamed button —
    and only that."""
    page = browser.new_page()
    try:
        page.set_content(
            '<html lang="en"><head><title>t</title></head><body><main><h1>Table</h1>'
            "<section id='in'><p>Bets</p></section>"
            "<section id='out'><p style='color:#eee;background:#fff'>faint</p>"
            "<button type='button'></button></section></main></body></html>"
        )
        assert axe_check(page, within="#in") is not None  # what is wrong lies outside it
        for rule in ("color-contrast", "button-name"):
            with pytest.raises(AssertionError, match=rule):
                axe_check(page, within="#out")
        with pytest.raises(AssertionError, match="nothing at #missing"):
            axe_check(page, within="#missing")
    finally:
        page.close()

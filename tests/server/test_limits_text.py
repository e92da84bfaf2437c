"""A wager's limits as the pages say them: a range reads
"10.00 – 1,000.00", and a wager whose minimum is its maximum — the jackpot wager of a fixed
amount (CSP-10.1, BAC-17) — reads one amount, "10.00", never "10.00 – 10.00"."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from tests.server.support import login

from macau_tables.messages import LANGUAGES
from macau_tables.server.i18n import Translator


@pytest.fixture
def served_tables() -> tuple[str, ...]:
    """The tables these tests use (the others need no loading at each start)."""
    return ("bac-1",)


def test_one_amount_when_the_minimum_is_the_maximum() -> None:
    assert Translator("en").limits(1_000, 1_000) == "10.00"
    assert Translator("zh-Hant").limits(1_000, 1_000) == "10.00 整"
    assert Translator("en").limits(1_000, 100_000) == "10.00 – 1,000.00"
    assert Translator("zh-Hant").limits(1_000, 100_000) == "10.00 至 1,000.00"
    for language in LANGUAGES:
        assert "–" not in Translator(language).limits(500, 500)


def test_the_baccarat_page_shows_the_jackpot_wager_as_one_amount(client: TestClient) -> None:
    alice = login(client, "alice")
    for language in LANGUAGES:
        page: Any = client.get(f"/tables/bac-1?lang={language}", headers=alice)
        assert page.status_code == 200
        html = page.text
        start = html.index('<li data-kind="jackpot">')  # the felt's list of limits
        limits = html[html.index('class="limits-kind">', start) :].split("</span>", 1)[1]
        shown = limits.split("<", 1)[0].strip()
        assert shown == Translator(language).limits(1_000, 1_000), shown

"""The table's paytable where players and staff read it (CSP-10.3, CSP-9.5, CSP-10.8, BAC-17,
BAC-17.5, BAC-18): the player's page shows the lines and notes of the table's own rules, each
with its article, amounts as money; the jackpot display (``GET /api/meters``, the first message
of ``/ws/jackpot``) gives every linked table its own fixed awards, not the first table's.
SQLite and PostgreSQL."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from fastapi.testclient import TestClient
from tests.server.support import login

from macau_tables.baccarat.demo import demo_rules as demo_baccarat_rules
from macau_tables.caribbean.demo import demo_rules as demo_caribbean_rules
from macau_tables.caribbean.rules import JackpotFixedAwards
from macau_tables.jackpot import Combination
from macau_tables.money import format_minor
from macau_tables.rounds import TableMode
from macau_tables.server.runtime import Runtime
from macau_tables.store import Store, TableStatus

HTML = {"Accept": "text/html"}
CSP2_AWARDS = JackpotFixedAwards(7_654_300, 654_300, 54_300, 14_300, 9_900)
CSP2_CAP = 12_345_600
BAC2_HEAVENLY = 765_400


def _add_tables(store: Store) -> None:
    """``csp-2`` and ``bac-2``: linked to the demonstration meters with fixed awards (and a
    raise cap) of their own."""
    csp = replace(
        demo_caribbean_rules(), jackpot_fixed_awards=CSP2_AWARDS, max_payout_per_box=CSP2_CAP
    )
    awards = dict(demo_baccarat_rules().jackpot_fixed_awards)
    awards[Combination.HEAVENLY_STRAIGHT] = BAC2_HEAVENLY
    bac = replace(demo_baccarat_rules(), jackpot_fixed_awards=awards)

    def build(tx: Any) -> None:
        for table_id, game, config_id, rules, meter in (
            ("csp-2", "caribbean", "csp-v2", csp, "m-caribbean"),
            ("bac-2", "baccarat", "bac-8d-v2", bac, "m-baccarat"),
        ):
            tx.put_config(game, config_id, rules)
            tx.create_table(
                table_id,
                name=f"{game} two",
                game=game,
                mode=TableMode.VIRTUAL,
                demo=True,
                config_id=config_id,
                meter_id=meter,
            )
            tx.set_table_status(table_id, TableStatus.OPEN, actor="test", reason="paytable")

    store.run(build)


def _row(page: str, term: str, article: str) -> str:
    """The text of the paytable row of ``term`` with ``article``."""
    marker = f'<tr data-term="{term}" data-article="{article}">'
    assert marker in page, (term, article)
    return page.split(marker, 1)[1].split("</tr>", 1)[0]


def test_the_player_page_shows_the_tables_own_paytable_with_its_articles_CSP_10_3_CSP_9_5(
    client: TestClient, runtime: Runtime
) -> None:
    """CSP-10.3 (the fixed awards shown at the table), CSP-9.5 (the raise paytable, the cap of
    items (7)–(9) per box per round), CSP-10.8 (the house funds a fixed award above the meter's
    share): ``csp-2``'s page shows ``csp-2``'s awards and cap, not the demonstration table's."""
    _add_tables(runtime.store)
    alice = {**HTML, **login(client, "alice")}
    page = client.get("/tables/csp-2", headers=alice).text
    assert 'id="paytable"' in page
    for term, article, amount in (
        ("royal_flush", "CSP-10.2(1)", CSP2_AWARDS.royal_flush),
        ("straight_flush", "CSP-10.2(2)", CSP2_AWARDS.straight_flush),
        ("four_of_a_kind", "CSP-10.2(3)", CSP2_AWARDS.four_of_a_kind),
        ("full_house", "CSP-10.2(4)", CSP2_AWARDS.full_house),
        ("flush", "CSP-10.2(5)", CSP2_AWARDS.flush),
    ):
        assert format_minor(amount) in _row(page, term, article)
    assert "or 10 % of the meter, whichever is higher" in _row(
        page, "straight_flush", "CSP-10.2(2)"
    )
    assert "2:1" in _row(page, "two_pair", "CSP-9.5(2)")
    assert "7:1" in _row(page, "full_house", "CSP-9.5(6)")
    capped = _row(page, "royal_flush", "CSP-9.5(9)")
    assert "100:1" in capped and format_minor(CSP2_CAP) in capped and "per box per round" in capped
    assert format_minor(CSP2_CAP) not in _row(page, "full_house", "CSP-9.5(6)")  # (7)–(9) only
    assert 'data-note="raise_cap" data-article="CSP-9.5"' in page
    assert 'data-note="house_funds_difference" data-article="CSP-10.8"' in page
    assert "the house pays the difference" in page
    demo = client.get("/tables/csp-1", headers=alice).text
    assert format_minor(demo_caribbean_rules().jackpot_fixed_awards.royal_flush) in _row(
        demo, "royal_flush", "CSP-10.2(1)"
    )
    assert format_minor(CSP2_AWARDS.royal_flush) not in demo
    chinese = client.get("/tables/csp-2?lang=zh-Hant", headers=alice).text
    assert "賠率表" in chinese and "每門每局所贏最多" in _row(chinese, "royal_flush", "CSP-9.5(9)")
    assert "差額由場方支付" in chinese


def test_the_baccarat_page_shows_its_wagers_commission_and_jackpot_awards_BAC_17_BAC_18(
    client: TestClient, runtime: Runtime
) -> None:
    """BAC-17 (payouts), BAC-18.1 (the 5 % commission of the demonstration tables), BAC-17.5
    (the heavenly straight's fixed award of this table, and who funds it above the meter's
    share), BAC-17.6 (the fixed awards)."""
    _add_tables(runtime.store)
    alice = {**HTML, **login(client, "alice")}
    page = client.get("/tables/bac-2", headers=alice).text
    assert "1:1" in _row(page, "player", "BAC-17.1")
    assert "5% commission" in _row(page, "banker", "BAC-18.1")
    assert "8:1" in _row(page, "tie", "BAC-17.2")
    assert "11:1" in _row(page, "banker_pair", "BAC-17.3")
    assert "whole meter" in _row(page, "royal_flush", "BAC-17.4")
    heavenly = _row(page, "heavenly_straight", "BAC-17.5")
    assert format_minor(BAC2_HEAVENLY) in heavenly and "or 10 % of the meter" in heavenly
    awards = demo_baccarat_rules().jackpot_fixed_awards
    assert format_minor(awards[Combination.SINGLE_PAIR]) in _row(page, "single_pair", "BAC-17.6")
    assert 'data-note="house_funds_difference" data-article="BAC-17.5"' in page
    assert 'data-note="tie_carries" data-article="BAC-12"' in page


def _by_table(meter: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {a["table"]: a for a in meter["tables_awards"]}


def test_the_jackpot_display_gives_each_linked_table_its_own_awards_CSP_10_3_BAC_17(
    client: TestClient, runtime: Runtime
) -> None:
    """CSP-10.3 / BAC-17: ``GET /api/meters`` and ``/ws/jackpot`` carry every linked table's
    own fixed awards and jackpot lines (with their articles and the note of CSP-10.8 /
    BAC-17.5), not the first table's; the meter-wide ``fixed_awards`` is given only where the
    tables agree."""
    _add_tables(runtime.store)
    meters = {m["id"]: m for m in client.get("/api/meters").json()["meters"]}
    csp = meters["m-caribbean"]
    assert csp["tables"] == ["csp-1", "csp-2"]
    tables = _by_table(csp)
    assert tables["csp-2"]["fixed_awards"]["royal_flush"] == CSP2_AWARDS.royal_flush
    demo = demo_caribbean_rules().jackpot_fixed_awards
    assert tables["csp-1"]["fixed_awards"]["royal_flush"] == demo.royal_flush
    assert csp["fixed_awards"] == {}  # the two tables differ: none is "the meter's"
    lines = {line["term"]: line for line in tables["csp-2"]["paytable"]["lines"]}
    assert lines["flush"]["amount"] == CSP2_AWARDS.flush
    assert lines["flush"]["article"] == "CSP-10.2(5)"
    assert lines["royal_flush"]["payout"] == "fixed_or_meter"
    assert {line["section"] for line in tables["csp-2"]["paytable"]["lines"]} == {"jackpot"}
    notes = {n["key"]: n["article"] for n in tables["csp-2"]["paytable"]["notes"]}
    assert notes["house_funds_difference"] == "CSP-10.8"
    bac = _by_table(meters["m-baccarat"])
    assert set(bac) == {"bac-1", "bac-2", "bac-live", "bac-squeeze"}
    assert bac["bac-2"]["fixed_awards"]["heavenly_straight"] == BAC2_HEAVENLY
    assert bac["bac-1"]["fixed_awards"]["heavenly_straight"] != BAC2_HEAVENLY
    bac_notes = {n["key"]: n["article"] for n in bac["bac-2"]["paytable"]["notes"]}
    assert bac_notes["house_funds_difference"] == "BAC-17.5"
    with client.websocket_connect("/ws/jackpot") as ws:
        first = ws.receive_json()
    assert first["type"] == "meters"
    streamed = {m["meter_id"]: m for m in first["meters"]}
    assert _by_table(streamed["m-caribbean"]) == tables
    assert _by_table(streamed["m-baccarat"]) == bac

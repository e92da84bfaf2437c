"""What the meter loses when a fixed award larger than the meter's share is paid (CSP-10.8,
CSP-10.2(2); BAC-17.5 reads the meter the same way), made visible in the daily report's
house-funded line, on SQLite and PostgreSQL: the meter gives only its share, the house pays
the difference, and the report says so with the article."""

from __future__ import annotations

import csv
import io
from datetime import date

from macau_tables.cards import Card
from macau_tables.caribbean import (
    CloseBetting,
    DealCard,
    JackpotFixedAwards,
    PlaceAnte,
    PlaceJackpotWager,
    Raise,
)
from macau_tables.cli.audit_cli import report_text
from macau_tables.money import format_minor
from macau_tables.rounds import DEALER
from macau_tables.store import Store
from macau_tables.tables import OpenRound
from macau_tables.tables.reports import (
    DayReport,
    day_bounds,
    report_csv,
    table_figures,
    totals,
)

from .support import CARIBBEAN_SEED, caribbean_rules, casino, ledger_total, send, service

STRAIGHT_FLUSH = ("5h", "6h", "7h", "8h", "9h")
DEALER_JUNK = ("2c", "3d", "4s", "Jc", "Kd")
FIXED = 400_000  # above a tenth of the meter (the seed 1,000,000 and one contribution)
AWARDS = JackpotFixedAwards(
    royal_flush=0, straight_flush=FIXED, four_of_a_kind=0, full_house=0, flush=0
)
CONTRIBUTION = 70  # 7/10 of a 100 jackpot wager (support.caribbean_rules)


def test_a_fixed_award_above_the_meter_share_is_funded_by_the_house_and_reported_CSP_10_8(
    store: Store,
) -> None:
    """CSP-10.2(2), CSP-10.8: a straight flush whose fixed award (4,000.00) is more than a
    tenth of the meter takes only the tenth out of the meter; the house pays the rest. The
    report's ``awards_from_house`` (text, CSV) is that difference, ``awards_from_meter`` the
    share, and the text names CSP-10.8 and BAC-17.5."""
    casino(store, {"L1": ("caribbean", caribbean_rules(jackpot_fixed_awards=AWARDS), True)})
    svc = service(store, "L1")
    send(svc, OpenRound())
    send(svc, PlaceAnte(1, "p1", 100), "p1")
    send(svc, PlaceJackpotWager(1, "p1"), "p1")
    send(svc, CloseBetting())
    box, dealer = list(STRAIGHT_FLUSH), list(DEALER_JUNK)
    while svc.expected().due[0].kind.value == "card":
        to = svc.expected().due[0].position
        send(svc, DealCard(Card.parse((dealer if to is DEALER else box).pop(0))))
    send(svc, Raise(1, "p1", 200), "p1")
    assert svc.round.is_over
    meter = CARIBBEAN_SEED + CONTRIBUTION
    share = meter // 10
    assert share < FIXED
    assert store.read(lambda tx: tx.meter_amount("m-car")) == meter - share  # only its share
    figures = store.read(lambda tx: table_figures(tx, tx.table("L1"), None, None))
    assert figures.awards == FIXED
    assert figures.awards_from_meter == share
    assert figures.awards_from_house == FIXED - share
    assert ledger_total(store) == 0
    day = DayReport(date(2026, 1, 5), *day_bounds(date(2026, 1, 5)), (figures,), totals((figures,)))
    (row, total) = list(csv.DictReader(io.StringIO(report_csv(day))))
    assert row["awards_from_house"] == format_minor(FIXED - share, grouping=False) == "2999.93"
    assert total["awards_from_house"] == row["awards_from_house"]
    text = report_text(day)
    assert "house-fund." in text and "CSP-10.8" in text and "BAC-17.5" in text
    assert format_minor(FIXED - share) in text
    svc.close()

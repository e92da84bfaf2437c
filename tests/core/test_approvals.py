"""Approvals and working days (SPEC CSP-13, BAC-19, Common rules "Approvals")."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from macau_tables.approvals import (
    Approval,
    ApprovalRequirement,
    add_working_days,
    check_approvals,
    is_working_day,
    working_days_between,
)
from macau_tables.errors import ConfigError, RuleViolation

MON = date(2026, 11, 30)  # a Monday
REQ = ApprovalRequirement("royal_flush_odds", 80, "CSP-13", "royal flush pays 80:1")


def approval(value: object = 80, applied: date = MON, effective: date | None = None) -> Approval:
    return Approval(
        "royal_flush_odds", value, "DICJ-2026/123", applied, effective or MON + timedelta(3)
    )


def test_working_days() -> None:
    """CSP-13 / BAC-19: working days are Monday..Friday minus public holidays."""
    assert MON.weekday() == 0
    assert add_working_days(MON, 0) == MON
    assert add_working_days(MON, 3) == date(2026, 12, 3)  # Thursday
    assert add_working_days(date(2026, 12, 4), 1) == date(2026, 12, 7)  # Friday → Monday
    assert working_days_between(MON, date(2026, 12, 3)) == 3
    assert working_days_between(date(2026, 12, 4), date(2026, 12, 7)) == 1
    assert working_days_between(date(2026, 12, 5), date(2026, 12, 6)) == 0  # a weekend
    assert working_days_between(date(2026, 12, 7), MON) == 0
    holidays = {date(2026, 12, 1)}
    assert add_working_days(MON, 3, holidays) == date(2026, 12, 4)
    assert working_days_between(MON, date(2026, 12, 3), holidays) == 2
    assert not is_working_day(date(2026, 12, 1), holidays)
    with pytest.raises(ValueError):
        add_working_days(MON, -1)


@given(
    st.dates(date(2000, 1, 1), date(2100, 1, 1)),
    st.integers(0, 400),
    st.sets(st.dates(date(2000, 1, 1), date(2101, 12, 31)), max_size=20),
)
def test_working_days_inverse(start: date, n: int, holidays: set[date]) -> None:
    """CSP-13 / BAC-19: add_working_days and working_days_between agree with a brute-force count."""
    end = add_working_days(start, n, holidays)
    assert working_days_between(start, end, holidays) == n
    # brute force count
    count = sum(
        1
        for k in range(1, (end - start).days + 1)
        if is_working_day(start + timedelta(k), holidays)
    )
    assert count == n


def test_valid_approval_passes_CSP_13() -> None:
    a = approval()
    assert check_approvals([REQ], [a], opening_date=date(2026, 12, 3)) == (a,)
    assert check_approvals([], [], opening_date=MON) == ()


def test_missing_approval_refused_CSP_13() -> None:
    with pytest.raises(RuleViolation) as exc:
        check_approvals([REQ], [], opening_date=date(2027, 1, 4))
    assert exc.value.rule == "CSP-13"
    assert "royal_flush_odds" in exc.value.message


def test_approval_for_other_value_refused_CSP_13() -> None:
    with pytest.raises(RuleViolation) as exc:
        check_approvals([REQ], [approval(value=100)], opening_date=date(2027, 1, 4))
    assert exc.value.rule == "CSP-13" and "100" in exc.value.message


def test_effective_less_than_three_working_days_refused_CSP_13() -> None:
    # Friday application, effective Tuesday: only 2 working days (Mon, Tue)
    a = approval(applied=date(2026, 12, 4), effective=date(2026, 12, 8))
    with pytest.raises(RuleViolation) as exc:
        check_approvals([REQ], [a], opening_date=date(2027, 1, 4))
    assert exc.value.rule == "CSP-13" and "working days" in exc.value.message
    # with a public holiday inside, Thursday is only 2 working days after Monday
    with pytest.raises(RuleViolation):
        check_approvals(
            [REQ], [approval()], opening_date=date(2027, 1, 4), holidays={date(2026, 12, 2)}
        )


def test_not_yet_effective_refused_CSP_13() -> None:
    with pytest.raises(RuleViolation) as exc:
        check_approvals([REQ], [approval()], opening_date=date(2026, 12, 2))
    assert exc.value.rule == "CSP-13" and "not yet effective" in exc.value.message


def test_rule_id_comes_from_requirement_BAC_19() -> None:
    req = ApprovalRequirement("third_burn_rule", 4, "BAC-19", "burn 4 cards")
    with pytest.raises(RuleViolation) as exc:
        check_approvals([req], [approval()], opening_date=MON)
    assert exc.value.rule == "BAC-19" and "third_burn_rule" in exc.value.message
    # plain tuples are accepted too
    with pytest.raises(RuleViolation):
        check_approvals([("x", 1, "BAC-19", "d")], [], opening_date=MON)


def test_one_valid_among_many_is_enough() -> None:
    """CSP-13: any one valid, effective approval of the value in use suffices."""
    bad = approval(applied=date(2026, 12, 4), effective=date(2026, 12, 8))
    good = approval(applied=date(2026, 12, 1), effective=date(2026, 12, 10))
    assert check_approvals([REQ], [bad, good], opening_date=date(2026, 12, 10)) == (good,)


def test_approval_record_validation() -> None:
    """CSP-13: an approval record has an option, a reference and consistent dates."""
    with pytest.raises(ConfigError):
        Approval("x", 1, "", MON, MON)
    with pytest.raises(ConfigError):
        Approval("", 1, "ref", MON, MON)
    with pytest.raises(ConfigError):
        Approval("x", 1, "ref", MON, MON - timedelta(1))
    with pytest.raises(ConfigError):
        Approval("x", 1, "ref", datetime(2026, 1, 1), MON)  # type: ignore[arg-type]

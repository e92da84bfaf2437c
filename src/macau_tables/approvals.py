"""Regulator approvals of table options (SPEC CSP-13, BAC-19; "Approvals" in Common rules).

Pure: dates are passed in, never read from a clock.

* :class:`Approval` — one approval record: the option key, the approved value, the regulator's
  reference, the application date and the effective date.
* :class:`ApprovalRequirement` — what a rules object says needs approval: ``(option, value,
  rule, description)``. Rules objects expose ``options_requiring_approval()`` returning these.
* :func:`add_working_days`, :func:`working_days_between` — Monday to Friday, minus an optional
  set of public holidays.
* :func:`check_approvals` — refuse to open a table (``RuleViolation`` naming the rule and the
  option) unless every requirement has a matching, valid, effective approval.

Working-day rule (decided and documented): ``working_days_between(a, b)`` counts the working
days ``d`` with ``a < d <= b``; an approval is valid when its effective date is at least
``APPROVAL_WORKING_DAYS`` (3) working days after its application date, i.e.
``effective_on >= add_working_days(applied_on, 3)``. Applied on a Monday, the earliest
effective date is the Thursday of that week.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import NamedTuple

from .errors import ConfigError, RuleViolation

__all__ = [
    "APPROVAL_WORKING_DAYS",
    "Approval",
    "ApprovalRequirement",
    "add_working_days",
    "check_approvals",
    "is_working_day",
    "working_days_between",
]

APPROVAL_WORKING_DAYS = 3
"""CSP-13 / BAC-19: applied for at least three working days before the planned date."""


class ApprovalRequirement(NamedTuple):
    """An option in use that needs the regulator's approval.

    ``option`` is a stable key (``"royal_flush_odds"``), ``value`` the value in use, ``rule`` the
    SPEC rule that demands approval (``"CSP-13"``), ``description`` a readable sentence.
    """

    option: str
    value: object
    rule: str
    description: str


@dataclass(frozen=True, slots=True)
class Approval:
    """One approval by the regulator (DICJ) of ``option`` set to ``value``.

    Refuses (``ConfigError``) an empty option or reference, non-dates, or an effective date
    before the application date.
    """

    option: str
    value: object
    reference: str
    applied_on: date
    effective_on: date

    def __post_init__(self) -> None:
        if not isinstance(self.option, str) or not self.option:
            raise ConfigError("core.approval_no_option", option=repr(self.option))
        if not isinstance(self.reference, str) or not self.reference.strip():
            raise ConfigError("core.approval_no_reference", option=repr(self.option))
        for name in ("applied_on", "effective_on"):
            value = getattr(self, name)
            # datetime is a date subclass; a timestamp is not what the law counts in.
            if not isinstance(value, date) or isinstance(value, datetime):
                raise ConfigError("core.approval_not_a_date", field=name, value=repr(value))
        if self.effective_on < self.applied_on:
            raise ConfigError(
                "core.approval_effective_before_applied",
                reference=self.reference,
                effective_on=self.effective_on.isoformat(),
                applied_on=self.applied_on.isoformat(),
            )


def is_working_day(day: date, holidays: Collection[date] = ()) -> bool:
    """True for Monday..Friday that is not in ``holidays``."""
    return day.weekday() < 5 and day not in holidays


def add_working_days(start: date, days: int, holidays: Collection[date] = ()) -> date:
    """The date ``days`` (≥ 0) working days after ``start`` (``start`` itself not counted).

    ``add_working_days(start, 0) == start``. Refuses (:class:`ConfigError`, a ``ValueError``)
    a negative or non-int ``days``.
    """
    if isinstance(days, bool) or not isinstance(days, int) or days < 0:
        raise ConfigError("core.approval_bad_days", days=repr(days))
    day = start
    left = days
    while left:
        day += timedelta(days=1)
        if is_working_day(day, holidays):
            left -= 1
    return day


def working_days_between(start: date, end: date, holidays: Collection[date] = ()) -> int:
    """The number of working days ``d`` with ``start < d <= end`` (0 when ``end <= start``).

    Inverse of :func:`add_working_days`: ``working_days_between(a, add_working_days(a, n)) == n``.
    """
    if end <= start:
        return 0
    total_days = (end - start).days
    full_weeks, rest = divmod(total_days, 7)
    count = full_weeks * 5
    day = start + timedelta(days=full_weeks * 7)
    for _ in range(rest):
        day += timedelta(days=1)
        if day.weekday() < 5:
            count += 1
    # Holidays only count when they fall on a weekday inside the interval.
    count -= sum(1 for h in set(holidays) if start < h <= end and h.weekday() < 5)
    return count


def check_approvals(
    options: Iterable[ApprovalRequirement | tuple[str, object, str, str]],
    approvals: Iterable[Approval],
    opening_date: date,
    holidays: Collection[date] = (),
) -> tuple[Approval, ...]:
    """Check every option in use that needs approval against the approval records.

    For each requirement there must be an :class:`Approval` for the same option and the same
    value whose effective date is at least 3 working days after its application date
    (CSP-13 / BAC-19) and not later than ``opening_date``.

    Returns the approval used for each requirement, in order. Raises :class:`RuleViolation`
    carrying the requirement's rule id and naming the option otherwise.
    """
    records = tuple(approvals)
    used: list[Approval] = []
    for req in options:
        option, value, rule, description = req
        same_option = [a for a in records if a.option == option]
        same_value = [a for a in same_option if a.value == value]
        if not same_value:
            approved = ", ".join(repr(a.value) for a in same_option) or "none"
            raise RuleViolation(
                rule,
                "core.approval_missing",
                option=repr(option),
                value=repr(value),
                description=description,
                approved=approved,
            )
        timely = [
            a
            for a in same_value
            if working_days_between(a.applied_on, a.effective_on, holidays) >= APPROVAL_WORKING_DAYS
        ]
        if not timely:
            refs = ", ".join(
                f"{a.reference} applied {a.applied_on} effective {a.effective_on}"
                for a in same_value
            )
            raise RuleViolation(
                rule,
                "core.approval_too_soon",
                option=repr(option),
                value=repr(value),
                days=APPROVAL_WORKING_DAYS,
                records=refs,
            )
        effective = [a for a in timely if a.effective_on <= opening_date]
        if not effective:
            refs = ", ".join(f"{a.reference} effective {a.effective_on}" for a in timely)
            raise RuleViolation(
                rule,
                "core.approval_not_yet_effective",
                option=repr(option),
                value=repr(value),
                opening_date=opening_date.isoformat(),
                records=refs,
            )
        used.append(max(effective, key=lambda a: (a.effective_on, a.reference)))
    return tuple(used)

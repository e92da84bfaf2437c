"""The test fixture that copies a shared set-up into each test's store (tests.db_fixtures.filled)
keeps one copy per business day in Macau: a run crossing midnight there (16:00 UTC) fills again,
so no later test is given rows stamped yesterday (a table's opening date, CSP-13 / BAC-19)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from tests.db_fixtures import filled


def test_a_copy_is_kept_for_one_macau_business_day(store: Any) -> None:
    key = f"day-test-{uuid.uuid4().hex}"
    fills: list[datetime] = []
    now = [datetime(2026, 12, 5, 15, 59, 59, tzinfo=UTC)]  # 23:59:59 in Macau
    store.clock = lambda: now[0]
    filled(store, key, lambda s: fills.append(s.clock()))
    filled(store, key, lambda s: fills.append(s.clock()))
    assert fills == [now[0]]  # the same day: the copy
    now[0] = datetime(2026, 12, 5, 16, 0, tzinfo=UTC)  # midnight in Macau
    filled(store, key, lambda s: fills.append(s.clock()))
    assert fills == [datetime(2026, 12, 5, 15, 59, 59, tzinfo=UTC), now[0]]

"""Shared test helpers.

``MACAU_TABLES_REQUIRE_ALL=1`` (set by CI) turns every optional-dependency skip into a failure:
in CI nothing may be skipped.
"""

from __future__ import annotations

import gc

import pytest
from hypothesis import HealthCheck, settings

from tests.support import (  # noqa: F401 (re-exported)
    REQUIRE_ALL,
    build_cli_commands_once,
    require_module,
)

build_cli_commands_once()

# Hypothesis's time limits are timings, which no test here asserts: an example that takes
# longer than 200 ms on a busy machine (two xdist workers beside other work) is not a failure,
# nor is slow data generation. Every other setting stays Hypothesis's own or the test's.
settings.register_profile(
    "macau-tables", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("macau-tables")


# Database fixtures (``database_url``, ``migrated_url``, ``store``, ``pg_store``,
# ``pg_module_database``, the worker's ``pg_worker_database`` and migrated
# ``pg_worker_store_database`` copied from ``pg_template_database``): on SQLite and PostgreSQL
# (see tests/db_fixtures.py).
from tests.db_fixtures import (  # noqa: E402, F401
    database_url,
    migrated_url,
    pg_module_database,
    pg_module_end,
    pg_store,
    pg_template_database,
    pg_worker_database,
    pg_worker_store_database,
    sqlite_template,
    store,
)

WALL_CLOCK_FIRST = ("tests/browser/test_round_cycle.py",)
"""Modules whose tests mostly wait on the wall clock (a real round cycle's countdowns and
pauses): collected first, so that a worker runs them while the others keep the cores busy,
not at the session's end, when their waits would be the run's last seconds."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.nodeid.partition("::")[0] not in WALL_CLOCK_FIRST)


@pytest.hookimpl(tryfirst=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """At the session's end, one collection of the cyclic garbage (its finalizers run, any
    exception they raise reported by pytest as ever), then every object left frozen: pytest's
    own collections after it (five, looking for unraisable exceptions) then scan only what is
    made after this, not a worker's whole heap five times over (a second or more per worker,
    the session's last)."""
    gc.collect()
    gc.freeze()

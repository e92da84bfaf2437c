"""Shared fixtures of the analysis tests.

``macau_par`` / ``standard_par``: the PAR sheet's exact Caribbean Stud analysis (royal flush
100:1, :func:`~macau_tables.analysis.caribbean_exact.par_rules`) under the Macau and the
standard ranking, with the per-up-card counts of :data:`PROBES` kept for the brute-force
checks. Several modules read the same analysis: it is computed once per test session — under
pytest-xdist by the first worker that needs it, the others load it from the run's shared
temporary folder (a file lock keeps them from computing it too).
"""

from __future__ import annotations

import fcntl
import os
import pickle
from collections.abc import Callable
from typing import TypeVar

import pytest

from macau_tables.analysis.caribbean_exact import CaribbeanAnalysis, analyze, par_rules
from tests.analysis.support import PROBES

T = TypeVar("T")


def shared(factory: pytest.TempPathFactory, name: str, build: Callable[[], T]) -> T:
    """``build()`` once per test session: under pytest-xdist the first worker builds it and
    leaves it in the folder shared by the run's workers; the others wait for it and load it."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if os.environ.get("PYTEST_XDIST_WORKER") is None or run is None:
        return build()
    folder = factory.getbasetemp().parent  # shared by the run's workers (maybe by other runs)
    path = folder / f"{name}-{run}.pickle"  # this run's only: never another code's result
    with open(folder / f"{name}-{run}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if path.exists():
            value: T = pickle.loads(path.read_bytes())
            return value
        value = build()
        part = path.with_suffix(".part")
        part.write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        part.replace(path)
        return value


def _par(ranking: str) -> Callable[[], CaribbeanAnalysis]:
    return lambda: analyze(par_rules(100), ranking=ranking, probes=PROBES)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def macau_par(tmp_path_factory: pytest.TempPathFactory) -> CaribbeanAnalysis:
    """The PAR sheet's analysis, Macau ranking (CSP-8), with the probes' counts."""
    return shared(tmp_path_factory, "caribbean-par-macau", _par("macau"))


@pytest.fixture(scope="session")
def standard_par(tmp_path_factory: pytest.TempPathFactory) -> CaribbeanAnalysis:
    """The PAR sheet's analysis, standard ranking (equal hands push), with the probes' counts."""
    return shared(tmp_path_factory, "caribbean-par-standard", _par("standard"))

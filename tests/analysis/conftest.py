"""Shared fixtures of the analysis tests.

``macau_par`` / ``standard_par``: the PAR sheet's exact Caribbean Stud analysis (royal flush
100:1, :func:`~macau_tables.analysis.caribbean_exact.par_rules`) under the Macau and the
standard ranking, with the per-up-card counts of :data:`PROBES` kept for the brute-force
checks. Several modules read the same analysis: it is computed once per test session — under
pytest-xdist by the first worker that needs it, the others load it from the run's shared
temporary folder (a file lock keeps them from computing it too; tests/analysis/support.py,
whose :func:`~tests.analysis.support.par_analysis` the server's tests of the admin's analysis
share too).
"""

from __future__ import annotations

import pytest

from macau_tables.analysis.caribbean_exact import CaribbeanAnalysis
from tests.analysis.support import par_analysis, shared  # noqa: F401 (shared re-exported)


@pytest.fixture(scope="session")
def macau_par(tmp_path_factory: pytest.TempPathFactory) -> CaribbeanAnalysis:
    """The PAR sheet's analysis, Macau ranking (CSP-8), with the probes' counts."""
    return par_analysis(tmp_path_factory, "macau")


@pytest.fixture(scope="session")
def standard_par(tmp_path_factory: pytest.TempPathFactory) -> CaribbeanAnalysis:
    """The PAR sheet's analysis, standard ranking (equal hands push), with the probes' counts."""
    return par_analysis(tmp_path_factory, "standard")

"""Every module of the package imports, and every docstring example in it runs and prints what
it says (``doctest``), so the examples a reader copies are true."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from types import ModuleType

import pytest

import macau_tables


def _module_names() -> list[str]:
    names = [macau_tables.__name__]
    for info in pkgutil.walk_packages(macau_tables.__path__, prefix=f"{macau_tables.__name__}."):
        names.append(info.name)
    return sorted(names)


MODULES = _module_names()


def test_the_walk_finds_the_package() -> None:
    assert {"macau_tables.money", "macau_tables.cli.app", "macau_tables.analysis.render"} <= set(
        MODULES
    )


@pytest.mark.parametrize("name", MODULES)
def test_module_imports_and_its_examples_run(name: str) -> None:
    module: ModuleType = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name):
        runner.run(test)
    failures, tried = runner.summarize(verbose=False)
    assert failures == 0, f"{failures} of {tried} docstring examples of {name} failed (see above)"

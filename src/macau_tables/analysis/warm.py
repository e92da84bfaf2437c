"""Compile the analysis's numba kernels into numba's on-disk cache: ``python -m
macau_tables.analysis.warm`` (``make install`` runs it).

The kernels are compiled with ``cache=True``: the first call on a machine compiles them (the
Caribbean sweep's about 15 s of CPU) and writes the machine code beside the sources
(``__pycache__``), every later process loads it in a fraction of a second. Run at install time,
the first exact analysis a fresh machine makes — the admin page's figures of a changed option
(:mod:`.options`), a PAR sheet — takes the seconds of the computation alone. Each call below is
made the way the library makes it, so numba caches the very signatures the library uses.
Prints what it compiled and how long each took (wall and CPU seconds).
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["main", "warm"]


def _caribbean() -> None:
    from ..caribbean.rules import CaribbeanRules
    from .caribbean_exact import par_rules
    from .options import table_figures

    rules: CaribbeanRules = par_rules(100)
    table_figures(rules, 0)  # the sweep, the hand evaluator on int8 hands, the jackpot


def _baccarat() -> None:
    from ..baccarat.rules import BaccaratRules
    from .options import table_figures

    table_figures(BaccaratRules(), 0)  # the value rounds' table and the shoe's counts


WORK: dict[str, Callable[[], None]] = {"caribbean": _caribbean, "baccarat": _baccarat}
"""What is compiled, by game."""


def warm(report: Callable[[str], None] = print) -> None:
    """Run each game's analysis once (compiling and caching its kernels when the cache does not
    have them yet), reporting each's wall and CPU seconds through ``report``."""
    for name, work in WORK.items():
        wall, cpu = time.perf_counter(), time.process_time()
        work()
        report(
            f"{name}: {time.perf_counter() - wall:.1f} s wall, "
            f"{time.process_time() - cpu:.1f} s CPU"
        )


def main() -> None:
    """The command: :func:`warm`, printing to the terminal."""
    warm()


if __name__ == "__main__":
    main()

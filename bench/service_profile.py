"""Where the table service spends its time: a profile of bots playing through it.

Usage::

    .venv/bin/python bench/service_profile.py [--backend sqlite] [--game caribbean]
        [--rounds 100] [--mode single|batched] [--html out.html]

Plays like ``bench/service_rounds.py`` under pyinstrument (``pip install pyinstrument`` into
the venv: it is not a dependency of the project) and prints the call tree of the timed part.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from macau_tables.tables import Bots, TableService
from service_db import demo_casino, open_store, scratch_url

TABLES = {"caribbean": "csp-1", "baccarat": "bac-1"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", default="sqlite")
    parser.add_argument("--game", default="caribbean")
    parser.add_argument("--mode", default="single")
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--html", type=Path, default=None)
    parser.add_argument("--workdir", default=None)
    args = parser.parse_args()
    from pyinstrument import Profiler

    with scratch_url(args.backend, workdir=args.workdir) as url:
        store = open_store(url)
        players = demo_casino(store)
        service = TableService(store, TABLES[args.game], owner="bench")
        bots = Bots(service, players[: args.players], seed=1, batched=args.mode == "batched")
        bots.play(2)
        profiler = Profiler(interval=0.0005)
        profiler.start()
        bots.play(args.rounds)
        profiler.stop()
        service.close()
        store.close()
    print(profiler.output_text(unicode=True, color=False, show_all=False))
    if args.html is not None:
        args.html.write_text(profiler.output_html())
    return 0


if __name__ == "__main__":
    sys.exit(main())

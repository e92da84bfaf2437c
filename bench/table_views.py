"""Benchmark: what the table sockets' messages cost per bet, in process (issue 21, item 1).

Usage::

    .venv/bin/python bench/table_views.py [--players 10] [--rounds 30] [--json PATH]

One virtual baccarat table (``bac-1``, the set-up of ``bench/server_load.py``) watched by
``--players`` players, the dealer, a supervisor and the public, one socket each; the table runs
``--rounds`` rounds of its cycle (open, every player's bet, close: dealt and settled). After
every event each socket is given what ``server/streams.py`` would send it if it took every
update (no coalescing: the most a socket that keeps up is sent), made by the streams' own
``_Texts`` — version 1 (one whole view a socket, encoded once per update and audience),
version 2 (one shared text a table event, and a part per audience) or version 3 (one message
an update holding the sections that changed for the socket: shared, seat, own part), whichever
the imported code has — and a text equal to the last one of its kind sent on that socket is
not counted again, as the sender does. Printed: messages and bytes a bet, and the CPU time
spent making the texts (the event loop's share of a bet's cost) a bet.

Run against another tree (the "before" of an A/B) with its ``src`` first on ``PYTHONPATH``:
nothing else moves. Machine-independent figures: messages and bytes; the time follows the load.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from macau_tables.baccarat.commands import PlaceWager
from macau_tables.baccarat.rules import WagerKind
from macau_tables.rounds import Audience
from macau_tables.server import streams
from macau_tables.server.principal import Principal, UserRole
from macau_tables.store import Store
from macau_tables.tables.casino import UNIT
from macau_tables.tables.service import TableService
from server_load import set_up


class Socket:
    """One watcher: its audience and role, and the last text of each kind sent."""

    def __init__(self, audience: Audience, principal: Principal | None) -> None:
        self.audience = audience
        self.principal = principal
        self.role = None if principal is None else principal.role
        self.last: dict[str, str] = {}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    version = streams.VERSION if hasattr(streams, "VERSION") else 1
    with tempfile.TemporaryDirectory(prefix="mt-views-") as folder:
        url = f"sqlite:///{Path(folder) / 'views.db'}"
        (table, *_) = set_up(url, args.players, args.players)
        store = Store.open(url)
        svc = TableService(store, table.table_id)
        sockets = [
            *(Socket(Audience.of_player(p), Principal(p, UserRole.PLAYER)) for p in table.players),
            Socket(Audience.dealer(), Principal("dealer", UserRole.DEALER)),
            Socket(Audience.supervisor(), Principal("supervisor", UserRole.SUPERVISOR)),
            Socket(Audience.public(), None),
        ]
        texts = streams._texts_of(svc)
        counts = {"messages": 0, "bytes": 0, "events": 0}
        spent = [0.0]

        def send(sock: Socket, kind: str, text: str | None) -> None:
            if text is None or sock.last.get(kind) == text:
                return
            sock.last[kind] = text
            counts["messages"] += 1
            counts["bytes"] += len(text.encode())

        def watch(sock: Socket) -> Any:
            def callback(update: Any) -> None:
                if not hasattr(update, "seq"):
                    return  # a meter's update
                extra = streams._now_of(svc, update, sock.principal)
                started = time.process_time()
                if version == 1:
                    made = [("table", texts.text(update, extra, sock.role))]  # type: ignore[attr-defined]
                elif version == 2:
                    shared = texts.shared(update, extra["status"], svc.setup.mode)
                    made = [("part", texts.part(update, extra, sock.role, shared))]  # type: ignore[call-arg]
                    made.append(("shared", shared.text))  # type: ignore[attr-defined]
                else:  # one message holding the sections that changed for the socket
                    mode = svc.setup.mode
                    sections = texts.sections(update, extra, sock.role, mode)  # type: ignore[attr-defined]
                    changed = [(k, t) for k, t in sections if sock.last.get(k) != t]
                    sock.last.update(changed)
                    frame = (
                        streams._frame(update.table_id, update.seq, changed) if changed else None
                    )  # type: ignore[attr-defined]
                    made = [("frame", frame)]
                spent[0] += time.process_time() - started
                for kind, text in made:
                    if kind == "frame":
                        if text is not None:
                            counts["messages"] += 1
                            counts["bytes"] += len(text.encode())
                        continue
                    send(sock, kind, text)

            return svc.subscribe(sock.audience, callback)

        subs = [watch(s) for s in sockets]
        rnd = random.Random(7)
        bets = 0
        for n in range(args.rounds):
            opened = svc.state.rounds
            while svc.state.rounds == opened:
                svc.cycle_step()
            if getattr(svc.round, "demo", False):
                svc.cycle_step()
                continue
            for name in table.players:
                kind = WagerKind.BANKER if rnd.random() < 0.5 else WagerKind.PLAYER
                wager = PlaceWager(name, table.area(name), kind, UNIT)
                svc.submit(wager, idempotency_key=f"w{n}-{name}", actor=name)
                bets += 1
            svc.cycle_step()  # the close: dealt and settled
        for sub in subs:
            sub.close()
        svc.close()
        store.close()
    result = {
        "format_version": version,
        "players": args.players,
        "rounds": args.rounds,
        "bets": bets,
        "messages_per_bet": round(counts["messages"] / bets, 2),
        "bytes_per_bet": round(counts["bytes"] / bets),
        "text_cpu_ms_per_bet": round(1000 * spent[0] / bets, 3),
        "load_average": list(os.getloadavg()),
    }
    print(json.dumps(result, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Starting driver processes (:mod:`tests.faults.driver`) and killing them (no tests here)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from macau_tables.store import Store
from macau_tables.tables import MemoryVault, TableService

from .driver import owner

ROOT = Path(__file__).resolve().parents[2]
READY_TIMEOUT = 60.0


@dataclass
class Driver:
    """A driver process (forked by the :class:`Zygote`), playing ``table_id`` since
    ``went`` (monotonic seconds); it writes its progress to ``outfile``."""

    table_id: str
    pid: int
    outfile: Path
    went: float

    def output(self) -> list[str]:
        """The lines it wrote so far."""
        return self.outfile.read_text().splitlines() if self.outfile.exists() else []

    def alive(self) -> bool:
        """Whether the process still runs."""
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        return True

    def reached(self, line: str) -> float:
        """Wait until it has written ``line`` (``"started"``: its table open and recovered;
        ``"round 1"``: its first round played) and return when that was seen (monotonic
        seconds); at most :data:`READY_TIMEOUT` s, refusing a driver that ended or failed."""
        deadline = time.monotonic() + READY_TIMEOUT
        while line not in (out := self.output()):
            if "error" in out or not self.alive():
                raise RuntimeError(f"driver {self.table_id} never wrote {line!r}: {out[-30:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"driver {self.table_id}: no {line!r} in {READY_TIMEOUT} s")
            time.sleep(0.002)
        return time.monotonic()

    def kill(self) -> str:
        """SIGKILL it and wait until it is gone; returns where it was: ``"startup"``
        (opening the table, its recovery), ``"started"`` (in its first round) or
        ``"round <n>"`` (after round n). Refuses a driver that ended on its own."""
        if not self.alive():
            raise RuntimeError(f"driver {self.table_id} ended: {self.output()[-30:]}")
        os.kill(self.pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while self.alive():
            if time.monotonic() > deadline:
                raise RuntimeError(f"driver {self.table_id} survived SIGKILL")
            time.sleep(0.002)
        out = self.output()
        if "error" in out:
            raise RuntimeError(f"driver {self.table_id} failed: {out[-30:]}")
        if "started" not in out:
            return "startup"
        return out[-1]


class Zygote:
    """The warm interpreter that forks drivers (``python -m tests.faults.driver``)."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.count = 0
        # the checkout's own source first (not whichever copy the interpreter has installed)
        path = os.pathsep.join((str(ROOT / "src"), str(ROOT)))
        env = dict(os.environ, PYTHONPATH=path, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.faults.driver"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        if self._line() != "ready":
            raise RuntimeError("the driver zygote did not start")

    def _line(self) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the driver zygote died ({self.proc.poll()})")
        return line.strip()

    def fork(self, url: str, table_id: str, seed: int, players: int = 4) -> Driver:
        """A new driver playing ``table_id`` on ``url`` now."""
        assert self.proc.stdin is not None
        self.count += 1
        outfile = self.workdir / f"driver-{table_id}-{self.count}.out"
        self.proc.stdin.write(f"{url} {table_id} {seed} {players} {outfile}\n")
        self.proc.stdin.flush()
        pid = int(self._line())
        return Driver(table_id, pid, outfile, time.monotonic())

    def close(self) -> None:
        """Stop it (drivers still running are killed by the test first)."""
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()

    def __enter__(self) -> Zygote:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def restart(store: Store, table_id: str, **kw: Any) -> TableService:
    """The table opened again as a new process would (the driver's owner, an empty vault):
    its start-up recovery runs."""
    return TableService(store, table_id, owner=owner(table_id), vault=MemoryVault(), **kw)

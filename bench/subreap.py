"""Run a command as a child subreaper, so that ``/usr/bin/time`` over this script sees the CPU of
the command's whole process tree.

Usage::

    /usr/bin/time -f '%e s wall %U user %S sys' .venv/bin/python bench/subreap.py COMMAND...

``/usr/bin/time`` over a command counts the processes the command waits for, and those they
waited for. Chromium's renderers (started by the browser tests through Playwright's driver) are
not among them: at the browser's close they are re-parented to init, which reaps them, and
their CPU is lost to the measure (a page spinning its script for 4 s under Playwright: 0.98 s
of user+sys seen by ``/usr/bin/time``). Here this process is their subreaper
(``PR_SET_CHILD_SUBREAPER``): every orphan of the tree is re-parented to it and reaped, so its
CPU is counted (the same page: 4.1 s). Once the command ends, the orphans still running are
waited for up to 15 s, then named on stderr (left running). Exit status: the command's.
"""

from __future__ import annotations

import ctypes
import os
import resource
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
LINGER_SECONDS = 15.0


def _orphans() -> list[int]:
    mine = str(os.getpid())
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == mine:
            found.append(int(entry))
    return found


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")
    child = os.fork()
    if child == 0:  # pragma: no cover - the command
        os.execvp(argv[0], argv)
    code = 0
    deadline: float | None = None
    while True:
        try:
            if deadline is None:
                pid, status = os.wait()
            else:
                pid, status = os.waitpid(-1, os.WNOHANG)
                if pid == 0:
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.1)
                    continue
        except ChildProcessError:
            break
        if pid == child:
            code = os.waitstatus_to_exitcode(status)
            deadline = time.monotonic() + LINGER_SECONDS
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    left = _orphans()
    print(
        f"subreap: the tree's CPU {used.ru_utime:.1f} s user {used.ru_stime:.1f} s sys"
        + (f"; still running: {left}" if left else ""),
        file=sys.stderr,
    )
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The admin page's exact math, in a worker process of its own.

A change of a table's options shows, before it is saved, the exact figures of the configuration
it would make and of the approved one (:func:`macau_tables.analysis.options.table_figures`:
house edge and return of each wager, the jackpot's return at the meter and its break-even
meter) and their difference. That analysis — a sweep of every Caribbean Stud deal, the counts of
a baccarat shoe — never runs on the server's event loop or beside a table's commit: it runs in
ONE worker process (a :class:`~concurrent.futures.ProcessPoolExecutor` with one worker, started
on the first request, ``spawn``-ed so it shares no lock or thread of the server), which keeps
the Caribbean sweeps it made (:func:`~macau_tables.analysis.options.caribbean_sweep`).

:class:`AnalysisJobs` is the server's side: :meth:`~AnalysisJobs.submit` takes the current and
the candidate rules (already validated by the rules themselves) and the meter, and answers a
job at once; each configuration's figures are computed once and kept by the configuration's
digest (``codec.sha256`` of the rules, the digest its stored version is named by) and the meter
(:data:`CACHE_SIZE` of them): a figure set already known, or being computed for another job, is
not computed again. The worker reports each stage (:data:`~macau_tables.analysis.options.STEPS`)
through a queue that :meth:`~AnalysisJobs.status` reads, so the page shows the progress. A worker
that dies fails the jobs it was computing (``analysis.job_failed``); the next job starts a new
one and computes those figures again.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import threading
import uuid
from collections import OrderedDict
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, Final

from .. import codec, games
from ..analysis.options import STEPS, difference, table_figures
from ..errors import MacauTablesError

__all__ = ["CACHE_SIZE", "JOBS_KEPT", "AnalysisJobs", "jobs", "shutdown"]

CACHE_SIZE: Final = 64
"""How many configurations' figures the server keeps (by digest and meter)."""
JOBS_KEPT: Final = 200
"""How many jobs the server remembers (the oldest forgotten first)."""

# -- the worker process ----------------------------------------------------------------------

_progress: Any = None  # the worker's end of the progress queue (set by _start_worker)


def _start_worker(progress: Any) -> None:
    global _progress
    _progress = progress


def _figures(key: str, payload: dict[str, Any], meter: int) -> dict[str, Any]:
    """In the worker: the figures of the rules ``payload`` (the codec's JSON) at ``meter``,
    each stage reported under ``key``; a refusal answered as ``{"error": {key, params}}`` (an
    exception would not cross the process boundary whole)."""

    def step(name: str) -> None:
        if _progress is not None:
            _progress.put((key, name))

    try:
        figures = table_figures(codec.decode(payload), meter, step)
    except MacauTablesError as exc:
        return {"error": {"key": exc.key, "params": dict(exc.params)}}
    figures["worker_pid"] = os.getpid()
    return figures


# -- the server's side -----------------------------------------------------------------------


@dataclass
class _Figures:
    """One configuration's figures: being computed (``future``) or known (``result``)."""

    game: str
    future: Future[dict[str, Any]] | None = None
    result: dict[str, Any] | None = None
    steps: list[str] = field(default_factory=list)
    failed: bool = False
    """The worker did not answer (it died, or the job was cancelled): asked again, computed
    again."""


@dataclass(frozen=True, slots=True)
class _Job:
    current: str
    candidate: str
    cached: bool


def _key(digest: str, meter: int) -> str:
    return f"{digest}@{meter}"


class AnalysisJobs:
    """The analysis jobs of this server process and its one worker (module docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._executor: ProcessPoolExecutor | None = None
        self._queue: Any = None
        self._figures: OrderedDict[str, _Figures] = OrderedDict()
        self._jobs: OrderedDict[str, _Job] = OrderedDict()

    def _pool(self) -> ProcessPoolExecutor:
        """The worker (started if none runs, or started again after it died)."""
        if self._executor is not None and getattr(self._executor, "_broken", False):
            self._executor.shutdown(wait=False, cancel_futures=True)  # its worker died
            self._executor = None
        if self._executor is None:
            context = multiprocessing.get_context("spawn")
            self._queue = context.Queue()
            self._executor = ProcessPoolExecutor(
                max_workers=1,
                mp_context=context,
                initializer=_start_worker,
                initargs=(self._queue,),
            )
        return self._executor

    def _want(self, rules: Any, meter: int) -> tuple[str, bool]:
        """The key of ``rules``' figures at ``meter``, submitted to the worker unless known or
        under way (under the lock); and whether they were known or under way."""
        key = _key(codec.sha256(rules), meter)
        found = self._figures.get(key)
        if found is not None:
            self._settle(found)
        if found is not None and not found.failed:
            self._figures.move_to_end(key)
            return key, True
        game = games.of_rules(rules)
        payload = codec.encode(rules)
        try:
            future = self._pool().submit(_figures, key, payload, meter)
        except BrokenProcessPool:  # the worker died just now: a new one
            future = self._pool().submit(_figures, key, payload, meter)
        self._figures[key] = _Figures(game, future)
        while len(self._figures) > CACHE_SIZE:
            self._figures.popitem(last=False)
        return key, False

    def submit(self, current: Any, candidate: Any, meter: int) -> str:
        """A job comparing the ``candidate`` rules with the ``current`` ones at ``meter``
        (minor units); its id, at once."""
        with self._lock:
            old, old_known = self._want(current, meter)
            new, new_known = self._want(candidate, meter)
            job_id = uuid.uuid4().hex
            self._jobs[job_id] = _Job(old, new, old_known and new_known)
            while len(self._jobs) > JOBS_KEPT:
                self._jobs.popitem(last=False)
        return job_id

    def _drain(self) -> None:
        """Move the worker's reported stages to their figures (under the lock)."""
        while self._queue is not None:
            try:
                key, name = self._queue.get_nowait()
            except queue.Empty:
                return
            found = self._figures.get(key)
            if found is not None and name not in found.steps:
                found.steps.append(name)

    def _settle(self, found: _Figures) -> None:
        """Take the worker's answer into ``found`` once it has come (under the lock)."""
        if found.result is None and found.future is not None and found.future.done():
            if found.future.cancelled() or found.future.exception() is not None:
                found.result = {"error": {"key": "analysis.job_failed", "params": {}}}
                found.failed = True
            else:
                found.result = found.future.result()
                if "error" not in found.result:
                    # every stage ran: its last reports may still be on their way from the
                    # worker (the progress queue and the answer travel apart)
                    found.steps = list(STEPS[found.game])
            found.future = None

    def status(self, job_id: str) -> dict[str, Any] | None:
        """The job's state (``None`` for a job this server does not know): ``state``
        (``running``, ``done``, ``failed``), the stages done of all (``progress``), the two
        figure sets and their difference once both are known, ``cached`` (every figure was
        known when the job was asked), ``error`` (a refusal's key and params)."""
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None:
                return None
            self._drain()
            parts = [self._figures.get(job.current), self._figures.get(job.candidate)]
            for part in parts:
                if part is not None:
                    self._settle(part)
            if any(p is None for p in parts):  # forgotten meanwhile: the job is lost
                return {"job": job_id, "state": "failed", "error": _lost(), "cached": False}
            current, candidate = (p for p in parts if p is not None)
            total = len(STEPS[current.game]) * (1 if job.current == job.candidate else 2)
            done_steps = [
                *current.steps,
                *([] if job.current == job.candidate else candidate.steps),
            ]
            answer: dict[str, Any] = {
                "job": job_id,
                "cached": job.cached,
                "progress": {
                    "done": total if (current.result and candidate.result) else len(done_steps),
                    "total": total,
                    "step": done_steps[-1] if done_steps else None,
                },
            }
            if current.result is None or candidate.result is None:
                return {**answer, "state": "running"}
            error = current.result.get("error") or candidate.result.get("error")
            if error is not None:
                return {**answer, "state": "failed", "error": error}
            return {
                **answer,
                "state": "done",
                "current": current.result,
                "candidate": candidate.result,
                "difference": difference(current.result, candidate.result),
            }

    def wait(self, job_id: str, timeout: float) -> None:
        """Block (not on an event loop: tests and the command line) until ``job_id``'s figures
        are computed, or ``timeout`` seconds."""
        with self._lock:
            job = self._jobs.get(job_id)
            futures = [
                f.future
                for k in (() if job is None else (job.current, job.candidate))
                if (f := self._figures.get(k)) is not None and f.future is not None
            ]
        for future in futures:
            if not future.cancelled():
                future.exception(timeout=timeout)

    def processes(self) -> list[int]:
        """The process ids of the worker (none before the first job or after a shutdown)."""
        with self._lock:
            executor = self._executor
            found = {} if executor is None else dict(getattr(executor, "_processes", None) or {})
        return sorted(found)

    def shutdown(self) -> None:
        """Stop the worker (it is started again by the next job)."""
        with self._lock:
            executor, self._executor = self._executor, None
            self._figures = OrderedDict(
                (k, f) for k, f in self._figures.items() if f.result is not None
            )
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)


def _lost() -> dict[str, Any]:
    return {"key": "analysis.job_lost", "params": {}}


jobs: Final = AnalysisJobs()
"""The analysis jobs of this server process."""


def shutdown() -> None:
    """Stop this process's analysis worker, if it runs."""
    jobs.shutdown()

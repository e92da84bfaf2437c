"""A table's links to shared things: its linked jackpot meter and its lease.

:class:`MeterLink` says whether the table can reach its meter (a table that cannot refuses
jackpot wagers and says so: a linked table that loses its link) and keeps the meter as last
seen (from its own reads and the store's meter notifications). :class:`Lease` makes the service
the one process running its table (``casino_tables.lease_owner``), renewed as it works.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Final

from ..errors import StoreError
from ..jackpot import Meter
from ..store import Store, Tx
from .model import TableError

__all__ = [
    "LEASE_SECONDS",
    "Lease",
    "MeterLink",
    "MeterUnreachable",
    "dead_on_this_host",
    "default_owner",
    "meter_reader",
    "renew_together",
]

LEASE_SECONDS: Final = 30
"""How long a process holds a table after its last command or tick."""


class MeterLink:
    """Whether the meter ``meter_id`` can be reached, why not, and its last seen value."""

    def __init__(self, meter_id: str | None, last: Meter | None, seed: int | None = None) -> None:
        self.meter_id = meter_id
        self.seed = seed  # the restart amount the table's configuration expects
        self.up = True
        self.manual = False
        self.reason: str | None = None
        self.last = last
        self._lock = threading.Lock()

    def lost(self, reason: str, *, manual: bool) -> None:
        """The link is down for ``reason`` (``manual``: reported, not found by a failed
        read; only :meth:`restored` brings it back)."""
        with self._lock:
            self.up, self.manual, self.reason = False, manual, reason

    def restored(self) -> None:
        """The link is back."""
        with self._lock:
            self.up, self.manual, self.reason = True, False, None

    def seen(self, amount: int, seed: int | None = None) -> None:
        """The meter was seen at ``amount`` (with ``seed``, else the seed known so far)."""
        with self._lock:
            known = self.last.seed if self.last is not None else 0
            self.last = Meter(amount, known if seed is None else seed)

    def probe(self, store: Store) -> bool:
        """Try to read the meter (when the link was found down, not reported down); on
        success the link is back. Returns whether it is up."""
        if self.up or self.manual or self.meter_id is None:
            return self.up
        meter_id = self.meter_id
        try:
            meter = store.read(lambda tx: tx.meter(meter_id))
        except Exception:  # still out of reach, whatever the reason
            return False
        if self.seed is not None and meter.seed != self.seed:
            return False  # the meter restarts from another seed than the table expects
        self.seen(meter.amount, meter.seed)
        self.restored()
        return True


class MeterUnreachable(Exception):
    """Reading the meter failed inside a transaction (it is rolled back; the service marks the
    link down and refuses the command, saying so)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def meter_reader(tx: Tx, meter_id: str | None) -> Callable[[bool], Meter] | None:
    """How a batch reads meter ``meter_id`` in ``tx`` (``True``: under lock, for an award);
    ``None`` for a table without a meter."""
    if meter_id is None:
        return None
    mid = meter_id

    def read(lock: bool) -> Meter:
        try:
            amount, seed = tx.meter_state(mid, lock=lock)
        except StoreError as exc:
            if exc.key == "store.unknown_meter":
                raise MeterUnreachable(exc.message) from exc
            raise
        return Meter(amount, seed)

    return read


def default_owner(tag: object) -> str:
    """An owner name for this process: ``"<host>:<pid>:<tag>"``."""
    return f"{socket.gethostname()}:{os.getpid()}:{tag}"


def dead_on_this_host(owner: str) -> bool:
    """Whether ``owner`` (as :func:`default_owner` names them) is a process of this host that
    no longer exists. Owners named otherwise are never taken for dead."""
    host, _, rest = owner.partition(":")
    pid_text = rest.partition(":")[0]
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # it exists, run by someone else
        return False
    return False


class Lease:
    """``owner``'s lease of ``table_id`` (one actor per table), running ``seconds`` after each
    renewal."""

    def __init__(
        self, store: Store, table_id: str, owner: str, *, seconds: float = LEASE_SECONDS
    ) -> None:
        self.store = store
        self.table_id = table_id
        self.owner = owner
        self.seconds = seconds
        self.until: datetime | None = None

    def due(self, now: datetime) -> bool:
        """Whether :meth:`renew` would write at ``now`` (less than half of the lease left)."""
        return self.until is None or self.until - now <= timedelta(seconds=self.seconds / 2)

    def renew(self, now: datetime, *, force: bool = False) -> None:
        """Take or renew the lease when less than half of it is left (``force``: now).
        Refuses (``tables.leased``) while another owner's lease runs — unless that owner is a
        process of this host that no longer exists (killed: its table is taken over at once)."""
        if not force and not self.due(now):
            return
        if not self.store.run(self._take):
            raise TableError("tables.leased", table=self.table_id)
        self.until = now + timedelta(seconds=self.seconds)

    def _take(self, tx: Tx) -> bool:
        until = tx.now() + timedelta(seconds=self.seconds)
        if tx.acquire_lease(self.table_id, self.owner, until=until):
            return True
        holder = tx.table(self.table_id).lease_owner
        if holder is None or not dead_on_this_host(holder):
            return False
        tx.release_lease(self.table_id, holder)
        tx.audit(
            "lease_taken_over",
            actor=self.owner,
            table_id=self.table_id,
            reason="the process holding the table no longer exists",
            detail={"from": holder},
        )
        return tx.acquire_lease(self.table_id, self.owner, until=until)

    def release(self) -> None:
        """Give the table up."""
        self.store.run(lambda tx: tx.release_lease(self.table_id, self.owner))
        self.until = None


def renew_together(leases: Sequence[Lease], now: datetime) -> None:
    """When any of ``leases`` (of one store: a server's tables) is due for renewal at ``now``,
    renew them all in ONE transaction — one durable write for the tables a process serves, not
    one each, and from then on they fall due together. Renewing early is safe (each runs its
    full term from its renewal). A lease refused here (another owner's, still running) is left
    as it was: its table's own :meth:`Lease.renew` refuses it (``tables.leased``)."""
    if not leases or not any(lease.due(now) for lease in leases):
        return
    taken = leases[0].store.run(lambda tx: [lease._take(tx) for lease in leases])
    for lease, ok in zip(leases, taken, strict=True):
        if ok:
            lease.until = now + timedelta(seconds=lease.seconds)

"""Where the service keeps a virtual shoe's sealed order until the shoe ends.

The order of a shoe in play is hidden information (SPEC "Hidden information": not the shoe
order): it is never in a view, an event or a database row before it is revealed. The service
keeps it in a :class:`SealedVault`. The default, :class:`MemoryVault`, is the process's memory:
a service object dropped and opened again in the same process finds it; a process that is
killed loses it, and start-up recovery then records the shoe as lost (:class:`~.model.ShoeLost`,
CSP-11.4 "lost shoe": the round is resolved by the law and a new shoe is shuffled).
"""

from __future__ import annotations

import threading
from typing import Protocol

from .model import Sealed

__all__ = ["DEFAULT_VAULT", "MemoryVault", "SealedVault"]


class SealedVault(Protocol):
    """Keeps sealed orders by table and shoe number."""

    def put(self, table_id: str, sealed: Sealed) -> None:
        """Keep ``sealed`` (replacing one of the same number)."""
        ...

    def get(self, table_id: str, shoe_no: int) -> Sealed | None:
        """The sealed order ``shoe_no`` of ``table_id``, or ``None``."""
        ...

    def discard(self, table_id: str, shoe_no: int) -> None:
        """Forget ``shoe_no`` of ``table_id`` (revealed or lost)."""
        ...


class MemoryVault:
    """Sealed orders in this process's memory (thread-safe)."""

    def __init__(self) -> None:
        self._orders: dict[tuple[str, int], Sealed] = {}
        self._lock = threading.Lock()

    def put(self, table_id: str, sealed: Sealed) -> None:
        """Keep ``sealed``."""
        with self._lock:
            self._orders[(table_id, sealed.shoe_no)] = sealed

    def get(self, table_id: str, shoe_no: int) -> Sealed | None:
        """The sealed order, or ``None``."""
        with self._lock:
            return self._orders.get((table_id, shoe_no))

    def discard(self, table_id: str, shoe_no: int) -> None:
        """Forget it."""
        with self._lock:
            self._orders.pop((table_id, shoe_no), None)

    def __repr__(self) -> str:
        return f"MemoryVault({len(self._orders)} sealed orders)"


DEFAULT_VAULT = MemoryVault()
"""The process's vault (what a :class:`~.service.TableService` uses unless given another)."""

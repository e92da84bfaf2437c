"""The table service: real tables on the store (issue 9).

One :class:`TableService` per casino table runs its rounds through the round contract
(:class:`macau_tables.rounds.Round`), deals from the virtual shoe or takes the live console's
cards (:mod:`.dealing`: the one game-specific part), persists every command's events, ledger
postings and meter changes in one store transaction, publishes views per audience after the
commit, issues the time-outs from its :class:`Clock`, and resolves a round left open at
start-up by the law (CSP-11.4, BAC-10).

Importing this package registers the service's own types with :mod:`macau_tables.codec`
(namespace ``tables``: :data:`.model.CODEC_TYPES`), so a table's log can be read back.
"""

from .. import codec
from .clock import MACAU, Clock, FakeClock, SystemClock, opening_date
from .engine import Batch, Record, TableState
from .model import (
    CODEC_TYPES,
    ClearFault,
    FaultCleared,
    Hit,
    OpenRound,
    OpenShoe,
    ReportFault,
    RoundRecovered,
    Sealed,
    ShoeLost,
    ShoeRevealed,
    Submitted,
    TableError,
    TableFaulted,
    TableSetup,
    request_digest,
)
from .publish import MeterUpdate, Subscription, TableUpdate
from .service import SNAPSHOT_EVERY, TableService
from .vault import DEFAULT_VAULT, MemoryVault, SealedVault

codec.register("tables", CODEC_TYPES)

__all__ = [
    "CODEC_TYPES",
    "DEFAULT_VAULT",
    "MACAU",
    "SNAPSHOT_EVERY",
    "Batch",
    "ClearFault",
    "Clock",
    "FakeClock",
    "FaultCleared",
    "Hit",
    "MemoryVault",
    "MeterUpdate",
    "OpenRound",
    "OpenShoe",
    "Record",
    "ReportFault",
    "RoundRecovered",
    "Sealed",
    "SealedVault",
    "ShoeLost",
    "ShoeRevealed",
    "Submitted",
    "Subscription",
    "SystemClock",
    "TableError",
    "TableFaulted",
    "TableService",
    "TableSetup",
    "TableState",
    "TableUpdate",
    "opening_date",
    "request_digest",
]

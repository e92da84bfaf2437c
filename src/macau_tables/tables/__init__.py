"""The table service: real tables on the store.

One :class:`TableService` per casino table runs its rounds through the round contract
(:class:`macau_tables.rounds.Round`), deals from the virtual shoe or takes the live console's
cards (:mod:`.dealing`: the one game-specific part), persists every command's events, ledger
postings and meter changes in one store transaction, publishes views per audience after the
commit, issues the time-outs from its :class:`Clock`, and resolves a round left open at
start-up by the law (CSP-11.4, BAC-10).

The API in one place::

    service = TableService(store, table_id, clock=SystemClock(), rng=None, owner=None)
    service.open_table(actor=..., reason=...)            # approvals checked (CSP-13/BAC-19)
    service.submit(OpenRound(), idempotency_key=k, actor=who)   # a live table's dealer
    service.submit(PlaceAnte(1, "alice", 500), idempotency_key=k2, actor="alice")
    service.submit_all([cmd, cmd, ...], idempotency_key=k3, actor=who)  # all or nothing
    service.tick()        # time-outs (CSP-6.4, BAC-16), the round cycle, meter retry, lease
    service.wake(player)  # a player opened an idle table's page: its countdown starts
    service.cycle_step()  # the cycle's next step at once (autoplay, tests, benchmarks only)
    service.subscribe(Audience.of_player("alice"), callback)  # TableUpdate / MeterUpdate
    service.round, service.expected(), service.view(audience), service.state
    service.meter_link_lost(reason) / service.meter_link_restored()
    service.close()
    Bots(service, players, seed=s, batched=False).play(n)   # autoplay, tests, benchmarks

Commands are the games' own (``caribbean.PlaceAnte``, ``baccarat.PlaceWager``, a live console's
``DealCard``, the shoe's ``Cut``/``Burn``…) and the table commands :class:`OpenRound`,
:class:`OpenShoe`, :class:`ReportFault`, :class:`ClearFault`, :class:`PauseCycle`,
:class:`ResumeCycle`. A virtual table runs its round cycle (:mod:`.cycle`: it opens its rounds,
counts down and closes the betting itself), deals, reveals for its virtual dealer and settles
by itself; the settlement is always the service's (it reads
the meter under lock). Refusals are ``RuleViolation`` (the law), :class:`TableError`
(``tables.*``) or the store's (``ledger.insufficient_funds``, ``store.*``); a refused command
writes and publishes nothing.

Importing this package registers the service's own types with :mod:`macau_tables.codec`
(namespace ``tables``: :data:`.model.CODEC_TYPES`), so a table's log can be read back.
"""

from .. import codec
from .bots import Bots, Played
from .clock import MACAU, Clock, FakeClock, SystemClock, opening_date
from .engine import Batch, Record, TableState
from .model import (
    CODEC_TYPES,
    ClearFault,
    FaultCleared,
    Hit,
    LeaveSeat,
    OpenRound,
    OpenShoe,
    PauseCycle,
    ReportFault,
    ResumeCycle,
    RoundRecovered,
    Sealed,
    SeatLeft,
    SeatTaken,
    ShoeLost,
    ShoeRevealed,
    ShufflerReplaced,
    Submitted,
    TableError,
    TableFaulted,
    TableSetup,
    TakeSeat,
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
    "Bots",
    "ClearFault",
    "Clock",
    "FakeClock",
    "FaultCleared",
    "Hit",
    "LeaveSeat",
    "MemoryVault",
    "MeterUpdate",
    "OpenRound",
    "OpenShoe",
    "PauseCycle",
    "Played",
    "Record",
    "ReportFault",
    "ResumeCycle",
    "RoundRecovered",
    "Sealed",
    "SealedVault",
    "SeatLeft",
    "SeatTaken",
    "ShoeLost",
    "ShoeRevealed",
    "ShufflerReplaced",
    "Submitted",
    "Subscription",
    "SystemClock",
    "TableError",
    "TableFaulted",
    "TableService",
    "TableSetup",
    "TableState",
    "TableUpdate",
    "TakeSeat",
    "opening_date",
    "request_digest",
]

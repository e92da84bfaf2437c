"""Builders shared by the table service tests (no tests here): approved rules of both games,
a small casino on a store (configurations, linked meters, players with money, tables), and
checks of the invariants every test repeats."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, date, datetime
from fractions import Fraction
from typing import Any, TypeVar

from macau_tables.approvals import Approval
from macau_tables.baccarat import shoe as S
from macau_tables.baccarat.rules import BaccaratRules, BurnRule, ShoeSettings, WagerKind
from macau_tables.baccarat.rules import default_limits as baccarat_limits
from macau_tables.cards import Card
from macau_tables.caribbean.commands import CloseBetting, DealCard, PlaceAnte, PlaceJackpotWager
from macau_tables.caribbean.events import RoundSettled
from macau_tables.caribbean.rules import CaribbeanRules, DealingProcedure, JackpotFixedAwards
from macau_tables.rounds import DEALER, CycleStep, cycle_step_of
from macau_tables.store import Store, TableMode, TableStatus
from macau_tables.store.verify import verify
from macau_tables.tables import FakeClock, OpenRound, OpenShoe, Submitted, TableService
from macau_tables.tables.cycle import betting
from macau_tables.tables.storage import read_table
from tests.db_fixtures import empty, filled

T = TypeVar("T")

START = datetime(2026, 1, 5, 2, 0, tzinfo=UTC)  # Monday 10:00 in Macau
APPLIED, EFFECTIVE = date(2025, 12, 1), date(2025, 12, 5)
UNIT = 100
CARIBBEAN_SEED = 1_000_000
BACCARAT_SEED = 1_000_000
PLAYERS = tuple(f"p{n}" for n in range(1, 8))
BANKROLL = 10_000_000


def approved(rules: Any) -> Any:
    """``rules`` with an approval (applied 1 Dec, effective 5 Dec 2025) for every option."""
    records = tuple(
        Approval(q.option, q.value, f"DICJ/{i}", APPLIED, EFFECTIVE)
        for i, q in enumerate(rules.options_requiring_approval())
    )
    return replace(rules, approvals=records)


def caribbean_rules(**overrides: Any) -> CaribbeanRules:
    """A Caribbean Stud table (royal flush 100:1 approved)."""
    settings: dict[str, Any] = {
        "bet_unit": UNIT,
        "ante_minimum": UNIT,
        "ante_maximum": 100 * UNIT,
        "jackpot_wager": UNIT,
        "royal_flush_odds": 100,
        "max_payout_per_box": 100_000_000,
        "jackpot_fixed_awards": JackpotFixedAwards(5_000_000, 500_000, 50_000, 15_000, 10_000),
        "jackpot_contribution": Fraction(7, 10),
        "jackpot_seed": CARIBBEAN_SEED,
        "dealing_procedure": DealingProcedure.SHUFFLER,
        "decision_timeout_seconds": 30,
    }
    settings.update(overrides)
    return approved(CaribbeanRules(**settings))


def baccarat_rules(**overrides: Any) -> BaccaratRules:
    """An 8-deck baccarat table with every wager, the jackpot and card holding."""
    unit = 100
    shoe = overrides.pop("shoe", ShoeSettings(decks=8, burn_rule=BurnRule.DECKS, demo_rounds=1))
    settings: dict[str, Any] = {
        "shoe": shoe,
        "bet_unit": unit,
        "limits": baccarat_limits(unit, tuple(WagerKind)),
        "jackpot_wager": unit,
        "jackpot_seed": BACCARAT_SEED,
        "card_holding": True,
        "holding_timeout_seconds": 20,
    }
    settings.update(overrides)
    return approved(BaccaratRules(**settings))


def casino(
    store: Store,
    tables: dict[str, tuple[str, Any, bool]],
    *,
    demo: bool = True,
    meters: dict[str, str] | None = None,
) -> None:
    """Create on ``store``: the players p1..p7 with money, a meter per game (``meters``: game
    → meter id; default ``m-<game>``), and ``tables`` (id → (game, rules, live)), open. On an
    empty store the players and meters are a copy of the first ones this process wrote
    (:func:`tests.db_fixtures.filled`: the same rows, written once per worker, not per test),
    the tables written after them."""
    meters = meters if meters is not None else {"caribbean": "m-car", "baccarat": "m-bac"}

    def people(tx: Any) -> None:
        for game, meter_id in meters.items():
            seed = CARIBBEAN_SEED if game == "caribbean" else BACCARAT_SEED
            tx.create_meter(meter_id, game=game, seed=seed, params={}, actor="test")
        for p in PLAYERS:
            tx.add_player(p, p.upper())
            tx.deposit(p, BANKROLL, actor="cashier", reason="test float")

    def build(tx: Any) -> None:
        for table_id, (game, rules, live) in tables.items():
            config_id = f"{table_id}-cfg"
            tx.put_config(game, config_id, rules)
            tx.create_table(
                table_id,
                name=table_id,
                game=game,
                mode=TableMode.LIVE if live else TableMode.VIRTUAL,
                demo=demo,
                config_id=config_id,
                meter_id=meters.get(game),
            )
            tx.set_table_status(table_id, TableStatus.OPEN, actor="test", reason="open")

    if empty(store):
        filled(
            store, f"casino's players and meters {sorted(meters.items())}", lambda s: s.run(people)
        )
        store.run(build)
    else:
        store.run(lambda tx: (people(tx), build(tx)))


def service(store: Store, table_id: str, clock: FakeClock | None = None, **kw: Any) -> TableService:
    """A service for ``table_id`` on a fake clock (a stable owner: a restart takes over)."""
    return TableService(
        store, table_id, clock=clock or FakeClock(START), owner=f"test:{table_id}", **kw
    )


_keys = itertools.count(1)


def send(svc: TableService, command: object, actor: str = "dealer") -> Submitted:
    """Submit ``command`` to ``svc`` as ``actor`` (default the dealer), one request under a
    fresh idempotency key."""
    return svc.submit(command, idempotency_key=f"send-{next(_keys)}", actor=actor)


def open_round(svc: TableService, seated: tuple[tuple[int, str], ...] = ()) -> Submitted:
    """Open ``svc``'s next round: a live table's dealer sends ``OpenRound(seated)``; at a
    virtual table its round cycle opens it (:meth:`TableService.cycle_step`, run at once: the
    result pause is not waited for), seating ``seated`` (baccarat BAC-15), else the last
    round's seating."""
    if svc.setup.live:
        return svc.submit(OpenRound(seated), idempotency_key=f"open-{next(_keys)}", actor="dealer")
    opened = svc.state.rounds
    for _ in range(4):
        done = svc.cycle_step(seated=seated or None)
        if done is None:
            break
        if svc.state.rounds > opened:
            return done
    raise AssertionError(f"the cycle of {svc.table_id} opened no round")


def close_betting(svc: TableService, command: object) -> Submitted:
    """Close the betting of ``svc``'s round: a live table's dealer sends ``command`` (the
    game's ``CloseBetting``); at a virtual table the round cycle closes it at the end of the
    countdown (:meth:`TableService.cycle_step`, run at once)."""
    if svc.setup.live:
        return svc.submit(command, idempotency_key=f"close-{next(_keys)}", actor="dealer")
    for _ in range(3):  # (a countdown first recorded, e.g. after a fault was cleared)
        done = svc.cycle_step()
        if done is None:
            break
        if not betting(svc.round):
            return done
    raise AssertionError(f"the cycle of {svc.table_id} did not close the betting")


def by_cycle(svc: TableService, command: object) -> bool:
    """At a virtual table, the dealer's ``command`` that is its round cycle's step
    (``OpenRound``, a game's ``CloseBetting``: ``tables.cycle_owns`` from a client) run by the
    cycle at once (:func:`open_round` — nothing when the cycle's tick already opened the round
    — or :func:`close_betting`): ``True``; ``False`` for any other command or table (the
    caller submits it as before)."""
    if svc.setup.live:
        return False
    step = cycle_step_of(type(command))
    if step is CycleStep.OPEN:
        if not betting(svc.round):
            open_round(svc, tuple(getattr(command, "seated", ())))
        return True
    if step is CycleStep.CLOSE:
        close_betting(svc, command)
        return True
    return False


def ledger_total(store: Store) -> int:
    """The sum of every account's balance (0 at every commit)."""
    return store.read(lambda tx: sum(a.balance for a in tx.accounts()))


class PureTable:
    """A table run by the pure engine alone (no database): every command's batch is checked
    (balanced postings) and "committed" to an in-memory log, a meter and the sealed orders."""

    def __init__(
        self,
        game: str,
        rules: Any,
        *,
        live: bool = False,
        seed: int = 1,
        meter: int | None = None,
        table_id: str = "t1",
    ) -> None:
        from macau_tables.rng import SeededRandom
        from macau_tables.tables.adapters import dealing_for
        from macau_tables.tables.engine import TableState
        from macau_tables.tables.model import TableSetup

        self.setup = TableSetup(table_id, game, live, True, "cfg", "m1")
        self.dealing = dealing_for(game, live=live)
        self.state = TableState(self.setup, rules, self.dealing.initial())
        self.source = SeededRandom(seed)
        self.meter = rules.jackpot_seed if meter is None else meter
        self.meter_up = True
        self.log: list[object] = []
        self.records: list[Any] = []
        self.sealed: list[Any] = []
        self.hits: list[Any] = []
        self.now = START

    def batch(self) -> Any:
        from macau_tables.jackpot import Meter
        from macau_tables.tables.engine import Batch

        seed = self.state.rules.jackpot_seed
        return Batch(
            self.state,
            self.dealing,
            self.source,
            "test",
            self.now,
            meter_reader=lambda lock: Meter(self.meter, seed),
            meter_up=self.meter_up,
            meter_reason=None if self.meter_up else "test",
        )

    def commit(self, batch: Any) -> Any:
        from macau_tables import ledger

        for rec in batch.records:
            assert ledger.is_balanced(rec.postings), rec
            for p in rec.postings:
                if p.account.kind is ledger.AccountKind.JACKPOT_METER:
                    self.meter += p.amount
        self.log.extend(r.event for r in batch.records)
        self.records.extend(batch.records)
        self.sealed.extend(batch.sealed)
        self.hits.extend(batch.hits)
        self.state = batch.state
        return batch

    def run(self, command: object) -> Any:
        """Execute ``command`` and commit it; returns the batch."""
        from macau_tables.tables.engine import execute

        return self.commit(execute(self.batch(), command))

    def reloaded(self) -> Any:
        """The state rebuilt from the log alone (as start-up does, without a snapshot)."""
        from macau_tables.tables.engine import TableState, load

        base = TableState(self.setup, self.state.rules, self.dealing.initial())
        return load(base, self.log, self.dealing)


def replayed_positions(tx: Any, day: date) -> list[Any]:
    """The per-position report of gaming day ``day`` as it was computed before settlement
    facts: every round settled that day replayed and closed again through its rules
    (:func:`macau_tables.tables.recall.settled_wagers`), its wagers summed per position — the
    oracle the report from stored facts must equal."""
    from macau_tables.store.history import settled_round_ids
    from macau_tables.tables.recall import settled_wagers
    from macau_tables.tables.reports import PositionFigures, day_bounds

    fields = ("wagers", "drop", "paid", "commission", "contributions", "awards", "win")

    def order(spot: str) -> tuple[str, int, str]:
        word, _, number = spot.rpartition(" ")
        return (word, int(number), spot) if number.isdigit() else (spot, 0, spot)

    start, end = day_bounds(day)
    out: list[Any] = []
    for table in sorted(tx.tables(), key=lambda t: t.table_id):
        sums: dict[str, dict[str, int]] = {}
        for round_id in settled_round_ids(tx, table.table_id, start, end):
            for w in settled_wagers(tx, table, round_id):
                f = sums.setdefault(w.spot, dict.fromkeys(fields, 0))
                f["wagers"] += 1
                f["drop"] += 0 if w.carried_in else w.stake
                f["paid"] += w.paid
                f["commission"] += w.commission
                f["contributions"] += w.meter
                f["awards"] += w.award_from_meter + w.award_from_house
                f["win"] += w.house + w.commission - w.award_from_house
        out += [
            PositionFigures(table.table_id, spot, **sums[spot]) for spot in sorted(sums, key=order)
        ]
    return out


class CountingStore(Store):
    """The same database as a store, through a :class:`~macau_tables.store.Store` that counts
    its write transactions (``writes``: those that committed), can stop the next one before it
    begins (:meth:`hold`, then :meth:`release`) and can fail it (``fail``: a callable run
    inside the next write transaction after its work — it raises, the transaction rolls back).
    For the group commit's tests: how many transactions K concurrent requests took, asserted
    through the store, never by timing."""

    def __init__(self, store: Store) -> None:
        super().__init__(store.engine, clock=store.clock)
        self.writes = 0
        self._count = threading.Lock()
        self._held: tuple[threading.Event, threading.Event] | None = None
        self.fail: Callable[[], None] | None = None
        self.fail_skip = 0

    def hold(self) -> threading.Event:
        """Stop the next write transaction before it begins; returns the event set once one
        is stopped there."""
        entered = threading.Event()
        self._held = (entered, threading.Event())
        return entered

    def release(self) -> None:
        """Let the stopped transaction go on."""
        held = self._held
        assert held is not None
        held[1].set()

    def run(self, fn: Callable[[Any], T], **kw: Any) -> T:
        if kw.get("readonly"):
            return super().run(fn, **kw)
        held = self._held
        if held is not None and not held[0].is_set():
            held[0].set()
            assert held[1].wait(60), "the held transaction was never released"
            self._held = None
        fail = self.fail
        if fail is not None and self.fail_skip:
            self.fail_skip -= 1
            fail = None
        elif fail is not None:
            self.fail = None
            inner = fn

            def failing(tx: Any) -> T:
                out = inner(tx)
                fail()
                return out

            fn = failing
        result = super().run(fn, **kw)
        with self._count:
            self.writes += 1
        return result


def concurrently(calls: Sequence[Callable[[], Any]]) -> list[Any]:
    """Run each of ``calls`` in a thread of its own, all at once; each one's return value or
    the exception it raised, in order."""
    out: list[Any] = [None] * len(calls)

    def run(i: int) -> None:
        try:
            out[i] = calls[i]()
        except BaseException as exc:
            out[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
        assert not t.is_alive(), "a request never got its answer"
    return out


def grouped(
    store: CountingStore,
    table_id: str,
    calls: Sequence[Callable[[], Any]],
    meanwhile: Callable[[], Any] | None = None,
) -> list[Any]:
    """``calls`` (requests to tables of ``store``) made while a commit is in flight, so that
    they are committed as one group: the first call's write transaction is held until all the
    other calls are queued for the next group (:meth:`GroupCommit.wait_queued`; then
    ``meanwhile`` is called), then released. Each one's answer (or exception), in order."""
    from macau_tables.tables.group import committer

    entered = store.hold()
    first: list[Any] = []
    lead = threading.Thread(target=lambda: first.append(concurrently(calls[:1])[0]))
    lead.start()
    assert entered.wait(60)
    group = committer(store, table_id)
    rest: list[Any] = []
    others = threading.Thread(target=lambda: rest.extend(concurrently(calls[1:])))
    others.start()
    try:
        assert group.wait_queued(len(calls) - 1, 60), "the requests did not queue"
        if meanwhile is not None:
            meanwhile()
    finally:
        store.release()
    lead.join(120)
    others.join(120)
    return [*first, *rest]


def balances(store: Store) -> dict[str, int]:
    return store.read(lambda tx: {a.account_id: a.balance for a in tx.accounts()})


def check_invariants(store: Store, table_id: str, svc: Any) -> None:
    assert ledger_total(store) == 0
    assert store.read(lambda tx: read_table(tx, table_id)).state == svc.state
    found = verify(store)
    assert found.ok, found.failure


def open_live_shoe(svc: Any) -> None:
    send(svc, OpenShoe())
    send(svc, S.Cut(S.Cutter.DEALER, "dealer", 200))
    send(svc, S.Burn((None,) * 8))


AWARDS = JackpotFixedAwards(
    royal_flush=0, straight_flush=0, four_of_a_kind=50_000, full_house=15_000, flush=10_000
)


def deal_a_straight_flush(svc: Any, player: str) -> None:
    """Box 1 antes with the jackpot wager and is dealt a straight flush (live console); its
    raise is then the only thing left before the showdown."""
    send(svc, OpenRound())
    send(svc, PlaceAnte(1, player, 100), player)
    send(svc, PlaceJackpotWager(1, player), player)
    send(svc, CloseBetting())
    box, dealer = list(STRAIGHT_FLUSH), list(DEALER_JUNK)
    while svc.expected().due[0].kind.value == "card":
        to = svc.expected().due[0].position
        send(svc, DealCard(Card.parse((dealer if to is DEALER else box).pop(0))))


def award_of(svc: Any) -> int:
    settled = next(e for e in svc.round.events if isinstance(e, RoundSettled))
    (award,) = settled.settlement.jackpot.awards
    return int(award.from_meter)


STRAIGHT_FLUSH = ("5h", "6h", "7h", "8h", "9h")

DEALER_JUNK = ("2c", "3d", "4s", "Jc", "Kd")  # king high: does not qualify

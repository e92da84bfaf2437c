"""The table service on a real database (SQLite and PostgreSQL): bots playing many rounds of
both games through it, the ledger, replay of the log, idempotency, the random source, the
approvals, snapshots, publishing, the meter link and the refusals that write nothing."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from macau_tables.baccarat.bets import seat
from macau_tables.baccarat.commands import PlaceWager
from macau_tables.baccarat.commands import Void as BacVoid
from macau_tables.baccarat.events import CardDealt as BacDealt
from macau_tables.baccarat.rules import WagerKind
from macau_tables.cards import DECK
from macau_tables.caribbean.commands import CloseBetting, PlaceAnte, PlaceJackpotWager
from macau_tables.caribbean.commands import Void as CarVoid
from macau_tables.caribbean.events import CardDealt as CarDealt
from macau_tables.errors import ConfigError, MacauTablesError, RuleViolation, StoreError
from macau_tables.rng import SeededRandom
from macau_tables.rounds import Audience
from macau_tables.store import Store, TableStatus
from macau_tables.store.verify import verify
from macau_tables.tables import (
    FakeClock,
    OpenRound,
    ReportFault,
    ShoeRevealed,
    Submitted,
    TableError,
    TableService,
    TableUpdate,
)
from macau_tables.tables.audit import meter_balances, table_events, table_transactions
from macau_tables.tables.bots import Bots
from macau_tables.tables.program import approve_program, running_program
from macau_tables.tables.recall import recall
from macau_tables.tables.rederive import rederive_table
from macau_tables.tables.storage import read_table
from macau_tables.voids import Ground

from .support import (
    BANKROLL,
    PLAYERS,
    START,
    UNIT,
    baccarat_rules,
    caribbean_rules,
    casino,
    close_betting,
    ledger_total,
    open_round,
    service,
)


def replayed(store: Store, table_id: str) -> Any:
    """The table's state as a fresh start-up reads it (snapshot + the log after it)."""
    return store.read(lambda tx: read_table(tx, table_id)).state


def wallets(store: Store) -> dict[str, int]:
    return store.read(lambda tx: {p.player_id: p.balance for p in tx.players()})


@pytest.mark.parametrize(("game", "batched"), [("caribbean", False), ("baccarat", True)])
def test_bots_play_many_rounds_the_ledger_balances_and_the_log_replays(
    store: Store, game: str, batched: bool
) -> None:
    rules = caribbean_rules() if game == "caribbean" else baccarat_rules()
    casino(store, {"t1": (game, rules, False)})
    svc = service(store, "t1", rng=SeededRandom(7))  # a demonstration table may be seeded
    bots = Bots(svc, PLAYERS[:5], seed=7, batched=batched)
    seen: list[str] = []

    def after_round(r: Any) -> None:
        assert ledger_total(store) == 0  # at every commit: here after every round
        assert r.is_over
        seen.append(r.round_id)

    # (seven players for 300 rounds: test_many_more_rounds_with_seven_players_…, make test-slow)
    played = bots.play(12 if game == "caribbean" else 20, progress=after_round)
    assert played.rounds == len(seen) and len(set(seen)) == len(seen)
    assert replayed(store, "t1") == svc.state
    # money only moved: the players' loss is the house's, the meter's and commission's gain
    moved = sum(BANKROLL - b for b in wallets(store).values())
    tables = store.read(lambda tx: {a.account_id: a.balance for a in tx.accounts()})
    assert moved == sum(v for k, v in tables.items() if not k.startswith(("wallet:", "cashier")))
    shoes = store.read(lambda tx: tx.shoes("t1"))
    assert shoes and all(s.verified for s in shoes if s.revealed is not None)
    check = verify(store)
    assert check.ok, check.failure


def test_idempotent_retry_returns_the_first_result_and_other_parameters_are_refused(
    store: Store,
) -> None:
    casino(store, {"c1": ("caribbean", caribbean_rules(), False)})
    svc = service(store, "c1")
    opened = open_round(svc)  # the round cycle opens it (a client may not, tables.cycle_owns)
    first = svc.submit(PlaceAnte(1, "p1", 500), idempotency_key="k1", actor="p1")
    again = svc.submit(PlaceAnte(1, "p1", 500), idempotency_key="k1", actor="p1")
    assert isinstance(first, Submitted) and again == first
    assert first.round_id == opened.round_id and first.events == ("caribbean.AntePlaced",)
    assert wallets(store)["p1"] == BANKROLL - 500  # applied once
    with pytest.raises(TableError) as exc:
        svc.submit(PlaceAnte(1, "p1", 700), idempotency_key="k1", actor="p1")
    assert exc.value.key == "tables.idempotency_mismatch"
    # a retry after a restart finds the first result too (the restart resumed the round left
    # open, still betting, CSP-11.4: the retry does not place the ante again)
    reopened = service(store, "c1")
    assert reopened.submit(PlaceAnte(1, "p1", 500), idempotency_key="k1", actor="p1") == first
    log = store.read(lambda tx: tx.read_events("c1", after=first.last_seq))
    assert [r.type for r in log] == ["tables.RoundRecovered"]
    assert wallets(store)["p1"] == BANKROLL - 500 and reopened.round.box(1).ante == 500


def test_a_refused_command_writes_nothing_and_publishes_nothing(store: Store) -> None:
    casino(store, {"c1": ("caribbean", caribbean_rules(), False)})
    store.run(lambda tx: tx.add_player("poor", "Poor"))
    store.run(lambda tx: tx.deposit("poor", 50, actor="cashier", reason="test"))
    svc = service(store, "c1")
    open_round(svc)
    got: list[Any] = []
    svc.subscribe(Audience.public(), got.append)
    head = store.read(lambda tx: tx.chain_head("c1"))
    with pytest.raises(MacauTablesError) as exc:  # the wallet holds 50, the ante is 100
        svc.submit(PlaceAnte(3, "poor", 100), idempotency_key="a", actor="poor")
    assert exc.value.key == "ledger.insufficient_funds"
    with pytest.raises(RuleViolation):  # the law: no box 9 (CSP-2)
        svc.submit(PlaceAnte(9, "p1", 100), idempotency_key="b", actor="p1")
    with pytest.raises(RuleViolation) as exc2:  # the round contract refuses what is no command
        svc.submit("PlaceAnte", idempotency_key="c", actor="p1")
    assert exc2.value.rule == "CSP-5"
    with pytest.raises(TableError) as exc3:  # not even storable: no request to bind a key to
        svc.submit(object(), idempotency_key="d", actor="p1")
    assert exc3.value.key == "tables.not_a_command"
    with pytest.raises(TableError):
        svc.submit(PlaceAnte(1, "p1", 100), idempotency_key="", actor="p1")
    assert store.read(lambda tx: tx.chain_head("c1")) == head
    assert len(got) == 1  # only the view sent on subscribing
    assert svc.round.box(3) is None and ledger_total(store) == 0
    # the refused key was not spent: the request may come again, and then it is accepted
    svc.submit(PlaceAnte(1, "p1", 100), idempotency_key="b", actor="p1")


def test_a_table_that_is_not_a_demonstration_refuses_a_seeded_source(store: Store) -> None:
    casino(store, {"c1": ("caribbean", caribbean_rules(), False)}, demo=False)
    with pytest.raises(ConfigError) as exc:
        service(store, "c1", rng=SeededRandom(1))
    assert exc.value.key == "core.rng_not_production"
    store.run(lambda tx: approve_program(tx, running_program(), actor="lab", reason="release"))
    svc = service(store, "c1")  # the CSPRNG (and the program approved: see test_program.py)
    open_round(svc)
    svc.submit(PlaceAnte(1, "p1", 100), idempotency_key="a", actor="p1")
    close_betting(svc, CloseBetting())
    assert svc.state.deal.deck is not None and svc.state.deal.deck.production


def test_a_table_refuses_to_open_with_an_option_lacking_an_approval_CSP_13_BAC_19(
    store: Store,
) -> None:
    bare = replace(caribbean_rules(), approvals=())
    bac = replace(baccarat_rules(), approvals=())
    casino(store, {"c1": ("caribbean", bare, False), "b1": ("baccarat", bac, False)})
    for table_id, rule in (("c1", "CSP-13"), ("b1", "BAC-19")):
        svc = service(store, table_id)
        with pytest.raises(RuleViolation) as exc:
            svc.open_table(actor="manager", reason="morning")
        assert exc.value.rule == rule
        with pytest.raises(RuleViolation) as exc:  # nor does its round cycle open a round
            open_round(svc)
        assert exc.value.rule == rule
        assert store.read(lambda tx, t=table_id: tx.chain_head(t)).seq == 0


def test_opening_and_closing_the_table_is_audited_and_a_closed_table_opens_no_round(
    store: Store,
) -> None:
    casino(store, {"c1": ("caribbean", caribbean_rules(), False)})
    svc = service(store, "c1")
    svc.close_table(actor="manager", reason="end of shift")
    assert svc.cycle_step() is None and svc.tick() == [] and svc.round is None
    svc.open_table(actor="manager", reason="next shift")
    open_round(svc)
    actions = [e.action for e in store.read(lambda tx: tx.audit_entries(table_id="c1"))]
    assert actions.count("table_closed") == 1 and actions.count("table_open") >= 2


def test_start_up_reads_the_latest_snapshot_and_the_events_after_it(store: Store) -> None:
    casino(store, {"b1": ("baccarat", baccarat_rules(), False)})
    svc = service(store, "b1", snapshot_every=40)
    Bots(svc, PLAYERS[:3], seed=3).play(15)
    loaded = store.read(lambda tx: read_table(tx, "b1"))
    assert loaded.snapshot_seq > 0 and loaded.state == svc.state
    snap = store.read(lambda tx: tx.snapshot_latest("b1"))
    sealed = svc.state.deal.sealed
    public = {c.salt for c in svc.state.deal.proving.public}
    hidden = [s for s in sealed.salts if s not in public]
    assert snap is not None and not any(s in str(snap.payload) for s in hidden)
    # the reopened service carries on from the snapshot (its shoe's order from the vault)
    again = service(store, "b1", snapshot_every=40)
    assert again.state == svc.state
    Bots(again, PLAYERS[:3], seed=4).play(3)
    assert replayed(store, "b1") == again.state and ledger_total(store) == 0


def test_views_are_published_per_audience_after_each_commit(store: Store) -> None:
    casino(store, {"c1": ("caribbean", caribbean_rules(), False)})
    svc = service(store, "c1")
    got: dict[str, list[Any]] = {"p1": [], "public": [], "dealer": []}
    audiences = {
        "p1": Audience.of_player("p1"),
        "public": Audience.public(),
        "dealer": Audience.dealer(),
    }
    for name, audience in audiences.items():
        svc.subscribe(audience, got[name].append)
    open_round(svc)
    svc.submit(PlaceAnte(1, "p1", 100), idempotency_key="a1", actor="p1")
    svc.submit(PlaceAnte(2, "p2", 100), idempotency_key="a2", actor="p2")
    svc.submit(PlaceJackpotWager(1, "p1"), idempotency_key="j1", actor="p1")
    close_betting(svc, CloseBetting())
    for name, audience in audiences.items():
        last = got[name][-1]
        assert isinstance(last, TableUpdate) and last.audience == audience
        assert last.view == svc.round.view(audience)  # exactly what the round lets it see
        assert last.seq == store.read(lambda tx: tx.chain_head("c1")).seq
    p1 = got["p1"][-1].view
    assert len(p1.cards) == 5 and all(c not in p1.cards for c in svc.round.box(2).cards)
    assert "cards" not in type(got["public"][-1].view).__dataclass_fields__
    svc.tick(START)  # nothing due yet


def test_jackpot_wagers_refused_while_the_meter_link_is_down_and_taken_when_it_is_back(
    store: Store,
) -> None:
    casino(store, {"c1": ("caribbean", caribbean_rules(), False)})
    svc = service(store, "c1")
    updates: list[Any] = []
    svc.subscribe(Audience.public(), updates.append)
    open_round(svc)
    svc.submit(PlaceAnte(1, "p1", 100), idempotency_key="a", actor="p1")
    svc.meter_link_lost("jackpot controller offline")
    assert svc.meter_link == (False, "jackpot controller offline")
    assert updates[-1].meter_link is False
    with pytest.raises(TableError) as exc:
        svc.submit(PlaceJackpotWager(1, "p1"), idempotency_key="j", actor="p1")
    assert exc.value.key == "tables.meter_link_down"
    assert "jackpot controller offline" in exc.value.message
    svc.tick()  # a reported link is not probed back
    assert svc.meter_link[0] is False
    svc.meter_link_restored()
    svc.submit(PlaceJackpotWager(1, "p1"), idempotency_key="j", actor="p1")
    actions = [e.action for e in store.read(lambda tx: tx.audit_entries(table_id="c1"))]
    assert "meter_link_down" in actions and "meter_link_up" in actions


def test_unknown_table_and_a_table_run_by_another_process_are_refused(store: Store) -> None:
    casino(store, {"c1": ("caribbean", caribbean_rules(), False)})
    with pytest.raises(StoreError) as exc:
        service(store, "nope")
    assert exc.value.key == "store.unknown_table"
    first = TableService(store, "c1", clock=FakeClock(START), owner="proc-a")
    with pytest.raises(TableError) as exc2:
        TableService(store, "c1", clock=FakeClock(START), owner="proc-b")
    assert exc2.value.key == "tables.leased"
    first.close()
    TableService(store, "c1", clock=FakeClock(START), owner="proc-b").close()


def test_shoe_reveals_are_stored_for_the_store_s_verification(store: Store) -> None:
    casino(store, {"c1": ("caribbean", caribbean_rules(), False)})
    svc = service(store, "c1")
    Bots(svc, PLAYERS[:2], seed=1).play(3)
    shoes = store.read(lambda tx: tx.shoes("c1"))
    assert [s.shoe_no for s in shoes] == [1, 2, 3]
    # a card-by-card deck: its leaves and the public's cards (none, CSP-12), never its order
    assert all(s.revealed is not None and s.revealed["type"] == "core.ShoeOpening" for s in shoes)
    assert all(s.revealed is not None and s.revealed["public"] == [] for s in shoes)
    assert all("order" not in (s.revealed or {}) for s in shoes)
    log = store.read(lambda tx: tx.read_events("c1"))
    assert sum(r.type == "tables.ShoeRevealed" for r in log) == 3
    revealed = [r for r in log if r.type == "tables.ShoeRevealed"][-1:]
    decoded = [r.decode(store.read(lambda tx: tx.config_resolver())) for r in revealed]
    assert isinstance(decoded[0], ShoeRevealed) and decoded[0].verified
    assert svc.status is TableStatus.OPEN


def test_a_bet_slip_is_one_request_all_or_nothing(store: Store) -> None:
    casino(store, {"c1": ("caribbean", caribbean_rules(), False)})
    store.run(lambda tx: tx.add_player("poor", "Poor"))
    svc = service(store, "c1")
    with pytest.raises(TableError) as owned:  # the round cycle opens (tables.cycle_owns)
        svc.submit_all([OpenRound(), PlaceAnte(1, "p1", 500)], idempotency_key="s0", actor="x")
    assert owned.value.key == "tables.cycle_owns"
    open_round(svc)
    head = store.read(lambda tx: tx.chain_head("c1"))
    slip = [PlaceAnte(1, "p1", 500), PlaceAnte(2, "poor", 100)]
    with pytest.raises(MacauTablesError) as exc:  # the last wager: an empty wallet
        svc.submit_all(slip, idempotency_key="slip", actor="cashier-desk")
    assert exc.value.key == "ledger.insufficient_funds"
    assert store.read(lambda tx: tx.chain_head("c1")) == head and not svc.round.in_play
    slip[1] = PlaceJackpotWager(1, "p1")
    done = svc.submit_all(slip, idempotency_key="slip", actor="cashier-desk")
    assert done.events[:2] == ("caribbean.AntePlaced", "caribbean.JackpotWagerPlaced")
    assert svc.submit_all(slip, idempotency_key="slip", actor="cashier-desk") == done
    with pytest.raises(TableError) as exc2:
        svc.submit_all(slip[:1], idempotency_key="slip", actor="cashier-desk")
    assert exc2.value.key == "tables.idempotency_mismatch"
    assert wallets(store)["p1"] == BANKROLL - 600


def test_a_table_held_by_a_killed_process_of_this_host_is_taken_over_at_once(
    store: Store,
) -> None:
    import socket
    import subprocess
    import sys

    casino(store, {"c1": ("caribbean", caribbean_rules(), False)})
    child = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    dead = f"{socket.gethostname()}:{int(child.stdout)}:svc"  # that process has exited
    TableService(store, "c1", clock=FakeClock(START), owner=dead)
    svc = TableService(store, "c1", clock=FakeClock(START))  # this process's default owner
    assert store.read(lambda tx: tx.table("c1")).lease_owner == svc.owner
    actions = [e.action for e in store.read(lambda tx: tx.audit_entries(table_id="c1"))]
    assert "lease_taken_over" in actions


def test_a_service_whose_table_moved_on_reads_the_log_again(store: Store) -> None:
    casino(store, {"c1": ("caribbean", caribbean_rules(), False)})
    stale = service(store, "c1")
    other = service(store, "c1")  # the same owner: it takes the table over
    open_round(other)  # the round and its countdown (records 1, 2)
    other.submit(PlaceAnte(1, "p1", 100), idempotency_key="a1", actor="p1")
    done = stale.submit(PlaceAnte(2, "p2", 100), idempotency_key="a2", actor="p2")
    assert done.first_seq == 4 and stale.round.box(1) is not None
    assert replayed(store, "c1") == stale.state


@pytest.mark.slow
@pytest.mark.parametrize("game", ["caribbean", "baccarat"])
def test_many_more_rounds_with_seven_players_keep_every_invariant(store: Store, game: str) -> None:
    rules = caribbean_rules() if game == "caribbean" else baccarat_rules()
    casino(store, {"t1": (game, rules, False)})
    svc = service(store, "t1", snapshot_every=200)
    Bots(svc, PLAYERS, seed=99, batched=True).play(
        300, progress=lambda r: None if ledger_total(store) == 0 else pytest.fail("ledger")
    )
    assert replayed(store, "t1") == svc.state
    reopened = service(store, "t1", snapshot_every=200)
    assert reopened.state == svc.state
    check = verify(store)
    assert check.ok, check.failure


@pytest.mark.parametrize("game", ["caribbean", "baccarat"])
def test_recall_says_settled_or_void_as_the_game_closed_the_round(store: Store, game: str) -> None:
    """Recall's state of a closed round is how the game closed it — the closing verify
    re-derives (the game plug-in's ``closer``: a settlement, or a void whichever fault voided
    it) — for both games (CSP-11.4, BAC-10)."""
    rules = caribbean_rules() if game == "caribbean" else baccarat_rules(card_holding=False)
    casino(store, {"t1": (game, rules, False)})
    svc = service(store, "t1", rng=SeededRandom(11))
    Bots(svc, PLAYERS[:2], seed=11).play(2)
    if game == "caribbean":
        open_round(svc)
        svc.submit(PlaceAnte(1, "p1", UNIT), idempotency_key="a", actor="p1")
        void: object = CarVoid("shuffler jammed", Ground.SHUFFLER_FAILURE, "sup")
    else:
        open_round(svc, ((1, "p1"),))
        wager = PlaceWager("p1", seat(1), WagerKind.BANKER, UNIT)
        svc.submit(wager, idempotency_key="a", actor="p1")
        void = BacVoid("sup", "a card fell on the floor", Ground.UNCORRECTABLE)
    # the dealer reports, the supervisor decides on a ground the report shows
    svc.submit(ReportFault("the shuffler / the shoe jammed"), idempotency_key="f", actor="dealer")
    svc.submit(void, idempotency_key="v", actor="sup")
    states = [
        r.state for r in store.read(lambda tx: recall(tx, "t1", 10, audience=Audience.supervisor()))
    ]
    assert states[-1] == "void"
    assert "settled" in states[:-1] and "void" not in states[:-1]


@pytest.mark.parametrize("game", ["caribbean", "baccarat"])
def test_verify_checks_every_dealt_cards_leaf_and_names_the_shoe_and_position(
    store: Store, game: str
) -> None:
    """Common rules "Randomness": every dealt card's recorded leaf (its position and salt) hashes
    to its shoe's committed leaf; a card or salt changed behind the service's back is named by
    its shoe and position (the log's chain aside: re-derived as verify does)."""
    rules = caribbean_rules() if game == "caribbean" else baccarat_rules()
    casino(store, {"t1": (game, rules, False)})
    svc = service(store, "t1")
    Bots(svc, PLAYERS[:2], seed=2).play(3)
    assert verify(store).ok
    dealt = CarDealt if game == "caribbean" else BacDealt

    def rederived(change: str) -> Any:
        def run(tx: Any) -> Any:
            events = list(table_events(tx, "t1"))
            i = next(i for i, x in enumerate(events) if isinstance(x.event, dealt))
            e = events[i].event
            assert e.leaf is not None
            if change == "salt":
                new = replace(e, leaf=replace(e.leaf, salt="ab" * 32))
            else:
                other = next(c for c in DECK if c != e.card)
                new = replace(e, card=other)
            events[i] = replace(events[i], event=new)
            found = rederive_table(
                "t1",
                game,
                svc.setup.meter_id,
                events,
                list(table_transactions(tx, "t1")),
                meter_balance=meter_balances(tx),
            )
            return found, e.leaf

        return store.read(run)

    for change in ("salt", "card"):
        found, leaf = rederived(change)
        assert found is not None and found.key == "operations.verify_leaf", found
        assert (found.params["shoe"], found.params["position"]) == (leaf.shoe_no, leaf.position)
    svc.close()

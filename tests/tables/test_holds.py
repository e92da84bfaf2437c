"""Large jackpot awards held for a supervisor (issue 10; CSP-10, BAC-17) through the table
service, on SQLite and PostgreSQL: an award of at least the threshold is moved from the wallet
to its held account in the settling transaction, a supervisor's ``ReleaseAward`` pays it once
(audited), a second release is refused, an award below the threshold is paid at once; the
ledger sums to zero and ``verify`` (store checks and re-derivation) holds throughout; recall
and the daily report show the hold."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from macau_tables.caribbean.commands import Raise
from macau_tables.errors import MacauTablesError
from macau_tables.rng import SeededRandom
from macau_tables.rounds import Audience
from macau_tables.store import Store
from macau_tables.tables import OpenRound
from macau_tables.tables.audit import (
    meter_balances,
    table_events,
    table_transactions,
    verify_database,
)
from macau_tables.tables.bots import Bots
from macau_tables.tables.holds import held_awards, waiting_holds
from macau_tables.tables.model import TABLE_EVENTS, AwardHeld, AwardReleased, ReleaseAward
from macau_tables.tables.recall import recall
from macau_tables.tables.rederive import LoggedEvent, StoredTx, rederive_table
from macau_tables.tables.reports import table_figures

from .support import (
    AWARDS,
    PLAYERS,
    award_of,
    baccarat_rules,
    caribbean_rules,
    casino,
    deal_a_straight_flush,
    ledger_total,
    service,
)

_n = 0


def send(svc: Any, command: object, actor: str = "dealer", key: str | None = None) -> Any:
    global _n
    _n += 1
    return svc.submit(command, idempotency_key=key or f"h{_n}", actor=actor)


def wallet(store: Store, player: str) -> int:
    return store.read(lambda tx: tx.wallet_balance(player))


def hit(store: Store, hold_from: int | None) -> tuple[Any, int, int]:
    """A live Caribbean Stud table holding awards from ``hold_from``: p1 hits a straight flush
    (CSP-10). Returns the service, p1's wallet before the showdown and the award."""
    casino(store, {"L1": ("caribbean", caribbean_rules(jackpot_fixed_awards=AWARDS), True)})
    svc = service(store, "L1", hold_awards_from=hold_from)
    deal_a_straight_flush(svc, "p1")
    before = wallet(store, "p1")
    send(svc, Raise(1, "p1", 200), "p1")
    return svc, before, award_of(svc)


def verified(store: Store) -> None:
    result = verify_database(store)
    assert result.ok, result.finding
    assert ledger_total(store) == 0


def test_an_award_at_the_threshold_is_held_then_released_once_CSP_10(store: Store) -> None:
    svc, before, award = hit(store, hold_from=50_000)
    assert award > 50_000
    # Ante 100 + raise 200 win 1:1 and 100... whatever the hand pays: the wallet got the
    # settlement's payout without the award (held), and the award is on its held account.
    (hold,) = store.read(waiting_holds)
    assert (hold.table_id, hold.player, hold.amount) == ("L1", "p1", award)
    assert hold.combination == "straight_flush" and hold.spot == "box 1"
    assert hold.hold_id == f"{svc.round.round_id}:{hold.hold_id.rpartition(':')[2]}"
    held_account = f"held_award:{hold.hold_id}"
    assert store.read(lambda tx: tx.balance(held_account)) == award
    paid_without_award = wallet(store, "p1") - before
    verified(store)

    # The settlement, its hold and its facts are one transaction's events, in that order.
    last = store.read(lambda tx: tx.read_events("L1", round_id=str(svc.round.round_id)))
    assert last[-1].type == "tables.SettlementFacts"
    assert last[-2].type == "tables.AwardHeld"
    assert last[-3].type.endswith("RoundSettled")

    # Recall shows the award held; the report does not count it as win.
    (rec,) = store.read(lambda tx: recall(tx, "L1", 1, audience=Audience.supervisor()))
    assert rec.to_dict()["holds"] == [
        {
            "hold_id": hold.hold_id,
            "player": "p1",
            "amount": award,
            "state": "held",
            "released_by": None,
        }
    ]
    assert any("AwardHeld" in n for n in rec.notes)
    figures = store.read(lambda tx: table_figures(tx, tx.table("L1"), None, None))
    assert (figures.awards, figures.awards_held, figures.awards_released) == (award, award, 0)

    # A dealer's or player's name does not matter here (the API checks roles); an empty
    # reason is refused with nothing written.
    with pytest.raises(MacauTablesError) as empty:
        send(svc, ReleaseAward(hold.hold_id, "sup", " "), "sup")
    assert empty.value.key == "tables.text_required"
    with pytest.raises(MacauTablesError) as unknown:
        send(svc, ReleaseAward("L1-99:1", "sup", "checked"), "sup")
    assert unknown.value.key == "holds.hold_unknown"

    done = send(svc, ReleaseAward(hold.hold_id, "sup", "hand checked on camera"), "sup", "rel")
    assert done.events == ("tables.AwardReleased",)
    assert wallet(store, "p1") - before == paid_without_award + award
    assert store.read(lambda tx: tx.balance(held_account)) == 0
    assert store.read(waiting_holds) == []
    (entry,) = store.read(lambda tx: tx.audit_entries(table_id="L1", action="award_released"))
    assert (entry.actor, entry.reason) == ("sup", "hand checked on camera")
    assert entry.detail is not None and entry.detail["amount"] == award
    verified(store)

    # The same request again answers the first result; a new one is refused, nothing paid.
    assert (
        send(svc, ReleaseAward(hold.hold_id, "sup", "hand checked on camera"), "sup", "rel") == done
    )
    with pytest.raises(MacauTablesError) as twice:
        send(svc, ReleaseAward(hold.hold_id, "sup2", "again"), "sup2")
    assert twice.value.key == "holds.already_released"
    assert twice.value.params["supervisor"] == "sup"
    assert wallet(store, "p1") - before == paid_without_award + award
    (h,) = store.read(held_awards)
    assert (h.released_by, h.reason) == ("sup", "hand checked on camera")
    (rec,) = store.read(lambda tx: recall(tx, "L1", 1, audience=Audience.supervisor()))
    assert rec.to_dict()["holds"][0]["state"] == "released"
    figures = store.read(lambda tx: table_figures(tx, tx.table("L1"), None, None))
    assert (figures.awards_held, figures.awards_released) == (award, award)
    verified(store)

    # The table plays on; a restart reads the log with the hold events (skipped by replay).
    send(svc, OpenRound())
    svc.close()
    again = service(store, "L1", hold_awards_from=50_000)
    assert again.state.rounds == 2 and again.round.round_id != hold.round_id
    again.close()
    verified(store)


def test_an_award_below_the_threshold_is_paid_at_once_CSP_10(store: Store) -> None:
    svc, before, award = hit(store, hold_from=10_000_000)  # the server's default threshold
    assert store.read(held_awards) == []
    events = store.read(lambda tx: tx.read_events("L1"))
    assert not any(e.type in ("tables.AwardHeld", "tables.AwardReleased") for e in events)
    assert wallet(store, "p1") - before > award  # the award (and the hand's payout) paid
    verified(store)
    svc.close()


def test_no_threshold_holds_nothing(store: Store) -> None:
    svc, _, _ = hit(store, hold_from=None)
    assert store.read(held_awards) == []
    verified(store)
    svc.close()


def test_a_release_in_a_bet_slip_with_other_commands_is_refused(store: Store) -> None:
    svc, _, _ = hit(store, hold_from=1)
    (hold,) = store.read(waiting_holds)
    with pytest.raises(MacauTablesError) as mixed:
        svc.submit_all(
            [ReleaseAward(hold.hold_id, "sup", "ok"), OpenRound()],
            idempotency_key="slip",
            actor="sup",
        )
    assert mixed.value.key == "holds.release_alone"
    assert len(store.read(waiting_holds)) == 1
    svc.close()


def test_a_hold_outlives_a_restart_and_is_released_by_the_next_holder(store: Store) -> None:
    svc, before, award = hit(store, hold_from=50_000)
    svc.close()  # the process stops (or dies) between the hold and its release
    again = service(store, "L1", hold_awards_from=50_000)
    (hold,) = store.read(waiting_holds)
    held = wallet(store, "p1")
    send(again, ReleaseAward(hold.hold_id, "sup", "after the restart"), "sup")
    assert wallet(store, "p1") == held + award and held - before < award
    assert store.read(waiting_holds) == []
    assert store.read(lambda tx: tx.balance(f"held_award:{hold.hold_id}")) == 0
    verified(store)
    again.close()


def test_baccarat_jackpot_awards_are_held_and_released_BAC_17(store: Store) -> None:
    """A seeded virtual baccarat table played by bots (jackpot wagers among their bets): every
    award is held (threshold 1), the rounds and holds re-derive, each release pays once."""
    casino(store, {"b1": ("baccarat", baccarat_rules(), False)})
    svc = service(store, "b1", rng=SeededRandom(17), hold_awards_from=1)
    Bots(svc, PLAYERS[:5], seed=17, batched=True).play(12)
    holds = store.read(waiting_holds)
    assert holds, "the seeded bots hit no baccarat jackpot: choose another seed"
    events = store.read(lambda tx: tx.read_events("b1"))
    assert sum(e.type == "tables.AwardHeld" for e in events) == len(holds)
    verified(store)
    before = {p: wallet(store, p) for p in PLAYERS[:5]}
    for h in holds:
        send(svc, ReleaseAward(h.hold_id, "sup", "BAC-17 combination checked"), "sup")
    paid: dict[str, int] = {}
    for h in holds:
        paid[h.player] = paid.get(h.player, 0) + h.amount
    assert {p: wallet(store, p) - before[p] for p in paid} == paid
    assert store.read(waiting_holds) == []
    verified(store)
    svc.close()


def test_hold_events_are_table_events() -> None:
    assert AwardHeld in TABLE_EVENTS and AwardReleased in TABLE_EVENTS


def _rederived(store: Store, alter: Any) -> Any:
    """Re-derive table L1 from its log and transactions as ``alter(events, txs)`` rewrites
    them (what ``verify`` would read after a change made behind the service's back, with
    the money moved consistently with the changed event: only the hold checks can see it)."""

    def run(tx: Any) -> Any:
        events = list(table_events(tx, "L1"))
        txs = list(table_transactions(tx, "L1"))
        alter(events, txs)
        return rederive_table(
            "L1", "caribbean", "m-car", events, txs, meter_balance=meter_balances(tx)
        )

    return store.read(run)


def _swap(events: list[LoggedEvent], txs: list[StoredTx], kind: type, **changes: Any) -> None:
    """Change the one ``kind`` event and rewrite its transaction's lines to move the same."""
    i = next(i for i, x in enumerate(events) if isinstance(x.event, kind))
    old, new = events[i].event, dataclasses.replace(events[i].event, **changes)
    events[i] = dataclasses.replace(events[i], event=new)
    j = next(j for j, t in enumerate(txs) if t.event_seq == events[i].seq)
    lines = tuple(
        (
            acc.replace(f"wallet:{old.player}", f"wallet:{new.player}"),
            amount if abs(amount) != old.amount else amount // abs(amount) * new.amount,
            reason,
        )
        for acc, amount, reason in txs[j].lines
    )
    txs[j] = dataclasses.replace(txs[j], lines=lines)


def test_verify_finds_a_release_that_does_not_match_its_hold_CSP_10(store: Store) -> None:
    """``verify`` re-derives holds and releases: a release paid to another player, or a second
    release of a hold, or a hold of another amount than the settlement's award, is found
    even when the ledger moved exactly what the changed event says."""
    svc, _, award = hit(store, hold_from=50_000)
    (hold,) = store.read(waiting_holds)
    send(svc, ReleaseAward(hold.hold_id, "sup", "checked"), "sup")
    svc.close()
    verified(store)
    assert _rederived(store, lambda events, txs: None) is None

    to_another = _rederived(store, lambda e, t: _swap(e, t, AwardReleased, player="p2"))
    assert to_another is not None and to_another.key == "operations.verify_release"
    assert to_another.params["hold_id"] == hold.hold_id

    def twice(events: list[LoggedEvent], txs: list[StoredTx]) -> None:
        (x,) = [x for x in events if isinstance(x.event, AwardReleased)]
        (t,) = [t for t in txs if t.event_seq == x.seq]
        seq, tx_id = events[-1].seq + 1, txs[-1].tx_id + 1
        events.append(dataclasses.replace(x, seq=seq))
        txs.append(dataclasses.replace(t, tx_id=tx_id, event_seq=seq))

    again = _rederived(store, twice)
    assert again is not None and again.key == "operations.verify_release"

    less = _rederived(store, lambda e, t: _swap(e, t, AwardHeld, amount=award - 1))
    assert less is not None and less.key == "operations.verify_hold"
    assert less.params["round_id"] == hold.round_id

    def unheld(events: list[LoggedEvent], txs: list[StoredTx]) -> None:
        (x,) = [x for x in events if isinstance(x.event, AwardHeld)]
        events.remove(x)
        txs[:] = [t for t in txs if t.event_seq != x.seq]

    never_held = _rederived(store, unheld)
    assert never_held is not None and never_held.key == "operations.verify_release"

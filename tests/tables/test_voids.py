"""Voids only on a legal ground, with its evidence (CSP-11.1, CSP-11.4, BAC-10), through the
table service on SQLite and PostgreSQL: a void names its ground, who decided and the event of the
same round, earlier in the table's chain, that shows the ground; a ground that does not fit the
round's phase is refused; a dealer's report voids at once only while no player has seen a card
of the round, else a supervisor confirms or rejects it; after a shuffler failed no round opens
until it is recorded replaced or the table deals from a shoe (CSP-11.4, second sentence); verify
finds a void whose evidence was tampered with and counts voids written before grounds apart."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import text

from macau_tables.baccarat.bets import seat
from macau_tables.baccarat.commands import DealCard as BacDeal
from macau_tables.baccarat.commands import PlaceWager
from macau_tables.baccarat.commands import Void as BacVoid
from macau_tables.baccarat.rules import ShoeSettings, WagerKind
from macau_tables.cards import Card
from macau_tables.caribbean.commands import (
    CloseBetting,
    DealCard,
    PlaceAnte,
    PlaceJackpotWager,
    Raise,
    RejectReport,
    ReportMisdeal,
    ShufflerFailure,
    Void,
)
from macau_tables.errors import MacauTablesError, RuleViolation
from macau_tables.store import Store
from macau_tables.store.chain import chain_hash
from macau_tables.store.verify import verify
from macau_tables.tables import ClearFault, OpenRound, ReportFault, ShufflerReplaced
from macau_tables.tables.audit import verify_database
from macau_tables.tables.reconfigure import change_table_config
from macau_tables.voids import Ground
from tests.db_fixtures import filled

from .support import (
    BANKROLL,
    baccarat_rules,
    balances,
    caribbean_rules,
    casino,
    check_invariants,
    open_live_shoe,
    send,
    service,
)

# a deck order for a live Caribbean round with one box (shuffler: five to the box, then five to
# the dealer, CSP-7.2)
CARDS = ("As", "Ks", "Qs", "Js", "Ts", "2c", "3d", "4h", "5s", "7c")


def refused(svc: Any, command: object, key: str, rule: str | None = None) -> None:
    with pytest.raises(MacauTablesError) as exc:
        send(svc, command, "sup-1")
    assert exc.value.key == key, exc.value
    if rule is not None:
        assert isinstance(exc.value, RuleViolation) and exc.value.rule == rule


def live_caribbean(store: Store, **rules: Any) -> Any:
    casino(store, {"c1": ("caribbean", caribbean_rules(**rules), True)})
    svc = service(store, "c1")
    send(svc, OpenRound())
    send(svc, PlaceAnte(1, "p1", 500), "p1")
    send(svc, PlaceJackpotWager(1, "p1"), "p1")
    send(svc, CloseBetting())
    return svc


def rows(store: Store, table_id: str) -> list[Any]:
    return store.read(lambda tx: tx.read_events(table_id))


def last_void(store: Store, table_id: str) -> Any:
    return next(r for r in reversed(rows(store, table_id)) if r.type.endswith("RoundVoided"))


def test_a_caribbean_void_after_the_last_card_needs_a_CSP_11_1_ground_and_its_evidence(
    store: Store,
) -> None:
    """CSP-11.4 voids only during the deal: once every card is out (a royal flush in box 1,
    seen by its player) a shuffler's failure is no ground; CSP-11.1's grounds stand only on the
    event that shows them — here the dealer's report, which holds the round."""
    svc = live_caribbean(store)
    for card in CARDS:
        send(svc, DealCard(Card.parse(card)))
    assert svc.round.expected_next().phase == "deciding"
    refused(svc, Void("no reason to give"), "voids.needs_ground", "CSP-11.4")
    refused(
        svc, Void("jammed", Ground.SHUFFLER_FAILURE, "sup-1"), "voids.ground_not_now", "CSP-11.4"
    )
    refused(svc, Void("jammed", Ground.SHOE_LOST), "voids.ground_not_now", "CSP-11.4")
    refused(
        svc,
        Void("six cards", Ground.WRONG_CARD_COUNT, "sup-1"),
        "tables.void_no_evidence",
        "CSP-11.1",
    )
    opened = rows(store, "c1")[0]
    from macau_tables.voids import Evidence

    wrong = Evidence(opened.seq, opened.hash)  # an event of the round that shows no ground
    refused(
        svc, Void("six cards", Ground.WRONG_CARD_COUNT, "sup-1", wrong), "tables.void_bad_evidence"
    )
    assert not svc.round.is_over and balances(store)["wallet:p1"] == BANKROLL - 600
    report = send(svc, ReportFault("box 1 has six cards"))
    send(svc, Void("box 1 had six cards", Ground.WRONG_CARD_COUNT, "sup-1"), "sup-1")
    r = svc.round
    assert r.is_over and r.void_rule == "CSP-11.1"
    basis = r.events[-1].ground
    assert basis.ground is Ground.WRONG_CARD_COUNT and basis.supervisor == "sup-1"
    fault = next(x for x in rows(store, "c1") if x.type == "tables.TableFaulted")
    assert fault.seq == report.last_seq and fault.round_id == r.round_id
    assert (basis.evidence.seq, basis.evidence.hash) == (fault.seq, fault.hash)
    assert balances(store)["wallet:p1"] == BANKROLL - 100  # the ante back, the jackpot carried
    send(svc, ClearFault("sup-1", "cards counted"), "sup-1")
    check_invariants(store, "c1", svc)
    found = verify_database(store)
    assert found.ok and found.voids == 1 and found.legacy_voids == 0
    # a round over (its showdown known: a royal flush paid) is void on no ground at all
    settled_round(svc)
    assert svc.round.settlement is not None and not svc.round.settlement.voided
    refused(svc, Void("dispute", Ground.WRONG_PROCEDURE, "sup-1"), "caribbean.round_over")


def settled_round(svc: Any) -> None:
    """A live round with box 1's royal flush, raised and settled."""
    send(svc, OpenRound())
    send(svc, PlaceAnte(1, "p1", 500), "p1")
    send(svc, CloseBetting())
    for card in CARDS:
        send(svc, DealCard(Card.parse(card)))
    send(svc, Raise(1, "p1", 1000), "p1")


def test_a_live_misdeal_voids_at_once_only_while_no_player_saw_a_card_CSP_11_1(
    store: Store,
) -> None:
    """CSP-11.1 (dealers report, supervisors decide): before any card of the round shows in a
    player's view the report voids at once, on itself as evidence; after that it holds the
    round until a supervisor confirms (a void on the ground) or rejects it (the round goes
    on, the supervisor and the reason in the log)."""
    svc = live_caribbean(store)
    send(svc, ReportMisdeal("the dealer picked up the wrong deck", Ground.WRONG_PROCEDURE))
    r = svc.round
    assert r.is_over and r.void_rule == "CSP-11.1" and r.events[-1].ground.supervisor is None
    void = last_void(store, "c1")
    report = next(x for x in rows(store, "c1") if x.type == "caribbean.FaultReported")
    evidence = json.loads(void.payload)["ground"]["evidence"]
    assert (
        (evidence["seq"], evidence["hash"])
        == (report.seq, report.hash)
        == (void.seq - 1, void.prev_hash)
    )
    # the next round: a card in box 1 (its player sees it), then the report holds the round
    send(svc, OpenRound())
    send(svc, PlaceAnte(2, "p2", 500), "p2")
    send(svc, CloseBetting())
    send(svc, DealCard(Card.parse("9h")))
    send(svc, ReportMisdeal("two cards came out together", Ground.WRONG_CARD_COUNT))
    held = svc.round
    assert not held.is_over and held.held is not None
    refused(svc, DealCard(Card.parse("9d")), "caribbean.round_held", "CSP-11.1")
    send(svc, RejectReport("sup-1", "one card only: the round goes on"), "sup-1")
    assert svc.round.held is None and svc.round.events[-1].supervisor == "sup-1"
    send(svc, DealCard(Card.parse("9d")))
    send(svc, ReportMisdeal("box 2 got six cards", Ground.WRONG_CARD_COUNT))
    refused(svc, Void("six", Ground.SHUFFLER_FAILURE, "sup-1"), "tables.void_no_evidence")
    send(svc, Void("box 2 got six cards: confirmed", Ground.WRONG_CARD_COUNT, "sup-1"), "sup-1")
    assert svc.round.is_over and svc.round.events[-1].ground.supervisor == "sup-1"
    assert balances(store)["wallet:p2"] == BANKROLL
    check_invariants(store, "c1", svc)
    assert verify_database(store).voids == 2


def test_after_a_shuffler_failure_no_round_opens_until_it_is_replaced_CSP_11_4(
    store: Store,
) -> None:
    """CSP-11.4: a shuffler's failure during the deal voids the round (at once: no card seen);
    then the table deals no round — across a restart — until a supervisor records the machine
    replaced (audited in the log)."""
    svc = live_caribbean(store)
    send(svc, ShufflerFailure("the shuffler jammed"))
    assert svc.round.is_over and svc.round.void_rule == "CSP-11.4"
    refused(svc, OpenRound(), "tables.shuffler_out", "CSP-11.4")
    del svc
    again = service(store, "c1")
    refused(again, OpenRound(), "tables.shuffler_out", "CSP-11.4")
    refused(again, ShufflerReplaced("", "new machine"), "tables.text_required")
    send(again, ShufflerReplaced("sup-1", "machine SN-4411 put in"), "sup-1")
    assert rows(store, "c1")[-1].type == "tables.ShufflerReplacement"
    refused(again, ShufflerReplaced("sup-1", "again"), "tables.shuffler_not_out")
    send(again, OpenRound())
    check_invariants(store, "c1", again)


def test_after_a_shuffler_failure_a_table_switched_to_the_dealing_shoe_deals_again_CSP_11_4(
    store: Store,
) -> None:
    """CSP-11.4: instead of replacing the machine, an admin changes the table's dealing
    procedure to the dealing shoe (a new configuration version): the next round opens."""
    svc = live_caribbean(store)
    send(svc, DealCard(Card.parse("9h")))  # box 1's player has seen a card: held
    send(svc, ShufflerFailure())
    send(svc, Void("the shuffler jammed mid-deal", Ground.SHUFFLER_FAILURE, "sup-1"), "sup-1")
    refused(svc, OpenRound(), "tables.shuffler_out", "CSP-11.4")
    svc.reconfigure(
        lambda: store.run(
            lambda tx: change_table_config(
                tx, "c1", changes={"dealing_procedure": "shoe"}, actor="admin", reason="CSP-11.4"
            )
        )
    )
    send(svc, OpenRound())
    check_invariants(store, "c1", svc)


def test_a_baccarat_hand_complete_is_void_only_on_an_uncorrectable_error_with_evidence_BAC_10(
    store: Store,
) -> None:
    """BAC-10 「至無法更正時，該局取消作廢」: once the hand is complete (a natural showing, the
    holders' reveals due) a lost shoe is no ground, and an error that cannot be corrected voids
    it only on the event that shows it."""
    rules = baccarat_rules(shoe=ShoeSettings(decks=8), card_holding=True)
    casino(store, {"l1": ("baccarat", rules, True)})
    svc = service(store, "l1")
    open_live_shoe(svc)
    send(svc, OpenRound(((1, "p1"),)))
    send(svc, PlaceWager("p1", seat(1), WagerKind.BANKER, 2000), "p1")
    for card in ("9s", "2h", "Kd", "3c"):  # a natural nine for the player
        send(svc, BacDeal(Card.parse(card)))
    assert not svc.round.is_over
    refused(svc, BacVoid("sup-1", "natural", Ground.SHOE_LOST), "voids.ground_not_now", "BAC-10")
    refused(svc, BacVoid("sup-1", "natural"), "voids.needs_ground", "BAC-10")
    refused(svc, BacVoid("sup-1", "natural", Ground.UNCORRECTABLE), "tables.void_no_evidence")
    refused(svc, BacVoid("sup-1", "natural", Ground.EXPOSURES), "voids.ground_not_now")
    send(svc, ReportFault("a card of the last shoe was found among these"))
    send(svc, BacVoid("sup-1", "foreign card, cannot be corrected", Ground.UNCORRECTABLE), "s")
    assert svc.round.void is not None and svc.round.void.ground.rule == "BAC-10"
    assert balances(store)["wallet:p1"] == BANKROLL
    check_invariants(store, "l1", svc)


# -- verify ---------------------------------------------------------------------------------


def _rechain(store: Store, table_id: str, seq: int, payload: str) -> None:
    """Put ``payload`` at ``seq`` and recompute every hash after it (a consistent rewrite: the
    chain holds, only the void's own checks can find it)."""
    later = [r for r in rows(store, table_id) if r.seq >= seq]
    prev = later[0].prev_hash
    with store.engine.begin() as conn:
        for r in later:
            body = payload if r.seq == seq else r.payload
            digest = chain_hash(prev, body.encode("utf-8"))
            conn.execute(
                text(
                    "UPDATE events SET payload = :p, prev_hash = :ph, hash = :h "
                    "WHERE table_id = :t AND seq = :s"
                ),
                {"p": body, "ph": prev, "h": digest, "t": table_id, "s": r.seq},
            )
            prev = digest


def voided_session(store: Store) -> None:
    """A live Caribbean table: a settled round, then one void on a dealer's report. Played once
    per worker and database; the other tests are given a copy of its rows
    (:func:`tests.db_fixtures.filled`)."""
    filled(store, "voided session", play_voided_session)


def play_voided_session(store: Store) -> None:
    """What :func:`voided_session` writes, played."""
    svc = live_caribbean(store)
    for card in CARDS:
        send(svc, DealCard(Card.parse(card)))
    send(svc, Raise(1, "p1", 1000), "p1")
    assert svc.round.settlement is not None
    send(svc, OpenRound())
    send(svc, PlaceAnte(1, "p1", 500), "p1")
    send(svc, CloseBetting())
    for card in CARDS:
        send(svc, DealCard(Card.parse(card)))
    send(svc, ReportFault("box 1 has six cards"))
    send(svc, Void("box 1 had six cards", Ground.WRONG_CARD_COUNT, "sup-1"), "sup-1")
    send(svc, ClearFault("sup-1", "cards counted"), "sup-1")


@pytest.mark.parametrize(
    ("tamper", "key"),
    [
        ("after", "store.verify_void_evidence_after"),
        ("other round", "store.verify_void_evidence_round"),
        ("hash", "store.verify_void_evidence_hash"),
        ("not shown", "store.verify_void_evidence_ground"),
        ("no evidence", "store.verify_void_evidence"),
        ("no ground", "store.verify_void_ground"),
    ],
)
def test_verify_finds_a_void_whose_evidence_does_not_hold_CSP_11_1_BAC_10(
    store: Store, tamper: str, key: str
) -> None:
    """The evidence must exist, precede the void, belong to its round and show its ground."""
    voided_session(store)
    assert verify(store).ok
    void = last_void(store, "c1")
    data = json.loads(void.payload)
    evidence = data["ground"]["evidence"]
    everything = rows(store, "c1")
    mine = [r for r in everything if r.round_id == void.round_id]
    if tamper == "after":
        evidence["seq"] = void.seq + 1
    elif tamper == "other round":
        first = everything[0]  # the first round's opening
        assert first.round_id != void.round_id
        evidence["seq"], evidence["hash"] = first.seq, first.hash
    elif tamper == "hash":
        evidence["hash"] = "0" * 64
    elif tamper == "not shown":
        evidence["seq"], evidence["hash"] = mine[0].seq, mine[0].hash  # its RoundOpened
    elif tamper == "no evidence":
        data["ground"]["evidence"] = None
    else:
        data["ground"] = None
    payload = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    _rechain(store, "c1", void.seq, payload)
    found = verify(store)
    assert not found.ok and found.failure.key == key, found.failure
    assert found.failure.record == f"c1#{void.seq}"


def test_a_void_written_before_grounds_verifies_as_before_counted_apart_CSP_11_4(
    store: Store,
) -> None:
    """A version-1 void (no ground) still decodes, replays and verifies — money re-derived as
    then — and verify counts it apart from the voids with a ground."""
    voided_session(store)
    void = last_void(store, "c1")
    data = json.loads(void.payload)
    del data["ground"]
    data["v"] = 1
    payload = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    _rechain(store, "c1", void.seq, payload)
    found = verify_database(store)
    assert found.ok, found.finding
    assert found.voids == 0 and found.legacy_voids == 1
    event = store.read(lambda tx: last_void(store, "c1").decode(tx.config_resolver()))
    assert event.ground is None and event.rule == "CSP-11.1"


@pytest.mark.parametrize("tampered", [False, True])
def test_the_offline_archive_check_checks_a_voids_evidence_CSP_11_1(
    store: Store, tmp_path: Any, tampered: bool
) -> None:
    """The audit archive of the day is checked with no database: a void's evidence is there,
    before it, in its round, with its hash; a void whose evidence was rewritten (the chain
    recomputed) is a finding at its record."""
    from datetime import UTC, datetime

    from macau_tables.tables.archive import export_day
    from macau_tables.tables.archive_check import verify_archive
    from macau_tables.tables.clock import opening_date

    voided_session(store)
    void = last_void(store, "c1")
    if tampered:
        data = json.loads(void.payload)
        data["ground"]["evidence"]["hash"] = "f" * 64
        payload = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        _rechain(store, "c1", void.seq, payload)
    path = tmp_path / "day.zip"
    export_day(store, opening_date(datetime.now(UTC)), path)
    found = verify_archive(path)
    if tampered:
        assert found.finding is not None and found.finding.key == "store.verify_void_evidence_hash"
        assert found.finding.record == f"c1#{void.seq}"
    else:
        assert found.finding is None, found.finding
        assert found.counts["voids"] == 1


def test_verify_finds_a_void_whose_ground_does_not_fit_the_phase_CSP_11_4(store: Store) -> None:
    """A void rewritten to a ground that does not fit the round as it stood (a shuffler's
    failure after the last card, CSP-11.4 "during the deal"), its evidence still showing it and
    the chain recomputed: the re-derivation of the round refuses it."""
    voided_session(store)
    void = last_void(store, "c1")
    data = json.loads(void.payload)
    data["ground"]["ground"] = "shuffler_failure"
    data["ground"]["rule"] = data["rule"] = "CSP-11.4"
    payload = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    _rechain(store, "c1", void.seq, payload)
    assert verify(store).ok  # the chain and the evidence hold (a fault report shows any ground)
    found = verify_database(store)
    assert found.finding is not None and found.finding.check == "settlement"
    assert found.finding.key == "operations.verify_settlement_refused"
    assert found.finding.record == f"c1#{void.seq}"

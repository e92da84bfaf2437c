"""A crash in every phase of both games, recovered as the law says (SPEC "Faults", CSP-11.4,
BAC-10), on SQLite and PostgreSQL.

Deterministic, unlike :mod:`tests.faults.test_kill`: the table is brought to one phase — a
virtual deal or a settlement is cut short where a crash would cut it (the automatic step stops
there, so what is committed is exactly what a killed process leaves) — then its service is
abandoned without being closed, as a SIGKILL leaves it, and the table is opened again by a new
service with an empty vault (the killed process's memory, the virtual orders sealed in it,
is gone; a case marked ``kept`` keeps it, as a same-process restart would). The restart must:

* resume the round where the law lets it go on — betting, a deal the dealer goes on entering
  (live) or that can be completed from a surviving order, decisions or reveals due, a
  settlement due — and play it to its end;
* void it only on its ground when a virtual order was lost before the round's last card, the
  void naming the ground (a lost shoe), no supervisor, and the recovery record as evidence;
* leave the money whole (the ledger sums to zero, every wager returned or settled once) and
  the database verifying (chains, evidence, re-derived settlements), the state loaded from the
  database equal to the recovered service's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from macau_tables.baccarat import commands as bac
from macau_tables.baccarat.bets import seat
from macau_tables.baccarat.rules import ShoeSettings, WagerKind
from macau_tables.cards import DECK
from macau_tables.caribbean import actions as csp
from macau_tables.rounds import DEALER, DueKind
from macau_tables.store import Store
from macau_tables.tables import MemoryVault, OpenRound
from macau_tables.tables.audit import verify_database
from macau_tables.tables.dealing_baccarat import BaccaratDealing
from macau_tables.tables.dealing_caribbean import CaribbeanDealing
from macau_tables.tables.storage import read_table
from macau_tables.voids import Ground
from tests.tables.support import baccarat_rules, caribbean_rules, casino, ledger_total, service
from tests.tables.test_recovery import open_live_shoe

_n = 0


def send(svc: Any, command: object, actor: str = "dealer") -> Any:
    global _n
    _n += 1
    return svc.submit(command, idempotency_key=f"k{_n}", actor=actor)


def _due(r: Any) -> DueKind | None:
    due = r.expected_next().due
    return due[0].kind if due else None


# -- where each case stops: (game, live, phase) -> (stop predicate on the round, cut short) -----
# ``stop(r)``: the automatic step stops once it holds (a crash at that point); ``None``: the
# phase is reached between two commands.

Stop = Callable[[Any], bool] | None


def _cards(r: Any) -> int:
    return int(r.dealt) if hasattr(r, "dealt") else len(r.cards)


CASES: list[tuple[str, bool, str, Stop, str]] = [
    # Caribbean Stud (CSP-11.4): only a virtual deck lost mid-deal voids
    ("caribbean", False, "betting", None, "resume"),
    ("caribbean", False, "mid-deal", lambda r: _cards(r) >= 4, "void"),
    ("caribbean", False, "mid-deal kept", lambda r: _cards(r) >= 4, "resume"),
    ("caribbean", False, "decisions", None, "resume"),
    ("caribbean", False, "before showdown", lambda r: _due(r) is DueKind.SETTLEMENT, "resume"),
    ("caribbean", True, "betting", None, "resume"),
    ("caribbean", True, "mid-deal", None, "resume"),
    ("caribbean", True, "decisions", None, "resume"),
    # baccarat (BAC-10): a live deal resumes; only a virtual shoe lost before the last card voids
    ("baccarat", False, "betting", None, "void"),  # its shoe's order died with the process
    ("baccarat", False, "betting kept", None, "resume"),
    ("baccarat", False, "mid-deal", lambda r: 0 < _cards(r) < 4, "void"),
    ("baccarat", False, "mid-deal kept", lambda r: 0 < _cards(r) < 4, "resume"),
    # the holders' reveals due: resumes when the hand's cards are all out, else (a third card
    # still to come from the lost shoe) void
    ("baccarat", False, "reveals", None, "by the cards"),
    ("baccarat", False, "reveals kept", None, "resume"),
    ("baccarat", False, "before settlement", lambda r: _due(r) is DueKind.SETTLEMENT, "resume"),
    ("baccarat", True, "betting", None, "resume"),
    ("baccarat", True, "mid-deal", None, "resume"),
    ("baccarat", True, "reveals", None, "resume"),
]


def _table(store: Store, game: str, live: bool, phase: str) -> Any:
    if game == "caribbean":
        rules: Any = caribbean_rules()
    else:
        holding = phase.startswith(("reveals", "mid-deal"))
        shoe = ShoeSettings(decks=8, demo_rounds=0)
        rules = baccarat_rules(shoe=shoe, card_holding=holding)
    casino(store, {"t1": (game, rules, live)})
    svc = service(store, "t1")
    if game == "baccarat" and live:
        open_live_shoe(svc)
    return svc


def _bet(svc: Any, game: str) -> None:
    if game == "caribbean":
        send(svc, OpenRound())
        send(svc, csp.PlaceAnte(1, "p1", 500), "p1")
        box = svc.round.box(1)
        if not box.jackpot:  # (a jackpot wager a void round carried over is in place)
            send(svc, csp.PlaceJackpotWager(1, "p1"), "p1")
        send(svc, csp.PlaceAnte(3, "p2", 300), "p2")
    else:
        send(svc, OpenRound(((1, "p1"), (2, "p2"))))
        send(svc, bac.PlaceWager("p1", seat(1), WagerKind.BANKER, 2000), "p1")
        send(svc, bac.PlaceWager("p2", seat(2), WagerKind.PLAYER, 1000), "p2")
        send(svc, bac.PlaceWager("p2", seat(2), WagerKind.JACKPOT, 100), "p2")


def _unused(r: Any) -> Any:
    """A card not yet in the round (a live Caribbean deck has each card once); at baccarat a
    card still possible in the shoe (each of the 52 in turn)."""
    if hasattr(r, "cards_in_round"):
        return next(c for c in DECK if c not in r.cards_in_round)
    global _n
    _n += 1
    return next(c for c in (DECK[(_n + i) % 52] for i in range(52)) if r.is_possible(c))


def step(svc: Any, game: str) -> bool:
    """One act of whoever the round waits for (the dealer's card, a decision, a reveal, the
    close of betting); ``False`` when nothing is due from a client."""
    r = svc.round
    if r is None or r.is_over:
        return False
    due = r.expected_next().due[0]
    if due.kind is DueKind.WAGERS:
        send(svc, csp.CloseBetting() if game == "caribbean" else bac.CloseBetting())
    elif due.kind is DueKind.CARD and r.expected_next().phase == "betting":
        send(svc, bac.CloseBetting() if not svc.setup.live else bac.DealCard(_unused(r)))
    elif due.kind is DueKind.CARD:
        send(svc, (csp.DealCard if game == "caribbean" else bac.DealCard)(_unused(r)))
    elif due.kind is DueKind.DECISION:
        send(svc, csp.Fold(due.position, due.player), due.player)
    elif due.kind is DueKind.REVEAL:
        s = r.pending_reveal()
        by = due.player if due.player is not None else DEALER
        send(svc, bac.Reveal(s.side, s.part, by), due.player or "dealer")
    else:
        return False
    return True


def reach(svc: Any, game: str, phase: str) -> None:
    """Play the open round until it stands in ``phase`` (or is cut short there)."""
    for _ in range(40):
        r = svc.round
        kind = _due(r)
        name = r.expected_next().phase
        if phase.startswith("betting") and kind is DueKind.WAGERS:
            return
        if phase == "mid-deal" and svc.setup.live and name != "betting" and _cards(r) >= 2:
            return
        if phase == "decisions" and kind is DueKind.DECISION:
            return
        if phase.startswith("reveals") and kind is DueKind.REVEAL:
            return
        if not step(svc, game):
            return


@pytest.mark.parametrize(
    ("game", "live", "phase", "stop", "action"),
    CASES,
    ids=[f"{g}-{'live' if lv else 'virtual'}-{p}" for g, lv, p, _, _ in CASES],
)
def test_a_crash_in_every_phase_is_recovered_as_the_law_says_CSP_11_4_BAC_10(
    store: Store,
    monkeypatch: pytest.MonkeyPatch,
    game: str,
    live: bool,
    phase: str,
    stop: Stop,
    action: str,
) -> None:
    svc = _table(store, game, live, phase)
    _bet(svc, game)
    dealing = CaribbeanDealing if game == "caribbean" else BaccaratDealing
    if stop is not None:
        automatic = dealing.automatic

        def cut_short(self: Any, batch: Any, *, play: bool) -> bool:
            r = batch.state.round
            if r is not None and not r.is_over and stop(r):
                return False  # the process dies here: what was committed is what it leaves
            return automatic(self, batch, play=play)

        monkeypatch.setattr(dealing, "automatic", cut_short)
        for _ in range(40):  # the close of betting, the deal, the decisions or reveals
            if stop(svc.round) or not step(svc, game):
                break
        monkeypatch.setattr(dealing, "automatic", automatic)
        assert not svc.round.is_over and stop(svc.round), "the cut did not happen"
    else:
        reach(svc, game, phase)
    before = svc.round
    assert not before.is_over
    if action == "by the cards":
        action = "resume" if len(before.cards) >= 4 and before.due_slot() is None else "void"
    head = store.read(lambda tx: tx.chain_head("t1")).seq
    kept = phase.endswith("kept")
    vault = svc.vault if kept else MemoryVault()
    del svc  # abandoned, never closed: a SIGKILL
    again = service(store, "t1", vault=vault)
    tail = store.read(lambda tx: tx.read_events("t1", after=head))
    assert tail and tail[0].type == "tables.RoundRecovered", [r.type for r in tail]
    recovered = tail[0].decode(lambda _: again.state.rules)
    assert recovered.action == action and recovered.rule == (
        "CSP-11.4" if game == "caribbean" else "BAC-10"
    )
    r = again.round
    if action == "void":
        assert r.is_over
        void = next(x for x in tail if x.type.endswith("RoundVoided"))
        basis = void.decode(lambda _: again.state.rules).ground
        assert basis.ground is Ground.SHOE_LOST and basis.supervisor is None
        assert (basis.evidence.seq, basis.evidence.hash) == (tail[0].seq, tail[0].hash)
    else:
        assert _cards(r) >= _cards(before) and r.round_id == before.round_id
        for _ in range(40):  # the round goes on to its end, from where it stood
            if not step(again, game):
                break
        assert again.round.is_over and again.round.settlement is not None
        assert not getattr(again.round.settlement, "voided", False)
    assert ledger_total(store) == 0
    loaded = store.read(lambda tx: read_table(tx, "t1"))
    assert loaded.state == again.state
    found = verify_database(store)
    assert found.ok, found.finding
    # and the table plays on
    _bet(again, game)
    for _ in range(40):
        if not step(again, game):
            break
    assert again.round.is_over, again.round.expected_next()
    assert ledger_total(store) == 0

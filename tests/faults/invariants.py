"""The invariants checked after every restart (no tests here).

:func:`check_database` re-derives everything from the stored log and compares it with what the
store holds, on any database, after any number of kills:

* the ledger sums to zero and ``macau-tables verify`` passes
  (:func:`macau_tables.tables.audit.verify_database`: chains, meters, shoes, transaction
  digests, balances = their postings, every round re-derived through its rules);
* every round of every table is settled exactly once or voided, per the SPEC: a round found
  open at start-up is resolved under its rule (CSP-11.4 for Caribbean Stud, BAC-10 for
  baccarat) — resumed where the law lets it go on (a Caribbean round still betting, dealt or
  whose deal can be completed; a baccarat round with all its cards recorded, or whose shoe
  survived), else void on its ground (a shoe lost before the round's last card) with its
  evidence (CSP-11.1, CSP-11.4, BAC-10) — a void round moves no money to or from the house or
  the meter; only a table's last round may still
  be open, and only one resumed at start-up (waiting for its decisions, CSP-6, or its card
  holders, BAC-16);
* the ledger is a replay of the log: each event's postings (``round.postings(event)`` of the
  round replayed from its events) are stored exactly once, as one transaction at that event's
  seq, and every account's balance equals the cashier's, seeds' and adjustments' transactions
  plus those replayed postings;
* no jackpot wager is lost: each one placed appears in its round's settlement, each one
  carried over is taken into a later round or handed back or still waits (then it is among
  the table's ``carried()`` wagers), and the carried account holds exactly what waits.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from macau_tables.games import GAMES
from macau_tables.ledger import Posting
from macau_tables.rounds import Outcome
from macau_tables.store import Store, TableMode, Tx, account_id
from macau_tables.tables.adapters import dealing_for
from macau_tables.tables.audit import verify_database
from macau_tables.tables.model import TABLE_EVENTS, RoundRecovered

__all__ = ["Summary", "TableSummary", "check_database"]

END_EVENTS = ("RoundSettled", "RoundVoided")
VOID_RULES = {"caribbean": "CSP-11.4", "baccarat": "BAC-10"}


class InvariantError(AssertionError):
    """An invariant does not hold (the message says which, where)."""


@dataclass
class TableSummary:
    """What the log of one table holds."""

    table_id: str
    game: str
    rounds: int = 0
    settled: int = 0
    voided: int = 0
    recovered_void: int = 0
    recovered_resume: int = 0
    open_round: str | None = None
    jackpot_placed: int = 0
    jackpot_carried_in: int = 0
    jackpot_waiting: Counter[tuple[str, int]] = field(default_factory=Counter)
    carried_waiting: int = 0
    events: int = 0


@dataclass
class Summary:
    """What :func:`check_database` found (all invariants held)."""

    tables: dict[str, TableSummary]
    transactions: int
    events: int

    def total(self, name: str) -> int:
        """The sum of a counter of :class:`TableSummary` over every table."""
        return sum(int(getattr(t, name)) for t in self.tables.values())


def _fail(where: str, what: str) -> InvariantError:
    return InvariantError(f"{where}: {what}")


def _short(type_name: str) -> str:
    return type_name.rsplit(".", 1)[-1]


def _mapped(postings: Iterable[Posting], table_id: str, meter_id: str | None) -> Counter[str]:
    out: Counter[str] = Counter()
    for p in postings:
        out[account_id(p.account, table_id=table_id, meter_id=meter_id)] += p.amount
    return Counter({k: v for k, v in out.items() if v})


def _lines(settlement: Any) -> tuple[Any, ...]:
    """The :class:`~macau_tables.rounds.WagerResult` lines of either game's settlement."""
    lines = getattr(settlement, "wagers", None)
    return tuple(lines if lines is not None else settlement.lines)


def _jackpot_placed(event: Any) -> tuple[str, int] | None:
    name = type(event).__name__
    if name == "JackpotWagerPlaced":
        return str(event.player), int(event.amount)
    if name == "WagerPlaced" and str(event.wager.kind) == "jackpot":
        return str(event.wager.player), int(event.wager.amount)
    return None


def _handed_back(event: Any) -> list[tuple[str, int, bool]]:
    """Carried wagers handed back by ``event``: (player, amount, is a jackpot wager)."""
    name = type(event).__name__
    if name == "CarriedWagerReturned":  # Caribbean Stud: only jackpot wagers are carried
        return [(str(event.player), int(event.amount), True)]
    if name == "CarriedChanged" and event.returned:
        return [(str(event.player), int(event.returned), False)]
    if name == "BettingClosed" and getattr(event, "returned", ()):
        return [(str(w.player), int(w.amount), str(w.kind) == "jackpot") for w in event.returned]
    return []


def _round(game: str, round_id: str, events: list[tuple[int, Any]]) -> Any:
    try:
        return GAMES[game].replay([e for _, e in events])
    except Exception as exc:
        raise _fail(round_id, f"the log does not replay: {exc!r}") from exc


def _check_table(
    tx: Tx,
    table_id: str,
    expected_tx: dict[tuple[str, int], Counter[str]],
    balances: Mapping[str, int],
) -> TableSummary:
    rec = tx.table(table_id)
    resolver = tx.config_resolver()
    game, meter_id = rec.game, rec.meter_id
    dealing = dealing_for(game, live=rec.mode is TableMode.LIVE)
    summary = TableSummary(table_id, game)
    rounds: list[tuple[str, list[tuple[int, Any]]]] = []
    recovered: dict[str, list[RoundRecovered]] = {}
    for stored in tx.read_events(table_id):
        summary.events += 1
        event = stored.decode(resolver)
        if isinstance(event, RoundRecovered):
            before = recovered.setdefault(event.round_id, [])
            if before and before[-1].action != "resume":
                raise _fail(f"{table_id}#{stored.seq}", "a round recovered after it was void")
            before.append(event)
            continue
        if isinstance(event, TABLE_EVENTS) or dealing.is_dealing_event(event):
            continue
        if dealing.opens_round(event):
            rounds.append((str(stored.round_id), []))
        if not rounds or stored.round_id != rounds[-1][0]:
            raise _fail(f"{table_id}#{stored.seq}", "a round event outside its round")
        rounds[-1][1].append((stored.seq, event))
    ids = [rid for rid, _ in rounds]
    if len(set(ids)) != len(ids):
        raise _fail(table_id, "a round id used twice")
    waiting: Counter[str] = Counter()  # carried money per player
    jackpot_waiting: Counter[tuple[str, int]] = Counter()
    for i, (round_id, events) in enumerate(rounds):
        r = _round(game, round_id, events)
        summary.rounds += 1
        ends = [e for _, e in events if type(e).__name__ in END_EVENTS]
        if len(ends) > 1:
            raise _fail(round_id, f"settled {len(ends)} times")
        if r.is_over != bool(ends):
            raise _fail(round_id, "over without a settlement, or settled and still open")
        last = i == len(rounds) - 1
        if not r.is_over:
            if not last:
                raise _fail(round_id, "left open while a later round was played")
            whys = recovered.get(round_id, [])
            if not whys or whys[-1].action != "resume":
                raise _fail(round_id, "open after start-up recovery (CSP-11.4 / BAC-10)")
            summary.open_round = round_id
        # a round found open at start-up: void by its rule, or resumed where the law lets it
        # go on, maybe more than once when the process died again (CSP-11.4, BAC-10)
        for why in recovered.get(round_id, []):
            if why.rule != VOID_RULES[game]:
                raise _fail(round_id, f"recovered under {why.rule}, not {VOID_RULES[game]}")
            if why.action == "void":
                summary.recovered_void += 1
                if not ends or type(ends[0]).__name__ != "RoundVoided":
                    raise _fail(round_id, "recovered as void but not voided")
            elif why.action == "resume":
                summary.recovered_resume += 1
            else:
                raise _fail(round_id, f"recovery action {why.action!r} for {game}")
        # the ledger: each event's postings, once, at its seq
        for seq, e in events:
            postings = r.postings(e)
            if postings:  # lines may cancel out per account (then maybe no transaction)
                expected_tx[(table_id, seq)] = _mapped(postings, table_id, meter_id)
        # the wagers
        placed = Counter(p for _, e in events if (p := _jackpot_placed(e)) is not None)
        summary.jackpot_placed += sum(placed.values())
        for _, e in events:
            for player, amount, jackpot in _handed_back(e):
                waiting[player] -= amount
                if jackpot:
                    jackpot_waiting[(player, amount)] -= 1
        if not ends:
            continue
        end = ends[0]
        voided = type(end).__name__ == "RoundVoided"
        basis = getattr(end, "ground", None) if voided else None
        if voided and (basis is None or basis.evidence is None):
            raise _fail(round_id, "void without a ground and its evidence (CSP-11.4, BAC-10)")
        summary.voided += voided
        summary.settled += not voided
        settled_jackpots: Counter[tuple[str, int]] = Counter()
        for line in _lines(end.settlement):
            jackpot = str(line.kind) == "jackpot"
            if voided and (line.outcome in (Outcome.WON, Outcome.LOST) or line.house):
                raise _fail(round_id, f"void, yet {line.player}'s {line.kind} was {line.outcome}")
            if voided and jackpot and game == "caribbean" and line.outcome != Outcome.CARRIED_OVER:
                raise _fail(round_id, f"void, yet {line.player}'s jackpot wager not carried")
            if line.carried_in:
                waiting[line.player] -= line.stake
                if jackpot:
                    summary.jackpot_carried_in += 1
                    jackpot_waiting[(line.player, line.stake)] -= 1
            elif jackpot:
                settled_jackpots[(line.player, line.stake)] += 1
            if line.carried:
                waiting[line.player] += line.carried
                if jackpot:
                    jackpot_waiting[(line.player, line.carried)] += 1
        if settled_jackpots != placed:
            raise _fail(
                round_id, f"jackpot wagers placed {dict(placed)}, settled {dict(settled_jackpots)}"
            )
        for key, n in list(waiting.items()) + [(str(k), n) for k, n in jackpot_waiting.items()]:
            if n < 0:
                raise _fail(round_id, f"a carried wager of {key} taken twice")
    summary.jackpot_waiting = +jackpot_waiting
    summary.carried_waiting = sum(waiting.values())
    carried = balances.get(f"carried:{table_id}", 0)
    if carried != summary.carried_waiting:
        raise _fail(
            f"carried:{table_id}",
            f"holds {carried}, the log leaves {summary.carried_waiting} carried",
        )
    return summary


def _check_ledger(
    tx: Tx, expected_tx: Mapping[tuple[str, int], Counter[str]]
) -> tuple[int, Counter[str]]:
    """Every table transaction is one event's postings, once; returns the number of
    transactions and the balances they and the others make."""
    balances: Counter[str] = Counter()
    seen: set[tuple[str, int]] = set()
    n = 0
    for t in tx.transactions():
        n += 1
        moved: Counter[str] = Counter()
        for p in t.postings:
            moved[p.account_id] += p.amount
        moved = Counter({k: v for k, v in moved.items() if v})
        if t.table_id is None:
            balances.update(moved)
            continue
        key = (t.table_id, t.event_seq if t.event_seq is not None else -1)
        if key in seen:
            raise _fail(f"tx {t.tx_id}", f"a second transaction for event {key} (paid twice)")
        seen.add(key)
        if expected_tx.get(key) != moved:
            raise _fail(
                f"tx {t.tx_id}",
                f"postings {dict(moved)} are not those of event {key}: "
                f"{dict(expected_tx.get(key, {}))}",
            )
    missing = sorted(k for k, moved in expected_tx.items() if moved and k not in seen)
    if missing:
        raise _fail(f"{missing[0][0]}#{missing[0][1]}", "an event's postings were never posted")
    for moved in expected_tx.values():
        balances.update(moved)
    return n, balances


def check_database(store: Store) -> Summary:
    """Check every invariant of the module docstring on ``store`` (in one consistent read);
    returns what the log holds. Raises :class:`InvariantError` naming the first failure."""
    found = verify_database(store)  # what `macau-tables verify` runs
    if not found.ok:
        raise InvariantError(f"verify failed: {found.finding}")

    def check(tx: Tx) -> Summary:
        total = tx.ledger_total()
        if total != 0:
            raise _fail("ledger", f"sums to {total}, not zero")
        expected_tx: dict[tuple[str, int], Counter[str]] = {}
        stored = {a.account_id: a.balance for a in tx.accounts()}
        tables = {
            t.table_id: _check_table(tx, t.table_id, expected_tx, stored) for t in tx.tables()
        }
        n, balances = _check_ledger(tx, expected_tx)
        for acc in tx.accounts():
            if acc.balance != balances.get(acc.account_id, 0):
                raise _fail(
                    acc.account_id,
                    f"balance {acc.balance}, the replay of the log gives "
                    f"{balances.get(acc.account_id, 0)}",
                )
        events = sum(t.events for t in tables.values())
        return Summary(tables, n, events)

    return store.read(check)

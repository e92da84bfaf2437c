"""No refusal depends on a card hidden from its issuer (Common rules "Hidden information",
CSP-12, BAC-16), and a virtual table refuses every physical act by its mode (CSP-11, BAC-4,
BAC-10: ``MODES``, ``tables.mode_refuses``).

The property: tables of both games, virtual and live, are played to a random point (every
phase: betting, dealing, decisions or reveals, a refused live card, settled, void); then a
*twin* of the table is built that differs only in cards hidden from one issuer — the shoe's
undealt order, the dealer's hole cards, other boxes' cards, held baccarat cards — and is the
same from that issuer's view (``round.view(audience)``: a player's own, the dealer's, the
supervisor's). Every command type of both games, from every role that may issue it
(``server.api_tables.ISSUERS``, ``rounds.acting``), is then submitted to both: at the table
service level (``engine.execute``, the one place every command of a table goes through) and to
the round itself (``round.check``). Both are refused with the same key, parameters and text in
both languages, or both are accepted.

The one exception (tested as such): a live table's card entry from the dealer's console —
``DealCard``, a dead hand's cards (``DealtToEmptyBox``, CSP-11.3), a card reported exposed
(``ReportExposedCard``, CSP-11.2) — is checked against the cards that dealer has physically
dealt and entered (a duplicate card, CSP-1; a card not dealt, CSP-11.2; a card the shoe no longer
holds, BAC-1): the dealer saw those, they typed every one of them in. A virtual table refuses all
of these by its mode, whatever the cards, so the exception never reaches a virtual table.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import itertools
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from macau_tables import messages
from macau_tables.baccarat import commands as B
from macau_tables.baccarat import shoe as S
from macau_tables.baccarat.bets import seat
from macau_tables.baccarat.rules import ShoeSettings, TieOption, WagerKind
from macau_tables.baccarat.sides import Side
from macau_tables.baccarat.tableau import CardSlot
from macau_tables.cards import DECK, Card
from macau_tables.caribbean import commands as C
from macau_tables.errors import MacauTablesError
from macau_tables.rng import SeededRandom
from macau_tables.rounds import (
    DEALER,
    Audience,
    DueKind,
    TableMode,
    accepts,
    acting,
    cycle_step_of,
    is_command,
)
from macau_tables.server.api_tables import ISSUERS
from macau_tables.server.principal import UserRole
from macau_tables.store import Store
from macau_tables.tables import TableService
from macau_tables.tables import model as M
from macau_tables.tables.engine import TableState, execute
from macau_tables.voids import Ground

from .support import (
    PureTable,
    baccarat_rules,
    caribbean_rules,
    casino,
    close_betting,
    open_round,
    service,
)

PLAYERS = ("p1", "p2", "p3")
SUPERVISOR = "sue"

CARD_ENTRIES = frozenset({C.DealCard, C.DealtToEmptyBox, C.ReportExposedCard, B.DealCard})
"""A live dealer's card entries: checked against the cards that dealer physically dealt."""
CARD_ENTRY_KEYS = frozenset(
    {
        "caribbean.card_already_dealt",  # CSP-1: a card already in the round
        "caribbean.card_twice",  # CSP-1: the same card twice in one dead hand
        "caribbean.exposed_not_dealt",  # CSP-11.2: the card reported is not one dealt
        "baccarat.card_not_in_shoe",  # BAC-1: the shoe holds no more of that card
    }
)
"""What a card entry's check against the dealt cards may answer (the exception)."""


# -- the command types of both games, and who issues them ---------------------------------------


def _all_command_types() -> set[type]:
    found: set[type] = set()
    for module in (C, B, S, M):
        found |= {v for v in vars(module).values() if is_command(v)}
    return found


def test_every_command_class_declares_the_table_modes_it_is_accepted_in() -> None:
    """Each command class says, itself, which table modes accept it: the physical acts only a
    live table has (CSP-11, BAC-4, BAC-10, BAC-2.1, BAC-3), a player's own seat only a virtual one
    (BAC-15), everything else everywhere."""
    live_only = {
        C.DealCard,
        C.ReportExposedCard,
        C.ReportMisdeal,
        C.DealtToEmptyBox,
        C.ShufflerFailure,
        C.RejectReport,  # rejects a live dealer's report
        B.DealCard,
        B.Correct,
        S.Cut,
        S.Burn,
        S.CutCardOut,
        S.ConfirmCutCardOut,
        M.OpenShoe,
    }
    virtual_only = {M.TakeSeat, M.LeaveSeat}  # BAC-15: a live table's dealer seats players
    for cls in _all_command_types():
        assert "MODES" in vars(cls), cls
        assert accepts(TableMode.LIVE, cls) is (cls not in virtual_only), cls
        assert accepts(TableMode.VIRTUAL, cls) is (cls not in live_only), cls


# -- building twins -----------------------------------------------------------------------------


_ATOMS = frozenset({int, str, bool, float, bytes, type(None)})
"""Types that hold no card (walked past at once: most of a table's state is these)."""

_FIELDS: dict[tuple[type, bool], tuple[str, ...] | None] = {}


def _fields_of(cls: type, init: bool) -> tuple[str, ...] | None:
    """The fields of a dataclass ``cls`` (``init``: its ``init`` fields only; ``None``: not a
    dataclass), looked up once per class."""
    try:
        return _FIELDS[cls, init]
    except KeyError:
        names = None
        if dataclasses.is_dataclass(cls):
            names = tuple(f.name for f in dataclasses.fields(cls) if f.init or not init)
        _FIELDS[cls, init] = names
        return names


def _substitute(value: Any, swap: dict[Card, Card]) -> Any:
    """``value`` with every card in it replaced through ``swap`` (dataclasses, tuples, lists,
    dicts walked; everything else kept)."""
    cls = value.__class__
    if cls is Card:
        return swap.get(value, value)
    if cls in _ATOMS:
        return value
    if isinstance(value, Card):
        return swap.get(value, value)
    if isinstance(value, tuple):
        items = []
        changed = False
        for v in value:
            new = _substitute(v, swap)
            changed = changed or new is not v
            items.append(new)
        return tuple(items) if changed else value
    if isinstance(value, list):
        return [_substitute(v, swap) for v in value]
    if isinstance(value, dict):
        return {_substitute(k, swap): _substitute(v, swap) for k, v in value.items()}
    names = None if isinstance(value, type) else _fields_of(cls, True)
    if names is not None:
        changes = {}
        for name in names:
            old = getattr(value, name)
            new = _substitute(old, swap)
            if new is not old:
                changes[name] = new
        return dataclasses.replace(value, **changes) if changes else value
    return value


def _cards_in(value: Any, out: set[Card]) -> set[Card]:
    cls = value.__class__
    if cls in _ATOMS:
        return out
    if isinstance(value, Card):
        out.add(value)
    elif isinstance(value, tuple | list):
        for v in value:
            _cards_in(v, out)
    elif isinstance(value, dict):
        for k, v in value.items():
            _cards_in(k, out)
            _cards_in(v, out)
    elif not isinstance(value, type):
        for name in _fields_of(cls, False) or ():
            _cards_in(getattr(value, name), out)
    return out


def _twin(state: TableState, swap: dict[Card, Card]) -> TableState | None:
    """``state`` with the cards ``swap`` exchanges exchanged everywhere: in the round's events
    and in the dealing state (the sealed order, the shoe's events). ``None`` when the round
    cannot be rebuilt from the exchanged events."""
    r = state.round
    game = type(r)
    try:
        twin_round = game.replay(_substitute(tuple(r.events), swap))
    except (MacauTablesError, ValueError):
        return None
    deal = state.deal
    sealed_field = "deck" if hasattr(deal, "deck") else "sealed"
    twin_deal = _substitute(deal, swap)
    sealed = getattr(deal, sealed_field)
    if sealed is not None:  # compare=False fields are walked too: kept explicitly
        twin_deal = dataclasses.replace(twin_deal, **{sealed_field: _substitute(sealed, swap)})
    return dataclasses.replace(state, round=twin_round, deal=twin_deal)


def _reachable(r: Any, twin: Any) -> bool:
    """Whether ``twin`` (``r``'s events with cards exchanged) is a round the table could have
    played: after each of its events it expected what ``r`` expected then (the same card due
    to the same place — BAC-9's draws, CSP-7's order — the same reveal, decision or
    settlement), so each event of it was due when it came."""
    game = type(r)
    for n in range(1, len(r.events) + 1):
        if (
            game.replay(r.events[:n]).expected_next()
            != game.replay(twin.events[:n]).expected_next()
        ):
            return False
    return True


def _twins(
    state: TableState, audience: Audience, rnd: random.Random, wanted: int = 3
) -> Iterator[tuple[TableState, dict[Card, Card]]]:
    """Up to ``wanted`` twins of ``state`` the same from ``audience``'s view: two cards
    exchanged (one in the round and any other; or two the round has not dealt — the shoe's
    order), tried in a random order."""
    r = state.round
    baccarat = hasattr(r, "available")
    in_round = sorted(_cards_in(tuple(r.events), set()), key=lambda c: c.index)
    pairs = [(a, b) for a in in_round for b in DECK if a is not b]
    outside = [c for c in DECK if c not in in_round]
    rnd.shuffle(outside)
    pairs += [(a, b) for a in outside[:12] for b in outside[12:24]]
    rnd.shuffle(pairs)
    seen = r.view(audience)
    found = 0
    for a, b in pairs[:80]:
        if baccarat and r.available[a.index] != r.available[b.index]:
            continue  # the shoe's counts of each face stay what they were
        twin = _twin(state, {a: b, b: a})
        if twin is None or twin.round.view(audience) != seen or not _reachable(r, twin.round):
            continue
        yield twin, {a: b, b: a}
        found += 1
        if found == wanted:
            return


# -- playing a table to a random point ----------------------------------------------------------


def _try(t: PureTable, command: object) -> None:
    with contextlib.suppress(MacauTablesError):  # a refused step: the walk goes on
        t.run(command)


def _unused(t: PureTable, rnd: random.Random) -> Card:
    used = _cards_in(tuple(t.state.round.events), set()) if t.state.round is not None else set()
    return rnd.choice([c for c in DECK if c not in used])


def _caribbean_step(t: PureTable, rnd: random.Random) -> None:
    r = t.state.round
    if r is None or r.is_over:
        _try(t, M.OpenRound())
        return
    due = r.expected_next().due
    kind = due[0].kind if due else None
    live = t.setup.live
    if kind is DueKind.WAGERS:
        box = rnd.randint(1, 3)
        choice = rnd.random()
        if choice < 0.5:
            _try(t, C.PlaceAnte(box, PLAYERS[box - 1], 100 * rnd.randint(1, 3)))
        elif choice < 0.7:
            _try(t, C.PlaceJackpotWager(box, PLAYERS[box - 1]))
        else:
            _try(t, C.CloseBetting())
    elif kind is DueKind.CARD and live:
        choice = rnd.random()
        if choice < 0.85:
            _try(t, C.DealCard(_unused(t, rnd)))
        elif choice < 0.92:
            _try(t, C.DealtToEmptyBox(rnd.randint(4, 7), (_unused(t, rnd),)))
        else:
            dealt = [c for b in r.boxes for c in b.cards] + list(r.dealer_cards)
            if dealt:
                _try(t, C.ReportExposedCard(rnd.choice(dealt)))
    elif kind is DueKind.DECISION and rnd.random() < 0.6:  # a decision takes a while
        box, player = due[0].position, due[0].player
        ante = r.box(box).ante
        if rnd.random() < 0.5:
            _try(t, C.Raise(box, player, 2 * ante))
        else:
            _try(t, C.Fold(box, player))
    if rnd.random() < 0.02:
        _try(t, C.Void("a supervisor's void", rnd.choice(list(Ground)), SUPERVISOR))
    if kind is DueKind.SUPERVISOR:  # a dealer's report holds the round: a supervisor decides
        _try(t, C.RejectReport(SUPERVISOR, "the cards are right"))


def _baccarat_step(t: PureTable, rnd: random.Random) -> None:
    deal = t.state.deal
    r = t.state.round
    live = t.setup.live
    if live and (deal.shoe is None or deal.shoe.phase is S.ShoePhase.FINISHED):
        if r is None or r.is_over:
            _try(t, M.OpenShoe())
            # BAC-2.1: the dealer at the console cuts (no player is at a table yet to deal)
            _try(t, S.Cut(S.Cutter.DEALER, getattr(t, "actor", "test"), 100))
            _try(t, S.Burn((None,) * 8))
        return
    if r is None or r.is_over:
        _try(t, M.OpenRound(((1, "p1"), (2, "p2"))))
        return
    due = r.expected_next().due
    kind = due[0].kind if due else None
    if kind is DueKind.WAGERS or (kind is DueKind.CARD and r.phase.value == "betting"):
        choice = rnd.random()
        player = rnd.choice(("p1", "p2"))
        area = seat(1 if player == "p1" else 2)
        if choice < 0.6:
            wager = rnd.choice((WagerKind.BANKER, WagerKind.PLAYER, WagerKind.BANKER_PAIR))
            _try(t, B.PlaceWager(player, area, wager, 1000))
        elif choice < 0.7:
            _try(t, B.PlaceWager(player, area, WagerKind.JACKPOT, 100))
        elif not live:
            _try(t, B.CloseBetting())
        else:
            _try(t, B.DealCard(_unused(t, rnd)))
    elif kind is DueKind.CARD and live:
        slot = None if rnd.random() < 0.9 else rnd.choice(list(CardSlot))
        _try(t, B.DealCard(_unused(t, rnd), slot, exposed=rnd.random() < 0.05))
    elif kind is DueKind.REVEAL and rnd.random() < 0.6:  # the squeeze takes a while
        step = r.pending_reveal()
        if step is not None:
            by = due[0].player if due[0].player is not None else DEALER
            _try(t, B.Reveal(step.side, step.part, by))
    elif kind is DueKind.SUPERVISOR:
        action = rnd.choice(list(B.CorrectionAction))
        _try(t, B.Correct(SUPERVISOR, "a supervisor's correction", action))
    if rnd.random() < 0.02:
        _try(t, B.Void(SUPERVISOR, "a supervisor's void", Ground.UNCORRECTABLE))


def _table(game: str, live: bool, seed: int) -> PureTable:
    if game == "caribbean":
        return PureTable(game, caribbean_rules(), live=live, seed=seed)
    shoe = ShoeSettings(decks=8, demo_rounds=0)
    return PureTable(game, baccarat_rules(shoe=shoe), live=live, seed=seed)


# -- the commands submitted ---------------------------------------------------------------------


def _commands(game: str, cards: list[Card]) -> list[object]:
    """Instances of every command type of ``game`` (and of the table and the shoe), with the
    cards most likely to tell the twins apart (those exchanged, those in the round)."""
    table: list[object] = [
        M.OpenRound(((1, "p1"), (2, "p2"))),
        M.OpenShoe(),
        M.ReportFault("a fault"),
        M.ClearFault(SUPERVISOR, "cleared"),
        M.ReleaseAward("hold-1", SUPERVISOR, "paid"),
    ]
    out: list[object] = list(table)
    if game == "caribbean":
        for box in (1, 2, 3, 5):
            player = PLAYERS[box - 1] if box <= 3 else "p1"
            out += [
                C.PlaceAnte(box, player, 100),
                C.PlaceJackpotWager(box, player),
                C.Raise(box, player, 200),
                C.Fold(box, player),
                C.ReturnCarriedWager(box, SUPERVISOR, "left"),
            ]
        out += [C.CloseBetting(), C.ReportMisdeal("misdeal"), C.ShufflerFailure()]
        out += [C.Void("void", Ground.SHUFFLER_FAILURE, SUPERVISOR)]
        for card in cards:
            out += [
                C.DealCard(card),
                C.DealCard(card, DEALER),
                C.ReportExposedCard(card),
                C.DealtToEmptyBox(5, (card,)),
            ]
        return out
    for player, n in (("p1", 1), ("p2", 2)):
        out += [
            B.PlaceWager(player, seat(n), WagerKind.BANKER, 1000),
            B.WithdrawWager(1, player),
            B.ChangeCarried(1, player, TieOption.LEAVE),
        ]
        for side in Side:
            for part in B.RevealPart:
                out.append(B.Reveal(side, part, player))
    for side in Side:
        for part in B.RevealPart:
            out.append(B.Reveal(side, part, DEALER))
    for action in B.CorrectionAction:
        out.append(B.Correct(SUPERVISOR, "fix", action))
    out += [
        B.CloseBetting(),
        B.Void(SUPERVISOR, "void", Ground.UNCORRECTABLE),
        S.Cut(S.Cutter.PLAYER, "p1", 50),
        S.Burn((None,)),
        S.CutCardOut(),
        S.ConfirmCutCardOut(SUPERVISOR, "placed short"),
        S.ChangeShoe("change"),
    ]
    for card in cards:
        out += [B.DealCard(card), B.DealCard(card, exposed=True)]
    return out


def _audiences(command: object) -> list[Audience]:
    """The audience of each role that may issue ``command`` (none for the service's own)."""
    issuer, named = acting(command)
    out = []
    for role in ISSUERS[issuer]:
        if role is UserRole.PLAYER:
            out.append(Audience.of_player(named or "p1"))
        elif role is UserRole.DEALER:
            out.append(Audience.dealer())
        elif role is UserRole.SUPERVISOR:
            out.append(Audience.supervisor())
    return out


Outcome = tuple[str, tuple[tuple[str, str], ...], str, str] | None


def _outcome(run: Callable[[], MacauTablesError | None]) -> Outcome:
    """``None`` (accepted) or the refusal's key, parameters and text in both languages."""
    try:
        exc = run()
    except MacauTablesError as raised:
        exc = raised
    if exc is None:
        return None
    params = tuple(sorted((k, repr(v)) for k, v in exc.params.items()))
    texts = (
        messages.render(exc.key, exc.params, "en"),
        messages.render(exc.key, exc.params, "zh-Hant"),
    )
    return exc.key, params, *texts


def _excepted(command: object, live: bool, a: Outcome, b: Outcome) -> bool:
    """The one exception: a live dealer's card entry answered by its check against the cards
    that dealer physically dealt (module docstring)."""
    if not live or type(command) not in CARD_ENTRIES:
        return False
    return any(o is not None and o[0] in CARD_ENTRY_KEYS for o in (a, b))


ROUND_COMMANDS = (C.Command, B.Command)
"""The commands a round itself checks (the table's and the shoe's are the service's)."""


def _round_check(r: Any, command: object) -> Callable[[], MacauTablesError | None]:
    return lambda: r.check(command)


def _table_check(t: PureTable, command: object) -> Callable[[], None]:
    return lambda: execute(t.batch(), command) and None


def _compare(t: PureTable, rnd: random.Random) -> int:
    """Every command from every role on the table and its twins (see the module docstring);
    returns how many pairs were compared."""
    state = t.state
    r = state.round
    if r is None:
        return 0
    live = t.setup.live
    mode = t.setup.mode
    in_round = sorted(_cards_in(tuple(r.events), set()), key=lambda c: c.index)
    compared = 0
    audiences = {Audience.dealer(), Audience.supervisor(), *map(Audience.of_player, PLAYERS)}
    for audience in sorted(audiences, key=repr):
        for twin, swap in _twins(state, audience, rnd):
            cards = list(swap) + rnd.sample(in_round, min(3, len(in_round)))
            other = copy.copy(t)
            other.state = twin
            for command in _commands(t.setup.game, cards):
                if audience not in _audiences(command):
                    continue
                checks = [("table service", _table_check(t, command), _table_check(other, command))]
                if accepts(mode, type(command)) and isinstance(command, ROUND_COMMANDS):
                    # at this table the command reaches the round: the round's own check too
                    pair = (_round_check(r, command), _round_check(twin.round, command))
                    checks.append(("round.check", *pair))
                for where, first, second in checks:
                    compared += 1
                    a, b = _outcome(first), _outcome(second)
                    if a == b or _excepted(command, live, a, b):
                        continue
                    raise AssertionError(
                        f"{where}: {command!r} from {audience} at a {mode} table answers "
                        f"differently when cards hidden from it differ ({swap}):\n{a}\n{b}"
                    )
    return compared


@pytest.mark.parametrize(
    ("game", "live"), [(g, m) for g in ("caribbean", "baccarat") for m in (False, True)]
)
# (The same property through the table service on both databases: the test after this one.)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16), steps=st.integers(0, 40))
def test_no_refusal_depends_on_a_card_hidden_from_its_issuer(
    game: str, live: bool, seed: int, steps: int
) -> None:
    """Common rules "Hidden information", CSP-12, BAC-16 (module docstring)."""
    rnd = random.Random(seed)
    t = _table(game, live, seed)
    step = _caribbean_step if game == "caribbean" else _baccarat_step
    for _ in range(steps):
        step(t, rnd)
    _compare(t, rnd)


# -- the table service on both databases ---------------------------------------------------------


class _Served:
    """A :class:`~macau_tables.tables.TableService` driven as the walk drives a
    :class:`PureTable` (``run``, ``state``, ``setup``)."""

    actor = "dealer"

    def __init__(self, svc: TableService) -> None:
        self.svc = svc
        self.n = 0

    @property
    def state(self) -> TableState:
        return self.svc.state

    @property
    def setup(self) -> M.TableSetup:
        return self.svc.setup

    def run(self, command: object) -> object:
        self.n += 1
        if not self.svc.setup.live and cycle_step_of(type(command)) is not None:
            # a virtual table's round cycle opens and closes (tables.cycle_owns for a client)
            return self.svc.cycle_step(seated=getattr(command, "seated", None) or None)
        return self.svc.submit(command, idempotency_key=f"walk-{self.n}", actor=self.actor)


def _submitted(svc: TableService, command: object, key: str) -> Outcome:
    """What the service answers ``command``, with nothing written when it refuses."""
    seq, state = svc.view(Audience.public()).seq, svc.state
    outcome = _outcome(lambda: svc.submit(command, idempotency_key=key, actor="dealer") and None)
    if outcome is not None:
        assert svc.view(Audience.public()).seq == seq and svc.state is state
    return outcome


@pytest.mark.parametrize(
    ("game", "live"), [(g, m) for g in ("caribbean", "baccarat") for m in (False, True)]
)
def test_the_table_service_refuses_the_same_whatever_the_hidden_cards(
    store: Store, game: str, live: bool
) -> None:
    """The property above through the table service on the store (its one check of the
    table's mode, then the round): a command the engine refuses is refused by the service with
    the same key, parameters and texts, nothing written, on the table and on its twin."""
    rules = (
        caribbean_rules()
        if game == "caribbean"
        else baccarat_rules(shoe=ShoeSettings(decks=8, demo_rounds=0))
    )
    casino(store, {"t1": (game, rules, live)})
    svc = service(store, "t1", rng=SeededRandom(3))
    served = _Served(svc)
    rnd = random.Random(11)
    step = _caribbean_step if game == "caribbean" else _baccarat_step
    checked, keys = 0, itertools.count()
    for stop in (6, 14, 24):  # betting, then dealing, decisions or reveals
        while served.n < stop:
            before = served.n
            step(served, rnd)  # type: ignore[arg-type]
            served.n = max(served.n, before + 1)
        original = svc.state
        if original.round is None:
            continue
        audiences = (Audience.dealer(), Audience.of_player("p1"), Audience.supervisor())
        for audience in audiences:
            for twin, swap in _twins(original, audience, rnd, wanted=1):
                dealt = sorted(
                    _cards_in(tuple(original.round.events), set()), key=lambda c: c.index
                )
                cards = list(swap) + rnd.sample(dealt, min(1, len(dealt)))
                mine = [c for c in _commands(game, cards) if audience in _audiences(c)]
                for command in rnd.sample(mine, min(20, len(mine))):
                    key = f"probe-{next(keys)}"
                    a = _submitted(svc, command, key)
                    if a is None:  # accepted (and written): the engine property covers it
                        svc.reload()
                        original = svc.state
                        break
                    svc.state = twin
                    try:
                        b = _submitted(svc, command, key + "-twin")
                    finally:
                        svc.state = original
                    checked += 1
                    assert a == b or _excepted(command, live, a, b), (command, swap, a, b)
    assert checked >= 20


def test_a_virtual_table_refuses_every_physical_act_with_one_key_whatever_the_card(
    store: Store,
) -> None:
    """CSP-11.1, CSP-11.2, CSP-11.3, CSP-11.4 at a virtual table: the dealer's exposure report
    of a card not in play and of the dealer's face-down hole card, a misdeal (a free re-deal
    for a colluder once the hands are seen), a dead hand, a shuffler's failure and a card are
    all refused ``tables.mode_refuses`` (409) with the same text, nothing written, the hole card
    still face down; the table's ``expected`` offers none of them."""
    casino(store, {"csp-1": ("caribbean", caribbean_rules(), False)})
    svc = service(store, "csp-1", rng=SeededRandom(5))
    open_round(svc)
    svc.submit(C.PlaceAnte(1, "p1", 100), idempotency_key="a", actor="p1")
    close_betting(svc, C.CloseBetting())
    r = svc.state.round
    assert r.expected_next().phase == "deciding"
    hole = next(c for c, up in zip(r.dealer_cards, r.dealer_face_up, strict=True) if not up)
    absent = next(c for c in DECK if c not in _cards_in(tuple(r.events), set()))
    answers = set()
    for n, command in enumerate(
        [
            C.ReportExposedCard(hole),
            C.ReportExposedCard(absent),
            C.ReportExposedCard(r.box(1).cards[0]),
        ]
    ):
        answer = _submitted(svc, command, f"x{n}")
        assert answer is not None and answer[0] == "tables.mode_refuses"
        answers.add(answer)
    assert len(answers) == 1  # the same refusal whatever the card
    for n, command in enumerate(
        [
            C.ReportMisdeal("the dealer saw the hands"),
            C.DealtToEmptyBox(4, (absent,)),
            C.ShufflerFailure(),
            C.DealCard(absent),
        ]
    ):
        answer = _submitted(svc, command, f"y{n}")
        assert answer is not None and answer[0] == "tables.mode_refuses"
        assert dict(answer[1]) == {"command": repr(type(command).__name__), "mode": "'virtual'"}
    assert not svc.state.round.is_over
    assert None in svc.view(Audience.of_player("p1")).view.dealer_cards  # still face down
    offered = svc.expected()
    assert offered is not None
    assert not {C.ReportExposedCard, C.ReportMisdeal, C.DealtToEmptyBox, C.ShufflerFailure} & set(
        offered.commands
    )
    assert C.Raise in offered.commands and C.Void in offered.commands

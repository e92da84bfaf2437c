"""One contract test suite, run unchanged against both games (issue 8, item 1).

Each game gives an adapter: how to open a round, which cards exist, which command to propose
for what ``expected_next()`` says is due, and — written here from the law, independently of the
games' view code — which cards an audience may see (the hidden-information rule of
docs/rules.md: CSP-6.5, CSP-12, BAC-16). Everything else is the same code for both games:
random rounds are driven through the contract and after every step

* ``check`` agrees with ``apply`` (and never raises, even on junk);
* ``replay(events) == round``, also from events that went through the codec;
* every event's postings sum to zero; once a round is over nothing is left in play;
* no view carries a card its audience may not see.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from macau_tables import codec, ledger, visibility
from macau_tables.baccarat import commands as bac
from macau_tables.baccarat.bets import seat, standing
from macau_tables.baccarat.round import BaccaratRound
from macau_tables.baccarat.rules import WagerKind as BacKind
from macau_tables.cards import DECK, Card
from macau_tables.caribbean import commands as csp
from macau_tables.caribbean.round import CaribbeanRound
from macau_tables.errors import MacauTablesError, RuleViolation
from macau_tables.games import GAMES
from macau_tables.jackpot import Meter
from macau_tables.messages import catalog
from macau_tables.rounds import DEALER, Audience, DueKind, Role, Round
from tests.baccarat.support import SEATED, STANDARD
from tests.caribbean.support import OPENING, SEED, make_rules
from tests.support import bac_visible, cards_in, csp_visible

# -- adapters: what differs between the games ---------------------------------------------


@dataclass
class Adapter:
    name: str
    open: Callable[[random.Random], Any]
    propose: Callable[[Any, random.Random, list[Card]], object]
    deck: Callable[[random.Random], list[Card]]
    visible: Callable[[Any, Audience], set[Card]]
    players: tuple[str, ...]
    other_game_command: object


def _csp_open(rnd: random.Random) -> CaribbeanRound:
    return CaribbeanRound.new(make_rules(), f"c{rnd.randrange(10**6)}", OPENING, config_id="csp")


def _csp_propose(r: CaribbeanRound, rnd: random.Random, deck: list[Card]) -> object:
    due = r.expected_next().due[0]
    if due.kind is DueKind.WAGERS:
        boxes = [b for b in range(1, 8) if r.box(b) is None]
        if r.in_play and (not boxes or rnd.random() < 0.3):
            return csp.CloseBetting()
        if r.in_play and rnd.random() < 0.3:
            b = rnd.choice(r.in_play)
            return csp.PlaceJackpotWager(b.box, b.player)
        box = rnd.choice(boxes or [1])
        return csp.PlaceAnte(box, f"p{box}", 100 * rnd.randint(1, 5))
    if due.kind is DueKind.CARD:
        return csp.DealCard(deck.pop())
    if due.kind is DueKind.DECISION:
        assert isinstance(due.position, int)
        b = r.box(due.position)
        assert b is not None
        choice = rnd.random()
        if choice < 0.6:
            return csp.Raise(b.box, b.player, 2 * b.ante)
        if choice < 0.9:
            return csp.Fold(b.box, b.player)
        return csp.DecisionTimeout(b.box)
    assert due.kind is DueKind.SETTLEMENT
    return csp.Showdown(Meter(SEED + rnd.randrange(10**7), SEED))


def _bac_open(rnd: random.Random) -> BaccaratRound:
    # Live rounds too (cards entered at a console): a card entered out of turn is refused and
    # flagged, and the supervisor reassigns or withdraws it (BAC-10).
    rules = replace(STANDARD, card_holding=rnd.random() < 0.5)
    return BaccaratRound.new(
        rules,
        f"b{rnd.randrange(10**6)}",
        OPENING,
        seated=SEATED,
        config_id="bac",
        live=rnd.random() < 0.5,
    )


_BAC_PEOPLE = [("alice", seat(1)), ("bob", seat(2)), ("carol", seat(3)), ("dave", standing(1))]


def _bac_propose(r: BaccaratRound, rnd: random.Random, deck: list[Card]) -> object:
    due = r.expected_next().due[0]
    if due.kind is DueKind.WAGERS:
        if r.wagers and rnd.random() < 0.25:
            return bac.CloseBetting()
        who, area = rnd.choice(_BAC_PEOPLE)
        kind = rnd.choice([BacKind.BANKER, BacKind.PLAYER, BacKind.TIE, BacKind.BANKER_PAIR])
        return bac.PlaceWager(who, area, kind, 100 * rnd.randint(1, 3))
    if due.kind is DueKind.SUPERVISOR:
        action = rnd.choice([bac.CorrectionAction.REASSIGN, bac.CorrectionAction.WITHDRAW])
        return bac.Correct("sup-1", "card entered out of turn", action)
    if r.live and rnd.random() < 0.1:
        return bac.DealCard(deck.pop())  # out of turn (a reveal or the settlement is due)
    if due.kind is DueKind.CARD:
        return bac.DealCard(deck.pop())
    if due.kind is DueKind.REVEAL:
        step = r.pending_reveal()
        assert step is not None
        return bac.Reveal(step.side, step.part, due.player or DEALER)
    assert due.kind is DueKind.SETTLEMENT
    return bac.Settle(Meter(STANDARD.jackpot_seed + rnd.randrange(10**6), STANDARD.jackpot_seed))


def _deck(decks: int) -> Callable[[random.Random], list[Card]]:
    def make(rnd: random.Random) -> list[Card]:
        cards = list(DECK) * decks
        rnd.shuffle(cards)
        return cards

    return make


ADAPTERS = {
    "caribbean": Adapter(
        "caribbean",
        _csp_open,
        _csp_propose,
        _deck(1),
        csp_visible,
        tuple(f"p{b}" for b in range(1, 8)),
        bac.CloseBetting(),
    ),
    "baccarat": Adapter(
        "baccarat",
        _bac_open,
        _bac_propose,
        _deck(8),
        bac_visible,
        ("alice", "bob", "carol", "dave"),
        csp.CloseBetting(),
    ),
}


@pytest.fixture(params=sorted(ADAPTERS))
def game(request: pytest.FixtureRequest) -> Adapter:
    return ADAPTERS[request.param]


def test_every_game_has_an_adapter_and_satisfies_the_protocol() -> None:
    assert set(GAMES) == set(ADAPTERS)
    for name, plugin in GAMES.items():
        r = ADAPTERS[name].open(random.Random(1))
        assert isinstance(r, Round) and isinstance(r, plugin.round_class)


# -- the suite: the same code for both games ------------------------------------------------


def _audiences(game: Adapter) -> list[Audience]:
    return [
        *(Audience.of_player(p) for p in game.players),
        Audience.dealer(),
        Audience.supervisor(),
        Audience.public(),
    ]


def _resolver(r: Any) -> dict[str, Any]:
    return {r.events[0].config_id: r.rules}


def _play(game: Adapter, seed: int, steps: int = 400) -> Any:
    """Drive one round to its end through the contract, checking the contract at every step."""
    rnd = random.Random(seed)
    r = game.open(rnd)
    deck = game.deck(rnd)
    meter_moves: list[ledger.Posting] = []
    for event in r.events:
        assert ledger.is_balanced(r.postings(event))
    for _ in range(steps):
        if r.is_over:
            break
        cmd = game.propose(r, rnd, deck)
        error = r.check(cmd)
        assert r.can_apply(cmd) is (error is None)
        if error is not None:
            # Refused: a catalogued message, and applying it raises that refusal.
            assert error.key in catalog(), error
            with pytest.raises(MacauTablesError):
                r.apply(cmd)
            continue
        r2, events = r.apply(cmd)
        assert r2.events == (*r.events, *events)
        for event in events:
            posts = r2.postings(event)
            assert ledger.is_balanced(posts), (event, posts)
            meter_moves += posts
        r = r2
    assert r.is_over, f"{game.name} round did not end: {r.expected_next()}"
    # Nothing is left on the layout once a round is over: every stake went somewhere.
    in_play = sum(
        p.amount for e in r.events for p in r.postings(e) if p.account.kind.value == "in_play"
    )
    assert in_play == 0
    return r


@pytest.mark.parametrize("seed", range(25))
def test_random_rounds_keep_the_contract(game: Adapter, seed: int) -> None:
    r = _play(game, seed)
    assert type(r).replay(r.events) == r
    assert r.expected_next().due == () and r.expected_next().commands == ()


@pytest.mark.parametrize("seed", range(12))
def test_codec_round_trip_and_replay_of_decoded_events(game: Adapter, seed: int) -> None:
    r = _play(game, 1000 + seed)
    resolver = _resolver(r)
    decoded = []
    for event in r.events:
        payload = codec.encode(event)
        assert codec.canonical_bytes(codec.decode(payload, rules=resolver)) == (
            codec.canonical_bytes(event)
        )
        back = codec.decode(payload, rules=resolver)
        assert back == event
        decoded.append(back)
    assert type(r).replay(decoded) == r


def _no_leaks(game: Adapter, seed: int) -> int:
    """Play a round checking every audience's view at every step; returns how many times a
    player was shown a card the public was not (their own hand, a held card)."""
    rnd = random.Random(seed)
    r = game.open(rnd)
    deck = game.deck(rnd)
    private = 0
    for _ in range(400):
        public = set(cards_in(codec.encode(r.view(Audience.public()))))
        for audience in _audiences(game):
            shown = set(cards_in(codec.encode(r.view(audience))))
            allowed = game.visible(r, audience)
            assert shown <= allowed, (audience, shown - allowed, r.expected_next())
            private += audience.player is not None and bool(shown - public)
        if r.is_over:
            break
        cmd = game.propose(r, rnd, deck)
        if r.can_apply(cmd):
            r, _ = r.apply(cmd)
    assert r.is_over
    return private


def test_no_view_carries_a_card_its_audience_may_not_see_CSP_12_BAC_16(game: Adapter) -> None:
    private = sum(_no_leaks(game, 5000 + seed) for seed in range(20))
    # The oracle is not vacuous: players were shown cards the public was not (own Caribbean
    # hands; baccarat cards held for the squeeze).
    assert private > 0


def _gate_holds(game: Adapter, seed: int) -> None:
    """The gate (:mod:`macau_tables.visibility`) at every step of a random round: each
    audience's parts make its view; the shared part is the public view and names no player;
    a player's expectation names that player alone, staff's is whole; recall shows a round in
    play as the live view and a closed round whole; no part carries a card the law hides; on
    the wire an audience's part (what its encoded view holds beyond the shared one) laid over
    the shared view gives its view back whole."""
    rnd = random.Random(seed)
    r = game.open(rnd)
    deck = game.deck(rnd)
    for _ in range(400):
        expected = r.expected_next()
        for audience in _audiences(game):
            seen = visibility.parts(r, audience)
            assert seen.view == r.view(audience)
            assert seen.shared.view == r.view(Audience.public())
            assert all(d.player is None for d in seen.shared.expected.due)
            named = {d.player for d in seen.expected.due} - {None}
            if audience.player is not None:
                assert named <= {audience.player}
                assert seen.role is None and seen.personal is not None
            elif audience.role is Role.PUBLIC:
                assert not named and seen.role is None and seen.personal is None
            else:
                assert seen.expected == expected and seen.role is not None
            parts = [seen.shared, seen.role, seen.personal, seen.seat]
            shown = {c for p in parts if p is not None for c in cards_in(codec.encode(p.view))}
            assert shown <= game.visible(r, audience)
            # a player's seat part: what any player without a stake sees (no more: the law's
            # cards for such a player), the same whoever the player is
            assert (seen.seat is not None) == (audience.player is not None)
            if seen.seat is not None:
                assert seen.seat.view == r.view(visibility.SEATED)
                assert set(cards_in(codec.encode(seen.seat.view))) <= game.visible(
                    r, visibility.SEATED
                )
            # On the wire (the table sockets): the shared view encoded once; for a player the
            # seat part laid over it (what the seat view has beyond it); an audience's own part
            # holding only what its view has beyond those — together its view, whole; no part
            # carries a card the law hides from that audience either.
            shared = codec.encode(seen.shared.view)
            own = codec.encode(seen.view)
            base = shared
            if seen.seat is not None:
                seat = codec.encode(seen.seat.view)
                laid = visibility.own_fields(seat, shared)
                base = visibility.merged(shared, laid, visibility.not_own(seat, shared))
                assert base == seat
            part = visibility.own_fields(own, base)
            assert part is not None and set(cards_in(part)) <= game.visible(r, audience)
            assert visibility.merged(base, part, visibility.not_own(own, base)) == own
            if audience.role is Role.PUBLIC:
                assert part == {}
            recalled = visibility.recall_view(r, audience)
            assert (recalled is None) == r.is_over == visibility.is_closed(r)
            assert recalled is None or recalled == r.view(audience)
        if r.is_over:
            break
        cmd = game.propose(r, rnd, deck)
        if r.can_apply(cmd):
            r, _ = r.apply(cmd)
    assert r.is_over


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6))
def test_the_gate_shows_each_audience_its_view_in_parts_CSP_12_BAC_15_BAC_16(seed: int) -> None:
    for name in sorted(ADAPTERS):
        _gate_holds(ADAPTERS[name], seed)


_JUNK: list[object] = [
    None,
    "PlaceAnte",
    "zz",
    42,
    3.5,
    object(),
    (),
    {"type": "caribbean.PlaceAnte"},
    csp.DealCard("zz"),
    bac.DealCard("zz"),
    csp.PlaceAnte(True, "p1", 100),  # type: ignore[arg-type]
    bac.PlaceWager(None, None, None, None),  # type: ignore[arg-type]
    csp.Showdown(None),  # type: ignore[arg-type]
    bac.Settle("meter"),  # type: ignore[arg-type]
]


class _Hostile:
    """A command-like object whose every attribute access raises."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"no {name}")


@pytest.mark.parametrize("seed", range(6))
def test_check_and_can_apply_never_raise_on_junk(game: Adapter, seed: int) -> None:
    rnd = random.Random(seed)
    r = game.open(rnd)
    deck = game.deck(rnd)
    for _ in range(400):
        for junk in [*_JUNK, _Hostile(), game.other_game_command]:
            error = r.check(junk)
            if junk is game.other_game_command or junk is None or isinstance(junk, str | int):
                assert isinstance(error, MacauTablesError)
            assert r.can_apply(junk) is (error is None)
        if r.is_over:
            break
        cmd = game.propose(r, rnd, deck)
        if r.can_apply(cmd):
            r, _ = r.apply(cmd)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_check_never_raises_on_arbitrary_values(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(ADAPTERS)))
    game = ADAPTERS[name]
    r = game.open(random.Random(data.draw(st.integers(0, 10**6))))
    value = data.draw(
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=4) | st.floats(),
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner),
            max_leaves=6,
        )
    )
    error = r.check(value)
    assert isinstance(error, MacauTablesError)
    assert r.can_apply(value) is False


def _tampered(role: object, player: object) -> Audience:
    """An Audience whose fields were changed behind its back (its checks bypassed)."""
    audience = Audience.public()
    object.__setattr__(audience, "role", role)
    object.__setattr__(audience, "player", player)
    return audience


class _SubAudience(Audience):
    """A subclass is not the audience type."""


def test_view_refuses_what_is_not_an_audience(game: Adapter) -> None:
    r = game.open(random.Random(3))
    for junk in (None, "public", 7, Audience):
        with pytest.raises(MacauTablesError) as exc:
            r.view(junk)
        assert exc.value.key in catalog()


def test_view_refuses_an_audience_whose_fields_were_tampered_with(game: Adapter) -> None:
    """Old behaviour: an Audience built without its checks (``object.__new__``) or changed
    behind its back (``object.__setattr__``) was served — a role ``"root"`` got the dealer's
    table view in Caribbean Stud, a public audience with a player id a player's view; one with
    no fields at all raised ``AttributeError``."""
    r = game.open(random.Random(3))
    for junk in (
        object.__new__(Audience),
        _tampered("root", None),
        _tampered("dealer", None),  # the role's text, not the Role
        _tampered(Role.PLAYER, None),
        _tampered(Role.PLAYER, "   "),
        _tampered(Role.PUBLIC, "alice"),
        _tampered(Role.SUPERVISOR, 7),
        object.__new__(_SubAudience),
    ):
        with pytest.raises(RuleViolation) as exc:
            r.view(junk)
        assert (exc.value.rule, exc.value.key) == ("VIEW", "core.bad_audience")
        assert exc.value.text("zh-Hant")


def test_new_has_the_same_shape_in_both_games(game: Adapter) -> None:
    cls = GAMES[game.name].round_class
    r = game.open(random.Random(9))
    again = cls.new(r.rules, r.round_id, r.opening_date, carried=(), config_id="x")  # type: ignore[attr-defined]
    assert again.round_id == r.round_id and again.events[0].config_id == "x"
    assert again.carried_out() == ()


def test_replay_refuses_what_is_not_the_game_s_log(game: Adapter) -> None:
    """``replay`` of a log that does not start with the game's opening event, or that holds
    something that is not one of its events, is refused with a catalogued key (as every other
    refusal is), never a bare ``ValueError`` / ``TypeError``."""
    r = _play(game, 77)
    cls = type(r)
    other = ADAPTERS["caribbean" if game.name == "baccarat" else "baccarat"].open(random.Random(1))
    for log in ([], ["RoundOpened"], [None], list(r.events[1:]), [r.events[0], "x"]):
        with pytest.raises(MacauTablesError) as exc:
            cls.replay(log)
        assert exc.value.key in catalog() and exc.value.text("zh-Hant"), exc.value
    with pytest.raises(MacauTablesError):
        cls.replay([r.events[0], *other.events])


def test_postings_refuse_what_is_not_one_of_the_game_s_events(game: Adapter) -> None:
    """``postings`` of something that is not one of the round's events — above all an event of
    the other game — is refused, in both games alike. Old behaviour: baccarat answered ``()``,
    so a Caribbean ``AntePlaced`` given to a baccarat round silently moved no money."""
    r = _play(game, 5)
    other = _play(ADAPTERS["caribbean" if game.name == "baccarat" else "baccarat"], 5)
    for junk in ("not an event", None, 3, *other.events):
        with pytest.raises(MacauTablesError) as exc:
            r.postings(junk)
        assert exc.value.key in catalog() and exc.value.text("zh-Hant")

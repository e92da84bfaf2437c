"""The baccarat shoe procedure as a pure state machine (BAC-1 … BAC-3, BAC-7.2, BAC-8).

A shoe is a value (:class:`ShoeState`) changed only by events: :func:`apply` turns a command
into events (or refuses it with a :class:`~macau_tables.errors.RuleViolation`, nothing changed)
and :func:`replay` folds a shoe's events back into the identical state.

The shoe does not hold the cards. It counts them: how many left the shoe and, for every one of
the 52 faces, how many copies were seen, so it can refuse a card the decks cannot hold
(:meth:`ShoeState.available` is what a round checks its cards against). Where the cards come
from is abstract (:class:`CardSource`): a committed CSPRNG shuffle (:func:`shuffle_shoe`,
virtual mode) or physical cards typed or read at the dealer's console (live mode) go through the
same commands.

Procedure (commands in order):

1. :func:`open_table_shoe` (approvals checked, BAC-19) or :func:`open_shoe` — a new shoe;
   virtual mode publishes the shuffle's commitment.
2. :class:`Cut` — a player or the dealer cuts (who and where are recorded) and the cut card is
   placed with ``cut_card_behind`` (≥ the table's setting, ≥ 12) cards behind it (BAC-2.1).
3. :class:`Burn` — the start-of-shoe burn by the table's rule (BAC-2.1; 83/2011).
4. Rounds: :class:`StartRound` (``demo=True`` for up to the table's demonstration rounds at the
   start, BAC-2.2) … :class:`EndRound` with the cards the round took. Between rounds the house
   may :class:`Burn` (BAC-8, when the table allows it) or :class:`ChangeShoe` (BAC-3.2).
5. When the cut card comes out that round is the last, or one more round is dealt (BAC-3.1);
   then the shoe is finished and no round starts from it (``shoe.finished``, BAC-3.1): the
   shoe is changed. One rule for both modes: the count of cards out of the shoe reaching the
   cut card's position (``size - cut_card_behind``) brings it out, virtual or live (a live
   dealer who never reports it cannot deal on past it); a live dealer may report it earlier
   with :class:`CutCardOut`, taken at once when it is within one round's cards
   (:data:`CUT_CARD_TOLERANCE`, 6) of the count's position, else refused
   (``shoe.cut_card_out_of_place``): only a supervisor's :class:`ConfirmCutCardOut` (with a
   reason, recorded as :class:`CutCardConfirmed`) brings it out there.

Automatic shuffling-and-dealing machine (BAC-2.3, BAC-7.2): no cut, no burn; after every round
the cards go back into the machine, so every round is dealt from the full set (the counts reset
after each :class:`EndRound`; virtual mode shuffles and commits the full set for every round).

Bad input: a command whose card is unreadable (``"zz"``, ``None`` where a card must be
shown, a number) is refused with ``RuleViolation`` BAC-1; a bad enum or field value with the id
of the rule it belongs to (a cutter ``"sideways"``: BAC-2.1); something that is not a shoe
command at all, a command whose fields raise when read, or a state that is not a shoe: BAC-2.
Never a ``TypeError``. A card may be given as a :class:`Card` or as its
text (``"As"``); the events always hold :class:`Card` values.

The commands live in :mod:`.shoe_commands`, the events in :mod:`.shoe_events`, the card sources
in :mod:`.shoe_sources`; this module re-exports them all and lists every storable type of the
procedure in :data:`SHOE_CODEC_TYPES`.

Decisions (documented):

* Burn by the first card (BAC-2.1): the first card is shown and burned, then as many more cards
  as its value (A=1, 2..9 face value, 10/J/Q/K = 10): ``1 + value`` cards in all.
* Burned cards may be unidentified (``None``) in live mode: they count as cards out of the shoe
  but not against any face; the first card of the first-card rule must be identified.
* The cut (virtual mode) rotates the committed order: the card dealt at position ``i`` is
  ``order[(cut_position + i) % size]``; the commitment is over the uncut order and the cut is
  recorded, so the dealt order stays verifiable.
* The cut card comes out when a card is drawn at position ``size - cut_card_behind``; if that
  happens between rounds (e.g. a per-round burn reaches it, or a round ends just before it) the
  next round is "the round in which the cut card came out".
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from datetime import date
from functools import reduce
from typing import Final

from ..errors import MacauTablesError, RuleViolation
from ..rng import ShoeCommitment
from ..rounds import replacer
from .rules import BaccaratRules, LastRoundRule, ShoeSettings
from .shoe_checks import burn_value, check_cards, check_start_burn, read_cards, shown
from .shoe_commands import (
    Burn,
    ChangeShoe,
    ConfirmCutCardOut,
    Cut,
    CutCardOut,
    Cutter,
    EndRound,
    ShoeCommand,
    StartRound,
)
from .shoe_events import (
    CardsBurned,
    CutCardCameOut,
    CutCardConfirmed,
    RoundEnded,
    RoundStarted,
    ShoeCut,
    ShoeEvent,
    ShoeFinished,
    ShoeOpened,
)
from .shoe_sources import CardSource, SequenceSource, VirtualOrder, shuffle_shoe
from .shoe_state import ShoePhase, ShoeState, count_seen

__all__ = [
    "CUT_CARD_TOLERANCE",
    "SHOE_CODEC_TYPES",
    "Burn",
    "CardSource",
    "CardsBurned",
    "ChangeShoe",
    "ConfirmCutCardOut",
    "Cut",
    "CutCardCameOut",
    "CutCardConfirmed",
    "CutCardOut",
    "Cutter",
    "EndRound",
    "RoundEnded",
    "RoundStarted",
    "SequenceSource",
    "ShoeCommand",
    "ShoeCut",
    "ShoeEvent",
    "ShoeFinished",
    "ShoeOpened",
    "ShoePhase",
    "ShoeState",
    "StartRound",
    "VirtualOrder",
    "apply",
    "burn_value",
    "can_apply",
    "check",
    "finished_refusal",
    "open_shoe",
    "open_table_shoe",
    "replay",
    "shuffle_shoe",
]


CUT_CARD_TOLERANCE: Final = 6
"""BAC-3.1: how far (in cards, one round's most: BAC-9) a live dealer's :class:`CutCardOut`
may be from where the count puts the cut card and still be taken at once; farther, a
supervisor confirms it (:class:`ConfirmCutCardOut`)."""


def open_shoe(
    shoe_id: str,
    settings: ShoeSettings,
    *,
    commitment: ShoeCommitment | None = None,
    live: bool = False,
    approval_references: tuple[str, ...] = (),
) -> tuple[ShoeState, list[ShoeEvent]]:
    """Open a new shoe. Virtual mode (``live=False``) requires the shuffle's ``commitment``
    (published before the first card); live mode has none (physical cards).

    Returns the state and its first event. Refuses (``RuleViolation`` BAC-2.1) a virtual shoe
    without a commitment, a shoe id that is not a non-empty text, settings that are not
    :class:`ShoeSettings`, ``live`` that is not a bool or a commitment of the wrong type (BAC-2).
    :func:`open_table_shoe` also checks the table's approvals.
    """
    if not isinstance(shoe_id, str) or not shoe_id.strip():
        raise RuleViolation("BAC-2", "shoe.bad_shoe_id", shoe_id=shown(shoe_id))
    if not isinstance(settings, ShoeSettings):
        raise RuleViolation("BAC-2", "shoe.bad_settings", settings=shown(settings))
    if not isinstance(live, bool):
        raise RuleViolation("BAC-2", "shoe.live_not_bool", live=shown(live))
    if commitment is not None and not isinstance(commitment, ShoeCommitment):
        raise RuleViolation("BAC-2.1", "shoe.bad_commitment", commitment=shown(commitment))
    if not live and commitment is None:
        raise RuleViolation("BAC-2.1", "shoe.virtual_needs_commitment")
    refs = tuple(approval_references)
    digest = commitment.digest if commitment else None
    event = ShoeOpened(shoe_id, settings, live, digest, refs)
    return _opened(event), [event]


def open_table_shoe(
    rules: BaccaratRules,
    shoe_id: str,
    opening_date: date,
    *,
    commitment: ShoeCommitment | None = None,
    live: bool = False,
    holidays: Collection[date] = (),
) -> tuple[ShoeState, list[ShoeEvent]]:
    """:func:`open_shoe` with ``rules.shoe`` after checking the table's approvals on
    ``opening_date`` (BAC-19: the shoe options of BAC-2, BAC-3 and BAC-7 among them).

    Refuses (``RuleViolation`` BAC-19 / BAC-17) an option without a valid, effective approval,
    (BAC-2) rules that are not :class:`BaccaratRules`, and what :func:`open_shoe` refuses.
    """
    if not isinstance(rules, BaccaratRules):
        raise RuleViolation("BAC-2", "shoe.bad_rules", rules=shown(rules))
    used = rules.check_approvals(opening_date, holidays)
    return open_shoe(
        shoe_id,
        rules.shoe,
        commitment=commitment,
        live=live,
        approval_references=tuple(a.reference for a in used),
    )


def _opened(e: ShoeOpened) -> ShoeState:
    phase = ShoePhase.READY if e.settings.machine else ShoePhase.AWAITING_CUT
    return ShoeState(e.shoe_id, e.settings, e.live, e.commitment, phase)


def _cut_card_events(state: ShoeState, taken: int, in_round: int) -> list[ShoeEvent]:
    """A CutCardCameOut when positions ``out .. out+taken-1`` reach the cut card."""
    at = state.cut_card_at
    if at is None or state.last_round is not None:  # virtual and live alike
        return []
    if not state.out <= at < state.out + taken:
        return []
    return [_cut_event(state, in_round)]


def _cut_event(state: ShoeState, in_round: int) -> CutCardCameOut:
    extra = 1 if state.settings.last_round is LastRoundRule.ONE_MORE else 0
    return CutCardCameOut(in_round, in_round + extra)


# -- the procedure ----------------------------------------------------------------------------


def apply(
    state: ShoeState, cmd: ShoeCommand, *, taken: int = 0
) -> tuple[ShoeState, list[ShoeEvent]]:
    """Apply ``cmd`` to ``state``: returns the new state and the events it produced.
    ``taken``: the cards the round in progress has taken from the shoe so far (the table's
    count: the shoe counts them at :class:`EndRound`), where a :class:`CutCardOut` is placed.

    Refuses (``RuleViolation`` naming the rule, nothing changed): a command out of order
    (BAC-2.1, BAC-3.1: e.g. a round or a burn before the cut, or a round after the last one); a
    cut or a burn with the automatic machine (BAC-2.3); a cut at
    an impossible position or with fewer than the required cards behind the cut card (BAC-2.1);
    a burn of the wrong number of cards for the table's rule (BAC-2.1), a per-round burn the
    table does not allow (BAC-8); a demonstration round beyond the allowed ones or after a real
    round (BAC-2.2); cards the shoe cannot hold (more copies of a face than the decks hold, or
    more cards than are left, BAC-1); a round that dealt more than six cards (BAC-9); a change
    of shoe in the middle of a round (BAC-3.2); a round once the shoe is finished, and a live
    :class:`CutCardOut` more than :data:`CUT_CARD_TOLERANCE` cards from where the count puts
    the cut card (BAC-3.1: a supervisor's :class:`ConfirmCutCardOut` with a reason instead).
    Bad input: an unreadable card (BAC-1), a bad field value (the rule of that field), and
    anything that is not a shoe command, a command whose fields raise when read, or a
    ``state`` that is not a :class:`ShoeState` (BAC-2).
    """
    events = _decide_safely(state, cmd, taken)
    return reduce(_evolve, events, state), events


def check(state: ShoeState, cmd: object, *, taken: int = 0) -> MacauTablesError | None:
    """The refusal :func:`apply` would raise for ``cmd``, or ``None`` when it would accept it.
    Never raises, whatever ``state`` and ``cmd`` are."""
    try:
        _decide_safely(state, cmd, taken)
    except MacauTablesError as exc:
        return exc
    return None


def can_apply(state: ShoeState, cmd: object, *, taken: int = 0) -> bool:
    """True when :func:`apply` would accept ``cmd``. Never raises."""
    return check(state, cmd, taken=taken) is None


def replay(events: Iterable[ShoeEvent]) -> ShoeState:
    """The shoe state that ``events`` (starting with :class:`ShoeOpened`) describe.

    Refuses (``RuleViolation`` BAC-2) events that do not start with :class:`ShoeOpened`, and
    anything among them that is not a shoe event.
    """
    it = iter(events)
    first = next(it, None)
    if not isinstance(first, ShoeOpened):
        raise RuleViolation("BAC-2", "shoe.replay_needs_opened", got=shown(first))
    return reduce(_evolve, it, _opened(first))


def _decide_safely(state: ShoeState, cmd: object, taken: object) -> list[ShoeEvent]:
    """:func:`_decide`, refusing (BAC-2) a ``state`` that is not a :class:`ShoeState` and a
    command whose fields raise when they are read (a text whose ``strip`` raises, a list that
    cannot be iterated): the field's own exception never escapes."""
    if not isinstance(state, ShoeState):
        raise RuleViolation("BAC-2", "shoe.not_a_shoe", state=shown(state))
    if isinstance(taken, bool) or not isinstance(taken, int) or taken < 0:
        raise RuleViolation("BAC-2", "shoe.bad_taken", got=shown(taken))
    try:
        return _decide(state, cmd, taken)
    except MacauTablesError:
        raise
    except Exception as exc:
        raise RuleViolation("BAC-2", "shoe.unreadable_command", command=shown(cmd)) from exc


def _decide(state: ShoeState, cmd: object, taken: int) -> list[ShoeEvent]:
    if state.phase is ShoePhase.FINISHED:
        raise finished_refusal(state)
    if isinstance(cmd, Cut):
        return _decide_cut(state, cmd)
    if isinstance(cmd, Burn):
        return _decide_burn(state, cmd)
    if isinstance(cmd, StartRound):
        return _decide_start(state, cmd)
    if isinstance(cmd, EndRound):
        return _decide_end(state, cmd)
    if isinstance(cmd, CutCardOut | ConfirmCutCardOut):
        return _decide_cut_card_out(state, cmd, taken)
    if isinstance(cmd, ChangeShoe):
        if state.phase is ShoePhase.IN_ROUND:
            raise RuleViolation("BAC-3.2", "shoe.change_during_round")
        if not isinstance(cmd.reason, str) or not cmd.reason.strip():
            raise RuleViolation("BAC-3.2", "shoe.change_reason_missing")
        if not isinstance(cmd.damaged, bool):
            raise RuleViolation("BAC-3.1", "shoe.damaged_not_bool", damaged=shown(cmd.damaged))
        return [ShoeFinished(cmd.reason, cmd.damaged)]
    raise RuleViolation("BAC-2", "shoe.not_a_command", command=shown(cmd))


def finished_refusal(state: ShoeState) -> RuleViolation:
    """BAC-3.1: the refusal of any command (a round above all) once the shoe is finished — its
    last round after the cut card is over, or it was changed; the message says what to do:
    change the shoe (a new one, cut and burned)."""
    return RuleViolation("BAC-3.1", "shoe.finished", shoe=state.shoe_id)


def _decide_cut_card_out(
    state: ShoeState, cmd: CutCardOut | ConfirmCutCardOut, taken: int
) -> list[ShoeEvent]:
    """BAC-3.1, live: the dealer's report within :data:`CUT_CARD_TOLERANCE` cards of the count,
    or a supervisor's confirmation wherever it is."""
    if not state.live:
        raise RuleViolation("BAC-3.1", "shoe.virtual_cut_card_known")
    at = state.cut_card_at
    if at is None or state.cut_card_out:
        raise RuleViolation("BAC-3.1", "shoe.cut_card_not_in_play")
    if state.phase not in (ShoePhase.READY, ShoePhase.IN_ROUND):
        raise RuleViolation("BAC-3.1", "shoe.cut_card_not_in_play")
    in_round = state.phase is ShoePhase.IN_ROUND
    out = state.out + (taken if in_round else 0)
    event = _cut_event(state, state.rounds if in_round else state.rounds + 1)
    if isinstance(cmd, ConfirmCutCardOut):
        if not isinstance(cmd.supervisor, str) or not cmd.supervisor.strip():
            raise RuleViolation("BAC-3.1", "shoe.confirm_supervisor_missing")
        if not isinstance(cmd.reason, str) or not cmd.reason.strip():
            raise RuleViolation("BAC-3.1", "shoe.confirm_reason_missing")
        return [CutCardConfirmed(cmd.supervisor, cmd.reason, out, at), event]
    if abs(at - out) > CUT_CARD_TOLERANCE:
        raise RuleViolation(
            "BAC-3.1",
            "shoe.cut_card_out_of_place",
            out=out,
            counted=at,
            gap=abs(at - out),
            tolerance=CUT_CARD_TOLERANCE,
        )
    return [event]


def _decide_cut(state: ShoeState, cmd: Cut) -> list[ShoeEvent]:
    s = state.settings
    if s.machine:
        raise RuleViolation("BAC-2.3", "shoe.machine_no_cut")
    if state.phase is not ShoePhase.AWAITING_CUT:
        raise RuleViolation("BAC-2.1", "shoe.already_cut")
    if not isinstance(cmd.cutter_id, str) or not cmd.cutter_id.strip():
        raise RuleViolation("BAC-2.1", "shoe.cutter_id_missing")
    if isinstance(cmd.position, bool) or not isinstance(cmd.position, int):
        raise RuleViolation("BAC-2.1", "shoe.cut_position_not_number", got=shown(cmd.position))
    if not 1 <= cmd.position < state.size:
        raise RuleViolation("BAC-2.1", "shoe.cut_position_range", last=state.size - 1)
    behind = s.cut_card_behind if cmd.cut_card_behind is None else cmd.cut_card_behind
    if isinstance(behind, bool) or not isinstance(behind, int):
        raise RuleViolation("BAC-2.1", "shoe.cut_card_behind_not_number", got=shown(behind))
    if not s.cut_card_behind <= behind <= state.size - 60:
        raise RuleViolation(
            "BAC-2.1",
            "shoe.cut_card_behind_range",
            minimum=s.cut_card_behind,
            maximum=state.size - 60,
            got=behind,
        )
    if not isinstance(cmd.cutter, str) or cmd.cutter not in {c.value for c in Cutter}:
        raise RuleViolation("BAC-2.1", "shoe.bad_cutter", cutter=shown(cmd.cutter))
    return [ShoeCut(Cutter(cmd.cutter), cmd.cutter_id, cmd.position, behind)]


def _decide_burn(state: ShoeState, cmd: Burn) -> list[ShoeEvent]:
    s = state.settings
    if s.machine:
        raise RuleViolation("BAC-2.3", "shoe.machine_no_burn")
    if state.phase is ShoePhase.AWAITING_CUT:
        raise RuleViolation("BAC-2.1", "shoe.burn_before_cut")
    if state.phase is ShoePhase.IN_ROUND:
        raise RuleViolation("BAC-8", "shoe.burn_during_round")
    cards = read_cards(cmd.cards, "cards", unidentified=True)
    if state.phase is ShoePhase.AWAITING_BURN:
        check_start_burn(s, cards)
        check_cards(state, cards, burn=True)
        return [CardsBurned(cards, True), *_cut_card_events(state, len(cards), 1)]
    if not s.per_round_burn:
        raise RuleViolation("BAC-8", "shoe.no_per_round_burn")
    if not cards:
        raise RuleViolation("BAC-8", "shoe.burn_empty")
    check_cards(state, cards, burn=True)
    return [CardsBurned(cards, False), *_cut_card_events(state, len(cards), state.rounds + 1)]


def _decide_start(state: ShoeState, cmd: StartRound) -> list[ShoeEvent]:
    s = state.settings
    if state.phase is ShoePhase.AWAITING_CUT:
        raise RuleViolation("BAC-2.1", "shoe.round_before_cut")
    if state.phase is ShoePhase.AWAITING_BURN:
        raise RuleViolation("BAC-2.1", "shoe.round_before_burn")
    if state.phase is ShoePhase.IN_ROUND:
        raise RuleViolation("BAC-2.1", "shoe.round_in_progress")
    if not isinstance(cmd.round_id, str) or not cmd.round_id.strip():
        raise RuleViolation("BAC-7", "shoe.bad_round_id", round_id=shown(cmd.round_id))
    if not isinstance(cmd.demo, bool):
        raise RuleViolation("BAC-2.2", "shoe.demo_not_bool", demo=shown(cmd.demo))
    if cmd.commitment is not None and not isinstance(cmd.commitment, ShoeCommitment):
        raise RuleViolation("BAC-7.2", "shoe.bad_commitment", commitment=shown(cmd.commitment))
    if cmd.demo:
        if state.demo_rounds >= s.demo_rounds:
            raise RuleViolation("BAC-2.2", "shoe.too_many_demo_rounds", allowed=s.demo_rounds)
        if state.rounds > state.demo_rounds:
            raise RuleViolation("BAC-2.2", "shoe.demo_after_real")
    if s.machine and not state.live and cmd.commitment is None:
        raise RuleViolation("BAC-7.2", "shoe.machine_round_needs_commitment")
    digest = cmd.commitment.digest if cmd.commitment is not None else None
    return [RoundStarted(cmd.round_id, state.rounds + 1, cmd.demo, digest)]


def _decide_end(state: ShoeState, cmd: EndRound) -> list[ShoeEvent]:
    if state.phase is not ShoePhase.IN_ROUND or state.current_round is None:
        raise RuleViolation("BAC-7", "shoe.no_round_in_progress")
    dealt = tuple(c for c in read_cards(cmd.cards, "cards", unidentified=False) if c is not None)
    if len(dealt) > 6:  # BAC-9: two cards a side and at most one drawn card each
        raise RuleViolation("BAC-9", "shoe.round_too_many", count=len(dealt))
    discarded = read_cards(cmd.discarded, "discarded", unidentified=True)
    taken = (*dealt, *discarded)
    check_cards(state, taken, burn=False)
    events: list[ShoeEvent] = [RoundEnded(state.current_round, dealt, discarded)]
    events += _cut_card_events(state, len(taken), state.rounds)
    last = state.last_round
    for e in events:
        if isinstance(e, CutCardCameOut):
            last = e.last_round
    if last is not None and state.rounds >= last:
        events.append(ShoeFinished("the cut card's last round is over (BAC-3.1)", False))
    return events


_shoe = replacer(ShoeState)  # a new state per event: dataclasses.replace costs more here


def _evolve(state: ShoeState, e: ShoeEvent) -> ShoeState:
    if isinstance(e, ShoeCut):
        return _shoe(
            state,
            cut=e,
            cut_card_at=state.size - e.cut_card_behind,
            phase=ShoePhase.AWAITING_BURN,
        )
    if isinstance(e, CardsBurned):
        return _shoe(
            state,
            out=state.out + len(e.cards),
            seen=count_seen(state.seen, e.cards),
            phase=ShoePhase.READY,
        )
    if isinstance(e, RoundStarted):
        return _shoe(
            state,
            rounds=e.number,
            demo_rounds=state.demo_rounds + (1 if e.demo else 0),
            current_round=e.round_id,
            phase=ShoePhase.IN_ROUND,
        )
    if isinstance(e, RoundEnded):
        if state.settings.machine:
            # BAC-7.2: the cards go back into the machine; the next round has the full set.
            return _shoe(state, current_round=None, phase=ShoePhase.READY, out=0, seen=(0,) * 52)
        return _shoe(
            state,
            out=state.out + len(e.cards) + len(e.discarded),
            seen=count_seen(state.seen, (*e.cards, *e.discarded)),
            current_round=None,
            phase=ShoePhase.READY,
        )
    if isinstance(e, CutCardCameOut):
        return _shoe(state, last_round=e.last_round)
    if isinstance(e, CutCardConfirmed):
        return state  # the record of who confirmed; the CutCardCameOut after it counts
    if isinstance(e, ShoeFinished):
        return _shoe(state, finished=e, phase=ShoePhase.FINISHED)
    if isinstance(e, ShoeOpened):
        return _opened(e)
    raise RuleViolation("BAC-2", "shoe.not_an_event", event=shown(e))


SHOE_CODEC_TYPES: tuple[type, ...] = (
    # commands
    Cut,
    Burn,
    StartRound,
    EndRound,
    CutCardOut,
    ConfirmCutCardOut,
    ChangeShoe,
    # events
    ShoeOpened,
    ShoeCut,
    CardsBurned,
    RoundStarted,
    RoundEnded,
    CutCardConfirmed,
    CutCardCameOut,
    ShoeFinished,
    # values (the state a service may snapshot; the sources of virtual mode; enums by value)
    ShoeState,
    SequenceSource,
    VirtualOrder,
    Cutter,
    ShoePhase,
)
"""Every storable type of the shoe procedure: its commands, events and values (the enums
:class:`Cutter` and :class:`ShoePhase` are stored by value). :class:`ShoeSettings` is listed in
:data:`~macau_tables.baccarat.rules.RULES_CODEC_TYPES`; the commitments are core types. A
:class:`VirtualOrder` holds the hidden order and salt: store it only where the shoe order may be
kept (never in a view or a public log)."""

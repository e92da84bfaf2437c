"""The round contract both games satisfy: one shape for the table service, server and pages.

A round is an immutable value. Every game's round class (``CaribbeanRound``,
``BaccaratRound``) satisfies :class:`Round`:

* ``check(cmd)`` → the error the command would raise, or ``None``; ``can_apply(cmd)`` → bool.
  Neither ever raises, whatever they are given (a string, ``None``, another game's command).
* ``apply(cmd)`` → ``(new_round, events)`` or a :class:`~macau_tables.errors.MacauTablesError`
  (the round it was called on is unchanged: it is immutable).
* ``replay(events)`` rebuilds the round from its events alone: ``replay(r.events) == r``.
* ``expected_next()`` → :class:`Expected`: the phase, who or what is due, the command types that
  can be accepted now.
* ``view(audience)`` → what that :class:`Audience` may see (the hidden-information rule).
* ``postings(event)`` → the balanced ledger postings the event moves
  (:mod:`macau_tables.ledger`); ``()`` for an event that moves no money.
* ``carried_out()`` → what the next round of the table takes over (``new(..., carried=...)``).

Shared vocabulary: :data:`DEALER` (the dealer as a position or an actor), :class:`Outcome`,
:class:`WagerResult` (one settled wager, the same shape in both games).

Who issues a command: every command class of both games, of the baccarat shoe procedure and of
the table service declares ``ISSUER`` (an :class:`Issuer`) and ``ACTOR_FIELD`` (the name of its
field naming the acting person, or ``None``); :func:`issuer_of` reads them, :func:`acting`
applies them to one command (a player's field holding :data:`DEALER` is the dealer's act). The
server authorises commands from these alone, never by game.

Which tables accept a command: every command class declares ``MODES`` (the
:class:`TableMode` s — virtual, live — whose tables accept it); :func:`modes_of` reads it,
:func:`accepts` applies it and :meth:`Expected.in_mode` keeps only what a mode accepts. A
command that describes a physical act (a card entered, exposed or dealt to an empty box, a
misdeal, a shuffler's failure, a physical shoe cut, burned or opened, a correction of a
physical card) exists only at a live table (:data:`LIVE_ONLY`); a virtual table deals and
handles its shoe itself. The table service refuses a command its table's mode does not accept
before the command reaches the round, whatever the cards (Common rules "Hidden information").

Which commands a table's round cycle issues itself: a command class may declare ``CYCLE`` (a
:class:`CycleStep`: opening a round, closing its betting); :func:`cycle_step_of` reads it. At a
virtual table the cycle owns these steps (:mod:`macau_tables.tables.cycle`); at a live table
the dealer issues them.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import date
from enum import Enum, StrEnum
from typing import Any, Final, Protocol, Self, TypeVar, runtime_checkable

from .errors import ConfigError, MacauTablesError, RuleViolation
from .ledger import Posting

__all__ = [
    "DEALER",
    "EVERY_MODE",
    "LIVE_ONLY",
    "Audience",
    "CycleStep",
    "Dealer",
    "Due",
    "DueKind",
    "Expected",
    "Issuer",
    "Outcome",
    "Role",
    "Round",
    "TableMode",
    "WagerResult",
    "accepts",
    "acting",
    "actor_field_of",
    "approvals_in_use",
    "cycle_step_of",
    "is_command",
    "issuer_of",
    "modes_of",
    "replacer",
    "slot_builder",
]

_T = TypeVar("_T")


class Dealer(Enum):
    """The dealer, as a card's recipient (Caribbean Stud) or as who reveals cards (baccarat)."""

    DEALER = "dealer"

    def __str__(self) -> str:
        return "dealer"


DEALER: Final = Dealer.DEALER
"""The one dealer marker of both games (a position beside boxes 1..7, an actor beside players)."""


class Outcome(StrEnum):
    """How a wager ended, in both games."""

    WON = "won"
    LOST = "lost"
    RETURNED = "returned"
    """Handed back whole: a void round, a withdrawn carried wager, a push."""
    CARRIED_OVER = "carried_over"
    """Neither won nor lost: stays the player's stake for the next round (BAC-12 tie,
    CSP-11.1 jackpot wager of a void round)."""


_AMOUNTS: Final = (
    "stake",
    "paid",
    "commission",
    "house",
    "meter",
    "carried",
    "award_from_meter",
    "award_from_house",
)
"""The money fields of a :class:`WagerResult`, in the order they are checked."""


@dataclass(frozen=True, slots=True)
class WagerResult:
    """One wager as settled (the same shape in both games).

    ``player`` staked ``stake`` on ``kind`` (the game's wager kind, e.g. ``"ante"``,
    ``"banker"``) at ``spot`` (where it lay: ``"box 3"``, ``"seat 2"``, ``"standing 1"``).
    ``carried_in``: the stake came from an earlier round (it was not taken from the wallet in
    this one). The money, all ``int`` minor units:

    * ``paid`` — handed to the player (stake back included, jackpot award included);
    * ``commission`` — taken on a banker win (BAC-18);
    * ``house`` — the table bank's net on the wager (+ it wins, − it pays);
    * ``meter`` — the contribution credited to the jackpot meter (CSP-10, BAC-17);
    * ``carried`` — what stays the player's stake for the next round;
    * ``award_from_meter`` / ``award_from_house`` — who funded a jackpot award in ``paid``.

    Identity (checked on construction, ``ConfigError`` — a ``ValueError`` — otherwise)::

        stake + award_from_meter + award_from_house
            == paid + commission + house + meter + carried
    """

    player: str
    spot: str
    kind: str
    stake: int
    outcome: Outcome
    paid: int = 0
    commission: int = 0
    house: int = 0
    meter: int = 0
    carried: int = 0
    award_from_meter: int = 0
    award_from_house: int = 0
    carried_in: bool = False

    def __post_init__(self) -> None:
        amounts = (
            self.stake,
            self.paid,
            self.commission,
            self.house,
            self.meter,
            self.carried,
            self.award_from_meter,
            self.award_from_house,
        )
        if set(map(type, amounts)) != {int}:  # not all plain ints: name the first that is not
            for name, value in zip(_AMOUNTS, amounts, strict=True):
                if isinstance(value, bool) or not isinstance(value, int):
                    raise ConfigError("core.wager_result_not_int", name=name, value=repr(value))
        stake, paid, commission, house, meter, carried, from_meter, from_house = amounts
        left = stake + from_meter + from_house
        right = paid + commission + house + meter + carried
        if left != right:
            raise ConfigError(
                "core.wager_result_unbalanced", player=repr(self.player), kind=self.kind
            )

    @property
    def award(self) -> int:
        """The jackpot award in ``paid`` (0 when none)."""
        return self.award_from_meter + self.award_from_house

    @property
    def net(self) -> int:
        """The player's gain (+) or loss (−) on the wager; a carried stake is still theirs."""
        return self.paid + self.carried - self.stake


class Role(StrEnum):
    """Who is looking at a round."""

    PLAYER = "player"
    DEALER = "dealer"
    SUPERVISOR = "supervisor"
    PUBLIC = "public"
    """The jackpot display, the lobby, anyone not at the table."""


class Issuer(StrEnum):
    """Who may issue a command at a table (declared on each command class as ``ISSUER``)."""

    PLAYER = "player"
    """A player, for themselves only (the command's ``ACTOR_FIELD`` names them)."""
    DEALER = "dealer"
    """The dealer's console: cards, the close of betting, the dealer's reports. Dealers move
    cards, never money."""
    SUPERVISOR = "supervisor"
    """A supervisor: corrections and voids (BAC-10, CSP-11.1, CSP-11.4), returns of carried
    wagers (CSP-11.1), putting a table back in service, a change of shoe (BAC-3.2), a cut card
    confirmed out far from where the count puts it (BAC-3.1)."""
    SERVICE = "service"
    """Only the table service itself: time-outs (CSP-6.4, BAC-16), the settlement or showdown
    with the meter it reads (CSP-6.8, BAC-17), the rounds of the shoe (BAC-2.2, BAC-3)."""


class TableMode(StrEnum):
    """How a table's cards arrive: a virtual shoe (the CSPRNG, dealt by the table service) or a
    live dealer (cards entered at the console or read by a card-reading shoe)."""

    VIRTUAL = "virtual"
    LIVE = "live"


EVERY_MODE: Final[frozenset[TableMode]] = frozenset(TableMode)
"""``MODES`` of a command every table accepts."""
LIVE_ONLY: Final[frozenset[TableMode]] = frozenset({TableMode.LIVE})
"""``MODES`` of a command describing a physical act: only a live table has one."""


def modes_of(command_type: type) -> frozenset[TableMode]:
    """The table modes whose tables accept commands of ``command_type`` (its ``MODES``;
    :data:`EVERY_MODE` when it declares none). Refuses (``core.not_a_command``) a type that is
    not a command."""
    issuer_of(command_type)
    modes = getattr(command_type, "MODES", EVERY_MODE)
    if not isinstance(modes, frozenset) or not all(isinstance(m, TableMode) for m in modes):
        raise MacauTablesError("core.not_a_command", type=_shown(command_type))
    return modes


def accepts(mode: TableMode, command_type: type) -> bool:
    """Whether a table of ``mode`` accepts commands of ``command_type`` (never raises: a type
    that is not a command is accepted by none)."""
    try:
        return mode in modes_of(command_type)
    except MacauTablesError:
        return False


class CycleStep(StrEnum):
    """A step of a table's round cycle that a command performs (its class's ``CYCLE``)."""

    OPEN = "open"
    """Open the table's next round."""
    CLOSE = "close"
    """Close the open round's betting."""


def cycle_step_of(command_type: object) -> CycleStep | None:
    """The cycle step commands of ``command_type`` perform (its ``CYCLE``), or ``None``
    (never raises)."""
    step = getattr(command_type, "CYCLE", None)
    return step if isinstance(step, CycleStep) else None


def is_command(command_type: object) -> bool:
    """Whether ``command_type`` is a command class (it declares an :class:`Issuer`)."""
    return isinstance(command_type, type) and isinstance(
        getattr(command_type, "ISSUER", None), Issuer
    )


def issuer_of(command_type: type) -> Issuer:
    """Who may issue commands of ``command_type`` (its ``ISSUER``). Refuses
    (``MacauTablesError`` ``core.not_a_command``) a type that declares none."""
    issuer = getattr(command_type, "ISSUER", None)
    if not isinstance(command_type, type) or not isinstance(issuer, Issuer):
        raise MacauTablesError("core.not_a_command", type=_shown(command_type))
    return issuer


def actor_field_of(command_type: type) -> str | None:
    """The field of ``command_type`` naming the person who acts (``"player"``,
    ``"supervisor"``, ``"by"``), or ``None`` when the command names nobody."""
    issuer_of(command_type)
    field = getattr(command_type, "ACTOR_FIELD", None)
    return field if isinstance(field, str) else None


def acting(command: object) -> tuple[Issuer, str | None]:
    """Who issues this ``command`` and the person its actor field names (``None``: none):
    its class's issuer, except that a player's command whose actor field holds
    :data:`DEALER` (a baccarat reveal by the dealer, BAC-16) is the dealer's."""
    cls = type(command)
    issuer, field = issuer_of(cls), actor_field_of(cls)
    if field is None:
        return issuer, None
    who = getattr(command, field, None)
    if who is DEALER:
        return Issuer.DEALER, None
    return issuer, who if isinstance(who, str) else None


@dataclass(frozen=True, slots=True)
class Audience:
    """The audience of a view: a player (by id), the dealer, a supervisor or the public.

    >>> Audience.of_player("p1")
    Audience(role=<Role.PLAYER: 'player'>, player='p1')
    """

    role: Role
    player: str | None = None

    def __post_init__(self) -> None:
        _check_audience(self.role, self.player)

    @classmethod
    def of_player(cls, player: str) -> Audience:
        """The player ``player`` (their own cards and what the law revealed to everyone)."""
        return cls(Role.PLAYER, player)

    @classmethod
    def dealer(cls) -> Audience:
        """The dealer's console."""
        return cls(Role.DEALER)

    @classmethod
    def supervisor(cls) -> Audience:
        """A supervisor."""
        return cls(Role.SUPERVISOR)

    @classmethod
    def public(cls) -> Audience:
        """The public: jackpot display, lobby."""
        return cls(Role.PUBLIC)


def _check_audience(role: object, player: object) -> None:
    """Refuse (``RuleViolation`` ``VIEW``) a role that is not a :class:`Role`, a player without
    an id (a non-blank text) and anything but ``None`` as the player of another role."""
    if not isinstance(role, Role):
        raise RuleViolation("VIEW", "core.bad_audience", audience=_shown(role))
    if role is Role.PLAYER:
        named = isinstance(player, str) and bool(player.strip())
    else:
        named = player is None
    if not named:
        raise RuleViolation("VIEW", "core.bad_audience", audience=_shown(player))


def _shown(value: object) -> str:
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 80 else text[:79] + "…"


def require_audience(value: object) -> Audience:
    """``value`` if it is an :class:`Audience` (exactly that type) whose fields still hold what
    its checks allow; otherwise a ``RuleViolation`` (``VIEW``) naming it — also for one built
    without its checks (``object.__new__``) or changed behind its back. Never another error."""
    if type(value) is not Audience:
        raise RuleViolation("VIEW", "core.bad_audience", audience=_shown(value))
    try:
        role, player = value.role, value.player
    except AttributeError:
        raise RuleViolation("VIEW", "core.bad_audience", audience="Audience()") from None
    _check_audience(role, player)
    return value


class DueKind(StrEnum):
    """What a round is waiting for."""

    WAGERS = "wagers"
    """Betting is open: wagers, then closing the betting."""
    CARD = "card"
    """A card to a position (a Caribbean box or the dealer) or a baccarat slot."""
    DECISION = "decision"
    """A player's raise or fold (CSP-6.5)."""
    REVEAL = "reveal"
    """The card holder's reveal (BAC-16)."""
    SUPERVISOR = "supervisor"
    """A supervisor's correction or void (a refused live card, BAC-10)."""
    SETTLEMENT = "settlement"
    """Everything is dealt and decided: the settlement (showdown) is due."""


@dataclass(frozen=True, slots=True)
class Due:
    """One thing a round waits for: ``kind``, and where it applies — ``position`` (a box
    number or :data:`DEALER`), ``slot`` (a baccarat card slot such as ``"P1"``), ``player`` (who
    must act)."""

    kind: DueKind
    position: int | Dealer | None = None
    slot: str | None = None
    player: str | None = None


@dataclass(frozen=True, slots=True)
class Expected:
    """What a round expects next (``expected_next()``), the same type in both games.

    ``phase`` is the game's phase value; ``due`` what is awaited, in order; ``commands`` the
    command types that can be accepted now (each still checked on its own). An ended round
    has no ``due`` and no ``commands``.
    """

    phase: str
    due: tuple[Due, ...]
    commands: tuple[type, ...]

    @property
    def command_names(self) -> tuple[str, ...]:
        """The names of :attr:`commands` (what an API or a page lists)."""
        return tuple(c.__name__ for c in self.commands)

    def in_mode(self, mode: TableMode) -> Expected:
        """The same, with only the commands a table of ``mode`` accepts (:func:`accepts`):
        what a table offers its clients."""
        kept = tuple(c for c in self.commands if accepts(mode, c))
        return self if len(kept) == len(self.commands) else Expected(self.phase, self.due, kept)


@runtime_checkable
class Round(Protocol):
    """The contract of a round (see the module docstring). Both games satisfy it."""

    @property
    def round_id(self) -> str: ...

    @property
    def opening_date(self) -> date: ...

    @property
    def events(self) -> tuple[Any, ...]: ...

    @property
    def is_over(self) -> bool: ...

    def check(self, command: object) -> MacauTablesError | None: ...

    def can_apply(self, command: object) -> bool: ...

    def apply(self, command: Any) -> tuple[Self, tuple[Any, ...]]: ...

    @classmethod
    def replay(cls, events: Sequence[Any]) -> Self: ...

    def expected_next(self) -> Expected: ...

    def view(self, audience: Audience) -> Any: ...

    def postings(self, event: Any) -> tuple[Posting, ...]: ...

    def carried_out(self) -> tuple[Any, ...]: ...


_REPLACERS: dict[type, Callable[..., Any]] = {}


def replacer(cls: type[_T]) -> Callable[..., _T]:
    """``replacer(cls)(value, **changes)``: what ``dataclasses.replace(value, **changes)``
    returns for an instance of the dataclass ``cls`` (a new value through ``cls``'s own
    ``__init__``, its checks included), for the rounds' folds that build a new state per
    event: the fields are read at once (:func:`operator.attrgetter`) and passed by position,
    instead of being walked one by one and passed by name on every call. ``cls``'s
    ``init`` fields are positional (no ``kw_only``).

    A class whose ``__init__`` is the one ``dataclasses`` wrote and does nothing but set its
    fields — every field an ``init`` field held in a slot, no ``__post_init__`` — is built by
    :func:`slot_builder` instead: the same slots set to the same values, without the call
    through ``__init__`` (its frozen ``object.__setattr__`` per field)."""
    known = _REPLACERS.get(cls)
    if known is not None:
        return known
    names = tuple(f.name for f in dataclasses.fields(cls) if f.init)  # type: ignore[arg-type]
    if any(f.kw_only for f in dataclasses.fields(cls)):  # type: ignore[arg-type]
        raise TypeError(f"{cls.__name__} has keyword-only fields")
    read = operator.attrgetter(*names)
    single = len(names) == 1
    index = {name: i for i, name in enumerate(names)}
    build: Callable[..., _T] = slot_builder(cls, names) or cls

    def replaced(value: _T, /, **changes: Any) -> _T:
        fields = [read(value)] if single else list(read(value))
        for name, new in changes.items():
            fields[index[name]] = new
        return build(*fields)

    _REPLACERS[cls] = replaced
    return replaced


def slot_builder(cls: type[_T], names: tuple[str, ...]) -> Callable[..., _T] | None:
    """A function building ``cls`` from its ``names`` fields by position exactly as the
    ``__init__`` ``dataclasses`` wrote for it would (each slot set, nothing else), or ``None``
    when that ``__init__`` could do more: a ``__post_init__``, a field that is not an ``init``
    field or not in a slot, an ``__init__`` not written by ``dataclasses``."""
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    init = getattr(cls, "__init__", None)
    code = getattr(init, "__code__", None)
    if (
        hasattr(cls, "__post_init__")
        or len(fields) != len(names)
        or code is None
        or code.co_filename != "<string>"  # dataclasses' own (written by exec)
        or code.co_argcount != len(names) + 1
    ):
        return None
    setters = []
    for name in names:
        slot: Any = getattr(cls, name, None)
        if type(slot).__name__ != "member_descriptor":
            return None
        setters.append(slot.__set__)
    env: dict[str, Any] = {"new": object.__new__, "cls": cls}
    env.update((f"set{i}", s) for i, s in enumerate(setters))
    args = ", ".join(f"v{i}" for i in range(len(names)))
    body = "".join(f"    set{i}(o, v{i})\n" for i in range(len(names)))
    exec(f"def build({args}):\n    o = new(cls)\n{body}    return o\n", env)
    built: Callable[..., _T] = env["build"]
    return built


class _ApprovalRules(Protocol):
    def check_approvals(
        self, opening_date: date, holidays: Collection[date] = ...
    ) -> tuple[Any, ...]: ...


_APPROVALS: dict[tuple[int, date, frozenset[date]], tuple[object, tuple[Any, ...]]] = {}


def approvals_in_use(
    rules: _ApprovalRules, opening_date: date, holidays: Collection[date] = ()
) -> tuple[Any, ...]:
    """``rules.check_approvals(opening_date, holidays)`` (CSP-13 / BAC-19: refused without a
    valid, effective approval for every option in use; the approvals relied on otherwise),
    as a round is opened. A rules object is immutable, so its answer for one day is the same
    for every round opened that day: it is worked out once per rules object and day (a
    refusal is never remembered: it is raised again, worked out again, each time)."""
    key = (id(rules), opening_date, frozenset(holidays))
    known = _APPROVALS.get(key)
    if known is not None and known[0] is rules:
        return known[1]
    used = rules.check_approvals(opening_date, holidays)
    if len(_APPROVALS) >= 256:
        _APPROVALS.clear()
    _APPROVALS[key] = (rules, used)
    return used

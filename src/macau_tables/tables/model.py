"""The table service's own values: table commands, table events, sealed shoes, results.

Everything a client sends to a table is either a game command (``caribbean.PlaceAnte``,
``baccarat.PlaceWager``, …: checked by the round contract) or one of the *table commands* here
(:class:`OpenRound`, :class:`OpenShoe`, :class:`ReportFault`, :class:`ClearFault`,
:class:`ReleaseAward`, :class:`PauseCycle`, :class:`ResumeCycle`, and a player's
:class:`TakeSeat` / :class:`LeaveSeat` at a virtual table). The service
records, beside the games' events, a few *table events* in the same hash-chained log:
:class:`ShoeCommitted` (a virtual shoe's leaf hashes, before its first card),
:class:`CardsPublished` (the cards of a round the public view showed, with their leaves),
:class:`ShoeRevealed` / :class:`ShoeLost` (the shoe check after a virtual shoe ends),
:class:`TableFaulted` / :class:`FaultCleared` (a fault in force survives a restart) and
:class:`RoundRecovered` (what start-up recovery did to a round left open, CSP-11.4 / BAC-10),
:class:`AwardHeld` / :class:`AwardReleased` (a large jackpot award held for a supervisor and
released by one: :mod:`.holds`), and the round cycle's own (:mod:`.cycle`):
:class:`CycleDeadline` (when the betting closes, when the next round opens),
:class:`CycleIdle` / :class:`CycleWoken` and :class:`CyclePaused` / :class:`CycleResumed`;
and the seating of a virtual table: :class:`SeatTaken` / :class:`SeatLeft` (BAC-15);
and after each settlement its facts (:class:`~macau_tables.facts.SettlementFacts`: the money
per position and wager kind the per-position report reads, :mod:`macau_tables.facts`).

Every type here is registered with :mod:`macau_tables.codec` under the namespace ``tables``
(``tables.OpenRound``, …) when :mod:`macau_tables.tables` is imported.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final

from .. import codec
from ..cards import Card
from ..errors import CodecError, MacauTablesError
from ..facts import FactLine, SettlementFacts
from ..rng import CardLeaf, CardShown
from ..rounds import EVERY_MODE, LIVE_ONLY, CycleStep, Issuer, TableMode
from ..voids import SYSTEM_GROUNDS, Ground

__all__ = [
    "CODEC_TYPES",
    "CYCLE_EVENTS",
    "SEATING_EVENTS",
    "VIRTUAL_ONLY",
    "AwardHeld",
    "AwardReleased",
    "CardsPublished",
    "ClearFault",
    "CycleDeadline",
    "CycleIdle",
    "CyclePaused",
    "CycleResumed",
    "CycleWoken",
    "FaultCleared",
    "Hit",
    "LeaveSeat",
    "OpenRound",
    "OpenShoe",
    "PauseCycle",
    "ReleaseAward",
    "ReportFault",
    "ResumeCycle",
    "RoundRecovered",
    "Sealed",
    "SeatLeft",
    "SeatTaken",
    "ShoeCommitted",
    "ShoeLost",
    "ShoeRevealed",
    "ShufflerReplaced",
    "ShufflerReplacement",
    "Submitted",
    "TableCommand",
    "TableError",
    "TableEvent",
    "TableFaulted",
    "TableSetup",
    "TakeSeat",
    "request_digest",
    "text_field",
]


class TableError(MacauTablesError):
    """A request the table service refuses (an unknown table, a table in fault, a retried
    request with other parameters, a meter out of reach, …); the message says what to do."""

    code: ClassVar[str] = "table_error"


@dataclass(frozen=True, slots=True)
class TableSetup:
    """What a table is: ``game`` (a key of :data:`macau_tables.games.GAMES`), ``live``
    (cards entered at a console or read by a card-reading shoe) or virtual (the CSPRNG shoe),
    ``demo`` (a demonstration table: a seeded source is allowed), its configuration
    ``config_id`` and its linked jackpot meter ``meter_id`` (``None``: no jackpot)."""

    table_id: str
    game: str
    live: bool
    demo: bool
    config_id: str
    meter_id: str | None = None

    @property
    def mode(self) -> TableMode:
        """The table's mode: which commands it accepts (:func:`~macau_tables.rounds.accepts`)."""
        return TableMode.LIVE if self.live else TableMode.VIRTUAL


# -- table commands ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OpenRound:
    """Open the table's next round with the wagers the previous one carried out (CSP-11.1,
    BAC-12). ``seated``: seat number → player id (baccarat BAC-15 / BAC-16; ignored by
    Caribbean Stud, whose boxes are taken by the wagers). At a virtual table the round cycle
    opens the rounds (:mod:`.cycle`); a client's is refused there."""

    ISSUER: ClassVar[Issuer] = Issuer.DEALER
    ACTOR_FIELD: ClassVar[str | None] = None
    MODES: ClassVar[frozenset[TableMode]] = EVERY_MODE
    CYCLE: ClassVar[CycleStep] = CycleStep.OPEN

    seated: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True, slots=True)
class OpenShoe:
    """Live baccarat: a new physical shoe is in the shoe box; the console then sends the cut
    and the burn (``baccarat.Cut``, ``baccarat.Burn``). A virtual table opens its shoes itself."""

    ISSUER: ClassVar[Issuer] = Issuer.DEALER
    ACTOR_FIELD: ClassVar[str | None] = None
    MODES: ClassVar[frozenset[TableMode]] = LIVE_ONLY


@dataclass(frozen=True, slots=True)
class ReportFault:
    """A fault stops the table and holds the open round (BAC-10, CSP-11.1, CSP-11.4: dealers
    report, supervisors decide): nothing is voided, no money moves, no time-out runs. A
    supervisor then clears the fault (:class:`ClearFault`: the round goes on from where it
    stood) or voids the held round with the game's ``Void`` (a reason given); no round opens
    until the fault is cleared."""

    ISSUER: ClassVar[Issuer] = Issuer.DEALER
    ACTOR_FIELD: ClassVar[str | None] = None
    MODES: ClassVar[frozenset[TableMode]] = EVERY_MODE

    reason: str


@dataclass(frozen=True, slots=True)
class ClearFault:
    """Supervisor ``supervisor`` puts the table back in service, saying ``reason``: a round the
    fault held goes on from where it stood."""

    ISSUER: ClassVar[Issuer] = Issuer.SUPERVISOR
    ACTOR_FIELD: ClassVar[str | None] = "supervisor"
    MODES: ClassVar[frozenset[TableMode]] = EVERY_MODE

    supervisor: str
    reason: str


@dataclass(frozen=True, slots=True)
class ShufflerReplaced:
    """CSP-11.4, second sentence: supervisor ``supervisor`` records that the shuffling machine
    that failed was replaced (``reason``: which machine, by whom): the table may deal again.
    (An admin may instead switch the table's dealing procedure to the dealing shoe, a new
    configuration version.)"""

    ISSUER: ClassVar[Issuer] = Issuer.SUPERVISOR
    ACTOR_FIELD: ClassVar[str | None] = "supervisor"
    MODES: ClassVar[frozenset[TableMode]] = EVERY_MODE

    supervisor: str
    reason: str


@dataclass(frozen=True, slots=True)
class ReleaseAward:
    """Supervisor ``supervisor`` authorises the payment of held jackpot award ``hold_id`` (a
    large award, CSP-10 / BAC-17, held by :mod:`.holds`) into the winner's wallet, saying
    ``reason``. Once only."""

    ISSUER: ClassVar[Issuer] = Issuer.SUPERVISOR
    ACTOR_FIELD: ClassVar[str | None] = "supervisor"
    MODES: ClassVar[frozenset[TableMode]] = EVERY_MODE

    hold_id: str
    supervisor: str
    reason: str


@dataclass(frozen=True, slots=True)
class PauseCycle:
    """Supervisor ``supervisor`` pauses the table's round cycle, saying ``reason`` (audited):
    no countdown runs, no round is opened or closed by the cycle until :class:`ResumeCycle`;
    a round in play goes on (its decision and card-holding time-outs still run, CSP-6.4,
    BAC-16)."""

    ISSUER: ClassVar[Issuer] = Issuer.SUPERVISOR
    ACTOR_FIELD: ClassVar[str | None] = "supervisor"
    MODES: ClassVar[frozenset[TableMode]] = EVERY_MODE

    supervisor: str
    reason: str


@dataclass(frozen=True, slots=True)
class ResumeCycle:
    """Supervisor ``supervisor`` resumes the paused round cycle, saying ``reason``: a fresh
    countdown (or the next round) starts from now."""

    ISSUER: ClassVar[Issuer] = Issuer.SUPERVISOR
    ACTOR_FIELD: ClassVar[str | None] = "supervisor"
    MODES: ClassVar[frozenset[TableMode]] = EVERY_MODE

    supervisor: str
    reason: str


VIRTUAL_ONLY: Final[frozenset[TableMode]] = frozenset({TableMode.VIRTUAL})
"""The modes of a command only a virtual table takes (a live table's dealer seats players)."""


@dataclass(frozen=True, slots=True)
class TakeSeat:
    """Player ``player`` takes free seat ``seat`` (1 … the rules' ``seats``) at a virtual table
    (BAC-15). The seating is fixed when a round opens: a seat taken during a round takes effect
    when the round cycle opens the next one. At a live table the dealer seats the players in
    :class:`OpenRound`. A game whose rules declare no seats (its boxes are taken by the wagers,
    as Caribbean Stud's by the antes) refuses it."""

    ISSUER: ClassVar[Issuer] = Issuer.PLAYER
    ACTOR_FIELD: ClassVar[str | None] = "player"
    MODES: ClassVar[frozenset[TableMode]] = VIRTUAL_ONLY

    player: str
    seat: int


@dataclass(frozen=True, slots=True)
class LeaveSeat:
    """Player ``player`` leaves their seat at a virtual table (BAC-15): from the next round
    the round cycle opens, the seat is free (a round in play keeps its seating)."""

    ISSUER: ClassVar[Issuer] = Issuer.PLAYER
    ACTOR_FIELD: ClassVar[str | None] = "player"
    MODES: ClassVar[frozenset[TableMode]] = VIRTUAL_ONLY

    player: str


TableCommand = (
    OpenRound
    | OpenShoe
    | ReportFault
    | ClearFault
    | ShufflerReplaced
    | ReleaseAward
    | PauseCycle
    | ResumeCycle
    | TakeSeat
    | LeaveSeat
)
"""The commands the service itself handles (everything else goes to the round or the shoe)."""


# -- table events -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ShoeCommitted:
    """A virtual shoe was committed card by card (scheme ``merkle-v2``, Common rules
    "Randomness") before its first card: its ``leaves`` (one salted leaf hash per position, hex:
    they reveal nothing) whose Merkle root is ``commitment``. Kept so that a dealt card can be
    proved after a restart."""

    shoe_no: int
    shoe_id: str
    commitment: str
    leaves: tuple[str, ...]

    def __repr__(self) -> str:
        return f"ShoeCommitted(shoe {self.shoe_id!r}, {len(self.leaves)} leaves)"


@dataclass(frozen=True, slots=True)
class CardsPublished:
    """The cards of round ``round_id`` that the public view showed (baccarat: the cards of the
    hands; Caribbean Stud: none), each with its position and salt in shoe ``shoe_no``: what
    the public shoe list proves once the shoe has ended."""

    shoe_no: int
    round_id: str
    cards: tuple[CardShown, ...]


@dataclass(frozen=True, slots=True)
class ShoeRevealed:
    """A virtual shoe ended: its committed ``order`` (uncut) and salts kept for the audit
    archive, and the service's check of it: ``commitment_ok`` (the order and salts hash to
    ``commitment``) and ``dealt_ok`` (the ``dealt`` cards that left the shoe, cut at ``cut``,
    are the order's; ``mismatch_at``: the first position that is not). ``verified`` is both.

    Scheme ``sha256-v1`` (version 1 of this event): one ``salt`` for the whole order. Scheme
    ``merkle-v2`` (version 2): ``salts``, one per position, ``salt`` empty, and ``public`` the
    cards the public view showed (what the public shoe list proves; never the rest)."""

    __codec_version__: ClassVar[int] = 2

    shoe_no: int
    shoe_id: str
    commitment: str
    order: tuple[Card, ...]
    salt: str
    cut: int
    dealt: int
    commitment_ok: bool
    dealt_ok: bool
    mismatch_at: int | None = None
    salts: tuple[str, ...] = ()
    public: tuple[CardShown, ...] = ()

    @classmethod
    def __codec_migrate__(cls, fields: dict[str, object], version: int) -> dict[str, object]:
        """Version 1 (one salt, scheme sha256-v1) reads as it was: no per-position salts."""
        return fields

    @property
    def verified(self) -> bool:
        """The shoe dealt was the shoe committed."""
        return self.commitment_ok and self.dealt_ok

    @property
    def salt_of(self) -> str | tuple[str, ...]:
        """The salt(s) the commitment was made with (one, or one per position)."""
        return self.salts if self.salts else self.salt


@dataclass(frozen=True, slots=True)
class ShoeLost:
    """A virtual shoe's sealed order could not be recovered after a fault (CSP-11.4: "lost
    shoe"): it cannot be revealed; the shoe is closed and a new one is shuffled. A shoe
    committed card by card keeps its ``leaves`` and the ``public`` cards shown so far: it
    proves what was dealt, nothing more."""

    shoe_no: int
    shoe_id: str
    commitment: str
    reason: str
    leaves: tuple[str, ...] = ()
    public: tuple[CardShown, ...] = ()


@dataclass(frozen=True, slots=True)
class TableFaulted:
    """A fault stopped the table (reported by ``reported_by``); in force until cleared. When
    it held an open round (recorded with that round's id), it is the evidence a supervisor's
    void of that round may stand on (``SHOWS``: any ground a supervisor decides)."""

    SHOWS: ClassVar[frozenset[Ground]] = frozenset(Ground) - SYSTEM_GROUNDS

    reason: str
    reported_by: str


@dataclass(frozen=True, slots=True)
class ShufflerReplacement:
    """CSP-11.4: supervisor ``supervisor`` recorded the failed shuffler replaced."""

    supervisor: str
    reason: str


@dataclass(frozen=True, slots=True)
class FaultCleared:
    """A supervisor cleared the table's fault."""

    supervisor: str
    reason: str


@dataclass(frozen=True, slots=True)
class RoundRecovered:
    """Start-up found round ``round_id`` open after an interruption and resolved it by the law
    (``rule``: CSP-11.4 or BAC-10): ``action`` is ``"void"`` or ``"resume"``."""

    round_id: str
    action: str
    rule: str
    reason: str

    @property
    def SHOWS(self) -> frozenset[Ground]:
        """A recovery that voids shows the lost shoe (the system's own ground)."""
        return frozenset({Ground.SHOE_LOST}) if self.action == "void" else frozenset()


@dataclass(frozen=True, slots=True)
class AwardHeld:
    """Jackpot award ``amount`` (``combination``) that round ``round_id``'s settlement paid to
    ``player`` at ``spot`` is held for a supervisor (it reaches the threshold of the table):
    moved from the wallet to held account ``hold_id`` in the settlement's transaction."""

    hold_id: str
    round_id: str
    player: str
    spot: str
    combination: str
    amount: int


@dataclass(frozen=True, slots=True)
class AwardReleased:
    """Supervisor ``supervisor`` released held award ``hold_id`` (``amount`` to ``player``'s
    wallet), saying ``reason``."""

    hold_id: str
    round_id: str
    player: str
    amount: int
    supervisor: str
    reason: str


@dataclass(frozen=True, slots=True)
class CycleDeadline:
    """The round cycle's next step falls due ``at`` (ISO 8601, UTC): ``step`` ``"close"``, the
    betting of round ``round_id`` closes (the end of its countdown); ``"open"``, the next
    round opens (after round ``round_id``'s result was shown). ``quiet``: the countdowns in a
    row that ended with no wager before this one; ``carried``: the round took over wagers from
    the last one (BAC-12, CSP-11.1), so it is played even if no new wager comes. Recorded, so a
    restart keeps the deadline."""

    step: CycleStep
    at: str
    round_id: str | None
    quiet: int = 0
    carried: bool = False


@dataclass(frozen=True, slots=True)
class CycleIdle:
    """The table idles: ``rounds_without_wager`` countdowns in a row ended with no wager; no
    countdown runs until a player opens the table's page or bets (:class:`CycleWoken`)."""

    rounds_without_wager: int


@dataclass(frozen=True, slots=True)
class CycleWoken:
    """The idle table woke up: ``by`` (a player who opened its page or bet)."""

    by: str


@dataclass(frozen=True, slots=True)
class CyclePaused:
    """Supervisor ``supervisor`` paused the round cycle (:class:`PauseCycle`)."""

    supervisor: str
    reason: str


@dataclass(frozen=True, slots=True)
class CycleResumed:
    """Supervisor ``supervisor`` resumed the round cycle (:class:`ResumeCycle`)."""

    supervisor: str
    reason: str


@dataclass(frozen=True, slots=True)
class SeatTaken:
    """Player ``player`` took seat ``seat`` (:class:`TakeSeat`); ``seating`` is the table's
    seating after it (seat → player id, by seat): what the round cycle opens the next round
    with (BAC-15)."""

    player: str
    seat: int
    seating: tuple[tuple[int, str], ...]


@dataclass(frozen=True, slots=True)
class SeatLeft:
    """Player ``player`` left seat ``seat`` (:class:`LeaveSeat`); ``seating`` is the table's
    seating after it."""

    player: str
    seat: int
    seating: tuple[tuple[int, str], ...]


SEATING_EVENTS: Final[tuple[type, ...]] = (SeatTaken, SeatLeft)
"""The events that change a virtual table's seating (table events: in no round)."""


CYCLE_EVENTS: Final[tuple[type, ...]] = (
    CycleDeadline,
    CycleIdle,
    CycleWoken,
    CyclePaused,
    CycleResumed,
)
"""The round cycle's events (table events: in no round)."""


TableEvent = (
    ShoeCommitted
    | CardsPublished
    | ShoeRevealed
    | ShoeLost
    | TableFaulted
    | FaultCleared
    | RoundRecovered
    | AwardHeld
    | AwardReleased
    | ShufflerReplacement
    | CycleDeadline
    | CycleIdle
    | CycleWoken
    | CyclePaused
    | CycleResumed
    | SeatTaken
    | SeatLeft
    | SettlementFacts
)
"""The events the service records beside the games' events."""

TABLE_EVENTS: Final[tuple[type, ...]] = (
    ShoeCommitted,
    CardsPublished,
    ShoeRevealed,
    ShoeLost,
    TableFaulted,
    FaultCleared,
    RoundRecovered,
    AwardHeld,
    AwardReleased,
    ShufflerReplacement,
    *CYCLE_EVENTS,
    *SEATING_EVENTS,
    SettlementFacts,
)
"""Every table event (the service's own, in the log beside the games' events)."""


# -- values -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sealed:
    """A virtual shoe's hidden order, kept by the service until the shoe ends: ``order``
    (uncut, as committed), ``salts`` (hex, one per position), ``leaves`` (their leaf hashes),
    ``commitment`` (the published Merkle root, ``merkle-v2:…``), ``cut`` (the rotation, see
    :mod:`macau_tables.baccarat.shoe`), ``production`` (the CSPRNG made it).
    Hidden information: never in a view, a log record or a ``repr``."""

    shoe_no: int
    shoe_id: str
    order: tuple[Card, ...]
    salts: tuple[str, ...]
    commitment: str
    leaves: tuple[str, ...]
    cut: int = 0
    production: bool = True

    def __repr__(self) -> str:
        return f"Sealed(shoe {self.shoe_id!r}, {len(self.order)} cards, {self.commitment[:22]}…)"

    def position(self, dealt: int) -> int:
        """The committed position (0-based, uncut) of the ``dealt``-th card out (after the
        cut)."""
        if not 0 <= dealt < len(self.order):
            raise TableError("tables.shoe_exhausted", shoe=self.shoe_id, position=dealt)
        return (self.cut + dealt) % len(self.order)

    def card_at(self, position: int) -> Card:
        """The card dealt at ``position`` (0-based, after the cut)."""
        return self.order[self.position(position)]

    def leaf_at(self, position: int) -> CardLeaf:
        """Where the card dealt at ``position`` (after the cut) sits in the commitment."""
        at = self.position(position)
        return CardLeaf(self.shoe_no, at, self.salts[at])

    def committed(self) -> ShoeCommitted:
        """The table event that keeps this shoe's leaf hashes (before its first card)."""
        return ShoeCommitted(self.shoe_no, self.shoe_id, self.commitment, self.leaves)


@dataclass(frozen=True, slots=True)
class Hit:
    """One jackpot award: ``box`` (the award's key in its settlement:
    :class:`~macau_tables.jackpot.Award`), the ``combination`` (a
    :class:`~macau_tables.jackpot.Combination` value), the ``amount`` paid, the part of it
    ``from_meter`` (a hit of the meter when > 0: recorded in its history) and the winning
    ``place`` — the paid wager's ``spot`` (``"box 3"``, ``"seat 2"``; CSP-10.4, BAC-17),
    ``None`` when the settlement names none."""

    box: int
    combination: str
    amount: int
    from_meter: int = 0
    place: str | None = None


@dataclass(frozen=True, slots=True)
class Submitted:
    """What an accepted command did (the answer stored for its idempotency key, so a retry
    gets exactly this back): the records ``first_seq`` … ``last_seq`` of table ``table_id``
    (``first_seq > last_seq`` when nothing was recorded), the chain ``head`` hash after them,
    the round concerned and its phase. Carries no card: views come from subscriptions."""

    table_id: str
    round_id: str | None
    first_seq: int
    last_seq: int
    head: str
    phase: str | None
    events: tuple[str, ...] = ()


CODEC_TYPES: Final[tuple[type, ...]] = (
    TableSetup,
    OpenRound,
    OpenShoe,
    ReportFault,
    ClearFault,
    ShufflerReplaced,
    ReleaseAward,
    PauseCycle,
    ResumeCycle,
    TakeSeat,
    LeaveSeat,
    *TABLE_EVENTS,
    FactLine,
    Sealed,
    Hit,
    Submitted,
)
"""Every type of the table service the codec stores (namespace ``tables``)."""


def request_digest(command: object) -> str:
    """SHA-256 of the command's canonical bytes (what an idempotency key is bound to).
    Refuses (``TableError``) anything the codec cannot store: it is no command."""
    try:
        return codec.sha256(command)
    except CodecError as exc:
        raise TableError("tables.not_a_command", command=repr(command)[:120]) from exc


def text_field(value: object, name: str) -> str:
    """``value`` if it is a non-empty text; else ``TableError`` naming the field ``name``."""
    if not isinstance(value, str) or not value.strip():
        raise TableError("tables.text_required", field=name)
    return value

"""Money as a ledger: accounts and balanced postings (pure; the store writes them).

A round says what it moves as postings: a :class:`Posting` changes one :class:`Account`'s
balance by a signed amount, and the postings of one event always sum to zero (money is only
moved, never made). Balances are what each account holds:

* ``WALLET`` (one per player): the player's money;
* ``IN_PLAY``: stakes on the layout in the current round;
* ``CARRIED``: stakes carried to a later round (BAC-12 ties; CSP-11.1 jackpot wagers);
* ``TABLE_BANK``: the house's net win at the table;
* ``COMMISSION``: commission taken (BAC-18);
* ``JACKPOT_METER``: the meter;
* ``HOUSE_FUNDING``: what the house put in (negative): fixed jackpot awards, top-ups, seeds;
* ``CASHIER``: money brought to or taken from the casino (negative: deposits);
* ``HELD_AWARD`` (one per held award): a large jackpot award paid by the settlement and held
  for a supervisor's authorisation before it reaches the wallet (:mod:`.tables.holds`).

Meter contributions are deltas (they commute: many tables may add to one meter without reading
it); an award says exactly what it took from the meter and from the house.

>>> p = stake("p1", 100)
>>> [(x.account.kind.value, x.amount) for x in p], total(p)
([('wallet', -100), ('in_play', 100)], 0)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final

from .errors import ConfigError

if TYPE_CHECKING:  # pragma: no cover
    from .rounds import WagerResult

__all__ = [
    "Account",
    "AccountKind",
    "Posting",
    "Reason",
    "award_held",
    "award_released",
    "carried_back",
    "is_balanced",
    "meter_seed",
    "settlement",
    "stake",
    "total",
]


class AccountKind(StrEnum):
    """The kinds of account money moves between."""

    WALLET = "wallet"
    IN_PLAY = "in_play"
    CARRIED = "carried"
    TABLE_BANK = "table_bank"
    COMMISSION = "commission"
    JACKPOT_METER = "jackpot_meter"
    HOUSE_FUNDING = "house_funding"
    CASHIER = "cashier"
    HELD_AWARD = "held_award"


class Reason(StrEnum):
    """Why a posting moves money (kept apart so an audit can tell them apart)."""

    STAKE = "stake"
    PAYOUT = "payout"
    WIN = "win"
    COMMISSION = "commission"
    CONTRIBUTION = "contribution"
    AWARD = "award"
    CARRY = "carry"
    RETURN = "return"
    SEED = "seed"
    CASH = "cash"
    AWARD_HELD = "award_held"
    AWARD_RELEASED = "award_released"


@dataclass(frozen=True, slots=True, order=True)
class Account:
    """An account: its ``kind`` and, for a wallet, the ``owner`` (player id).

    Table-level accounts have no owner; the table service maps them to the table (or to the
    linked meter) they belong to.
    """

    kind: AccountKind
    owner: str | None = None

    @classmethod
    def wallet(cls, player: str) -> Account:
        """The wallet of ``player``."""
        return cls(AccountKind.WALLET, player)

    @classmethod
    def held_award(cls, hold_id: str) -> Account:
        """The account holding award ``hold_id`` until a supervisor releases it."""
        return cls(AccountKind.HELD_AWARD, hold_id)

    def __str__(self) -> str:
        return self.kind.value if self.owner is None else f"{self.kind.value}:{self.owner}"


IN_PLAY = Account(AccountKind.IN_PLAY)
CARRIED = Account(AccountKind.CARRIED)
TABLE_BANK = Account(AccountKind.TABLE_BANK)
COMMISSION = Account(AccountKind.COMMISSION)
JACKPOT_METER = Account(AccountKind.JACKPOT_METER)
HOUSE_FUNDING = Account(AccountKind.HOUSE_FUNDING)
CASHIER = Account(AccountKind.CASHIER)


@dataclass(frozen=True, slots=True)
class Posting:
    """``amount`` (signed ``int`` minor units) added to ``account``'s balance, for
    ``reason``."""

    account: Account
    amount: int
    reason: Reason

    def __post_init__(self) -> None:
        if isinstance(self.amount, bool) or not isinstance(self.amount, int):
            raise ConfigError("core.posting_not_int", amount=repr(self.amount))


def total(postings: Iterable[Posting]) -> int:
    """The sum of ``postings``' amounts (0 for a balanced set)."""
    return sum(p.amount for p in postings)


def is_balanced(postings: Iterable[Posting]) -> bool:
    """Whether ``postings`` sum to zero."""
    return total(postings) == 0


def _compact(postings: Iterable[Posting]) -> tuple[Posting, ...]:
    # Same account and reason are added together, zeros dropped; order of first appearance.
    sums: dict[tuple[Account, Reason], int] = {}
    for p in postings:
        sums[(p.account, p.reason)] = sums.get((p.account, p.reason), 0) + p.amount
    return _postings_of((a, r, amount) for (a, r), amount in sums.items())


def _postings_of(sums: Iterable[Sequence[Any]]) -> tuple[Posting, ...]:
    """The postings of ``(account, reason, amount)`` sums that are not zero, checked to
    balance."""
    out = tuple(Posting(a, amount, r) for a, r, amount in sums if amount)
    if total(out):  # pragma: no cover - a bug, never a user error
        raise AssertionError(f"unbalanced postings: {out}")
    return out


def _pair(first: Posting, second: Posting) -> tuple[Posting, ...]:
    """``_compact((first, second))`` for two postings of different accounts moving the same
    amount (each checked on construction): both, or none when the amount is zero."""
    return (first, second) if second.amount else ()


def stake(player: str, amount: int) -> tuple[Posting, ...]:
    """A wager placed: from ``player``'s wallet onto the layout."""
    return _pair(
        Posting(Account.wallet(player), -amount, Reason.STAKE),
        Posting(IN_PLAY, amount, Reason.STAKE),
    )


def carried_back(player: str, amount: int) -> tuple[Posting, ...]:
    """A carried stake handed back to ``player``'s wallet (a withdrawn or returned carried
    wager, BAC-12 / CSP-11.1)."""
    return _compact(
        (
            Posting(CARRIED, -amount, Reason.RETURN),
            Posting(Account.wallet(player), amount, Reason.RETURN),
        )
    )


def meter_seed(amount: int) -> tuple[Posting, ...]:
    """The house funds a meter restart from its seed (CSP-10.8)."""
    return _compact(
        (Posting(HOUSE_FUNDING, -amount, Reason.SEED), Posting(JACKPOT_METER, amount, Reason.SEED))
    )


_SumKey = tuple[str, str | None, str]
"""An account and a reason in :func:`settlement`'s sums: (kind, owner, reason) texts."""


def _fixed(account: Account, reason: Reason) -> tuple[_SumKey, tuple[Account, Reason]]:
    return (account.kind.value, account.owner, reason.value), (account, reason)


_FIXED: Final = dict(
    (
        _fixed(IN_PLAY, Reason.STAKE),
        _fixed(CARRIED, Reason.STAKE),
        _fixed(COMMISSION, Reason.COMMISSION),
        _fixed(TABLE_BANK, Reason.WIN),
        _fixed(JACKPOT_METER, Reason.CONTRIBUTION),
        _fixed(JACKPOT_METER, Reason.AWARD),
        _fixed(HOUSE_FUNDING, Reason.AWARD),
        _fixed(CARRIED, Reason.CARRY),
    )
)
(
    _IN_PLAY_STAKE,
    _CARRIED_STAKE,
    _COMMISSION,
    _WIN,
    _CONTRIBUTION,
    _METER_AWARD,
    _HOUSE_AWARD,
    _CARRY,
) = _FIXED
_WALLET_REASONS: Final = {"payout": Reason.PAYOUT, "award": Reason.AWARD}


def settlement(results: Iterable[WagerResult], *, seed_funding: int = 0) -> tuple[Posting, ...]:
    """The postings of settled (or voided) wagers and, when a meter restarted, its seed.

    Each :class:`~macau_tables.rounds.WagerResult` leaves its source (``IN_PLAY``, or
    ``CARRIED`` for a carried-in stake) and goes to the wallet (``paid``), commission, table
    bank (``house``), meter (``meter`` contributed, ``award_from_meter`` taken), house funding
    (``award_from_house``) and ``CARRIED`` (``carried``). Balanced by the wager identity.

    Each wager's nine postings are added into the sums per account and reason directly (the
    postings :func:`_compact` would add up, in the same order); a wager with an amount that
    is not exactly an ``int`` goes through :class:`Posting` one by one, which refuses it as
    before (``core.posting_not_int``)."""
    results = tuple(results)
    # Keyed by (kind, owner, reason) texts: an Account's and an enum's hashes are Python code.
    sums: dict[tuple[str, str | None, str], list[Any]] = {}
    get = sums.get
    for w in results:
        amounts = (
            w.stake,
            w.paid,
            w.award_from_meter,
            w.award_from_house,
            w.commission,
            w.house,
            w.meter,
            w.carried,
        )
        if any(type(x) is not int for x in amounts):
            return _compact(_settlement_postings(results, seed_funding))
        stake_, paid, from_meter, from_house, commission, house, meter, carried = amounts
        award = from_meter + from_house
        player = w.player
        wallet: Account | None = None
        for key, amount in (
            (_CARRIED_STAKE if w.carried_in else _IN_PLAY_STAKE, -stake_),
            (("wallet", player, "payout"), paid - award),
            (("wallet", player, "award"), award),
            (_COMMISSION, commission),
            (_WIN, house),
            (_CONTRIBUTION, meter),
            (_METER_AWARD, -from_meter),
            (_HOUSE_AWARD, -from_house),
            (_CARRY, carried),
        ):
            entry = get(key)
            if entry is not None:
                entry[2] += amount
            elif key[0] != "wallet":
                sums[key] = [*_FIXED[key], amount]
            else:
                wallet = wallet or Account.wallet(player)
                sums[key] = [wallet, _WALLET_REASONS[key[2]], amount]
    if seed_funding:
        for p in meter_seed(seed_funding):
            key = (p.account.kind.value, p.account.owner, p.reason.value)
            entry = get(key)
            if entry is None:
                sums[key] = [p.account, p.reason, p.amount]
            else:
                entry[2] += p.amount
    return _postings_of(sums.values())


def _settlement_postings(results: Iterable[WagerResult], seed_funding: int) -> list[Posting]:
    """Every posting of :func:`settlement`, one by one (each checked on construction)."""
    postings: list[Posting] = []
    for w in results:
        source = CARRIED if w.carried_in else IN_PLAY
        wallet = Account.wallet(w.player)
        postings += [
            Posting(source, -w.stake, Reason.STAKE),
            Posting(wallet, w.paid - w.award, Reason.PAYOUT),
            Posting(wallet, w.award, Reason.AWARD),
            Posting(COMMISSION, w.commission, Reason.COMMISSION),
            Posting(TABLE_BANK, w.house, Reason.WIN),
            Posting(JACKPOT_METER, w.meter, Reason.CONTRIBUTION),
            Posting(JACKPOT_METER, -w.award_from_meter, Reason.AWARD),
            Posting(HOUSE_FUNDING, -w.award_from_house, Reason.AWARD),
            Posting(CARRIED, w.carried, Reason.CARRY),
        ]
    if seed_funding:
        postings += meter_seed(seed_funding)
    return postings


def award_held(player: str, hold_id: str, amount: int) -> tuple[Posting, ...]:
    """A jackpot award just paid to ``player``'s wallet held for a supervisor:
    from the wallet to the award's held account."""
    return _compact(
        (
            Posting(Account.wallet(player), -amount, Reason.AWARD_HELD),
            Posting(Account.held_award(hold_id), amount, Reason.AWARD_HELD),
        )
    )


def award_released(player: str, hold_id: str, amount: int) -> tuple[Posting, ...]:
    """A held award released by a supervisor: from its held account to ``player``'s wallet."""
    return _compact(
        (
            Posting(Account.held_award(hold_id), -amount, Reason.AWARD_RELEASED),
            Posting(Account.wallet(player), amount, Reason.AWARD_RELEASED),
        )
    )

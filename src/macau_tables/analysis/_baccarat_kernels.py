"""numba kernels behind the baccarat analysis and simulation.

Imported lazily (numba takes a while to import). The lookup tables are built from the very
definitions of :mod:`macau_tables.baccarat.tableau` (``card_value``, ``BANKER_DRAW_TABLE``), so
the kernels and the rule functions read the law from one place; ``tests/analysis`` still replays
hundreds of thousands of rounds through both and compares every field.

Encodings
---------
A card is its index 0..51 (``(rank - 2) * 4 + suit``, see :mod:`macau_tables.cards`).

Outcome *class* of a round (used by the exact engine and the simulation alike)::

    cls = (kind * 3 + winner) * 10 + banker_total          # 0 .. 149

``kind``: 0 natural (4 cards), 1 both stand (4), 2 only the player draws (5), 3 only the banker
draws (5), 4 both draw (6). ``winner``: 0 player, 1 banker, 2 tie. The banker holds two cards in
kinds 0-2 and three in kinds 3-4 (Lucky 6 pays by that, BAC-17 / 56/2018).

A played round is packed into one int64 (:func:`play`)::

    cls | player_pair << 8 | banker_pair << 9 | jackpot << 10 | cards_used << 13
        | player_total << 16

``jackpot`` is the highest BAC-13.4 combination: :data:`JP_NONE` … :data:`JP_ROYAL_FLUSH`.

Random numbers
--------------
The simulation needs millions of shuffles per second, so it does not use :mod:`random`: each
batch of shoes owns a SplitMix64 stream seeded from ``(seed, batch index)`` and draws bounded
integers with Lemire's multiply-shift method with rejection (unbiased). Results depend only on
the seed and the batch layout, never on the number of threads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar

import numba
import numpy as np
import numpy.typing as npt

from ..baccarat.tableau import BANKER_DRAW_TABLE
from ..cards import DECK

_F = TypeVar("_F", bound=Callable[..., Any])

# Jackpot combinations (BAC-13.4), in paying order (higher number = higher combination).
JP_NONE: Final = 0
JP_SINGLE_PAIR: Final = 1
JP_THREE_OF_A_KIND: Final = 2
JP_DOUBLE_PAIR: Final = 3
JP_FOUR_OF_A_KIND: Final = 4
JP_HEAVENLY_STRAIGHT: Final = 5
JP_ROYAL_FLUSH: Final = 6
N_JACKPOT: Final = 7

N_CLASSES: Final = 150
KIND_NATURAL: Final = 0
KIND_BOTH_STAND: Final = 1
KIND_PLAYER_DRAWS: Final = 2
KIND_BANKER_DRAWS: Final = 3
KIND_BOTH_DRAW: Final = 4
KIND_CARDS: Final = (4, 4, 5, 5, 6)

# Simulation tallies, one row per batch.
T_PLAYER_PAIR: Final = N_CLASSES
T_BANKER_PAIR: Final = N_CLASSES + 1
T_JACKPOT: Final = N_CLASSES + 2  # + jackpot code
T_SHOES: Final = T_JACKPOT + N_JACKPOT
T_BOTH_PAIRS: Final = T_SHOES + 1
N_TALLY: Final = T_BOTH_PAIRS + 1

# Burn rules (BAC-2.1, 83/2011).
BURN_NONE: Final = 0
BURN_FIRST_CARD: Final = 1
BURN_DECKS: Final = 2
BURN_FIXED: Final = 3

# BAC-5 values by card index, ranks (2..14) and suits (0..3).
VALUE: Final = np.array(
    [1 if c.rank == 14 else (0 if c.rank >= 10 else int(c.rank)) for c in DECK], np.int64
)
RANK: Final = np.array([int(c.rank) for c in DECK], np.int64)
SUIT: Final = np.array([int(c.suit) for c in DECK], np.int64)
# BAC-2.1: the first card of the shoe says how many more cards are burned (10/J/Q/K = 10).
BURN_VALUE: Final = np.array(
    [1 if c.rank == 14 else (10 if c.rank >= 10 else int(c.rank)) for c in DECK], np.int64
)
# BAC-9.3/9.4: BANKER_DRAW[banker_total, player_third_value]; column 10 = the player stood.
BANKER_DRAW: Final = np.array(BANKER_DRAW_TABLE, np.bool_)
POW7: Final = np.array([7**v for v in range(10)], np.int64)
_ROYAL_RANKS: Final = sum(1 << r for r in (10, 11, 12, 13, 14))


def _jit(**options: Any) -> Callable[[_F], _F]:
    decorator: Callable[[_F], _F] = numba.njit(**options)
    return decorator


# ---------------------------------------------------------------------------------------------
# The round (BAC-7, BAC-9, BAC-11, BAC-13)


@_jit(cache=True, inline="always")
def play(shoe: Any, pos: int) -> int:  # pragma: no cover - compiled
    """Deal one round from ``shoe[pos:]`` (card indices) and return the packed result."""
    c1 = shoe[pos]
    c2 = shoe[pos + 1]
    c3 = shoe[pos + 2]
    c4 = shoe[pos + 3]
    pt = (VALUE[c1] + VALUE[c3]) % 10
    bt = (VALUE[c2] + VALUE[c4]) % 10
    n = 4
    if pt >= 8 or bt >= 8:  # BAC-9.2: a natural, nobody draws
        kind = 0
    elif pt <= 5:  # BAC-9.1: the player draws
        x = VALUE[shoe[pos + 4]]
        pt = (pt + x) % 10
        n = 5
        if BANKER_DRAW[bt, x]:  # BAC-9.3
            bt = (bt + VALUE[shoe[pos + 5]]) % 10
            n = 6
            kind = 4
        else:
            kind = 2
    elif bt <= 5:  # the player stood on 6/7: the banker draws on 0-5 (BAC-9.3)
        bt = (bt + VALUE[shoe[pos + 4]]) % 10
        n = 5
        kind = 3
    else:
        kind = 1
    winner = 0 if pt > bt else (1 if bt > pt else 2)  # BAC-11, BAC-12
    r1 = RANK[c1]
    r2 = RANK[c2]
    r3 = RANK[c3]
    r4 = RANK[c4]
    pp = 1 if r1 == r3 else 0  # BAC-13: the side's first two cards of one rank
    bp = 1 if r2 == r4 else 0
    jp = 0
    if n >= 5:  # royal flush / heavenly straight need the first five cards (BAC-13.4)
        c5 = shoe[pos + 4]
        r5 = RANK[c5]
        mask = (1 << r1) | (1 << r2) | (1 << r3) | (1 << r4) | (1 << r5)
        if mask == _ROYAL_RANKS:
            # K Q J 10 must share one suit; the ace decides royal flush or heavenly straight.
            s = -1
            ok = True
            ace_suit = -1
            for c in (c1, c2, c3, c4, c5):
                if RANK[c] == 14:
                    ace_suit = SUIT[c]
                elif s < 0:
                    s = SUIT[c]
                elif SUIT[c] != s:
                    ok = False
            if ok:
                jp = 6 if ace_suit == s else 5
    if jp == 0:
        if r1 == r2 and r2 == r3 and r3 == r4:
            s1 = SUIT[c1]
            s2 = SUIT[c2]
            s3 = SUIT[c3]
            s4 = SUIT[c4]
            distinct = (1 << s1) | (1 << s2) | (1 << s3) | (1 << s4) == 15
            jp = 4 if distinct else 2
        elif pp == 1 and bp == 1:
            jp = 3
        elif (
            (r1 == r2 and r2 == r3)
            or (r1 == r2 and r2 == r4)
            or (r1 == r3 and r3 == r4)
            or (r2 == r3 and r3 == r4)
        ):
            jp = 2
        elif pp == 1 or bp == 1:
            jp = 1
    cls = (kind * 3 + winner) * 10 + bt
    return cls | (pp << 8) | (bp << 9) | (jp << 10) | (n << 13) | (pt << 16)  # type: ignore[no-any-return]


@_jit(cache=True)
def replay(cards: Any, starts: Any, out: Any) -> None:  # pragma: no cover - compiled
    """``out[i] = play(cards, starts[i])`` (for the kernel = rules test)."""
    for i in range(starts.shape[0]):
        out[i] = play(cards, starts[i])


# ---------------------------------------------------------------------------------------------
# The exact engine: every value sequence of a round, grouped by its multiset of values


@_jit(cache=True)
def enumerate_value_rounds(keys: Any, classes: Any) -> int:  # pragma: no cover - compiled
    """Write one entry per value sequence ``v1 … vk`` (values 0..9) that is a complete round of
    exactly ``k`` cards: ``keys`` = the multiset code ``sum(7**v)``, ``classes`` = its outcome
    class. Returns the number of entries (the arrays need room for 1,000,000 + 100,000 + 10,000).
    """
    m = 0
    for a in range(10):  # P1
        for b in range(10):  # B1
            for c in range(10):  # P2
                for d in range(10):  # B2
                    k4 = POW7[a] + POW7[b] + POW7[c] + POW7[d]
                    pt = (a + c) % 10
                    bt = (b + d) % 10
                    if pt >= 8 or bt >= 8 or (pt >= 6 and bt >= 6):
                        kind = 0 if (pt >= 8 or bt >= 8) else 1
                        w = 0 if pt > bt else (1 if bt > pt else 2)
                        keys[m] = k4
                        classes[m] = (kind * 3 + w) * 10 + bt
                        m += 1
                    elif pt <= 5:
                        for x in range(10):
                            p3 = (pt + x) % 10
                            if BANKER_DRAW[bt, x]:
                                for y in range(10):
                                    b3 = (bt + y) % 10
                                    w = 0 if p3 > b3 else (1 if b3 > p3 else 2)
                                    keys[m] = k4 + POW7[x] + POW7[y]
                                    classes[m] = (4 * 3 + w) * 10 + b3
                                    m += 1
                            else:
                                w = 0 if p3 > bt else (1 if bt > p3 else 2)
                                keys[m] = k4 + POW7[x]
                                classes[m] = (2 * 3 + w) * 10 + bt
                                m += 1
                    else:
                        for x in range(10):
                            b3 = (bt + x) % 10
                            w = 0 if pt > b3 else (1 if b3 > pt else 2)
                            keys[m] = k4 + POW7[x]
                            classes[m] = (3 * 3 + w) * 10 + b3
                            m += 1
    return m


# ---------------------------------------------------------------------------------------------
# Random numbers and the shoe procedure (BAC-2, BAC-3)


@_jit(cache=True, inline="always")
def _mix(z: Any) -> Any:  # pragma: no cover - compiled
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@_jit(cache=True, inline="always")
def _below(state: Any, n: Any) -> tuple[Any, Any]:  # pragma: no cover - compiled
    """(new state, a uniform integer 0 <= j < n) for 1 <= n < 2**32 (Lemire, with rejection)."""
    state = state + np.uint64(0x9E3779B97F4A7C15)
    x = _mix(state) >> np.uint64(32)
    m = x * n
    low = m & np.uint64(0xFFFFFFFF)
    if low < n:
        t = (np.uint64(0x100000000) - n) % n
        while low < t:
            state = state + np.uint64(0x9E3779B97F4A7C15)
            x = _mix(state) >> np.uint64(32)
            m = x * n
            low = m & np.uint64(0xFFFFFFFF)
    return state, m >> np.uint64(32)


@_jit(cache=True)
def stream_state(seed: int, batch: int) -> Any:  # pragma: no cover - compiled
    """The SplitMix64 state of batch ``batch`` under ``seed`` (both hashed, so nearby batches
    get unrelated streams)."""
    s = _mix(np.uint64(seed) + np.uint64(0x632BE59BD9B4E019))
    return _mix(s ^ _mix(np.uint64(batch) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1)))


@_jit(cache=True, inline="always")
def _shuffle(shoe: Any, state: Any) -> Any:  # pragma: no cover - compiled
    """Fisher-Yates over the whole shoe; returns the new RNG state."""
    for i in range(shoe.shape[0] - 1, 0, -1):
        state, j = _below(state, np.uint64(i + 1))
        k = np.int64(j)
        t = shoe[i]
        shoe[i] = shoe[k]
        shoe[k] = t
    return state


@_jit(cache=True, inline="always")
def _burn(shoe: Any, decks: int, burn_mode: int, burn_count: int) -> int:  # pragma: no cover
    """Position of the first card dealt after the BAC-2.1 burn."""
    if burn_mode == 1:
        return 1 + int(BURN_VALUE[shoe[0]])  # the first card and as many more as its value
    if burn_mode == 2:
        return decks
    if burn_mode == 3:
        return burn_count
    return 0


@_jit(cache=True)
def deal_shoe(
    shoe: Any,
    start: int,
    behind: int,
    extra_rounds: int,
    max_rounds: int,
    starts: Any,
    codes: Any,
) -> int:  # pragma: no cover - compiled
    """Deal rounds from a shuffled, burned shoe starting at ``start`` until the shoe ends
    (BAC-3.1): the cut card lies before index ``len(shoe) - behind``; the round in which it
    comes out is the last (``extra_rounds = 0``) or is followed by one more (``1``). Stops early
    after ``max_rounds``. Writes each round's start and packed code; returns the round count."""
    cut = shoe.shape[0] - behind
    pos = start
    left = -1  # rounds still to deal after the cut card came out; -1: not out yet
    n = 0
    while n < max_rounds:
        code = play(shoe, pos)
        starts[n] = pos
        codes[n] = code
        n += 1
        end = pos + ((code >> 13) & 7)
        if left < 0:
            if end > cut:  # the cut card came out during (or just before) this round
                left = extra_rounds
        else:
            left -= 1
        pos = end
        if left == 0:
            break
    return n


@_jit(cache=True)
def trace_shoe(
    seed: int,
    batch: int,
    decks: int,
    burn_mode: int,
    burn_count: int,
    behind: int,
    extra_rounds: int,
    shoe: Any,
    starts: Any,
    codes: Any,
) -> int:  # pragma: no cover - compiled
    """The first shoe of batch ``batch`` exactly as :func:`simulate` deals it: fills ``shoe``
    with the shuffled cards and ``starts``/``codes`` with its rounds; returns the round count."""
    for i in range(shoe.shape[0]):
        shoe[i] = i % 52
    state = stream_state(seed, batch)
    state = _shuffle(shoe, state)
    start = _burn(shoe, decks, burn_mode, burn_count)
    return deal_shoe(shoe, start, behind, extra_rounds, starts.shape[0], starts, codes)


@_jit(cache=True, inline="always")
def _tally(row: Any, code: int) -> None:  # pragma: no cover - compiled
    """Count one packed round into a tally row (see the ``T_*`` offsets)."""
    row[code & 255] += 1
    pp = (code >> 8) & 1
    bp = (code >> 9) & 1
    row[T_PLAYER_PAIR] += pp
    row[T_BANKER_PAIR] += bp
    row[T_JACKPOT + ((code >> 10) & 7)] += 1
    row[T_BOTH_PAIRS] += pp & bp


@_jit(cache=True, parallel=True, nogil=True)
def simulate(
    seed: int,
    first_batch: int,
    quota: Any,
    decks: int,
    burn_mode: int,
    burn_count: int,
    behind: int,
    extra_rounds: int,
    machine: bool,
    tallies: Any,
) -> None:  # pragma: no cover - compiled
    """Fill ``tallies[b]`` (``N_TALLY`` counters) for batches ``first_batch + b``: each batch
    deals ``quota[b]`` rounds from its own stream of shoes (full procedure: shuffle, burn, cut
    card, last-round rule, reshuffle), or, with ``machine``, every round from the full freshly
    shuffled set (BAC-2.3, BAC-7.2)."""
    size = 52 * decks
    for b in numba.prange(tallies.shape[0]):
        row = tallies[b]
        rounds_per_batch = quota[b]
        shoe = np.empty(size, np.int64)
        for i in range(size):
            shoe[i] = i % 52
        state = stream_state(seed, first_batch + b)
        if machine:
            for _ in range(rounds_per_batch):
                for i in range(6):  # a partial Fisher-Yates: six uniform cards from the set
                    state, j = _below(state, np.uint64(size - i))
                    k = i + np.int64(j)
                    t = shoe[i]
                    shoe[i] = shoe[k]
                    shoe[k] = t
                _tally(row, play(shoe, 0))
            continue
        starts = np.empty(size // 4 + 1, np.int64)
        codes = np.empty(size // 4 + 1, np.int64)
        done = 0
        while done < rounds_per_batch:
            state = _shuffle(shoe, state)
            row[T_SHOES] += 1
            start = _burn(shoe, decks, burn_mode, burn_count)
            n = deal_shoe(shoe, start, behind, extra_rounds, rounds_per_batch - done, starts, codes)
            for i in range(n):
                _tally(row, codes[i])
            done += n


# ---------------------------------------------------------------------------------------------
# Game protection: exact expectations at every shoe position of simulated shoes


@_jit(cache=True, parallel=True, nogil=True)
def counting_study(
    seed: int,
    first_batch: int,
    quota: Any,
    decks: int,
    burn_mode: int,
    burn_count: int,
    behind: int,
    extra_rounds: int,
    l6_m: Any,
    l6_k: Any,
    l6_two: Any,
    l6_three: Any,
    tags: Any,
    tag_mean: float,
    thresholds: Any,
    out: Any,
) -> None:  # pragma: no cover - compiled
    """For every round of ``quota[b]`` shoes of batch ``b``, compute from the cards the
    counter has NOT seen (the shoe's rest plus face-down burned cards) the exact expectation of
    a pair wager and of Lucky 6, and the true count of the Lucky 6 tag count. ``out[b]``:

    0 rounds · 1 Σ EV pair · 2 #(EV pair > 0) · 3 Σ max(EV pair, 0) ·
    4 Σ EV Lucky 6 · 5 #(EV L6 > 0) · 6 Σ max(EV L6, 0) · 7 shoes ·
    8 + 2j: #(true count ≥ thresholds[j]) · 9 + 2j: Σ EV L6 there.

    Lucky 6 probabilities come from the multiset table (``l6_m`` value multiplicities, ``l6_k``
    cards, ``l6_two``/``l6_three`` orderings that end in a banker win on 6 with 2/3 cards).
    """
    size = 52 * decks
    nm = l6_m.shape[0]
    for b in numba.prange(out.shape[0]):
        row = out[b]
        shoe = np.empty(size, np.int64)
        for i in range(size):
            shoe[i] = i % 52
        state = stream_state(seed, first_batch + b)
        starts = np.empty(size // 4 + 1, np.int64)
        codes = np.empty(size // 4 + 1, np.int64)
        # the multiset table as (value, multiplicity) lists: at most six entries each
        l6_n = np.zeros(nm, np.int64)
        l6_v = np.zeros((nm, 6), np.int64)
        l6_c = np.zeros((nm, 6), np.int64)
        for q in range(nm):
            for v in range(10):
                if l6_m[q, v] > 0:
                    l6_v[q, l6_n[q]] = v
                    l6_c[q, l6_n[q]] = l6_m[q, v]
                    l6_n[q] += 1
        unseen_rank = np.empty(15, np.int64)
        unseen_value = np.empty(10, np.int64)
        ff = np.empty((10, 7), np.float64)
        for _ in range(quota[b]):
            state = _shuffle(shoe, state)
            row[7] += 1
            start = _burn(shoe, decks, burn_mode, burn_count)
            n = deal_shoe(shoe, start, behind, extra_rounds, size, starts, codes)
            for r in range(15):
                unseen_rank[r] = 4 * decks if r >= 2 else 0
            for v in range(10):
                unseen_value[v] = 16 * decks if v == 0 else 4 * decks
            running = 0.0
            seen = 0
            if burn_mode == 1:  # the first card is shown before it is burned (BAC-2.1)
                c = shoe[0]
                unseen_rank[RANK[c]] -= 1
                unseen_value[VALUE[c]] -= 1
                running += tags[VALUE[c]]
                seen += 1
            for i in range(n):
                u = 0
                pairs = 0.0
                for r in range(2, 15):
                    u += unseen_rank[r]
                    pairs += unseen_rank[r] * (unseen_rank[r] - 1.0)
                ev_pair = 12.0 * pairs / (u * (u - 1.0)) - 1.0
                for v in range(10):
                    f = 1.0
                    ff[v, 0] = 1.0
                    for j in range(1, 7):
                        f *= unseen_value[v] - (j - 1)
                        ff[v, j] = f if f > 0.0 else 0.0
                # sums per round size k (the table is sorted by k), divided once per size
                acc_two = np.zeros(7)
                acc_three = np.zeros(7)
                for q in range(nm):
                    w = 1.0
                    for t in range(l6_n[q]):
                        w *= ff[l6_v[q, t], l6_c[q, t]]
                    k = l6_k[q]
                    acc_two[k] += l6_two[q] * w
                    acc_three[k] += l6_three[q] * w
                d4 = u * (u - 1.0) * (u - 2.0) * (u - 3.0)
                d5 = d4 * (u - 4.0)
                d6 = d5 * (u - 5.0)
                two = acc_two[4] / d4 + acc_two[5] / d5 + acc_two[6] / d6
                three = acc_three[4] / d4 + acc_three[5] / d5 + acc_three[6] / d6
                ev_l6 = 13.0 * two + 21.0 * three - 1.0
                tc = (running - seen * tag_mean) * 52.0 / u
                row[0] += 1
                row[1] += ev_pair
                if ev_pair > 0:
                    row[2] += 1
                    row[3] += ev_pair
                row[4] += ev_l6
                if ev_l6 > 0:
                    row[5] += 1
                    row[6] += ev_l6
                for j in range(thresholds.shape[0]):
                    if tc >= thresholds[j]:
                        row[8 + 2 * j] += 1
                        row[9 + 2 * j] += ev_l6
                # the round's cards are now seen
                pos = starts[i]
                used = (codes[i] >> 13) & 7
                for t in range(used):
                    c = shoe[pos + t]
                    unseen_rank[RANK[c]] -= 1
                    unseen_value[VALUE[c]] -= 1
                    running += tags[VALUE[c]]
                    seen += 1


def empty_tallies(batches: int) -> npt.NDArray[np.int64]:
    """A zeroed ``(batches, N_TALLY)`` array for :func:`simulate`."""
    return np.zeros((batches, N_TALLY), np.int64)

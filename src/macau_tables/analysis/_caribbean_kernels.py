"""numba kernels behind the exact Caribbean Stud analysis and its simulation.

Nothing here knows the rules of the game beyond the arithmetic it is handed: hand strengths,
categories and the dealer's qualification come from :mod:`macau_tables.caribbean.hands` (through
:mod:`macau_tables.analysis.caribbean_exact`), and the paytable comes as an array of units.

Card subsets are named by their combinatorial-number-system (colex) rank: a sorted subset
``c_1 < c_2 < ... < c_k`` of the 52 card indices has rank ``sum C(c_i, i)``; subsets of size ``k``
are stored after all smaller ones (``SUBSET_OFFSETS``).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

N_CARDS = 52
N_HANDS = 2_598_960
#: Dealer hands containing a given up card and disjoint from the player's five cards: C(46, 4).
DEALS_PER_UP_CARD = 163_185
#: Number of card subsets of size 0..4 (the rows of a count table).
N_SUBSETS = 1 + 52 + 1_326 + 22_100 + 270_725
#: Rows of subsets of size 0..2 (int32 counters); the rows of sizes 3 and 4 count hands holding
#: four or five given cards (at most 48 and 1), so they are int8: a quarter of the memory.
N_SMALL = 1 + 52 + 1_326
#: Number of outcome slots accumulated by the sweep (see ``sweep``).
N_SLOTS = 16
SLOT_FOLD = 10
SLOT_NOT_QUALIFIED = 11
SLOT_PUSH = 12
SLOT_DEALER_WINS = 13
# Slots 0..9: the player wins with a hand of category 0..9 (dealer qualified).


def binomials() -> np.ndarray:
    """``C(n, k)`` for n in 0..52, k in 0..5, as int64 (exact)."""
    table = np.zeros((53, 6), dtype=np.int64)
    for n in range(53):
        table[n, 0] = 1
        for k in range(1, 6):
            table[n, k] = 0 if n == 0 else table[n - 1, k - 1] + table[n - 1, k]
    return table


def subset_offsets() -> np.ndarray:
    """Row offset of the first subset of each size 0..5 in a count table."""
    b = binomials()
    offsets = np.zeros(6, dtype=np.int64)
    for k in range(1, 6):
        offsets[k] = offsets[k - 1] + b[52, k - 1]
    return offsets


@njit(cache=True)
def all_hands() -> np.ndarray:
    """All C(52, 5) hands as sorted card indices, row ``i`` = the hand with colex rank ``i``."""
    out = np.empty((N_HANDS, 5), dtype=np.int8)
    i = 0
    for e in range(4, 52):
        for d in range(3, e):
            for c in range(2, d):
                for b in range(1, c):
                    for a in range(b):
                        out[i, 0] = a
                        out[i, 1] = b
                        out[i, 2] = c
                        out[i, 3] = d
                        out[i, 4] = e
                        i += 1
    return out


@njit(cache=True, inline="always")
def _subset_rows(h: np.ndarray, binom: np.ndarray, offsets: np.ndarray, rows: np.ndarray) -> None:
    # rows[mask] = table row of the subset of the sorted hand h selected by the bits of mask.
    for mask in range(31):
        r = 0
        k = 0
        for i in range(5):
            if (mask >> i) & 1:
                k += 1
                r += binom[h[i], k]
        rows[mask] = offsets[k] + r


@njit(cache=True, inline="always")
def _load(hands: np.ndarray, hand: int, h: np.ndarray) -> None:
    # Copy one hand into a local buffer (no array view: no reference counting in hot loops).
    for i in range(5):
        h[i] = hands[hand, i]


@njit(cache=True, inline="always")
def _add_hand(small: np.ndarray, big: np.ndarray, h: np.ndarray, rows: np.ndarray) -> None:
    # Every subset T of h (|T| <= 4) counts the hand once for each card c of h outside T.
    for mask in range(31):
        row = rows[mask]
        for i in range(5):
            if not (mask >> i) & 1:
                if row < N_SMALL:
                    small[row, h[i]] += 1
                else:
                    big[row - N_SMALL, h[i]] += 1


@njit(cache=True, inline="always")
def _query(
    small: np.ndarray, big: np.ndarray, rows: np.ndarray, odd: np.ndarray, acc: np.ndarray
) -> None:
    # Inclusion-exclusion: acc[u] = number of counted hands that contain u and avoid h entirely
    # (valid for u outside h).
    for c in range(N_CARDS):
        acc[c] = 0
    for mask in range(31):
        row = rows[mask]
        if row < N_SMALL:
            if odd[mask]:
                for c in range(N_CARDS):
                    acc[c] -= small[row, c]
            else:
                for c in range(N_CARDS):
                    acc[c] += small[row, c]
        else:
            r = row - N_SMALL
            if odd[mask]:
                for c in range(N_CARDS):
                    acc[c] -= np.int32(big[r, c])
            else:
                for c in range(N_CARDS):
                    acc[c] += np.int32(big[r, c])


@njit(cache=True)
def _build_tables(
    hands: np.ndarray, members: np.ndarray, binom: np.ndarray, offsets: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    small = np.zeros((N_SMALL, N_CARDS), dtype=np.int32)
    big = np.zeros((N_SUBSETS - N_SMALL, N_CARDS), dtype=np.int8)
    rows = np.empty(32, dtype=np.int64)
    h = np.empty(5, dtype=np.int64)
    for j in range(members.shape[0]):
        _load(hands, members[j], h)
        _subset_rows(h, binom, offsets, rows)
        _add_hand(small, big, h, rows)
    return small, big


@njit(cache=True, inline="always")
def _settle(
    hand: int,
    h: np.ndarray,
    category: int,
    qualifies_player: bool,
    acc_n: np.ndarray,
    acc_lt: np.ndarray,
    acc_le: np.ndarray,
    raise_win: np.ndarray,
    decisions: np.ndarray,
    slots: np.ndarray,
    extra: np.ndarray,
    probe_slot: np.ndarray,
    probe_out: np.ndarray,
) -> None:
    # Decide raise or fold for every up card u outside h and add the exact deal counts.
    in_hand = np.uint64(0)
    for i in range(5):
        in_hand |= np.uint64(1) << np.uint64(h[i])
    win_units = 1 + raise_win[category]
    mask = np.uint64(0)
    for u in range(N_CARDS):
        if (in_hand >> np.uint64(u)) & np.uint64(1):
            continue
        n = np.int64(acc_n[u])
        q = DEALS_PER_UP_CARD - n
        if qualifies_player:
            w = np.int64(acc_lt[u]) - n
            t = np.int64(acc_le[u]) - np.int64(acc_lt[u])
        else:
            # A non-qualifying player hand is below every qualifying dealer hand.
            w = np.int64(0)
            t = np.int64(0)
        lose = q - w - t
        p = probe_slot[hand]
        if p >= 0:
            probe_out[p, 0, u] = n
            probe_out[p, 1, u] = w
            probe_out[p, 2, u] = t
            probe_out[p, 3, u] = lose
        ev_raise = n + w * win_units - 3 * lose
        if ev_raise > -DEALS_PER_UP_CARD:
            mask |= np.uint64(1) << np.uint64(u)
            slots[SLOT_NOT_QUALIFIED] += n
            slots[category] += w
            slots[SLOT_PUSH] += t
            slots[SLOT_DEALER_WINS] += lose
            extra[1] += q  # dealer qualifies, given a raise
            extra[2 + category] += 1  # raised (hand, up card) pairs per category
        else:
            slots[SLOT_FOLD] += DEALS_PER_UP_CARD
            if ev_raise == -DEALS_PER_UP_CARD:
                extra[0] += 1  # indifferent decisions (folded)
        extra[12] += q  # dealer qualifies, all deals
    decisions[hand] = mask


@njit(cache=True)
def _run_chunk(
    chunk: int,
    n_chunks: int,
    hands: np.ndarray,
    nonqualifying: np.ndarray,
    order: np.ndarray,
    group_end: np.ndarray,
    chunk_bounds: np.ndarray,
    category: np.ndarray,
    raise_win: np.ndarray,
    ties_push: bool,
    binom: np.ndarray,
    offsets: np.ndarray,
    odd: np.ndarray,
    small_n: np.ndarray,
    big_n: np.ndarray,
    decisions: np.ndarray,
    my_slots: np.ndarray,
    my_extra: np.ndarray,
    probe_slot: np.ndarray,
    probe_out: np.ndarray,
) -> None:
    n_nq = nonqualifying.shape[0]
    rows = np.empty(32, dtype=np.int64)
    h = np.empty(5, dtype=np.int64)
    acc_n = np.zeros(N_CARDS, dtype=np.int32)
    acc_lt = np.zeros(N_CARDS, dtype=np.int32)
    acc_le = np.zeros(N_CARDS, dtype=np.int32)
    # Player hands with which a dealer would not qualify: only N(H, u) matters.
    lo = n_nq * chunk // n_chunks
    hi = n_nq * (chunk + 1) // n_chunks
    for j in range(lo, hi):
        hand = nonqualifying[j]
        _load(hands, hand, h)
        _subset_rows(h, binom, offsets, rows)
        _query(small_n, big_n, rows, odd, acc_n)
        _settle(
            hand,
            h,
            category[hand],
            False,
            acc_n,
            acc_n,
            acc_n,
            raise_win,
            decisions,
            my_slots,
            my_extra,
            probe_slot,
            probe_out,
        )
    # Qualifying player hands in strength order: the P tables count every dealer hand below
    # (all non-qualifying hands, then the qualifying ones passed so far).
    start = chunk_bounds[chunk]
    stop = chunk_bounds[chunk + 1]
    small_p = small_n.copy()
    big_p = big_n.copy()
    for j in range(start):
        _load(hands, order[j], h)
        _subset_rows(h, binom, offsets, rows)
        _add_hand(small_p, big_p, h, rows)
    group_lt = np.zeros((1, N_CARDS), dtype=np.int32)
    j = start
    while j < stop:
        end = group_end[j]
        size = end - j
        if group_lt.shape[0] < size:
            group_lt = np.zeros((size, N_CARDS), dtype=np.int32)
        # Strictly below: query every member before the group is added.
        for g in range(size):
            _load(hands, order[j + g], h)
            _subset_rows(h, binom, offsets, rows)
            _query(small_p, big_p, rows, odd, acc_lt)
            for c in range(N_CARDS):
                group_lt[g, c] = acc_lt[c]
        for g in range(size):
            _load(hands, order[j + g], h)
            _subset_rows(h, binom, offsets, rows)
            _add_hand(small_p, big_p, h, rows)
        for g in range(size):
            hand = order[j + g]
            _load(hands, hand, h)
            _subset_rows(h, binom, offsets, rows)
            _query(small_n, big_n, rows, odd, acc_n)
            for c in range(N_CARDS):
                acc_lt[c] = group_lt[g, c]
            if ties_push:
                # Below or equal, once the group is in: the difference is the pushes.
                _query(small_p, big_p, rows, odd, acc_le)
            else:
                for c in range(N_CARDS):
                    acc_le[c] = acc_lt[c]
            _settle(
                hand,
                h,
                category[hand],
                True,
                acc_n,
                acc_lt,
                acc_le,
                raise_win,
                decisions,
                my_slots,
                my_extra,
                probe_slot,
                probe_out,
            )
        j = end


@njit(cache=True, parallel=True)
def sweep(
    hands: np.ndarray,
    nonqualifying: np.ndarray,
    order: np.ndarray,
    group_end: np.ndarray,
    chunk_bounds: np.ndarray,
    category: np.ndarray,
    raise_win: np.ndarray,
    ties_push: bool,
    probe_slot: np.ndarray,
    probe_out: np.ndarray,
    decisions: np.ndarray,
    slots: np.ndarray,
    extra: np.ndarray,
) -> None:
    """Exact raise/fold decisions and deal counts for every (player hand, up card) pair.

    ``nonqualifying``: indices of the hands with which the dealer does not qualify. ``order``:
    the qualifying hands sorted by strength ascending; ``group_end[j]`` is one past the last
    position of ``order`` with the same strength as position ``j``. ``chunk_bounds``: positions
    in ``order`` (at group boundaries) splitting the work between threads. ``raise_win[c]``:
    units the raise wins (per ante) when the player wins with category ``c``. ``probe_slot[hand]``
    (-1 = none) selects hands whose counts ``(N, W, T, L)`` per up card go to ``probe_out``
    (for the brute-force tests).

    Fills the caller's zeroed arrays: ``decisions`` (``uint64``, one per hand) gets bit ``u``
    set when raising against up card ``u`` is optimal; ``slots`` (``(chunks, N_SLOTS)``) the
    deal counts per outcome; ``extra`` (``(chunks, 16)``) indifferent decisions,
    dealer-qualifies counts and raised pairs per category. Nothing is returned: boxing a tuple
    of new arrays runs Python code, and a Ctrl-C arriving during the sweep then made that
    boxing fail and crash the interpreter (numba builds the tuple with a NULL item).
    """
    binom = np.zeros((53, 6), dtype=np.int64)
    for n in range(53):
        binom[n, 0] = 1
        for k in range(1, 6):
            binom[n, k] = 0 if n == 0 else binom[n - 1, k - 1] + binom[n - 1, k]
    offsets = np.zeros(6, dtype=np.int64)
    for k in range(1, 6):
        offsets[k] = offsets[k - 1] + binom[52, k - 1]
    odd = np.zeros(32, dtype=np.bool_)
    for mask in range(32):
        bits = 0
        for i in range(5):
            bits += (mask >> i) & 1
        odd[mask] = bits % 2 == 1

    n_chunks = chunk_bounds.shape[0] - 1
    small_n, big_n = _build_tables(hands, nonqualifying, binom, offsets)

    for chunk in prange(n_chunks):
        _run_chunk(
            chunk,
            n_chunks,
            hands,
            nonqualifying,
            order,
            group_end,
            chunk_bounds,
            category,
            raise_win,
            ties_push,
            binom,
            offsets,
            odd,
            small_n,
            big_n,
            decisions,
            slots[chunk],
            extra[chunk],
            probe_slot,
            probe_out,
        )


# -- simulation -----------------------------------------------------------------------------
# xoshiro256** streams seeded by splitmix64: reproducible for a seed, whatever the thread count.
SIM_SLOTS = 26  # 0..15 as the sweep's slots; 16 + c: raised boxes holding category c
RECORD_COLUMNS = 12  # player's 5 cards, dealer's 5 cards (the 5th is the up card), raised, units


@njit(cache=True, inline="always")
def _rotl(x: np.uint64, k: int) -> np.uint64:
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True, inline="always")
def _next(state: np.ndarray) -> np.uint64:
    s0 = state[0]
    s1 = state[1]
    s2 = state[2]
    s3 = state[3]
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    state[0] = s0
    state[1] = s1
    state[2] = s2
    state[3] = s3
    return result


@njit(cache=True, inline="always")
def _below(state: np.ndarray, n: int) -> int:
    # Unbiased integer in [0, n) (Lemire's multiply-and-reject on 32-bit draws).
    bound = np.uint64(n)
    x = _next(state) >> np.uint64(32)
    m = x * bound
    low = m & np.uint64(0xFFFFFFFF)
    if low < bound:
        threshold = (np.uint64(0x100000000) - bound) % bound
        while low < threshold:
            x = _next(state) >> np.uint64(32)
            m = x * bound
            low = m & np.uint64(0xFFFFFFFF)
    return int(m >> np.uint64(32))


@njit(cache=True)
def seed_streams(seed: int, n_streams: int) -> np.ndarray:
    """``n_streams`` xoshiro256** states from ``seed`` via splitmix64 (never all zero)."""
    states = np.empty((n_streams, 4), dtype=np.uint64)
    x = np.uint64(seed)
    for s in range(n_streams):
        for i in range(4):
            x += np.uint64(0x9E3779B97F4A7C15)
            z = x
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            states[s, i] = z ^ (z >> np.uint64(31))
    return states


@njit(cache=True, inline="always")
def _colex5(cards: np.ndarray, binom: np.ndarray) -> int:
    # Sort five cards (insertion sort) and return their colex index.
    a = cards.copy()
    for i in range(1, 5):
        v = a[i]
        j = i - 1
        while j >= 0 and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v
    r = 0
    for i in range(5):
        r += binom[a[i], i + 1]
    return r


@njit(cache=True)
def _simulate_stream(
    state: np.ndarray,
    rounds: int,
    table: np.ndarray,
    raise_win: np.ndarray,
    binom: np.ndarray,
    counts: np.ndarray,
    record: np.ndarray,
) -> None:
    deck = np.arange(52, dtype=np.int64)
    player = np.empty(5, dtype=np.int64)
    dealer = np.empty(5, dtype=np.int64)
    n_record = record.shape[0]
    for k in range(rounds):
        # Partial Fisher-Yates: the first ten positions of a uniformly shuffled deck (the deck
        # is not reset: shuffling any order gives a uniform order). The player's five, then the
        # dealer's five; the dealer's fifth card is face up (CSP-7).
        for i in range(10):
            j = i + _below(state, 52 - i)
            tmp = deck[i]
            deck[i] = deck[j]
            deck[j] = tmp
        for i in range(5):
            player[i] = deck[i]
            dealer[i] = deck[5 + i]
        up = dealer[4]
        p = _colex5(player, binom)
        d = _colex5(dealer, binom)
        # table[h] = (raise bits per up card, strength << 5 | qualifies << 4 | category): one
        # cache line per hand.
        raised = (np.uint64(table[p, 0]) >> np.uint64(up)) & np.uint64(1)
        pinfo = table[p, 1]
        c = pinfo & 15
        if raised == 0:
            slot = SLOT_FOLD
            units = -1
        else:
            counts[16 + c] += 1
            dinfo = table[d, 1]
            if (dinfo >> 4) & 1 == 0:
                slot = SLOT_NOT_QUALIFIED
                units = 1
            elif (pinfo >> 5) > (dinfo >> 5):
                slot = c
                units = 1 + raise_win[c]
            elif (pinfo >> 5) == (dinfo >> 5):
                slot = SLOT_PUSH
                units = 0
            else:
                slot = SLOT_DEALER_WINS
                units = -3
        counts[slot] += 1
        if k < n_record:
            for i in range(5):
                record[k, i] = player[i]
                record[k, 5 + i] = dealer[i]
            record[k, 10] = raised
            record[k, 11] = units


@njit(cache=True, parallel=True)
def simulate_batch(
    states: np.ndarray,
    rounds_per_stream: np.ndarray,
    table: np.ndarray,
    raise_win: np.ndarray,
    record: np.ndarray,
) -> np.ndarray:
    """Play ``rounds_per_stream[s]`` rounds on each stream ``s`` (states advance in place).

    ``table[h]`` = (raise bits by up card as int64, ``strength << 5 | qualifies << 4 |
    category``) for the hand of colex index ``h``. Returns per-stream counts (``SIM_SLOTS``
    columns). ``record`` (rows, ``RECORD_COLUMNS``) receives the first rounds of stream 0 for
    the equivalence test against the rule functions.
    """
    binom = np.zeros((53, 6), dtype=np.int64)
    for n in range(53):
        binom[n, 0] = 1
        for k in range(1, 6):
            binom[n, k] = 0 if n == 0 else binom[n - 1, k - 1] + binom[n - 1, k]
    n_streams = states.shape[0]
    counts = np.zeros((n_streams, SIM_SLOTS), dtype=np.int64)
    for s in prange(n_streams):
        n_rec = record.shape[0] if s == 0 else 0
        rec = record[:n_rec]
        _simulate_stream(states[s], rounds_per_stream[s], table, raise_win, binom, counts[s], rec)
    return counts

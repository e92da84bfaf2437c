"""``verify --jobs N`` checks a table's log in parts (:func:`macau_tables.tables.audit.join`):
what a part cannot know from its own events — a hold held or released before it, a commitment
published before it — is deferred and decided when the parts are joined, and the finding and
counts are those of one process walking the whole log (the first check that fails, in the
order one process checks; the counts there)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from macau_tables.tables.audit import PartCheck, Span, join
from macau_tables.tables.findings import finding
from macau_tables.tables.rederive import END, Counts, Part

TABLE: Any = SimpleNamespace(table_id="L1")  # (all join reads of a table)


def part(
    first: int,
    last: int,
    *,
    holds: dict[str, tuple[str, str, int]] | None = None,
    released: set[str] | None = None,
    published: set[str] | None = None,
    found: Any = None,
    key: tuple[int, int, int] = (0, 0, 0),
    counts: Counts | None = None,
    before_end: Counts | None = None,
    end: bool = False,
) -> tuple[PartCheck, Part]:
    p = Part(first=first == 1, last=end, end=END if end else last + 1)
    p.holds = holds or {}
    p.released = released or set()
    p.published = published or set()
    p.before_end = before_end or Counts()
    span = Span(first, last, f"h{first - 1}", end=end)
    check = PartCheck(
        span,
        None,
        last - first + 1,
        0,
        0,
        last + 1,
        f"h{last}",
        found,
        key,
        counts or Counts(),
        p,
        [],
    )
    return check, p


def bad(key: str, seq: int) -> Any:
    return finding("settlement", "events", f"L1#{seq}", "L1", key)


def test_a_release_in_a_later_part_is_checked_against_the_holds_before_it() -> None:
    a, _ = part(1, 10, holds={"r1:1": ("r1", "p1", 500)}, counts=Counts(rounds=2))
    b, pb = part(11, 20, end=True, counts=Counts(rounds=3))
    pb.defer("released", ("r1:1", "r1", "p1", 500, False), bad("release", 15), Counts(rounds=1))
    checked, _ = join(TABLE, [a, b])
    assert checked.rederived is None and checked.counts.rounds == 5

    for what in (
        ("r1:1", "r1", "p2", 500, False),  # to another player
        ("r1:1", "r1", "p1", 499, False),  # another amount
        ("r9:1", "r9", "p1", 500, False),  # a hold never held
    ):
        b, pb = part(11, 20, end=True, counts=Counts(rounds=3))
        pb.at(15, 1)
        pb.defer("released", what, bad("release", 15), Counts(rounds=1))
        checked, _ = join(TABLE, [a, b])
        assert checked.rederived == bad("release", 15), what
        assert checked.counts.rounds == 3  # the first part's two and one of the second's

    a2, _ = part(1, 10, holds={"r1:1": ("r1", "p1", 500)}, released={"r1:1"})
    b, pb = part(11, 20, end=True)
    pb.defer("released", ("r1:1", "r1", "p1", 500, False), bad("twice", 15), Counts())
    assert join(TABLE, [a2, b])[0].rederived == bad("twice", 15)  # released twice


def test_a_hold_held_again_in_a_later_part_is_found() -> None:
    a, _ = part(1, 10, holds={"r1:1": ("r1", "p1", 500)})
    b, pb = part(11, 20, end=True)
    pb.defer("held", ("r1:1",), bad("hold", 12), Counts())
    assert join(TABLE, [a, b])[0].rederived == bad("hold", 12)
    b, pb = part(11, 20, end=True)
    pb.defer("held", ("r2:1",), bad("hold", 12), Counts())
    assert join(TABLE, [a, b])[0].rederived is None


def test_a_reveal_needs_its_commitment_published_in_a_part_before() -> None:
    a, _ = part(1, 10, published={"merkle-v2:abc"})
    b, pb = part(11, 20, end=True)
    pb.defer("published", ("merkle-v2:abc",), bad("unpublished", 14), Counts())
    assert join(TABLE, [a, b])[0].rederived is None
    b, pb = part(11, 20, end=True)
    pb.defer("published", ("merkle-v2:zzz",), bad("unpublished", 14), Counts())
    assert join(TABLE, [a, b])[0].rederived == bad("unpublished", 14)


def test_the_first_finding_in_the_order_of_one_process_wins_with_its_counts() -> None:
    # The first part's last round fails when one process closes it: at the next part's
    # opening (11, phase 1), after that event's own checks (11, phase 0).
    a, _ = part(
        1,
        10,
        found=bad("last round", 9),
        key=(11, 1, 1),
        counts=Counts(rounds=4, settlements=3),
        before_end=Counts(rounds=3, settlements=3),
    )
    b, pb = part(11, 20, end=True, found=bad("leaf", 11), key=(11, 0, 1))
    checked, _ = join(TABLE, [a, b])
    assert checked.rederived == bad("leaf", 11)
    assert (checked.counts.rounds, checked.counts.settlements) == (3, 3)  # the last not closed
    b, pb = part(11, 20, end=True, found=bad("later", 17), key=(17, 1, 1))
    checked, _ = join(TABLE, [a, b])
    assert checked.rederived == bad("last round", 9)
    assert (checked.counts.rounds, checked.counts.settlements) == (4, 3)
    # a deferred check fails before the part's own finding: it comes first
    b, pb = part(11, 20, end=True, found=bad("own", 18), key=(18, 1, 3))
    pb.at(13, 0)
    pb.defer("published", ("merkle-v2:zzz",), bad("unpublished", 13), Counts(shoes=1))
    good, _ = part(1, 10, counts=Counts(shoes=2))
    checked, _ = join(TABLE, [good, b])
    assert checked.rederived == bad("unpublished", 13) and checked.counts.shoes == 3

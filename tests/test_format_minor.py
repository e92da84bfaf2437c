"""``money.format_minor``: the one money formatter (right for negative amounts)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from macau_tables.errors import ConfigError
from macau_tables.money import format_minor


@pytest.mark.parametrize(
    ("amount", "text"),
    [
        (0, "0.00"),
        (5, "0.05"),
        (-5, "-0.05"),
        (-1050, "-10.50"),
        (-100, "-1.00"),
        (-99, "-0.99"),
        (123_456_789, "1,234,567.89"),
        (-123_456_789, "-1,234,567.89"),
    ],
)
def test_two_decimals_with_grouping(amount: int, text: str) -> None:
    assert format_minor(amount) == text


def test_decimals_and_grouping_options() -> None:
    assert format_minor(1_234_567, decimals=0) == "1,234,567"
    assert format_minor(-1_234_567, decimals=0, grouping=False) == "-1234567"
    assert format_minor(-7, decimals=3) == "-0.007"


@given(st.integers(-(10**15), 10**15), st.integers(0, 4))
def test_reads_back_exactly(amount: int, decimals: int) -> None:
    """The text is the amount: parsed back (commas removed) it gives the same minor units."""
    text = format_minor(amount, decimals=decimals).replace(",", "")
    negative = text.startswith("-")
    whole, _, part = text.lstrip("-").partition(".")
    value = int(whole) * 10**decimals + (int(part) if part else 0)
    assert (-value if negative else value) == amount


@pytest.mark.parametrize("bad", [1.5, True, "10", None])
def test_refuses_what_is_not_minor_units(bad: object) -> None:
    with pytest.raises(ConfigError) as info:
        format_minor(bad)  # type: ignore[arg-type]
    assert info.value.key == "money.amount_not_minor_units"


def test_refuses_negative_decimals() -> None:
    with pytest.raises(ConfigError, match="decimals"):
        format_minor(100, decimals=-1)

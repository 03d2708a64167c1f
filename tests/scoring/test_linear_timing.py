"""The linearity harness itself: it must fail a quadratic call and pass a linear one (an
oracle that cannot fail would make every linearity test meaningless)."""

from __future__ import annotations

import pytest

from tests.scoring.linear_timing import assert_linear


def _quadratic(text: str) -> int:
    """Counts a character in every fourth prefix: about n²/8 characters read."""
    return sum(text.count("b", 0, end) for end in range(0, len(text), 4))


def test_a_quadratic_call_fails():
    with pytest.raises(AssertionError):
        assert_linear("quadratic", "ab" * 10_000, "ab" * 20_000, _quadratic)


def test_a_linear_call_passes():
    assert_linear("linear", "ab" * 1_000_000, "ab" * 2_000_000, lambda text: text.count("b"))

"""The stream-safe form (UAX #15 section 13) and linear-time normalisation."""

from __future__ import annotations

import time
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench_kit.text.normalize import normalize_for_audit, normalize_for_match
from bench_kit.text.streamsafe import CGJ, MAX_NON_STARTERS, nfkc, stream_safe

# marks of several canonical classes (the case CPython's canonical ordering sorts in O(n²)),
# and characters that decompose to two non-starters or carry a trailing one
MARKS = "\u0301\u0316\u0327\u0345\u05b0\u0f73\u0344\u093c\u1e69\u00e9\uff9e"


def longest_non_starter_run(text: str) -> int:
    """The longest run of non-starters in the NFKD form (Unicode's own tables)."""
    longest = run = 0
    for char in unicodedata.normalize("NFKD", text):
        run = run + 1 if unicodedata.combining(char) else 0
        longest = max(longest, run)
    return longest


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(MARKS + "ab "), max_size=400))
def test_no_run_passes_30_non_starters_and_short_runs_are_untouched(text) -> None:
    safe = stream_safe(text)
    assert longest_non_starter_run(safe) <= MAX_NON_STARTERS
    assert safe.replace(CGJ, "") == text  # only joiners are inserted
    if longest_non_starter_run(text) <= MAX_NON_STARTERS:
        assert safe == text
        assert nfkc(text) == unicodedata.normalize("NFKC", text)


@given(st.text(max_size=200))
def test_nfkc_equals_unicodedata_on_any_ordinary_text(text) -> None:
    if longest_non_starter_run(text) <= MAX_NON_STARTERS:
        assert nfkc(text) == unicodedata.normalize("NFKC", text)


def test_no_character_decomposes_to_more_than_3_non_starters() -> None:
    """The fast path's premise (bench_kit.text.streamsafe), for this Unicode version."""
    for code in range(0x30000):
        decomposed = unicodedata.normalize("NFKD", chr(code))
        flags = [unicodedata.combining(c) != 0 for c in decomposed]
        if all(flags):
            assert len(flags) <= 3, hex(code)
        else:
            assert flags.index(False) <= 3 and flags[::-1].index(False) <= 3, hex(code)


def _best_time(func, text: str, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        func(text)
        best = min(best, time.perf_counter() - started)
    return best


@pytest.mark.parametrize("func", [nfkc, normalize_for_match, normalize_for_audit])
def test_normalisation_is_linear_up_to_a_million_combining_marks(func) -> None:
    n = 500_000
    small, large = ("a" + "\u0301\u0316" * (size // 2) for size in (n, 2 * n))
    # The machine is shared: a round may be slowed by a neighbour, so the best of three
    # rounds counts (a quadratic cost gives 4x in every round; before: ~10 s per 100k).
    ratios = []
    for _ in range(3):
        ratios.append(_best_time(func, large) / _best_time(func, small))
        if ratios[-1] <= 2.5:
            break
    assert min(ratios) <= 2.5, ratios
    assert _best_time(func, large, 1) < 5.0

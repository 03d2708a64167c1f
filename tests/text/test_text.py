"""bench_kit.text: the two normalisations, tokens, CJK detection, numbers, edit distance."""

from __future__ import annotations

import doctest
import importlib

import pytest

from bench_kit.text.cjk import cjk_count, has_cjk
from bench_kit.text.edit import edit_ratio, levenshtein
from bench_kit.text.normalize import normalize_for_audit, normalize_for_match
from bench_kit.text.numbers import chinese_to_number, leading_number, parse_number
from bench_kit.text.tokens import edit_tokens, word_tokens


@pytest.mark.parametrize(("raw", "match", "audit"), [
    ("The answer: 3.5", "answer 3.5", "the answer 3 5"),
    ("  -12 apples ", "-12 apples", "12 apples"),
    ("1,063 FT", "1063 ft", "1 063 ft"),
    ("红色的圆？", "红色的圆", "红色的圆"),
    ("a\u3000b\tc", "b c", "a b c"),
])
def test_match_and_audit_normalisation_differ_on_numbers_and_articles(raw, match, audit):
    assert normalize_for_match(raw) == match
    assert normalize_for_audit(raw) == audit


def test_tokens() -> None:
    assert word_tokens("图中 有 red circles") == ["图", "中", "有", "red", "circles"]
    assert edit_tokens("Red, 是吗") == ["red", ",", "是", "吗"]


def test_cjk() -> None:
    assert has_cjk("出口") and not has_cjk("EXIT") and not has_cjk("")
    assert cjk_count("a红b色") == 2


@pytest.mark.parametrize(("a", "b", "distance"), [
    ("", "", 0), ("abc", "", 3), ("kitten", "sitting", 3), ("flaw", "lawn", 2)])
def test_levenshtein_is_symmetric(a, b, distance) -> None:
    assert levenshtein(a, b) == distance == levenshtein(b, a)


def test_edit_ratio_counts_tokens() -> None:
    assert edit_ratio("", "") == 0.0
    assert edit_ratio("is it red", "is it blue") == pytest.approx(1 / 3)


def test_numbers() -> None:
    assert chinese_to_number("两百") == 200 and chinese_to_number("二〇二四") == 2024
    assert parse_number("3/4") == (0.75, False) and parse_number("three apples") is None
    assert leading_number("12 cm") == 12.0 and leading_number("一百") is None
    assert leading_number("twenty") == 20.0 and leading_number("twenty-one") is None


@pytest.mark.parametrize(("text", "value"), [
    ("1 1/2", 1.5), ("-2\\frac{1}{2}", -2.5), ("1 3/2", None), ("2.5 1/2", None),
    ("\\frac {3} {4}", 0.75), ("\\frac{-3}{4}", -0.75), ("\\frac{3}{-4}", -0.75),
    ("2^{10}", 1024.0), ("2^(10)", 1024.0), ("10^-3", 0.001), ("-2^2", -4.0),
    ("3 × 10^8", 3e8), ("1.5 \\times 10^{-3}", 0.0015), ("2.5 x 10^3", 2500.0),
    ("2 × 3^2", None), ("3/4^2", None), ("10^{400}", None), ("30^\\circ", None)])
def test_mixed_numbers_and_powers_read_as_one_number(text, value) -> None:
    """A gold written as a mixed number or a power of numbers is one number (None: not one)."""
    found = parse_number(text)
    assert (found is None) if value is None else found == (pytest.approx(value), False)


def test_plain_latex() -> None:
    from bench_kit.text.latex import plain_latex
    assert plain_latex("$\\frac{1 + \\sqrt{3}}{3}$") == "(1 + sqrt(3))/3"  # nested, innermost first
    assert plain_latex("$\\dfrac{\\sqrt{3}}{2}$") == "sqrt(3)/2"
    assert plain_latex("$4.5 \\text{ cents}$") == "4.5 cents"
    assert plain_latex("$25 \\mathrm{~cm}^{2}$") == "25 cm"  # a unit's power
    assert plain_latex("x^2 + y^2") == "x^2 + y^2"  # a variable's power is kept
    assert plain_latex("$\\angle A = 30^{\\circ}$") == "angle A = 30°"
    assert plain_latex("$10 + 5\\pi$\nQuestion: next") == "10 + 5 pi\nQuestion: next"  # lines kept
    assert plain_latex("no math here") == "no math here"
    # an argument without braces is one character, as TeX reads it
    assert plain_latex("$\\frac12$") == "1/2"
    assert plain_latex("$\\frac1{4}$ and $\\tfrac{3}4$") == "1/4 and 3/4"
    assert plain_latex("$\\frac{}{2}$") == "()/2"  # an empty argument stays empty
    assert plain_latex("$\\sqrt3/2$") == "sqrt(3)/2"
    assert plain_latex("$\\frac123$") == "1/2 3"  # "\\frac12" times 3, not 1/23
    # a Unicode root reads as the LaTeX one does (word "sqrt"), with or without math
    assert plain_latex("√3/2") == "sqrt 3/2"
    assert plain_latex("2√{5}") == "2 sqrt 5"

    # blanks collapsed, a space beside a line break dropped, powers of units (fast forms)
    assert plain_latex("$2 \\,\\mathrm{cm}^{2}$. \n  \t$3\\ km^3$.\n\n x") == "2 cm .\n3 km.\n\nx"
    assert plain_latex("$5 UNITS ^ {3}$, $4 \u212am^2$, $1 xm^2$", True) == "5 UNITS³ , 4 \u212am², 1 xm^2"


def test_unit_power_pattern_matches_its_readable_form() -> None:
    """`_UNIT_POWER` (the unit's first letter before the word-boundary look-back, for speed)
    finds exactly what the readable pattern finds, on generated strings of units, case
    forms (Kelvin sign, dotted and dotless i, long s), blanks, braces and digits."""
    import random
    import re

    from bench_kit.text.latex import _UNIT_POWER

    readable = re.compile(r"\b((?i:[cmdk]?m|ft|in|yd|units?))\s*\^\s*\{?\s*([23])\s*\}?(?![0-9])")
    atoms = ["c", "C", "m", "M", "d", "k", "K", "\u212a", "f", "t", "i", "I", "\u0130", "\u0131", "n",
             "y", "u", "U", "unit", "UNITS", "s", "\u017f", "yd", "ft", "in", "cm", " ", "\n", "\t",
             "^", "{", "}", "2", "3", "x", "_", "é", "1", "(", "\u00a0"]
    rng = random.Random(0)
    for _ in range(20_000):
        text = "".join(rng.choice(atoms) for _ in range(rng.randint(1, 12)))
        assert [(m.span(), m.groups()) for m in _UNIT_POWER.finditer(text)] == \
            [(m.span(), m.groups()) for m in readable.finditer(text)], text

def test_blanks_collapse_as_the_readable_pattern() -> None:
    """`plain_latex` collapses blanks with `str.replace` passes (for speed): the same text as
    the readable `[ \\t]{2,}|\\t` -> " " (a single space left), on generated strings."""
    import random
    import re

    from bench_kit.text.latex import plain_latex

    readable = re.compile(r"[ \t]{2,}|\t")
    atoms = [" ", "  ", "\t", "\n", "\u3000", "\u00a0", "\r", "a", "$", "{", "}"]
    rng = random.Random(0)
    for _ in range(20_000):
        text = "".join(rng.choice(atoms) for _ in range(rng.randint(1, 40)))
        math = "$" + text  # (math: the reading runs)
        expected = readable.sub(" ", math.replace("$", " ").replace("{", "").replace("}", ""))
        expected = expected.replace(" \n", "\n").replace("\n ", "\n").strip()
        assert plain_latex(math) == expected, repr(math)


def test_spacing_passes_read_as_the_one_pattern() -> None:
    """The two spacing passes of `plain_latex` (a space, then nothing, no callback) give
    what the one readable pattern with a callback gives, on generated strings."""
    import random
    import re

    from bench_kit.text.latex import _NO_SPACING, _SPACING

    readable = re.compile(r"\\[!,;: ]|\\quad|\\qquad|\\left|\\right|~")
    atoms = ["\\", "!", ",", ";", ":", " ", "q", "quad", "qquad", "left", "right", "l", "~", "a"]
    rng = random.Random(0)
    for _ in range(20_000):
        text = "".join(rng.choice(atoms) for _ in range(rng.randint(1, 16)))
        expected = readable.sub(lambda m: "" if m.group() in ("\\!", "\\left", "\\right") else " ", text)
        assert _NO_SPACING.sub("", _SPACING.sub(" ", text)) == expected, repr(text)


@pytest.mark.parametrize("module", ["cjk", "edit", "latex", "normalize", "numbers", "tokens", "words"])
def test_docstring_examples(module) -> None:
    result = doctest.testmod(importlib.import_module(f"bench_kit.text.{module}"))
    assert result.failed == 0 and result.attempted > 0


def test_text_imports_nothing_above_it() -> None:
    import ast
    from pathlib import Path

    import bench_kit.text as text

    for path in Path(text.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bench_kit"):
                assert node.module.startswith("bench_kit.text"), (path.name, node.module)

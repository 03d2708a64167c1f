"""Ideas defined once, in bench_kit/text/: CJK character ranges, the number spelling,
word-bounded phrase matching and the smoothed IDF table. A copy written anywhere else in the package fails here
(the copies this replaced disagreed with each other: issue 30). So are the Chinese words the
extraction rules share (concluding words, "for example")."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import bench_kit

ROOT = Path(bench_kit.__file__).parent
TEXT = ROOT / "text"

# A CJK block edge written as an escape or a code point (U+3000 ideographic space and the
# full-width forms are other ideas: they are not matched).
CJK_RANGE = re.compile(
    r"\\u(?:3400|4dbf|4e00|9fff|9fa5|f900|faff|3040|309f|30a0|30ff|ac00|d7a3|d7af)"
    r"|\\U000[23][0-9a-f]{4}|\b0x(?:3400|4e00|9fff|9fa5|f900|ac00|3040|20000)\b", re.I)
# A phrase wrapped in word boundaries around re.escape (\b, (?<!\w), (?<![\w]),
# (?<![0-9A-Za-z_]) ...) on both sides.
BOUNDED = re.compile(r"(?:\\b|\(\?<!\[?\\w\]?\)|\(\?<!\[0-9A-Za-z_?\]\))\{re\.escape\([^)]*\)\}"
                     r"(?:\\b|\(\?!\[?\\w\]?\)|\(\?!\[0-9A-Za-z_?\]\))")


def _outside_text() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.py") if TEXT not in p.parents)


def cjk_ranges(source: str) -> list[str]:
    """CJK range edges written in `source`."""
    return CJK_RANGE.findall(source)


def bounded_matchers(source: str) -> list[str]:
    """Word-boundary regexes built around `re.escape` in `source`."""
    return BOUNDED.findall(source)


def number_spellers(source: str) -> list[str]:
    """Functions of `source` that spell a number: call `.is_integer()` and `str(int(...))`
    (the shape of every canonicaliser this replaced)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        calls = [n for n in ast.walk(node) if isinstance(n, ast.Call)]
        is_integer = any(isinstance(c.func, ast.Attribute) and c.func.attr == "is_integer"
                         for c in calls)
        str_int = any(isinstance(c.func, ast.Name) and c.func.id == "str" and c.args
                      and isinstance(c.args[0], ast.Call)
                      and isinstance(c.args[0].func, ast.Name) and c.args[0].func.id == "int"
                      for c in calls)
        if is_integer and str_int:
            found.append(node.name)
    return found


def _is_one(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == 1


def _plus_one(node: ast.AST) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and (
        _is_one(node.left) or _is_one(node.right))


def idf_tables(source: str) -> list[str]:
    """Smoothed IDF weights written in `source`: a `log((… + 1) / (… + 1))`, with any
    `log` (math, numpy), or a scikit-learn TfidfVectorizer/TfidfTransformer."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else \
            node.func.id if isinstance(node.func, ast.Name) else ""
        if name in ("TfidfVectorizer", "TfidfTransformer"):
            found.append(name)
        elif name in ("log", "log1p") and node.args:
            ratio = node.args[0]
            if isinstance(ratio, ast.BinOp) and isinstance(ratio.op, ast.Div) and \
                    _plus_one(ratio.left) and _plus_one(ratio.right):
                found.append(ast.unparse(node))
    return found


def test_the_detectors_find_the_copies_this_replaced() -> None:
    # the four CJK tables, the three number spellings, three bounded matchers (before issue 30)
    assert cjk_ranges(r'_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")') == [r"\u3400", r"\u9fff"]
    assert cjk_ranges(r'r"([\u3040-\u30ff\uac00-\ud7af])"') == [
        r"\u3040", r"\u30ff", r"\uac00", r"\ud7af"]
    assert cjk_ranges(r'"\U00020000-\U0002a6df"') == [r"\U00020000", r"\U0002a6df"]
    assert cjk_ranges('x = 0x3000  # ideographic space\ny = "\\u3000"') == []
    assert number_spellers(
        "def canonical_number(token):\n    value = float(token)\n"
        "    return str(int(value)) if value.is_integer() else repr(value)\n"
    ) == ["canonical_number"]
    assert number_spellers("def f(v):\n    return v.is_integer()\n") == []
    assert bounded_matchers(
        r'''re.search(rf"(?<![\w]){re.escape(a)}(?![\w])", clause)''') != []
    assert bounded_matchers(r'''re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", text)''') != []
    assert bounded_matchers(r'''re.search(rf"\b{re.escape(phrase)}\b(?P<rest>.*)$", c)''') != []
    # a one-sided anchor (rewriting contractions at a word start) is not a matcher
    assert bounded_matchers(r'''re.sub(rf"\b{re.escape(short)}", full, text)''') == []
    # the two IDF tables (the prior's n-gram index, the rephrase overlap)
    assert idf_tables("idf = {g: math.log((1 + n) / (1 + d)) + 1.0 for g, d in df.items()}"
                      ) == ["math.log((1 + n) / (1 + d))"]
    assert idf_tables("w = math.log((self.documents + 1) / (self.frequency.get(t, 0) + 1))"
                      ) != []
    assert idf_tables("v = TfidfVectorizer(analyzer='char')") == ["TfidfVectorizer"]
    assert idf_tables("x = math.log(level) / math.log(chance) + 1") == []
    assert idf_tables("x = math.log(1 + 0.5 / 0.25)") == []


@pytest.mark.parametrize("path", _outside_text(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_copy_outside_text(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    assert not cjk_ranges(source), (
        f"{path.name}: a CJK range written here: build it from bench_kit.text.cjk")
    assert not number_spellers(source), (
        f"{path.name}: a number spelling written here: use bench_kit.text.numbers."
        "format_number / canonical_number")
    assert not bounded_matchers(source), (
        f"{path.name}: a word-bounded match written here: use bench_kit.text.words")
    assert not idf_tables(source), (
        f"{path.name}: an IDF weight written here: use bench_kit.text.idf.Idf")


def _docstrings(tree: ast.AST) -> set[int]:
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)}


def cjk_words(source: str, words: str) -> list[str]:
    """String literals of `source` (docstrings aside) that spell any of Chinese `words` (a
    regex alternation): the copies this replaced each wrote their own alternation."""
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings and re.search(words, node.value)]


@pytest.mark.parametrize("words, home, name, copy", [
    # 所以 / 因此 / 故: "so", "therefore"
    ("所以|因此", "concluding.py", "CONCLUDES_CJK", r'_DRAWN = re.compile(r"(?:则|所以|因此|故)")'),
    # "for example"
    ("例如|比如|譬如", "prose_number.py", "EXAMPLE_CJK", r'_SLOT = re.compile(r"(?:例如|比如|e\.g\.)")'),
])
def test_the_chinese_words_are_written_once(words: str, home: str, name: str, copy: str) -> None:
    """The Chinese concluding words are spelled in concluding.py (`CONCLUDES_CJK`) only, the
    words for "for example" in prose_number.py (`EXAMPLE_CJK`) only; the rules that read them
    (a value drawn, a letter closing the response, an example's clause ended, "故选 C", the
    prompt's answer-slot example) place that alternation in their own patterns."""
    assert cjk_words(copy, words) != []  # the detector finds a copy this replaced
    assert cjk_words('def f():\n    """after "所以", "例如" …"""\n', words) == []
    for path in sorted(ROOT.rglob("*.py")):
        if path.name != home:
            assert not cjk_words(path.read_text(encoding="utf-8"), words), (
                f"{path.name}: Chinese words ({words}) written here: use {home[:-3]}.{name}")


def test_the_shared_chinese_words() -> None:
    from bench_kit.scoring.extract.concluding import CONCLUDES_CJK
    from bench_kit.scoring.extract.prose_number import EXAMPLE_CJK

    assert set(CONCLUDES_CJK.split("|")) == {"所以", "因此", "故"}
    assert set(EXAMPLE_CJK.split("|")) == {"例如", "比如", "譬如"}


@pytest.mark.parametrize("path", sorted(ROOT.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_a_check_name_is_written_once(path: Path) -> None:
    """A check gets its CheckSpec as an argument: its name appears only in `@check("…")`."""
    assert not re.findall(r"spec_of\(\s*[\"']", path.read_text(encoding="utf-8")), (
        f"{path.name}: spec_of(\"…\") repeats a check name: take the `spec` argument")

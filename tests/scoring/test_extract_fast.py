"""The keyword-anchored clause search (`last_clause`) finds the same answer clause as a
full regex scan, on every case-table input and on the benchmark's realistic responses."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from bench_kit.scoring.extract.answers import _clause_letter
from bench_kit.scoring.extract.response import (
    _CLAUSE_KEYS,
    ANSWER_CLAUSE,
    clean_response,
    last_clause,
    may_have_clause,
)

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from extract_corpus import make_corpus  # noqa: E402


def _inputs() -> list[str]:
    texts: list[str] = []
    for path in sorted((ROOT / "tests" / "cases").glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8")).get("cases", []):
            for key in ("input", "response", "pred"):
                if isinstance(case.get(key), str):
                    texts.append(case[key])
    for mix in ("short", "cot"):
        texts += [response for response, _, _ in make_corpus(1500, mix, seed=7)]
    return [clean_response(text) for text in texts]


INPUTS = _inputs()


def _scan_last(text: str):
    last = None
    if may_have_clause(text):
        for last in ANSWER_CLAUSE.finditer(text):
            pass
    return last


@pytest.mark.parametrize("chunk", range(10))
def test_anchored_choice_clause_equals_the_full_scan(chunk):
    for text in INPUTS[chunk::10]:
        assert _clause_letter(text) == _clause_letter(text, scan=True), text


@pytest.mark.parametrize("chunk", range(10))
def test_anchored_answer_clause_ends_where_the_full_scan_does(chunk):
    for text in INPUTS[chunk::10]:
        fast = last_clause(text, ANSWER_CLAUSE, _CLAUSE_KEYS)
        full = _scan_last(text)
        assert (fast.end() if fast else None) == (full.end() if full else None), text

"""Checklist cells of import rows (vlmeter style): yes/no answers in any common spelling,
and a row's checks as a list of {name, answer} objects."""

from __future__ import annotations

from typing import Any

from bench_kit.exchange.cells import RowError, blank, maybe_json

_CHECK_NAME_KEYS = ("name", "question", "check", "statement", "item", "text")
_CHECK_ANSWER_KEYS = ("answer", "gold", "label", "expected")
_TRUE = {"yes", "y", "true", "1", "是", "对"}
_FALSE = {"no", "n", "false", "0", "否", "不是"}


def parse_bool(value: Any, name: str) -> bool:
    """A yes/no answer in any common spelling (bool, yes/no, true/false, 1/0, 是/否)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise RowError(name, f"expected yes/no, got '{value}'")


def parse_checks(value: Any) -> list[dict[str, Any]]:
    """vlmeter-style checks: a list of {name|question|…, answer: yes/no} or {name: answer}."""
    value = maybe_json(value, "checks")
    if isinstance(value, dict):
        value = [{"name": k, "answer": v} for k, v in value.items()]
    if not isinstance(value, list) or not value:
        raise RowError("checks", "expected a non-empty list of {name, answer} checks")
    checks = []
    for n, check in enumerate(value):
        where = f"checks.{n}"
        if not isinstance(check, dict):
            raise RowError(where, "expected an object with a name and a yes/no answer")
        name = next((check[k] for k in _CHECK_NAME_KEYS if not blank(check.get(k))), None)
        answer = next((check[k] for k in _CHECK_ANSWER_KEYS if check.get(k) is not None), None)
        if name is None or answer is None:
            raise RowError(where, "a check needs a name (or question) and an answer")
        out = {"name": str(name), "answer": parse_bool(answer, f"{where}.answer")}
        if not blank(check.get("criteria")):
            out["criteria"] = str(check["criteria"])
        checks.append(out)
    return checks


def pair_checks(names: list[str], row: dict[str, Any]) -> list[dict[str, Any]]:
    """Check texts in one list and their yes/no answers in `answers`, position by position."""
    answers = maybe_json(row.pop("answers", None) or row.pop("answer", None), "answers")
    if not isinstance(answers, list) or len(answers) != len(names):
        raise RowError("answers", f"{len(names)} check texts need a list of {len(names)} "
                                  "yes/no answers")
    return [{"name": name, "answer": answer} for name, answer in zip(names, answers)]



"""Shared test helpers: item rows and small synthetic images."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

CASES = Path(__file__).parent / "cases"

# Test modules share helpers across folders (`from test_runner import make_bench`): every
# test folder is importable, whichever file pytest happens to collect first.
for _folder in sorted(p for p in Path(__file__).parent.rglob("*") if p.is_dir()
                      and p.name not in ("cases", "fixtures", "__pycache__")
                      and "fixtures" not in p.parts):
    if str(_folder) not in sys.path:
        sys.path.append(str(_folder))


def make_item(**overrides: Any) -> dict[str, Any]:
    """A valid item row (dict) with sensible defaults; override any field."""
    row: dict[str, Any] = {
        "id": "q1",
        "image": None,
        "question": "How many red circles are there?",
        "task": "numeric",
        "answers": ["2"],
        "capability": "perception.count",
        "layer": "perception",
        "difficulty": "easy",
        "created_at": "2026-11-01T00:00:00Z",
    }
    row.update(overrides)
    return row


@pytest.fixture
def item_row():
    """Factory fixture returning valid item dicts."""
    return make_item


def write_png(path: Path, colour: tuple[int, int, int] = (200, 30, 30),
              size: tuple[int, int] = (64, 48)) -> Path:
    """Write a solid-colour PNG and return its path."""
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, colour).save(path)
    return path


def cases(name: str) -> list:
    """The cases of tests/cases/<name>.json, each merged over the file's defaults."""
    table = json.loads((CASES / f"{name}.json").read_text(encoding="utf-8"))
    names = [case["name"] for case in table["cases"]]
    assert len(names) == len(set(names)), f"{name}.json: duplicate case names"
    defaults = table.get("defaults", {})
    return [pytest.param({**defaults, **case}, id=case["name"]) for case in table["cases"]]


def review_probes(name: str) -> list:
    """The probes of tests/cases/<name>.json (a review's, with its careful answers); a
    recorded disagreement ("bench_kit") is a strict expected failure."""
    table = json.loads((CASES / f"{name}.json").read_text(encoding="utf-8"))
    return [pytest.param(case, id=case["probe"], marks=[pytest.mark.xfail(
        strict=True, reason=f"reads {case['bench_kit']!r}")] if "bench_kit" in case else [])
        for case in table["cases"]]


def shape_obj(oid: str, shape: str, colour: str, size: str, bbox: list[int]) -> dict[str, Any]:
    """One object annotation of a shapes scene."""
    return {"id": oid, "shape": shape, "colour": colour, "size": size, "bbox": bbox}


def without_cached(path: Path) -> list[dict[str, Any]]:
    """A predictions file's rows without `cached` (which says whether THAT run took the
    answer from the call cache, so a re-run from the cache differs only there)."""
    rows = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]
    return [{k: v for k, v in row.items() if k != "cached"} for row in rows]


def import_json_rows(folder: Path, rows: list[dict[str, Any]], *extra: str,
                     capability: str = "understanding.chat"):
    """Write `rows` as `folder/chats.jsonl` and run `bench-kit import jsonl` on it into
    `folder/o/items.jsonl`; (click result, source path, items path)."""
    from click.testing import CliRunner

    from bench_kit.cli import cli

    src = folder / "chats.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = folder / "o" / "items.jsonl"
    result = CliRunner().invoke(cli, ["import", "jsonl", str(src), "--out", str(out),
                                      "--capability", capability, *extra])
    return result, src, out

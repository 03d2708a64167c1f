"""bench_kit's agreement with the readers' intent labels never falls below its floors, on every
labelled set and family (tests/cases/intent_floors.json; totals only, no row printed). The
guard against a rule that helps the sets it was tuned on and silently breaks another: the
prompt-echo rule cut report6's multiple choice from 2092 to 1301/2100 for two sessions while
every tuning figure held."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FLOORS = ROOT / "tests" / "cases" / "intent_floors.json"


def _agreement():
    spec = importlib.util.spec_from_file_location("intent_agreement_floors",
                                                  ROOT / "benchmarks" / "intent_agreement.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


@pytest.fixture(scope="module")
def measured():
    module = _agreement()
    return module, module.all_totals()


def test_no_agreement_falls_below_its_floor(measured):
    floors = json.loads(FLOORS.read_text(encoding="utf-8"))["floors"]
    totals = measured[1]
    assert set(totals) == set(floors), "a set or family was added or removed: regenerate the floors"
    fallen = [f"{key}: {totals[key]['agree']}/{totals[key]['rows']} < floor {floor['agree']}/{floor['rows']}"
              for key, floor in sorted(floors.items())
              if totals[key]["rows"] != floor["rows"] or totals[key]["agree"] < floor["agree"]]
    assert not fallen, "\n".join(fallen)


def test_floors_option_writes_every_total_and_keeps_the_source(measured, tmp_path, monkeypatch):
    """`intent_agreement.py --floors PATH` writes the totals as the floors, keeping the file's
    "source" text (and writes a new file with an empty one)."""
    module, totals = measured
    monkeypatch.setattr(module, "all_totals", lambda: dict(totals))
    path = tmp_path / "floors.json"
    path.write_text(json.dumps({"source": "why these floors", "floors": {}}), encoding="utf-8")
    module.write_floors(path)
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written == {"source": "why these floors", "floors": dict(sorted(totals.items()))}
    assert list(written["floors"]) == sorted(written["floors"])
    fresh = tmp_path / "new.json"
    module.write_floors(fresh)
    assert json.loads(fresh.read_text(encoding="utf-8"))["source"] == ""

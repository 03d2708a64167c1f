"""bench_kit's agreement with the readers' intent labels never falls below its floors, on every
labelled set and family (tests/cases/intent_floors.json; totals only, no row printed). The
guard against a rule that helps the sets it was tuned on and silently breaks another: the
prompt-echo rule cut report6's multiple choice from 2092 to 1301/2100 for two sessions while
every tuning figure held."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FLOORS = ROOT / "tests" / "cases" / "intent_floors.json"


def _agreement():
    spec = importlib.util.spec_from_file_location("intent_agreement_floors",
                                                  ROOT / "benchmarks" / "intent_agreement.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_no_agreement_falls_below_its_floor():
    floors = json.loads(FLOORS.read_text(encoding="utf-8"))["floors"]
    totals = _agreement().all_totals()
    assert set(totals) == set(floors), "a set or family was added or removed: regenerate the floors"
    fallen = [f"{key}: {totals[key]['agree']}/{totals[key]['rows']} < floor {floor['agree']}/{floor['rows']}"
              for key, floor in sorted(floors.items())
              if totals[key]["rows"] != floor["rows"] or totals[key]["agree"] < floor["agree"]]
    assert not fallen, "\n".join(fallen)

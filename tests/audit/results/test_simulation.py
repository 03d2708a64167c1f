"""The model audits on a simulated panel with known truth (bench_kit/audit/results/
simulation.py): the 6-model targets of docs/MODEL_AUDITS.md, on seeds the thresholds were
not chosen on."""

from __future__ import annotations

import pytest

from bench_kit.audit.results.simulation import (
    TASKS,
    format_table,
    pool,
    rates,
    run_simulation,
    simulate_panel,
)

HELD_OUT_SEEDS = (1, 2, 3)


@pytest.fixture(scope="module")
def six_models() -> dict:
    results = pool([run_simulation(6, seed) for seed in HELD_OUT_SEEDS])
    print("\n" + format_table({6: results}))
    return results


def test_panel_has_parse_failures_error_rows_and_every_class():
    panel = simulate_panel(3, seed=1)
    rows = [r for run in panel.rows.values() for r in run]
    assert any(r["error"] for r in rows) and any(r["parse"] == "failed" and not r["error"]
                                                 for r in rows)
    truths = {i.truth for i in panel.items}
    assert truths == {"text_answerable", "prior_answerable", "vision_required", "wrong_gold",
                      "ambiguous", "hard_correct"}
    assert len(panel.rows) == 3 * 4  # image, no_image, blank_image + a base model each


def test_text_answerable_including_prior_answerable(six_models):
    recall, precision = rates(six_models["text_answerable"])
    assert recall >= 0.85 and precision >= 0.95
    assert rates(six_models["prior_answerable"])[1] >= 0.95


def test_suspect_gold_on_mc(six_models):
    recall, precision = rates(six_models["suspect_gold_mc"])
    assert recall >= 0.8 and precision >= 0.9
    assert six_models["hard_correct_flagged"] <= 1


@pytest.mark.parametrize("task", TASKS)
def test_vision_required_at_chance_for_every_task(six_models, task):
    recall, precision = rates(six_models[f"vision_required_{task}"])
    assert recall >= 0.8 and precision >= 0.9

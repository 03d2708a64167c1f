"""Model-based audits: blind panel, MG/ML, disagreement, Rasch difficulty, robustness,
extraction sensitivity, and `bench-kit audit results` end to end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import make_item as _make_item

from bench_kit.audit.results.chance import chance_rates
from bench_kit.audit.results.difficulty import fit_rasch
from bench_kit.audit.results.inputs import ResultsAuditParams, read_score_table
from bench_kit.audit.results.significance import binomial_p_greater
from bench_kit.cli import cli
from bench_kit.errors import InputError
from bench_kit.types import Item

MC = {"task": "mc", "choices": {"A": "red", "B": "blue", "C": "green", "D": "black"},
      "answers": ["A"], "capability": "perception.colour"}
YESNO = {"task": "yesno", "answers": ["yes"], "capability": "understanding.spatial",
         "layer": "understanding"}

# A run: (extracted, hit) or (extracted, hit, parse).
Run = tuple


def make_item(**fields):
    """An item row with an image (the blind panel judges items with an image)."""
    return _make_item(**{"image": "img/q.png", **fields})


def write_items(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def write_scores(folder: Path, table: dict[str, dict[str, dict[str, Run]]]) -> Path:
    """scores/<model>/<mode>.jsonl from {model: {mode: {id: (extracted, hit[, parse])}}}."""
    for model, modes in table.items():
        for mode, rows in modes.items():
            lines = []
            for item_id, run in rows.items():
                extracted, hit = run[0], run[1]
                parse = run[2] if len(run) > 2 else ("ok" if extracted is not None else "failed")
                lines.append(json.dumps({"id": item_id, "model": model, "mode": mode,
                                         "metric": "accuracy", "extracted": extracted,
                                         "parse": parse, "score": float(hit), "hit": hit,
                                         "error": None}))
            path = folder / model / f"{mode}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def panel_scores(answers: dict[str, list[str | None]], gold: dict[str, str],
                 mode: str = "image") -> dict[str, dict[str, dict[str, Run]]]:
    """{id: [answer of model m0, m1, ...]} -> a score table in one mode."""
    table: dict[str, dict[str, dict[str, Run]]] = {}
    for item_id, votes in answers.items():
        for n, vote in enumerate(votes):
            table.setdefault(f"m{n}", {}).setdefault(mode, {})[item_id] = \
                (vote, vote == gold[item_id])
    return table


def run_audit(tmp_path: Path, items: list[dict], scores: dict, params: str = "",
              *extra: str) -> tuple[dict, list[dict]]:
    write_items(tmp_path / "items.jsonl", items)
    write_scores(tmp_path / "scores", scores)
    (tmp_path / "params.yaml").write_text("audit_results:\n  expansion: false\n" + params)
    result = CliRunner().invoke(cli, ["audit", "results", "--items", str(tmp_path / "items.jsonl"),
                                      "--scores", str(tmp_path / "scores"),
                                      "--out", str(tmp_path / "out"),
                                      "--params", str(tmp_path / "params.yaml"), *extra])
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "out/model_summary.json").read_text())
    findings = [json.loads(line) for line in
                (tmp_path / "out/model_findings.jsonl").read_text().splitlines()]
    return summary, findings


def by_check(findings: list[dict], check: str) -> dict[str, dict]:
    return {f["id"]: f for f in findings if f["check"] == check}


# --- blind panel ---------------------------------------------------------------------------


def test_binomial_p_greater_matches_the_exact_tail():
    assert binomial_p_greater(4, 4, 0.25) == pytest.approx(0.25 ** 4)
    assert binomial_p_greater(3, 4, 0.5) == pytest.approx(5 / 16)
    assert binomial_p_greater(0, 5, 0.3) == 1.0


def test_chance_rates_per_task():
    items = [Item.model_validate(make_item(id="mc3", task="mc", answers=["A"],
                                           choices={"A": "x", "B": "y", "C": "z"})),
             Item.model_validate(make_item(id="yn", **YESNO)),
             *[Item.model_validate(make_item(id=f"n{i}", answers=[gold], source="template:count"))
               for i, gold in enumerate(["2", "2", "2", "3"])],
             *[Item.model_validate(make_item(id=f"o{i}", answers=[str(i)], source="template:many"))
               for i in range(6)]]
    rates = chance_rates(items)
    assert rates["mc3"] == pytest.approx(1 / 3)
    assert rates["yn"] == 0.5
    # an uninformed guesser: uniform over the group's answers, at least open_min_options (4)
    # of them -- not the share of the most common gold (that is the prior, tested apart)
    assert rates["n3"] == pytest.approx(0.25)
    assert rates["o0"] == pytest.approx(1 / 6)


# item -> (item fields, blind hits of 4 models, expected verdict)
BLIND_CASES = {
    "mc_all_blind": (MC, [True] * 4, "text_answerable"),
    "mc_none_blind": (MC, [False] * 4, "vision_required"),
    "mc_three": (MC, [True, True, True, False], "review"),   # p = 0.051: not text (q), not chance
    # 4/6 on a coin-flip item is consistent with guessing (p = 0.34): vision_required,
    # which the old absolute threshold (blind fraction <= 0.25) could never say for yes/no
    "yesno_lucky": (YESNO, [True, True, True, True, False, False], "vision_required"),
    "yesno_chance": (YESNO, [True, True, False, False, False, False], "vision_required"),
    # four models on a yes/no item: even 4/4 has p = 0.0625 >= fdr, so no verdict either
    # way (neither text_answerable nor vision_required); five models would be needed
    "yesno_small_panel": (YESNO, [False] * 4, "undetermined"),
}


def test_blind_panel_verdicts_are_relative_to_chance(tmp_path):
    items = [make_item(id=name, **fields) for name, (fields, _, _) in BLIND_CASES.items()]
    scores: dict = {}
    for name, (fields, hits, _) in BLIND_CASES.items():
        gold = fields["answers"][0]
        for n, hit in enumerate(hits):
            answer = gold if hit else ("B" if fields["task"] == "mc" else "no")
            mode = "no_image" if n % 2 == 0 else "blank_image"
            scores.setdefault(f"m{n}", {}).setdefault(mode, {})[name] = (answer, hit)
    summary, findings = run_audit(tmp_path, items, scores)
    stats = {json.loads(line)["id"]: json.loads(line)
             for line in (tmp_path / "out/item_stats.jsonl").read_text().splitlines()}
    for name, (_, hits, verdict) in BLIND_CASES.items():
        assert stats[name]["verdict"] == verdict, name
        assert stats[name]["blind_hits"] == sum(hits)
        assert (stats[name]["q_value"] is None) == (verdict == "undetermined")
    answerable = by_check(findings, "redundancy.text_answerable")
    assert set(answerable) == {"mc_all_blind"}
    evidence = answerable["mc_all_blind"]["evidence"]
    assert evidence["p_value"] == pytest.approx(0.25 ** 4, abs=1e-6)
    assert evidence["q_value"] == pytest.approx(5 * 0.25 ** 4, abs=1e-4)  # BH over 5 items
    assert evidence["statistic"] == "blind_model_hits" and evidence["gain"] == 1.0
    assert set(by_check(findings, "redundancy.blind_review")) == {"mc_three"}
    assert summary["blind_panel"]["overall"]["text_answerable"] == 1
    assert summary["blind_panel"]["overall"]["vision_required"] == 3
    assert summary["blind_panel"]["hits_by_run"]["m0/no_image"]["hits"] == 4


def test_blind_parse_failures_are_not_trials(tmp_path):
    # 4 blind runs: 3 right, 1 unparseable -> 3/3, not 3/4
    runs = [("A", True), ("A", True), ("A", True), (None, False, "failed")]
    scores = {f"m{n}": {"no_image": {"q": run}} for n, run in enumerate(runs)}
    run_audit(tmp_path, [make_item(id="q", **MC)], scores)
    stats = json.loads((tmp_path / "out/item_stats.jsonl").read_text())
    assert (stats["blind_hits"], stats["blind_runs"], stats["parse_failed"]) == (3, 3, 1)


def test_prior_answerable_template_is_its_own_finding(tmp_path):
    # every "how many are absent?" item answers 0; a blind guesser of the prior gets them all
    absent = [make_item(id=f"absent{i}", answers=["0"], source="template:absent_count")
              for i in range(8)]
    varied = [make_item(id=f"count{i}", answers=[str(i % 5)], source="template:count")
              for i in range(10)]
    items = absent + varied
    blind = {item["id"]: ("0", item["answers"] == ["0"]) for item in items}
    scores = {f"m{n}": {"no_image": blind, "image": {i["id"]: (i["answers"][0], True)
                                                      for i in items}} for n in range(3)}
    summary, findings = run_audit(tmp_path, items, scores)
    prior = by_check(findings, "redundancy.prior_answerable")
    assert set(prior) == {f"absent{i}" for i in range(8)}
    evidence = prior["absent0"]["evidence"]
    assert evidence["share"] == 1.0 and evidence["majority_answer"] == "0"
    assert evidence["answer_space"] == 4           # at least open_min_options answers
    assert evidence["p_value"] == pytest.approx(4 * 0.25 ** 8, rel=1e-3)
    assert evidence["q_value"] < 0.05
    # the old chance (the majority share, 1.0) made these unflaggable; now they are counted
    assert summary["blind_panel"]["overall"]["prior_answerable"] == 8
    templates = summary["prior_by_template"]
    assert templates[0]["group"] == "template:absent_count|numeric"
    assert templates[0]["prior_accuracy"] == 1.0 and templates[0]["skewed"] is True
    assert summary["false_calls"]["redundancy.prior_answerable"]["calls"] == 8
    stats = {json.loads(line)["id"]: json.loads(line)
             for line in (tmp_path / "out/item_stats.jsonl").read_text().splitlines()}
    assert stats["absent0"]["verdict"] == "prior_answerable"
    assert stats["absent0"]["prior_share"] == 1.0 and stats["count1"]["prior_share"] is None
    assert stats["absent0"]["prior_q_value"] < 0.05 and stats["count1"]["prior_p_value"] == 1.0


def test_vision_gain_and_leakage_per_model_and_capability(tmp_path):
    items = [make_item(id=f"c{i}", **MC) for i in range(4)] + \
            [make_item(id=f"s{i}", **YESNO) for i in range(2)]
    right = {f"c{i}": ("A", True) for i in range(4)} | {f"s{i}": ("yes", True) for i in range(2)}
    wrong = {f"c{i}": ("B", False) for i in range(4)} | {f"s{i}": ("no", False) for i in range(2)}
    scores = {
        "vlm": {"image": right,
                "no_image": {**wrong, "c0": ("A", True), "c1": ("A", True)}},
        "llm": {"no_image": {**wrong, "c0": ("A", True)}},
    }
    summary, _ = run_audit(tmp_path, items, scores, "  base_models: {vlm: llm}\n",
                           "--metrics", str(tmp_path / "m/model_audit.json"))
    vlm = summary["vision_gain"]["vlm"]
    assert vlm["mg"] == pytest.approx(1 - 2 / 6, abs=1e-5)
    assert vlm["ml"] == pytest.approx(2 / 6 - 1 / 6, abs=1e-5)
    assert vlm["by_capability"]["perception.colour"] == {"mg": 0.5, "ml": 0.25}
    assert vlm["by_capability"]["understanding.spatial"] == {"mg": 1.0, "ml": 0.0}
    assert summary["vision_gain"]["llm"]["mg"] is None
    metrics = json.loads((tmp_path / "m/model_audit.json").read_text())
    assert metrics["models"]["vlm"]["ml"] == pytest.approx(1 / 6, abs=1e-5)


# --- disagreement --------------------------------------------------------------------------


def test_suspect_gold_and_model_split(tmp_path):
    answers = {
        "popular_wrong": ["B"] * 7 + ["C"],            # 7/8 on B, gold A -> warn
        "unanimous_wrong": ["C"] * 8,                   # 8/8 -> error
        "split": ["A"] * 4 + ["B"] * 4,                 # 4 vs 4
        **{f"agree_right{i}": ["A"] * 8 for i in range(5)},
    }
    items = [make_item(id=name, **MC) for name in answers]
    summary, findings = run_audit(tmp_path, items, panel_scores(answers, {k: "A" for k in answers}))
    suspect = by_check(findings, "label.suspect_gold")
    assert set(suspect) == {"popular_wrong", "unanimous_wrong"}
    assert suspect["popular_wrong"]["severity"] == "warn"
    evidence = suspect["popular_wrong"]["evidence"]
    assert evidence["popular_answer"] == "B" and evidence["votes"] == {"B": 7, "C": 1}
    assert evidence["statistic"] == "gold_likelihood_ratio"
    assert evidence["likelihood_ratio"] > 1 and evidence["posterior_wrong"] > 0.9
    # the queue's q: the mean local fdr of the items ranked at or above it
    assert evidence["q_value"] <= evidence["local_fdr"] and evidence["q_value"] < 0.1
    assert {suspect[k]["evidence"]["rank"] for k in suspect} == {1, 2}
    assert suspect["unanimous_wrong"]["severity"] == "error"
    split = by_check(findings, "ambiguity.model_split")
    assert set(split) == {"split"}
    assert split["split"]["evidence"]["answers"] == ["A", "B"]
    assert "q_value" in split["split"]["evidence"]
    assert summary["findings"]["label.suspect_gold"]["error"] == 1
    assert summary["false_calls"]["label.suspect_gold"]["calls"] == 2
    assert summary["label_tests"]["review_queue"]["listed"] == 2


def test_agreement_a_coin_could_explain_is_not_suspect(tmp_path):
    answers = {"yn": ["no", "no", "yes"]}  # 2/3 >= 60%, but p = 0.5 for yes/no guessers
    summary, findings = run_audit(tmp_path, [make_item(id="yn", **YESNO)],
                                  panel_scores(answers, {"yn": "yes"}))
    assert not by_check(findings, "label.suspect_gold")
    # the review queue ranked the one item with a panel and flagged nothing, at label_fdr
    assert summary["label_tests"]["review_queue"] == {
        "method": "dawid_skene", "level": 0.1, "ranked": 1, "flagged": 0, "listed": 0}


def test_hard_item_with_scattered_misses_is_not_suspect(tmp_path):
    # 4 of 6 on one distractor happens about one time in nine when misses scatter
    answers = {"hard": ["B", "B", "B", "B", "C", "D"]}
    _, findings = run_audit(tmp_path, [make_item(id="hard", **MC)],
                            panel_scores(answers, {"hard": "A"}))
    assert not by_check(findings, "label.suspect_gold")


# --- observed difficulty -------------------------------------------------------------------


def test_rasch_fit_recovers_simulated_difficulties():
    import numpy as np

    rng = np.random.default_rng(0)
    ability, difficulty = rng.normal(0, 1, 40), rng.normal(0, 1.2, 120)
    prob = 1 / (1 + np.exp(-(ability[:, None] - difficulty[None, :])))
    data = (rng.random(prob.shape) < prob).astype(float)
    data[rng.random(data.shape) < 0.05] = np.nan  # some missing cells
    theta, b = fit_rasch(data)
    assert np.corrcoef(b, difficulty)[0, 1] > 0.9
    assert np.corrcoef(theta, ability)[0, 1] > 0.9
    assert abs(b.mean()) < 1e-6


def test_difficulty_mismatch_and_authored_vs_observed_table(tmp_path):
    hits = {"hard_but_easy": [True] * 5, "easy_but_hard": [False] * 5,
            "hard_ok": [False, False, True, False, False], "easy_ok": [True] * 5}
    items = [make_item(id=name, difficulty=name.split("_")[0], **MC) for name in hits]
    answers = {name: ["A" if h else "B" for h in row] for name, row in hits.items()}
    summary, findings = run_audit(tmp_path, items, panel_scores(answers, {k: "A" for k in hits}))
    mismatch = by_check(findings, "label.difficulty_mismatch")
    assert set(mismatch) == {"hard_but_easy", "easy_but_hard"}
    assert mismatch["hard_but_easy"]["evidence"]["observed_accuracy"] == 1.0
    table = summary["difficulty"]["by_capability"]["perception.colour"]
    assert table["easy"]["observed_accuracy"] == 0.5 and table["hard"]["items"] == 2
    assert summary["difficulty"]["rasch_fitted"] is True  # 5 models
    assert table["hard"]["rasch_difficulty"] is not None


# --- robustness and extraction sensitivity -------------------------------------------------


def test_variant_robustness_consistency_flips_and_gap(tmp_path):
    items = [make_item(id="f1", **MC),
             make_item(id="f1.v1", variant="v1", variant_of="f1", variant_kind="synonym", **MC),
             make_item(id="f1.v2", variant="v2", variant_of="f1", variant_kind="negation", **MC),
             make_item(id="f2", **MC),
             make_item(id="f2.v1", variant="v1", variant_of="f2", variant_kind="synonym", **MC)]
    runs = {"f1": ("A", True), "f1.v1": ("A", True), "f1.v2": ("B", False),
            "f2": ("A", True), "f2.v1": ("A", True)}
    summary, _ = run_audit(tmp_path, items, {"vlm": {"image": runs}})
    rob = summary["robustness"]["by_model"]["vlm"]
    assert rob["families"] == 2 and rob["consistency"] == 0.5
    assert rob["flip_rate"] == pytest.approx(1 / 3, abs=1e-4)
    assert rob["by_variant_kind"]["negation"] == {"n": 1, "v0_accuracy": 1.0, "accuracy": 0.0,
                                                  "gap": 1.0}
    assert rob["by_variant_kind"]["synonym"]["gap"] == 0.0


def test_extraction_sensitivity_lists_items_won_by_lenient_parsing(tmp_path):
    items = [make_item(id=f"i{n}", **MC) for n in range(4)]
    runs = {"i0": ("A", True, "ok"), "i1": ("A", True, "lenient"), "i2": ("A", True, "judge"),
            "i3": (None, False, "failed")}
    summary, _ = run_audit(tmp_path, items, {"vlm": {"image": runs}})
    sens = summary["extraction_sensitivity"]
    run = sens["by_run"]["vlm/image"]
    assert run["accuracy"] == 0.75 and run["accuracy_strict"] == 0.25
    assert run["loose_share_of_score"] == pytest.approx(2 / 3, abs=1e-4)
    assert [row["id"] for row in sens["items"]] == ["i1", "i2"]


# --- inputs, params, determinism -----------------------------------------------------------


def test_output_is_byte_identical_on_rerun(tmp_path):
    answers = {"q": ["A", "B", "B"]}
    items = [make_item(id="q", **MC)]
    run_audit(tmp_path, items, panel_scores(answers, {"q": "A"}))
    first = {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()}
    run_audit(tmp_path, items, panel_scores(answers, {"q": "A"}))
    assert first == {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()}
    assert set(first) == {"model_findings.jsonl", "model_summary.json", "item_stats.jsonl",
                          "answer_candidates.csv"}


def test_score_row_for_unknown_item_is_an_input_error(tmp_path):
    write_scores(tmp_path / "scores", {"m": {"image": {"ghost": ("A", True)}}})
    items = [Item.model_validate(make_item(id="q", **MC))]
    with pytest.raises(InputError, match="ghost"):
        read_score_table(items, tmp_path / "scores")


@pytest.mark.parametrize("params, message", [
    ("audit_results:\n  alpah: 0.1\n", "audit_results.alpah: unknown key"),
    ("audit_results:\n  fdr: 1.5\n", "audit_results.fdr"),
])
def test_bad_params_are_one_line_errors(tmp_path, params, message):
    write_items(tmp_path / "items.jsonl", [make_item(id="q", **MC)])
    write_scores(tmp_path / "scores", {"m": {"image": {"q": ("A", True)}}})
    (tmp_path / "params.yaml").write_text(params)
    result = CliRunner().invoke(cli, ["audit", "results", "--items", str(tmp_path / "items.jsonl"),
                                      "--scores", str(tmp_path / "scores"), "--out",
                                      str(tmp_path / "out"), "--params",
                                      str(tmp_path / "params.yaml")])
    assert result.exit_code == 1
    assert message in result.output and "Traceback" not in result.output


def test_params_defaults_are_documented_levels():
    params = ResultsAuditParams()
    assert (params.fdr, params.label_fdr, params.text_answerable_gain,
            params.vision_required_p, params.suspect_gold) == (0.05, 0.1, 0.4, 0.1, 0.6)


def test_runs_outside_a_project_with_base_model_on_the_command_line(tmp_path, monkeypatch):
    items = [make_item(id=f"c{i}", **MC) for i in range(4)]
    right = {f"c{i}": ("A", True) for i in range(4)}
    wrong = {f"c{i}": ("B", False) for i in range(4)}
    write_items(tmp_path / "items.jsonl", items)
    write_scores(tmp_path / "scores", {"vlm": {"image": right, "no_image": {**wrong,
                                                                            "c0": ("A", True)}},
                                       "llm": {"no_image": wrong}})
    monkeypatch.chdir(tmp_path)  # no params.yaml here
    result = CliRunner().invoke(cli, ["audit", "results", "--items", "items.jsonl", "--scores",
                                      "scores", "--out", "out", "--base-model", "vlm=llm"])
    assert result.exit_code == 0, result.output
    assert "default thresholds" in result.output
    assert "vlm: MG +75.0 pts, ML vs llm 25.0 pts" in result.output
    summary = json.loads((tmp_path / "out/model_summary.json").read_text())
    assert summary["vision_gain"]["vlm"]["ml"] == 0.25
    bad = CliRunner().invoke(cli, ["audit", "results", "--items", "items.jsonl", "--scores",
                                   "scores", "--out", "out", "--base-model", "vlm"])
    assert bad.exit_code != 0 and "VISION_MODEL=BASE_MODEL" in bad.output


def test_every_model_check_is_documented():
    from bench_kit.audit.results import stage  # noqa: F401  (registers every check)
    from bench_kit.audit.results.inputs import MODEL_CHECKS

    doc = (Path(__file__).resolve().parents[3] / "docs/MODEL_AUDITS.md").read_text()
    assert MODEL_CHECKS.names() and all(f"`{name}`" in doc for name in MODEL_CHECKS.names())

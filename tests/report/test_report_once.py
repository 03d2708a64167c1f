"""Each number once, one population per section: blind baselines whose modes answered
identically are shown once, blind-vs-blind comparisons are dropped, audit counts are the
report's split, every section names its population, and the first sentence follows its rule."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

import pytest
from test_report import _build

from bench_kit.io import read_jsonl, write_json, write_jsonl
from bench_kit.report.answer import NO_AUDIT, NO_LANGUAGE_MODEL, _verdict
from bench_kit.report.inputs import ReportSettings
from bench_kit.report.render import write_report
from bench_kit.scoring.aggregate import model_metrics
from bench_kit.types import Item, Prediction, Score


def _add_blind(paths: dict[str, Path], model: str, answer_right: set[str],
               modes: tuple[str, ...] = ("no_image", "blank_image")) -> None:
    """A blind baseline that gives the same answers in every mode it runs."""
    items = [Item.model_validate(r) for r in read_jsonl(paths["items"])]
    modes = {mode: [Score(id=i.id, model=model, mode=mode, metric="exact", extracted="A",
                          parse="ok", score=float(i.id in answer_right),
                          hit=i.id in answer_right) for i in items]
             for mode in modes}
    predictions = {mode: [Prediction(id=s.id, model=model, mode=mode, prompt_sha="p",
                                     response="A", created_at=datetime(2026, 1, 1,
                                                                       tzinfo=timezone.utc))
                          for s in rows] for mode, rows in modes.items()}
    for mode, rows in modes.items():
        write_jsonl(paths["scores"] / model / f"{mode}.jsonl", rows)
        write_jsonl(paths["results"] / model / f"{mode}.jsonl", predictions[mode])
    write_json(paths["metrics"] / f"{model}.json",
               model_metrics(model, items, modes, predictions))


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> tuple[str, str]:
    root = tmp_path_factory.mktemp("once")
    paths = _build(root)
    _add_blind(paths, "prior", {"x4"})
    _add_blind(paths, "text-only", {"x2", "x4"})
    # a finding on an item of another split: not counted in this report's audit section
    findings = paths["audit"] / "findings.jsonl"
    with findings.open("a", encoding="utf-8") as out:
        out.write('{"id": "other-split", "check": "ambiguity.html", "severity": "error", '
                  '"score": 1.0, "message": "elsewhere", "evidence": {}}\n')
    write_report(paths["items"], paths["scores"], paths["metrics"], paths["out"],
                 results_dir=paths["results"], audit_dir=paths["audit"],
                 settings=ReportSettings(thumbnail_px=0, plots=False))
    return ((paths["out"] / "report.html").read_text(encoding="utf-8"),
            (paths["out"] / "report.md").read_text(encoding="utf-8"))


def _section(md: str, heading: str) -> str:
    start = md.index(heading)
    end = md.find("\n## ", start + 1)
    return md[start:end if end > 0 else None]


def test_a_blind_baseline_with_identical_modes_is_shown_once(report):
    html, md = report
    board = _section(md, "## Leaderboard")
    assert board.count("| prior | no\\_image = blank\\_image |") == 1
    assert "| prior | blank\\_image |" not in md and "| prior | no\\_image |" not in md
    extraction = _section(md, "## Answer extraction")
    assert extraction.count("| prior |") == 1
    per_model = _section(md, "## Model: prior")
    assert "no\\_image = blank\\_image accuracy" in per_model
    assert "blank\\_image accuracy" not in per_model.replace("= blank\\_image accuracy", "")
    # a model that sees the image keeps its modes apart
    assert "| alpha | image |" in board and "| alpha | no\\_image |" in board


def test_pairwise_only_within_a_mode_and_with_a_model_that_sees(report):
    _, md = report
    pairs = [line for line in _section(md, "## Pairwise comparisons").splitlines()
             if re.match(r"\| (image|no\\_image|blank\\_image) \|", line)]
    names = [tuple(line.split(" | ")[:3]) for line in pairs]
    assert ("| no\\_image", "prior", "text-only") not in names  # blind vs blind: dropped
    assert ("| no\\_image", "alpha", "prior") in names  # alpha also ran with the image
    assert not any(n[0] == "| blank\\_image" for n in names)  # only blind models there
    # image: alpha-beta; no_image: alpha-prior, alpha-text-only
    assert "Holm-corrected across 3 comparisons" in md and len(pairs) == 3


def test_audit_counts_are_the_reports_split(report):
    html, md = report
    audit = _section(md, "## Audit")
    assert audit.startswith("## Audit (items, 4 items)")
    # 3 findings on the split's items; the other split's error is counted apart
    assert "On the items split: 3 finding(s); 1 item(s) flagged" in audit
    assert "outside this split (1)" in audit and "elsewhere" not in md
    assert "| ambiguity.html | 1 | 1 | 0 | 0 |" in audit
    assert "Whole audited file (all splits):" in audit  # the file's own summary, secondary
    assert "<details><summary>Whole audited file (all splits)</summary>" in html


def test_every_section_names_its_population(report):
    _, md = report
    headings = re.findall(r"^## (.+)$", md, flags=re.MULTILINE)
    unnamed = [h for h in headings if "(items" not in h
               and h not in ("Do these scores reflect vision?",)
               and not h.startswith("Model: ")]
    assert unnamed == []
    # one section per idea
    for once in ("## Vision gain", "## Variant robustness", "| gain (image − no_image) |"):
        assert md.count(once) == 1, once


def test_the_first_sentence_and_its_rule(report):
    _, md = report
    answer = _section(md, "## Do these scores reflect vision?")
    assert f"**Not determined — {NO_AUDIT}; the best model, alpha, gains +8.3 pts" in answer
    assert "Blind panel: 3 model(s): alpha, prior, text-only" in answer
    assert md.index("## Do these scores reflect vision?") < md.index("## Leaderboard") \
        < md.index("## Minimum detectable difference")


@pytest.mark.parametrize("blind, gain, verdict", [
    (0.05, 0.20, "Yes"), (0.10, 0.10, "Yes"),        # both thresholds inclusive
    (0.11, 0.20, "Partly"), (0.05, 0.09, "Partly"),
    (0.30, 0.50, "No"), (0.0, 0.02, "No"),
    (None, 0.02, "No"),                                # no gain: no, whatever the panel
    (None, 0.20, "Not determined"), (0.05, None, "Not determined"),
])
def test_verdict_thresholds(blind, gain, verdict):
    assert _verdict(blind, gain) == verdict


def test_fixed_wording():
    assert NO_LANGUAGE_MODEL == ("no language model in the blind panel: "
                                 "blind-answerability not measured")


def test_a_blind_baseline_that_also_ran_with_the_image_does_not_see_it(tmp_path):
    """random / prior / text-only run in the image mode too, with the same answers: they are
    blind, so their image-mode pairs are dropped; alpha answers differently and sees."""
    from bench_kit.report.inputs import load_inputs
    from bench_kit.report.once import sees_image

    paths = _build(tmp_path)
    # prior is right everywhere: the best image accuracy, but it does not look
    _add_blind(paths, "prior", {"x1", "x2", "x3", "x4"}, modes=("image", "no_image",
                                                             "blank_image"))
    _add_blind(paths, "random", {"x2"}, modes=("image", "no_image"))
    runs = {r.model: r for r in load_inputs(paths["items"], paths["scores"],
                                            paths["metrics"]).runs}
    assert not sees_image(runs["prior"]) and not sees_image(runs["random"])
    assert sees_image(runs["alpha"]) and sees_image(runs["beta"])  # beta: image only
    write_report(paths["items"], paths["scores"], paths["metrics"], paths["out"],
                 settings=ReportSettings(thumbnail_px=0, plots=False))
    md = (paths["out"] / "report.md").read_text(encoding="utf-8")
    assert "| prior | image = no\\_image = blank\\_image |" in md
    pairs = _section(md, "## Pairwise comparisons")
    assert "| prior | random |" not in pairs and "| image | alpha | prior |" in pairs
    # the answer rests on the best model that looks; blind baselines leave the gain table
    assert "the best model, alpha, gains +8.3 pts" in md
    gain = _section(md, "## Vision gain").split("### Blind accuracy per template")[0]
    assert "Left out: prior, random (the same answers with and without the image" in gain
    assert "| prior |" not in gain and "| alpha |" in gain


def test_per_run_tables_show_identical_modes_once(tmp_path):
    from bench_kit.report.inputs import load_inputs
    from bench_kit.report.once import merge_runs, run_labels

    paths = _build(tmp_path)
    _add_blind(paths, "prior", {"x4"})
    labels = run_labels(load_inputs(paths["items"], paths["scores"], paths["metrics"]).runs)
    assert labels["prior/no_image"] == "prior/no_image = blank_image"
    assert labels["prior/blank_image"] is None
    assert labels["alpha/no_image"] == "alpha/no_image"  # alpha's modes answered differently
    rows = merge_runs([{"run": "prior/no_image", "hits": 1}, {"run": "prior/blank_image",
                                                               "hits": 1},
                       {"run": "alpha/image", "hits": 1}], labels)
    assert [r["run"] for r in rows] == ["prior/no_image = blank_image", "alpha/image"]

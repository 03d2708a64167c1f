"""The report: escaped, self-contained, deterministic; the leaderboard and panels are there."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import make_item, write_png

from bench_kit.cli import cli
from bench_kit.io import write_json, write_jsonl
from bench_kit.report.inputs import ReportSettings
from bench_kit.report.render import md_escape, write_report
from bench_kit.scoring.aggregate import model_metrics
from bench_kit.types import Item, Prediction, Score

SCRIPT = "<script>alert(1)</script>"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"
LONG = "word " * 400


def _items(planted: str = SCRIPT) -> list[Item]:
    rows = [
        make_item(id="x1", question=f"{planted} Which colour is the circle?", task="mc",
                  choices={"A": "red", "B": "blue"}, answers=["B"], image="img/a.png",
                  capability="perception.colour"),
        make_item(id="x2", question="Is there a square?", task="yesno", answers=["yes"],
                  image="img/b.png", capability="perception.shape"),
        make_item(id="x3", question="How many circles?", answers=["3"], image="img/a.png"),
        make_item(id="x4", question="Which is taller?", task="mc", answers=["A"],
                  choices={"A": "left bar", "B": "right bar"}, capability="reasoning.compare",
                  layer="reasoning", difficulty="hard"),
    ]
    return [Item.model_validate(r) for r in rows]


# (model, mode) -> {id: (hit, parse, extracted, response, error)}
RUNS = {
    ("alpha", "image"): {"x1": (False, "ok", "A", f"{SCRIPT} I think A", None),
                         "x2": (True, "ok", "yes", "Yes.", None),
                         "x3": (False, "failed", None, LONG, None),
                         "x4": (False, "ok", None, None, "timeout")},
    ("alpha", "no_image"): {"x1": (False, "ok", "A", "A", None),
                            "x2": (False, "ok", "no", "No", None),
                            "x3": (False, "ok", "2", "2", None),
                            "x4": (True, "ok", "A", "A", None)},
    ("beta", "image"): {"x1": (True, "ok", "B", "B", None),
                        "x2": (True, "ok", "yes", "yes", None),
                        "x3": (True, "ok", "3", "3", None)},
}


def _build(root: Path, planted: str = SCRIPT) -> dict[str, Path]:
    """Items, images, scores, metrics, results and an audit under `root`; `planted` goes
    into a question, a response and an audit message."""
    bench = root / "datasets" / "demo"
    write_png(bench / "img" / "a.png", size=(300, 200))
    write_png(bench / "img" / "b.png", colour=(20, 20, 200))
    items = _items(planted)
    items_path = bench / "items.jsonl"
    write_jsonl(items_path, [i.model_dump(mode="json", exclude_none=True) for i in items])
    scores: dict[str, dict[str, list[Score]]] = {}
    predictions: dict[str, dict[str, list[Prediction]]] = {}
    for (model, mode), rows in RUNS.items():
        for item_id, (hit, parse, extracted, response, error) in rows.items():
            response = response.replace(SCRIPT, planted) if response else response
            scores.setdefault(model, {}).setdefault(mode, []).append(Score(
                id=item_id, model=model, mode=mode, metric="exact", extracted=extracted,
                parse=parse, score=float(hit), hit=hit, error=error))
            predictions.setdefault(model, {}).setdefault(mode, []).append(Prediction(
                id=item_id, model=model, mode=mode, prompt_sha="p", response=response,
                error=error, cost=0.001, created_at=datetime(2026, 1, 1, tzinfo=timezone.utc)))
    paths = {"items": items_path, "scores": root / "scores" / "demo",
             "metrics": root / "metrics" / "demo", "results": root / "results" / "demo",
             "audit": root / "audits" / "demo", "out": root / "reports" / "demo"}
    for model, modes in scores.items():
        for mode, rows in modes.items():
            write_jsonl(paths["scores"] / model / f"{mode}.jsonl", rows)
            write_jsonl(paths["results"] / model / f"{mode}.jsonl", predictions[model][mode])
        write_json(paths["metrics"] / f"{model}.json",
                   model_metrics(model, items, modes, predictions[model]))
    write_jsonl(paths["audit"] / "findings.jsonl", [
        {"id": "x1", "check": "ambiguity.deixis", "severity": "warn", "score": 0.6,
         "message": f"vague reference {planted}", "evidence": {}},
        {"id": "x1", "check": "ambiguity.html", "severity": "error", "score": 0.9,
         "message": "HTML in the question", "evidence": {}},
        {"id": "x3", "check": "ambiguity.deixis", "severity": "info", "score": 0.1,
         "message": "minor", "evidence": {}},
    ])
    write_json(paths["audit"] / "summary.json", {
        "format_version": 1, "items": 4, "findings": 3, "flagged_items": 1,
        "flagged_share": 0.25, "by_check": {},
        "by_capability": {"perception.colour": {"items": 1, "flagged": 1, "findings": 2,
                                                "flagged_share": 1.0}},
        "checks_run": ["ambiguity.deixis", "ambiguity.html", "ambiguity.compound"],
        "checks_skipped": [{"check": "contamination.ngram", "reason": "no reference corpus"}]})
    return paths


def _report_args(paths: dict[str, Path], *extra: str) -> list[str]:
    return ["report", "--items", str(paths["items"]), "--scores", str(paths["scores"]),
            "--metrics", str(paths["metrics"]), "--out", str(paths["out"]), *extra]


@pytest.fixture
def report(tmp_path) -> tuple[str, str, dict[str, Path]]:
    paths = _build(tmp_path)
    result = CliRunner().invoke(cli, _report_args(
        paths, "--results", str(paths["results"]), "--audit", str(paths["audit"]),
        "--params", str(_params(tmp_path))))
    assert result.exit_code == 0, result.output
    assert "report: 2 model(s) x 2 mode(s) (image, no_image) -> " in result.output
    html = (paths["out"] / "report.html").read_text(encoding="utf-8")
    md = (paths["out"] / "report.md").read_text(encoding="utf-8")
    return html, md, paths


def _params(root: Path, **report: int) -> Path:
    path = root / "params.yaml"
    lines = ["report:", "  worst_items: 10", "  response_chars: 100"]
    lines += [f"  {k}: {v}" for k, v in report.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_questions_responses_and_messages_are_escaped(report):
    html, md, _ = report
    assert "<script" not in html.lower()
    # the question (twice: worst items and hardest items), the response, the audit message
    assert html.count(ESCAPED) >= 4
    assert "<script" not in md.lower() and ESCAPED in md


def test_html_is_self_contained(report):
    html, md, _ = report
    for text in (html, md):
        assert "http://" not in text and "https://" not in text
    sources = re.findall(r"""src\s*=\s*["']?([^"' >]+)""", html, flags=re.I)
    assert sources and all(s.startswith(("data:image/png;base64,", "data:image/svg+xml;base64,"))
                           for s in sources)
    assert "<link" not in html.lower() and "url(" not in html.lower()
    assert "@import" not in html


def test_markdown_has_the_leaderboard_in_order(report):
    _, md, _ = report
    assert "## Leaderboard" in md
    assert "| model | mode | accuracy (95% CI) |" in md
    rows = [line for line in md.splitlines() if re.match(r"\| (alpha|beta) \| (no\\_)?image", line)]
    assert rows[0].startswith("| beta | image | 100.0% (")  # best image row first
    assert rows[1].startswith("| alpha | image | 33.3% (")
    assert rows[2].startswith("| alpha | no\\_image | 25.0% (")
    alpha_image = rows[1].split(" | ")
    assert alpha_image[4:8] == ["3", "1", "1", "1"]  # n, hits, parse failed, errors


def test_panels_vision_gain_worst_items_and_audit(report):
    html, md, _ = report
    assert "Vision gain" in html and "+8.3" in html  # 33.3% - 25.0%
    assert "| alpha | 33.3% | 25.0% | n/a | +8.3 | n/a |" in md
    # alpha's worst image item that beta got right comes first; the long response is cut
    assert "Worst items: alpha, image" in md
    assert f"{'word ' * 19}word… [2000 characters in total]" in html
    # the whole response (under the full-text cap) is one click away, once; never in the md
    assert html.count(LONG.strip()) == 1 and LONG.strip() not in md
    assert "<summary>full text (2000 characters)</summary>" in html
    assert "(raw responses not given)" not in html
    assert "<code>ambiguity.deixis</code></td><td class=\"num\">2</td>" in html
    assert "| ambiguity.html | 1 | 1 | 0 | 0 |" in md
    assert "| ambiguity.compound | 0 | 0 | 0 | 0 |" in md  # ran, found nothing
    assert "| contamination.ngram | skipped: no reference corpus |" in md
    assert "| perception.colour | 1 | 1 | 100.0% |" in md
    flagged = md.split("### Flagged items")[1]
    assert "| x1 |" in flagged and "| x3 |" not in flagged  # info-only is not flagged
    hardest = md.split("## Hardest items (items, image)")[1].split("## Audit")[0]
    assert [line.split(" | ")[0] for line in hardest.splitlines() if line.startswith("| x")] \
        == ["| x1", "| x3"]  # x2: every model right; x4: no model scored without error
    assert "Whole audited file (all splits):" in md
    assert "- flagged\\_items: 1" in md and "by\\_check" not in md  # summary scalars only
    assert "format\\_version" not in md


def test_report_is_deterministic(tmp_path):
    paths = _build(tmp_path)
    settings = ReportSettings()
    write_report(paths["items"], paths["scores"], paths["metrics"], tmp_path / "r1",
                 results_dir=paths["results"], audit_dir=paths["audit"], settings=settings)
    write_report(paths["items"], paths["scores"], paths["metrics"], tmp_path / "r2",
                 results_dir=paths["results"], audit_dir=paths["audit"], settings=settings)
    for name in ("report.html", "report.md"):
        assert (tmp_path / "r1" / name).read_bytes() == (tmp_path / "r2" / name).read_bytes()


def test_without_results_audit_or_thumbnails(tmp_path):
    paths = _build(tmp_path)
    write_report(paths["items"], paths["scores"], paths["metrics"], paths["out"],
                 settings=ReportSettings(thumbnail_px=0))
    html = (paths["out"] / "report.html").read_text(encoding="utf-8")
    assert "(raw responses not given)" in html
    assert 'class="thumb"' not in html and 'id="audit"' not in html


@pytest.mark.parametrize(("breakage", "message"), [
    (lambda p: (p["metrics"] / "alpha.json").unlink() or (p["metrics"] / "beta.json").unlink(),
     "no <model>.json metrics files"),
    (lambda p: (p["audit"] / "findings.jsonl").write_text('{"id": "x1"}\n{oops\n'),
     "findings.jsonl:1: field 'check'"),
    (lambda p: (p["scores"] / "beta" / "image.jsonl").unlink(), "no scores for model 'beta'"),
    (lambda p: (p["results"] / "alpha" / "no_image.jsonl").unlink(),
     "no no_image predictions for model 'alpha'"),
    (lambda p: (p["metrics"] / "beta.json").write_text('{"model": "gamma"}'),
     "expected the metrics of model 'beta'"),
    (lambda p: (p["items"].parent / "img" / "b.png").unlink(),
     "items.jsonl: field 'image': item 'x2': image file"),
])
def test_bad_inputs_give_one_line_and_no_report(tmp_path, breakage, message):
    paths = _build(tmp_path)
    breakage(paths)
    result = CliRunner().invoke(cli, _report_args(
        paths, "--results", str(paths["results"]), "--audit", str(paths["audit"]),
        "--params", str(_params(tmp_path))))
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]
    assert not paths["out"].exists()


def test_bad_report_params_name_the_key(tmp_path):
    paths = _build(tmp_path)
    result = CliRunner().invoke(cli, _report_args(
        paths, "--params", str(_params(tmp_path, thumbnail_px=-1))))
    assert result.exit_code == 1
    assert "report.thumbnail_px" in result.output


@pytest.mark.parametrize(("raw", "expected"), [
    ("a | b", "a \\| b"),
    ("<b>x</b> & y", "&lt;b&gt;x&lt;/b&gt; &amp; y"),
    ("line\nbreak  and   spaces", "line break and spaces"),
    ("**bold** [link](x) `code`", "\\*\\*bold\\*\\* \\[link\\](x) \\`code\\`"),
    (None, ""),
    (0.5, "0.5"),
])
def test_md_escape(raw, expected):
    assert md_escape(raw) == expected


def test_help_has_an_example():
    result = CliRunner().invoke(cli, ["report", "--help"])
    assert result.exit_code == 0 and "Example:" in result.output
    assert "bench-kit report --items" in result.output


def test_score_then_report_end_to_end(tmp_path):
    """The real scorer's output feeds the report: the numbers agree."""
    bench = tmp_path / "datasets" / "demo"
    write_png(bench / "img" / "a.png")
    write_png(bench / "img" / "b.png")
    items = [i.model_dump(mode="json", exclude_none=True) for i in _items()]
    write_jsonl(bench / "items.jsonl", items)
    answers = {"good": {"x1": "The answer is B", "x2": "Yes", "x3": "3", "x4": "A"},
               "poor": {"x1": f"{SCRIPT} A", "x2": "No", "x3": "many", "x4": "A"}}
    runner = CliRunner()
    for model, responses in answers.items():
        write_jsonl(tmp_path / "results" / model / "image.jsonl", [
            {"id": i, "model": model, "mode": "image", "prompt_sha": "p", "response": r,
             "created_at": "2026-11-01T00:00:00Z"} for i, r in responses.items()])
        result = runner.invoke(cli, [
            "eval", "score", "--items", str(bench / "items.jsonl"), "--model", model,
            "--results", str(tmp_path / "results" / model),
            "--out", str(tmp_path / "scores" / model),
            "--metrics", str(tmp_path / "metrics" / f"{model}.json"),
            "--params", str(_params(tmp_path))])
        assert result.exit_code == 0, result.output
    result = runner.invoke(cli, [
        "report", "--items", str(bench / "items.jsonl"), "--scores", str(tmp_path / "scores"),
        "--metrics", str(tmp_path / "metrics"), "--results", str(tmp_path / "results"),
        "--out", str(tmp_path / "out"), "--params", str(_params(tmp_path))])
    assert result.exit_code == 0, result.output
    md = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    # n, hits, parse failed, lenient; errors, missing, extra, truncated and cost are 0 for
    # every row, so those columns are left out
    assert "| good | image | 100.0% (51.0–100.0) | 100.0% (100.0%–100.0%) | 4 | 4 | 0 | 0 |\n" \
        in md
    assert "| lenient | errors |" not in md and "| cost |" not in md
    assert "| poor | image | 25.0% (4.6–69.9) |" in md
    assert "| x3 | How many circles? | 3 | many | none | failed | 1 |" in md
    assert ESCAPED in (tmp_path / "out" / "report.html").read_text(encoding="utf-8")


# ---- statistics, panels, plots and machine-readable output -----------------------------

def test_pairwise_power_and_macro_columns(report):
    html, md, _ = report
    pair = [line for line in md.splitlines() if line.startswith("| image | alpha | beta |")]
    # on the 3 items both answered in image mode: alpha 1/3, beta 3/3; exact McNemar
    # with 0 vs 2 discordant items: p = 0.5
    assert pair and "| 3 | 33.3% | 100.0% | -66.7 (" in pair[0]
    assert "| 0 | 2 | exact | 0.5 | 0.5 |" in pair[0] and pair[0].endswith("not significant (Holm p ≥ 0.05) |")
    assert "## Pairwise comparisons" in md and 'id="pairwise"' in html
    assert "Minimum detectable difference" in md and "| image | 3 | 1 |" in md
    assert "cost / 1k calls" in md and "$1.0000" in md  # 0.001 USD per call


def test_sections_per_source_and_subset(tmp_path):
    paths = _build(tmp_path)
    rows = [json.loads(line) for line in paths["items"].read_text().splitlines()]
    rows[0]["source"], rows[0]["meta"] = "import:csv", {"subset": "real-users"}
    rows[1]["meta"] = {"subset": "real-users"}
    paths["items"].write_text("".join(json.dumps(r) + "\n" for r in rows))
    write_report(paths["items"], paths["scores"], paths["metrics"], paths["out"],
                 settings=ReportSettings(thumbnail_px=0, plots=False))
    md = (paths["out"] / "report.md").read_text(encoding="utf-8")
    assert "### source: human (3 items)" in md and "### source: import (1 items)" in md
    assert "### subset: real-users (2 items)" in md
    subset = md.split("### subset: real-users")[1].split("###")[0]
    assert "| beta | image | 100.0% (" in subset


def test_panels_heatmap_difficulty_extraction_variants(report):
    html, md, _ = report
    assert "## Capability × model (items, image)" in md
    assert "| perception.colour | 0.0% | 100.0% |" in md
    assert "| series | easy | hard |" in md and "| alpha | 33.3% | n/a |" in md
    # ok, failed, request errors, failure rate (lenient, judge, judge share, truncated: 0
    # for every row, left out)
    assert "| model | mode | ok | failed | request errors | failure rate |" in md
    assert "| alpha | image | 2 | 1 | 1 | 33.3% |" in md
    assert "No variants: every item is an original." in md
    for alt in ("heatmap of accuracy", "accuracy by authored difficulty",
                "accuracy per capability by input mode"):
        assert f'alt="{alt}' in html
    # every run costs $1.00 per 1,000 calls: a scatter with no spread is not drawn
    assert 'alt="cost per 1,000 calls' not in html and "| alpha | 33.3% | 4 | $1.0000 |" in md


def test_variant_robustness_and_consistency():
    from bench_kit.report.inputs import ModelRun
    from bench_kit.report.panels import variant_robustness

    items = [Item.model_validate(make_item(id="a", variant_kind="original")),
             Item.model_validate(make_item(id="a1", variant="v1", variant_of="a",
                                           variant_kind="negation")),
             Item.model_validate(make_item(id="b", variant_kind="original")),
             Item.model_validate(make_item(id="b1", variant="v1", variant_of="b",
                                           variant_kind="negation"))]
    hits = {"a": True, "a1": True, "b": True, "b1": False}
    scores = {i: Score(id=i, model="m", mode="image", metric="exact", extracted="x",
                       parse="ok", score=float(h), hit=h) for i, h in hits.items()}
    metrics = model_metrics("m", items, {"image": list(scores.values())}, {"image": []})
    panel = variant_robustness([ModelRun("m", metrics, {"image": scores})], items)
    assert panel["kinds"] == ["negation"]
    row = panel["rows"][0]
    assert row["original"] == 1.0 and row["cells"][0]["gap"] == -0.5
    assert (row["families"], row["consistency"]) == (2, 0.5)


def test_variant_robustness_splits_marked_region_deixis():
    from bench_kit.report.inputs import ModelRun
    from bench_kit.report.panels import variant_robustness

    prompt = {"kind": "box", "bbox": [1, 1, 9, 9], "source_image": "img/a.png"}
    items = [Item.model_validate(make_item(id="a", variant_kind="original")),
             Item.model_validate(make_item(id="a4", variant="v4", variant_of="a",
                                           variant_kind="deixis",
                                           meta={"visual_prompt": prompt})),
             Item.model_validate(make_item(id="b", variant_kind="original")),
             Item.model_validate(make_item(id="b4", variant="v4", variant_of="b",
                                           variant_kind="deixis"))]
    hits = {"a": True, "a4": False, "b": True, "b4": True}
    scores = {i: Score(id=i, model="m", mode="image", metric="exact", extracted="x",
                       parse="ok", score=float(h), hit=h) for i, h in hits.items()}
    metrics = model_metrics("m", items, {"image": list(scores.values())}, {"image": []})
    panel = variant_robustness([ModelRun("m", metrics, {"image": scores})], items)
    assert panel["kinds"] == ["deixis (marked region)", "deixis (other)"]
    cells = {c["kind"]: c for c in panel["rows"][0]["cells"]}
    assert cells["deixis (marked region)"]["accuracy"] == 0.0
    assert cells["deixis (other)"]["accuracy"] == 1.0
    assert cells["deixis (marked region)"]["n"] == 1


def test_json_summary_plots_and_metrics_file(tmp_path):
    paths = _build(tmp_path)
    result = CliRunner().invoke(cli, _report_args(
        paths, "--results", str(paths["results"]), "--plots", str(tmp_path / "plots"),
        "--format", "json", "--params", str(_params(tmp_path))))
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output[:result.output.rindex("}") + 1])
    assert summary == json.loads((paths["out"] / "summary.json").read_text())
    assert summary["models"]["beta"]["image"]["accuracy"] == 1.0
    assert summary["pairwise"]["image"]["alpha vs beta"]["only_b"] == 2
    assert summary["power"]["no_image"]["pairs"] == 0
    image = json.loads((tmp_path / "plots" / "accuracy_image.json").read_text())
    assert {"label": "beta / perception.colour", "model": "beta",
            "capability": "perception.colour", "accuracy": 1.0} in image
    gains = json.loads((tmp_path / "plots" / "vision_gain.json").read_text())
    assert {row["model"] for row in gains} == {"alpha"}
    assert json.loads((tmp_path / "plots" / "accuracy_blank_image.json").read_text()) == []


def test_a_mcnemar_win_with_a_clustered_ci_through_zero_is_not_called_significant():
    from bench_kit.report.statistics import pairwise

    rows = [{"p_value": 0.001, "diff_low": -0.02, "diff_high": 0.1},
            {"p_value": 0.001, "diff_low": 0.01, "diff_high": 0.1},
            {"p_value": 0.6, "diff_low": 0.01, "diff_high": 0.1}]

    class Settings:
        alpha = 0.05

    import bench_kit.report.statistics as rs
    original = rs.compare_pair
    rs.compare_pair = lambda a, b, mode, items, settings: rows.pop(0)
    try:
        class Run:
            def __init__(self, model):
                self.model, self.scores, self.modes = model, {"image": {}}, ["image"]

        out = pairwise([Run("a"), Run("b"), Run("c")], {}, Settings())
    finally:
        rs.compare_pair = original
    # the words follow the corrected p shown beside them
    assert [r["verdict"] for r in out] == [
        "Holm p < 0.05, but the clustered CI includes 0", "significant",
        "not significant (Holm p ≥ 0.05)"]
    assert [r["significant"] for r in out] == [False, True, False]


def test_a_corrupt_image_gets_a_placeholder_and_is_listed_not_exit_1(tmp_path):
    paths = _build(tmp_path)
    jpeg = paths["items"].parent / "img" / "b.png"  # item x2's image: now a broken JPEG
    jpeg.write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF" + b"\x13" * 600)
    from bench_kit.errors import BenchKitWarning

    with pytest.warns(BenchKitWarning, match=r"1 image\(s\) could not be read .*item 'x2'"):
        result = CliRunner().invoke(cli, _report_args(paths, "--params",
                                                      str(_params(tmp_path))))
    assert result.exit_code == 0, result.output
    html = (paths["out"] / "report.html").read_text()
    section = html[html.index('id="unreadable-images"'):]
    assert "<code>x2</code>" in section and "cannot be decoded" in section
    assert "## Unreadable images" in (paths["out"] / "report.md").read_text()

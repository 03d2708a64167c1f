"""The report's "Model-based audit" section, from a real `audit results` run on a fixture."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import make_item as _make_item

from bench_kit.audit.results.stage import audit_results
from bench_kit.cli import cli
from bench_kit.io import write_json, write_jsonl
from bench_kit.scoring.aggregate import model_metrics
from bench_kit.types import Item, Score


def make_item(**fields):
    """An item row with an image (the blind panel judges items with an image)."""
    return _make_item(**{"image": "img/q.png", **fields})


SCRIPT = "<script>alert(1)</script>"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"
MC = {"task": "mc", "choices": {"A": "red", "B": "blue", "C": "green", "D": "black"},
      "answers": ["A"]}
ITEMS = [
    make_item(id="t1", question=f"{SCRIPT} Which colour is the sky?",
              capability="perception.colour", **MC),
    make_item(id="t2", question="Which colour is the left circle?", capability="perception.colour",
              **MC),
    make_item(id="s1", question="Which colour is the square?", capability="perception.shape", **MC),
    make_item(id="h1", question="Which colour is the bar?", capability="perception.shape",
              difficulty="hard", **MC),
]
# (model, mode) -> answer per item (gold is A everywhere).
ANSWERS = {
    ("m0", "image"): {"t1": "A", "t2": "A", "s1": "C", "h1": "A"},
    ("m0", "no_image"): {"t1": "A", "t2": "A", "s1": "B", "h1": "B"},
    ("m1", "image"): {"t1": "A", "t2": "B", "s1": "C", "h1": "A"},
    ("m1", "no_image"): {"t1": "A", "t2": "B", "s1": "B", "h1": "B"},
    ("m2", "image"): {"t1": "A", "t2": "A", "s1": "C", "h1": "A"},
    ("m2", "no_image"): {"t1": "A", "t2": "C", "s1": "D", "h1": "C"},
    ("text-only", "no_image"): {"t1": "A", "t2": "A", "s1": "B", "h1": "D"},
}


def _build(root: Path) -> list[str]:
    """Items, scores, metrics and the audit-results folder under `root`; the report args."""
    items = [Item.model_validate(row) for row in ITEMS]
    (root / "img").mkdir(parents=True, exist_ok=True)
    from PIL import Image

    Image.new("RGB", (8, 8), "white").save(root / "img/q.png")
    write_jsonl(root / "items.jsonl", [i.model_dump(mode="json", exclude_none=True)
                                       for i in items])
    by_model: dict[str, dict[str, list[Score]]] = {}
    for (model, mode), answers in ANSWERS.items():
        rows = [Score(id=i, model=model, mode=mode, metric="exact", extracted=a, parse="ok",
                      score=float(a == "A"), hit=a == "A") for i, a in answers.items()]
        write_jsonl(root / "scores" / model / f"{mode}.jsonl", rows)
        by_model.setdefault(model, {})[mode] = rows
    for model, modes in by_model.items():
        write_json(root / "metrics" / f"{model}.json", model_metrics(model, items, modes, {}))
    params = root / "params.yaml"
    # label_fdr 0.5: three unanimous models on a four-item benchmark (the review queue's
    # q = 0.41, correlated errors assumed) cannot reach the default 0.1 -- a 3-model panel
    # is too small to impeach a gold
    params.write_text("audit_results:\n  expansion: false\n  blind_modes: [no_image]\n"
                      "  base_models: {m0: text-only}\n  label_fdr: 0.5\n"
                      "report:\n  flagged_items: 5\n",
                      encoding="utf-8")
    # a reviewer labelled m0's one failure in image mode (s1) as a perception error
    write_jsonl(root / "layers.jsonl", [{"id": "s1", "model": "m0", "error_layer": "perception"}])
    audit_results(root / "items.jsonl", root / "scores", root / "ma", params_path=params,
                  error_layers_path=root / "layers.jsonl")
    return ["report", "--items", str(root / "items.jsonl"), "--scores", str(root / "scores"),
            "--metrics", str(root / "metrics"), "--out", str(root / "out"),
            "--params", str(params)]


@pytest.fixture
def outputs(tmp_path) -> tuple[str, str]:
    args = _build(tmp_path)
    result = CliRunner().invoke(cli, [*args, "--model-audit", str(tmp_path / "ma")])
    assert result.exit_code == 0, result.output
    return ((tmp_path / "out/report.html").read_text(encoding="utf-8"),
            (tmp_path / "out/report.md").read_text(encoding="utf-8"))


def _section(text: str, start: str) -> str:
    assert start in text
    return text[text.index(start):]


def test_verdicts_and_blind_hits_per_item_in_both_outputs(outputs):
    html, md = outputs
    section = _section(md, "## Model-based audit")
    # t1: 4/4 blind runs right (text_answerable, q = 4 * 0.0039); t2: 2/4 on a 4-option item
    # is consistent with guessing (p = 0.26): vision_required, like s1 and h1 (0/4).
    assert "| all | 1 | 0 | 3 | 0 | 0 | 0 | 0 | 25.0% |" in section
    assert "| perception.colour | 1 | 0 | 1 | 0 | 0 | 0 | 0 | 50.0% |" in section
    assert "| perception.shape | 0 | 0 | 2 | 0 | 0 | 0 | 0 | 0.0% |" in section
    assert "| m0/no\\_image | 4 | 2 | 50.0% |" in section
    assert "### Blind hits per flagged item (1 of 1)" in section
    assert ("| t1 | &lt;script&gt;alert(1)&lt;/script&gt; Which colour is the sky? | "
            "text\\_answerable | 4/4 | 25% | 0.0039 | 0.016 | +0.0 | m0/no\\_image, "
            "m1/no\\_image, m2/no\\_image, text-only/no\\_image |") in section
    html_section = _section(html, '<h2 id="model-audit">')
    assert '<a href="#model-audit">' in html
    assert "<td>text_answerable</td><td class=\"num\">4/4</td>" in html_section
    assert ('<span class="hit">✓ m0/no_image, m1/no_image, m2/no_image, text-only/no_image'
            '</span>') in html_section


def test_first_screen_answers_the_vision_question_before_the_leaderboard(outputs):
    html, md = outputs
    for text, order in ((md, ("## Do these scores reflect vision?", "## Leaderboard",
                              "## Blind panel and items to review", "## Benchmark")),
                        (html, ('<h2 id="answer">', '<h2 id="leaderboard">',
                                '<h2 id="vision-first">', '<h2 id="benchmark">'))):
        assert [text.index(h) for h in order] == sorted(text.index(h) for h in order)
    answer = md[md.index("## Do these scores reflect vision?"):md.index("## Leaderboard")]
    # this audit's summary names no language model: the fixed wording, not a verdict
    assert ("**Not determined — no language model in the blind panel: blind-answerability "
            "not measured; the best model, m0, gains +25.0 pts with the image") in answer
    assert "Blind panel: 4 model(s): m0, m1, m2, text-only" in answer
    screen = md[md.index("## Blind panel and items to review"):md.index("## Benchmark")]
    assert "Of the items split's items, 4 were judged by the blind panel" in screen
    assert "| vision\\_required | 3 | 75.0% | [blind hits per item](#ma-blind-items) |" in screen
    assert "| text\\_answerable | 1 | 25.0% |" in screen
    assert "| prior\\_answerable | 0 | 0.0% | [templates by prior accuracy](#ma-prior-templates) |" \
        in screen
    # the audit's panel block: 4 members at chance 25% need all 4 right (p = 0.0039)
    assert ("Smallest effect it can detect: at chance 25%, 4 of 4 members right "
            "(chance-corrected effect 100%)") in answer
    # the suspect-gold review queue: ranked, with its level (label_fdr 0.5) and P(gold wrong)
    assert ("Suspect golds: the review queue ranks the 4 audited item(s) with an image panel "
            "by the posterior that the gold is wrong") in screen
    assert "flags the top 1 while the queue's false-discovery rate stays at most 50%" in screen
    assert ("| 1 | s1 | Which colour is the square? | error 3/3 models answer 'C'; gold is "
            "\\['A'\\] (likelihood ratio 61.7) | 0.59 | 0.41 |") in screen
    assert "label.suspect\\_gold 0.41 of 1" in screen     # expected false calls <= 1 x q
    # the old 2^-n unanimity bound described the replaced suspect-gold test
    assert "voting unanimously" not in md and "voting unanimously" not in html
    for anchor in ("ma-blind-items", "ma-prior-templates", "ma-vision-gain", "ma-labels"):
        assert f'<a id="{anchor}"></a>' in md and f'id="{anchor}"' in html
    for anchor in ("ma-blind-items", "ma-prior-templates", "vision-gain", "ma-labels"):
        assert f'href="#{anchor}"' in html


@pytest.mark.parametrize("panel, verdict", [
    # 1 of 4 judged items answered blind (25%, between 10% and 30%), m0 gains 25 pts
    ({"members": ["m0", "m1", "m2", "text-only"], "language_models": ["m1"],
      "holds_language_model": True}, "**Partly — the blind panel answers 25.0% of the 4 items"),
    ({"members": ["text-only"], "language_models": [], "holds_language_model": False},
     "**Not determined — no language model in the blind panel: blind-answerability not"),
])
def test_the_answer_follows_the_rule_from_the_audit_panel(tmp_path, panel, verdict):
    args = _build(tmp_path)
    summary_path = tmp_path / "ma" / "model_summary.json"
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    summary["panel"] = panel
    summary_path.write_text(json.dumps(summary), encoding="utf-8")
    result = CliRunner().invoke(cli, [*args, "--model-audit", str(tmp_path / "ma")])
    assert result.exit_code == 0, result.output
    md = (tmp_path / "out/report.md").read_text(encoding="utf-8")
    assert verdict in md
    assert f"Blind panel: {len(panel['members'])} model(s)" in md


def test_templates_listed_by_prior_accuracy(outputs):
    html, md = outputs
    section = _section(md, "### Templates by prior accuracy")
    # hand-written items group by capability and task; every gold is A (4 options)
    # the prior is over answer text: the gold option's text, not its letter
    assert "| perception.colour\\|mc | 2 | red | 100.0% | 25% |" in section
    assert '<h3 id="ma-prior-templates">' in html


def test_mg_ml_findings_and_difficulty(outputs):
    html, md = outputs
    gain = md[md.index("## Vision gain"):md.index("## Variant robustness")]
    # one vision-gain table: m0 image 3/4 right, no_image 2/4 -> +25.0; text-only 2/4 -> ML 0
    assert "| m0 | 75.0% | 50.0% | n/a | +25.0 | n/a | text-only | +0.0 |" in gain
    assert "| m1 | 50.0% | 25.0% | n/a | +25.0 | n/a | — | n/a |" in gain
    assert md.count("| gain (image − no_image) |") == 1 and "MG / ML" not in md
    assert html.count("gain (image − no_image)</th>") == 1
    section = _section(md, "## Model-based audit")
    # s1: the whole panel says C -> suspect gold; h1 (hard) solved by every model.
    assert "#### label.suspect\\_gold (top 1 of 1)" in section
    assert "| s1 | Which colour is the square? | error 3/3 models answer 'C'" in section
    assert "#### label.difficulty\\_mismatch (top 2 of 2)" in section
    assert "| h1 | Which colour is the bar? | info authored hard, but 3/3" in section
    assert "| perception.shape | hard | 1 | 100.0% | n/a |" in section
    assert "Rasch fit skipped (needs at least 5 models)." in section
    assert "| m0/image | 4 | 75.0% | 75.0% | 0 | 0.0% |" in section
    assert "<code>label.suspect_gold</code> (top 1 of 1)" in html


def test_planted_script_is_escaped(outputs):
    html, md = outputs
    assert SCRIPT not in html and SCRIPT not in md
    assert f"{ESCAPED} Which colour is the sky?" in _section(html, '<h2 id="model-audit">')


def test_report_renders_without_model_audit_and_is_deterministic(tmp_path):
    args = _build(tmp_path)
    assert CliRunner().invoke(cli, args).exit_code == 0
    html = (tmp_path / "out/report.html").read_text(encoding="utf-8")
    assert "Model-based audit" not in html
    runs = []
    for _ in range(2):
        result = CliRunner().invoke(cli, [*args, "--model-audit", str(tmp_path / "ma")])
        assert result.exit_code == 0, result.output
        runs.append((tmp_path / "out/report.html").read_bytes()
                    + (tmp_path / "out/report.md").read_bytes())
    assert runs[0] == runs[1]


def test_missing_model_audit_folder_is_one_line(tmp_path):
    args = _build(tmp_path)
    result = CliRunner().invoke(cli, [*args, "--model-audit", str(tmp_path / "nope")])
    assert result.exit_code != 0
    assert "model_summary.json" in result.output and "Traceback" not in result.output


def test_error_layers_show_both_denominators(outputs):
    html, md = outputs
    section = _section(md, "### Error layers")
    # m0 failed 1 of 4 items in image mode; the one label is 100% of failures, 25% of items
    assert "| m0 | 1 | 1 | perception | 1 | 100.0% | 25.0% |" in section
    assert "Error layers (reviewer labels)" in html


def test_items_the_panel_cannot_judge_are_named_not_counted(tmp_path):
    """An `undetermined` item (a panel too small for its chance level) leaves the judged
    population and is named apart; so does an item of another split."""
    args = _build(tmp_path)
    stats_path = tmp_path / "ma" / "item_stats.jsonl"
    rows = [json.loads(line) for line in stats_path.read_text(encoding="utf-8").splitlines()]
    rows[[r["id"] for r in rows].index("h1")]["verdict"] = "undetermined"
    rows.append({**rows[0], "id": "other-split", "verdict": "text_answerable"})
    stats_path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = CliRunner().invoke(cli, [*args, "--model-audit", str(tmp_path / "ma")])
    assert result.exit_code == 0, result.output
    md = (tmp_path / "out/report.md").read_text(encoding="utf-8")
    screen = md[md.index("## Blind panel and items to review"):md.index("## Minimum")]
    assert "Of the items split's items, 3 were judged by the blind panel" in screen
    assert "| text\\_answerable | 1 | 33.3% |" in screen  # other-split's verdict left out
    assert ("Not judged (outside the shares above): 1 undetermined (even a unanimous panel "
            "of its size could not beat chance)") in screen


def test_unjudged_items_and_old_summaries(tmp_path):
    """`no_image` and `undetermined` items are counted apart on the first screen; a summary from before the `panel` and `review_queue` blocks
    still renders (panel derived from the report's runs, suspect golds as calls)."""
    args = _build(tmp_path)
    stats_path = tmp_path / "ma" / "item_stats.jsonl"
    rows = [json.loads(line) for line in stats_path.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        row["verdict"] = {"h1": "undetermined", "t2": "no_image"}.get(row["id"], row["verdict"])
    stats_path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    summary_path = tmp_path / "ma" / "model_summary.json"
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    del summary["panel"], summary["label_tests"]["review_queue"]
    summary_path.write_text(json.dumps(summary), encoding="utf-8")
    result = CliRunner().invoke(cli, [*args, "--model-audit", str(tmp_path / "ma")])
    assert result.exit_code == 0, result.output
    md = (tmp_path / "out/report.md").read_text(encoding="utf-8")
    answer = md[md.index("## Do these scores reflect vision?"):md.index("## Leaderboard")]
    assert "Blind panel: 4 model(s): m0, m1, m2, text-only; not known to hold" in answer
    assert ("It cannot see: 1 item(s) no\\_image (the item has no image); 1 item(s) "
            "undetermined") in answer
    screen = md[md.index("## Blind panel and items to review"):md.index("## Minimum")]
    assert "Of the items split's items, 2 were judged by the blind panel" in screen
    assert ("Not judged (outside the shares above): 1 undetermined (even a unanimous panel "
            "of its size could not beat chance); 1 no\\_image (the item has no image).") in screen
    assert "Suspect golds: 1 called of 1 tested" in screen


def test_an_empty_review_queue_says_it_flags_none(tmp_path):
    args = _build(tmp_path)
    summary_path = tmp_path / "ma" / "model_summary.json"
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    summary["label_tests"]["review_queue"].update(flagged=0, listed=0)
    summary_path.write_text(json.dumps(summary), encoding="utf-8")
    result = CliRunner().invoke(cli, [*args, "--model-audit", str(tmp_path / "ma")])
    assert result.exit_code == 0, result.output
    md = (tmp_path / "out/report.md").read_text(encoding="utf-8")
    assert ("and flags none (no top of the queue keeps its false-discovery rate at most "
            "50%); ambiguous items") in md

"""`bench-kit audit data` and `bench-kit audit list-checks` end to end with CliRunner."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import make_item
from test_audit_images import planted_rows, write_items, write_planted_images

from bench_kit.cli import cli

PARAMS = """\
audit:
  disabled: {disabled}
  max_question_words: 20
  option_similarity: 0.9
  phash_duplicate: 6
  phash_review: 12
"""

MC = {"task": "mc", "answers": ["A"], "capability": "perception.colour"}

# item id -> the check planted on it (image checks come from planted_rows()).
TEXT_DEFECTS: dict[str, tuple[str, dict[str, Any]]] = {
    "deixis_en": ("ambiguity.vague_deixis", {"question": "What colour is that one?"}),
    "deixis_zh": ("ambiguity.vague_deixis", {"question": "那个是什么颜色？"}),
    "compound": ("ambiguity.compound_question",
                 {"question": "What shape is red, and how many are there?"}),
    "compound_zh": ("ambiguity.compound_question", {"question": "红色和蓝色的圆形分别有几个？"}),
    "viewpoint": ("ambiguity.viewpoint", {"question": "Is the star on the right of the square?",
                                          "task": "yesno", "answers": ["yes"]}),
    "viewpoint_zh": ("ambiguity.viewpoint", {"question": "星形在正方形的右边吗？",
                                             "task": "yesno", "answers": ["yes"]}),
    "long": ("ambiguity.long_question",
             {"question": "Counting every single shape that has been drawn anywhere at all on "
                          "this white canvas, including the very small ones near the border, "
                          "how many shapes are there?"}),
    "dirty": ("ambiguity.dirty_text", {"question": "Is the cat &amp; the dog here?",
                                       "task": "yesno", "answers": ["yes"]}),
    "dup_options": ("label.duplicate_options",
                    {**MC, "question": "Which colour is the circle?",
                     "choices": {"A": "Red", "B": "red", "C": "Blue"}}),
    "inconsistent": ("label.inconsistent_answers",
                     {"question": "How many squares are there?", "answers": ["2", "5"]}),
    "giveaway": ("label.answer_in_question",
                 {"question": "The sign reads OPEN. What does the sign read?", "task": "open",
                  "answers": ["OPEN"], "capability": "perception.ocr"}),
    "count_attr": ("ambiguity.multi_attribute_count",
                   {"question": "How many green squares are there?"}),
}
IMAGE_DEFECTS = {
    "copy_q": "redundancy.exact_duplicate_image",
    "base_q1": "redundancy.exact_duplicate_image",
    "bright_q": "redundancy.near_duplicate_image",
    "flip_q": "redundancy.near_duplicate_image",
    "patch_q": "redundancy.near_duplicate_image",
}

# Without --reference/--reference-images/cutoffs the contamination checks skip with a reason.
NO_REFERENCE_SKIPS = [
    {"check": "contamination.embedding", "reason": "needs --reference FILE"},
    {"check": "contamination.exact", "reason": "needs --reference FILE"},
    {"check": "contamination.exposed", "reason": "no audit.cutoffs in params"},
    {"check": "contamination.image", "reason": "needs --reference-images DIR"},
    {"check": "contamination.minhash", "reason": "needs --reference FILE"},
    {"check": "contamination.ngram", "reason": "needs --reference FILE"},
]

CLEAN_QUESTIONS = [
    "From the viewer's perspective, is the red circle to the left of the blue square?",
    "What colour is the largest shape in the image?",
    "How many circles are there?",
    "What does the sign say?",
    "从观看者的角度看，红色的圆形在蓝色方块的左边吗？",
    "图中有几个圆形？",
    "Which shape is leftmost in the image?",
    "这个圆形是什么颜色？",
]


def text_rows() -> list[dict[str, Any]]:
    return [make_item(id=ident, **fields) for ident, (_, fields) in TEXT_DEFECTS.items()]


def clean_rows() -> list[dict[str, Any]]:
    rows = []
    for k, question in enumerate(CLEAN_QUESTIONS):
        yesno = question.endswith(("square?", "吗？"))
        rows.append(make_item(id=f"clean{k}", question=question, image=f"img/c{k}.png",
                              task="yesno" if yesno else "open",
                              answers=["yes"] if yesno else ["red"]))
    rows.append(make_item(id="clean_mc", **MC, question="Which colour is the circle?",
                          choices={"A": "Red", "B": "Blue", "C": "Dark green"}))
    return rows


def write_clean_images(root: Path) -> None:
    from test_audit_images import blob

    for k in range(len(CLEAN_QUESTIONS)):
        path = root / "img" / f"c{k}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        blob(100 + k).save(path)


def write_params(path: Path, disabled: list[str] | None = None) -> Path:
    path.write_text(PARAMS.format(disabled=json.dumps(disabled or [])), encoding="utf-8")
    return path


@pytest.fixture
def bench(tmp_path) -> Path:
    """A benchmark folder with planted defects of every kind, a clean subset and splits."""
    write_planted_images(tmp_path)
    write_clean_images(tmp_path)
    write_items(tmp_path / "items.jsonl", planted_rows() + text_rows() + clean_rows())
    write_params(tmp_path / "params.yaml")
    splits = tmp_path / "splits"
    write_items(splits / "dev.jsonl", [make_item(id=i) for i in ("base_q1", "text_q1")])
    write_items(splits / "test.jsonl", [make_item(id=i) for i in ("copy_q", "text_q2")])
    return tmp_path


def audit(root: Path, *extra: str, out: str = "out") -> Any:
    args = ["audit", "data", "--items", str(root / "items.jsonl"), "--out", str(root / out),
            "--params", str(root / "params.yaml"), *extra]
    return CliRunner().invoke(cli, args)


def read_findings(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_every_planted_defect_is_found(bench):
    result = audit(bench, "--splits", str(bench / "splits"))
    assert result.exit_code == 0, result.output
    findings = read_findings(bench / "out" / "findings.jsonl")
    pairs = {(f["id"], f["check"]) for f in findings}
    planted = {(i, c) for i, (c, _) in TEXT_DEFECTS.items()} | set(IMAGE_DEFECTS.items())
    assert planted <= pairs, planted - pairs
    leaks = {f["id"] for f in findings if f["check"] == "leakage.cross_split"}
    assert leaks == {"base_q1", "copy_q", "text_q1", "text_q2"}
    assert all(set(f) == {"id", "check", "severity", "score", "message", "evidence"}
               for f in findings)
    assert [(f["id"], f["check"]) for f in findings] == sorted((f["id"], f["check"])
                                                               for f in findings)
    summary = json.loads((bench / "out" / "summary.json").read_text(encoding="utf-8"))
    assert summary["items"] == len(planted_rows() + text_rows() + clean_rows())
    assert summary["findings"] == len(findings)
    assert "leakage.cross_split" in summary["checks_run"]
    assert summary["checks_skipped"] == NO_REFERENCE_SKIPS
    assert summary["by_check"]["ambiguity.vague_deixis"]["warn"] == 2
    flagged = {f["id"] for f in findings if f["severity"] != "info"}
    assert summary["flagged_items"] == len(flagged)
    assert summary["flagged_share"] == round(len(flagged) / summary["items"], 4)
    assert sum(c["items"] for c in summary["by_capability"].values()) == summary["items"]
    last = result.output.strip().splitlines()[-1]
    info_only = {f["id"] for f in findings} - flagged
    assert last == (f"audit: {summary['items']} items, {len(findings)} findings; flagged (warn "
                    f"or error): {len(flagged)} items; info only: {len(info_only)} items -> "
                    f"{bench / 'out'}")


def test_clean_items_give_no_warnings(bench):
    write_items(bench / "clean.jsonl", clean_rows())
    result = CliRunner().invoke(cli, ["audit", "data", "--items", str(bench / "clean.jsonl"),
                                      "--out", str(bench / "clean_out"), "--params",
                                      str(bench / "params.yaml")])
    assert result.exit_code == 0, result.output
    findings = read_findings(bench / "clean_out" / "findings.jsonl")
    assert [f for f in findings if f["severity"] != "info"] == []
    summary = json.loads((bench / "clean_out" / "summary.json").read_text(encoding="utf-8"))
    assert summary["flagged_share"] == 0.0
    assert summary["checks_skipped"] == sorted(
        [*NO_REFERENCE_SKIPS, {"check": "leakage.cross_split", "reason": "needs --splits DIR"}],
        key=lambda s: s["check"])


def test_output_is_byte_identical_across_runs(bench):
    for out in ("run1", "run2"):
        assert audit(bench, "--splits", str(bench / "splits"), out=out).exit_code == 0
    for name in ("findings.jsonl", "summary.json"):
        assert (bench / "run1" / name).read_bytes() == (bench / "run2" / name).read_bytes()


def test_disabled_check_is_skipped(bench):
    write_params(bench / "params.yaml", disabled=["ambiguity.viewpoint"])
    assert audit(bench).exit_code == 0
    findings = read_findings(bench / "out" / "findings.jsonl")
    assert not any(f["check"] == "ambiguity.viewpoint" for f in findings)
    summary = json.loads((bench / "out" / "summary.json").read_text(encoding="utf-8"))
    assert {"check": "ambiguity.viewpoint",
            "reason": "disabled in params (audit.disabled)"} in summary["checks_skipped"]
    assert "ambiguity.viewpoint" not in summary["checks_run"]


@pytest.mark.parametrize("params, message", [
    ('audit:\n  disabled: ["ambiguity.viewpont"]\n',
     "audit.disabled: unknown check 'ambiguity.viewpont'; did you mean 'ambiguity.viewpoint'?"),
    ("audit:\n  phash_duplicat: 4\n",
     "audit.phash_duplicat: unknown setting; did you mean 'phash_duplicate'?"),
    ("audit:\n  phash_duplicate: 20\n  phash_review: 12\n",
     "audit: phash_review (12) must be >= phash_duplicate (20)"),
    ("audit:\n  max_question_words: many\n", "audit.max_question_words:"),
])
def test_bad_params_exit_1_with_one_line(bench, params, message):
    (bench / "params.yaml").write_text(params, encoding="utf-8")
    result = audit(bench)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]
    assert not (bench / "out").exists()


def test_bad_items_row_is_a_finding_not_a_stop(bench):
    (bench / "items.jsonl").write_text('{"id": "x"}\n', encoding="utf-8")
    result = audit(bench)
    assert result.exit_code == 0, result.output
    findings = read_findings(bench / "out" / "findings.jsonl")
    assert [(f["id"], f["check"], f["evidence"]["line"]) for f in findings] == [
        ("x", "schema.invalid_item", 1)]


def test_unreadable_items_file_exit_1_without_output(bench):
    (bench / "items.jsonl").unlink()
    result = audit(bench)
    assert result.exit_code == 1 and "items.jsonl" in result.output
    assert "Traceback" not in result.output and not (bench / "out").exists()


def test_list_checks_text_and_json():
    text = CliRunner().invoke(cli, ["audit", "list-checks"])
    assert text.exit_code == 0
    lines = text.output.strip().splitlines()
    names = [line.split()[0] for line in lines]
    assert names == sorted(names) and "redundancy.near_duplicate_image" in names
    viewpoint = next(line for line in lines if line.startswith("ambiguity.viewpoint "))
    assert viewpoint.split()[1:3] == ["ambiguity", "warn"]
    rows = json.loads(CliRunner().invoke(cli, ["audit", "list-checks", "--format",
                                               "json"]).output)
    assert [r["check"] for r in rows] == names
    by_name = {r["check"]: r for r in rows}
    assert by_name["ambiguity.multi_attribute_count"]["severity"] == "warn"
    assert by_name["redundancy.near_duplicate_image"]["params"] == {"phash_duplicate": 6,
                                                                    "phash_review": 12,
                                                                    "phash_colour": 16}
    assert by_name["leakage.cross_split"]["requires"] == ["splits"]
    assert all(r["description"] for r in rows)


def test_repo_params_audit_section_is_valid():
    from bench_kit.audit.stage import load_audit_settings
    from bench_kit.params import load_params

    repo_params = Path(__file__).resolve().parents[2] / "params.yaml"
    settings = load_audit_settings(load_params(repo_params), source=str(repo_params))
    assert settings.params["ambiguity.long_question"].max_question_words == 40


def test_help_has_an_example():
    for command in (["audit", "data", "--help"], ["audit", "list-checks", "--help"]):
        assert "Example" in CliRunner().invoke(cli, command).output

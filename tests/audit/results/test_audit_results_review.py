"""Reviewer loops of the model-based audits: error layers, answer expansion + accept-answers,
and the quarantine file."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import make_item as _make_item
from test_audit_results import MC, run_audit, write_items, write_scores

from bench_kit.audit.results.error_layers import (
    error_layer_distribution,
    read_error_layer_csv,
)
from bench_kit.audit.results.expansion import answer_candidates
from bench_kit.audit.results.inputs import read_score_table
from bench_kit.cli import cli
from bench_kit.errors import InputError
from bench_kit.items import read_items

OPEN = {"task": "open", "answers": ["red"], "capability": "perception.colour",
        "question": "What colour is the circle?"}

# A stand-in for the sentence encoder: fixed unit vectors, so "crimson" means "red".
VECTORS = {"red": (1.0, 0.0, 0.0), "crimson": (0.96, 0.28, 0.0), "blue": (0.0, 0.0, 1.0),
           "scarlet": (0.9, 0.0, 0.43589)}


def make_item(**fields):
    """An item row with an image (the blind panel judges items with an image)."""
    return _make_item(**{"image": "img/q.png", **fields})


def fake_encode(texts):
    import numpy as np

    return np.array([VECTORS.get(t, (0.0, 1.0, 0.0)) for t in texts], dtype="float32")


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


# --- error layers --------------------------------------------------------------------------


def test_error_layer_distribution_states_both_denominators(tmp_path):
    items = [make_item(id=f"q{n}", **MC) for n in range(5)]
    write_items(tmp_path / "items.jsonl", items)
    runs = {f"q{n}": ("B", False) for n in range(4)} | {"q4": ("A", True)}
    write_scores(tmp_path / "scores", {"vlm": {"image": runs}})
    (tmp_path / "layers.csv").write_text(
        "id,model,error_layer,note\nq0,vlm,perception,missed the colour\nq1,vlm,Perception,\n"
        "q2,vlm,reasoning,\nq4,vlm,knowledge,labelled but right\n")
    result = invoke("audit", "import-error-layers", str(tmp_path / "layers.csv"),
                    "--out", str(tmp_path / "layers.jsonl"), "--items", str(tmp_path / "items.jsonl"))
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (tmp_path / "layers.jsonl").read_text().splitlines()]
    assert [r["error_layer"] for r in rows] == ["perception", "perception", "reasoning", "knowledge"]
    table = read_score_table(read_items(tmp_path / "items.jsonl"), tmp_path / "scores")
    dist = error_layer_distribution(table, rows)["vlm"]
    assert (dist["failures"], dist["labelled"], dist["unlabelled_failures"]) == (4, 3, 1)
    assert dist["labels_on_hits"] == 1
    assert dist["layers"]["perception"] == {"count": 2, "share_of_failures": 0.5,
                                            "share_of_labelled": 0.6667, "share_of_items": 0.4}
    (tmp_path / "params.yaml").write_text("audit_results:\n  expansion: false\n")
    result = invoke("audit", "results", "--items", str(tmp_path / "items.jsonl"), "--scores",
                    str(tmp_path / "scores"), "--out", str(tmp_path / "out"), "--params",
                    str(tmp_path / "params.yaml"), "--error-layers", str(tmp_path / "layers.jsonl"))
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "out/model_summary.json").read_text())
    assert summary["error_layers"]["vlm"]["layers"]["reasoning"]["count"] == 1


@pytest.mark.parametrize("csv_text, field", [
    ("id,model,error_layer\nq0,vlm,vision\n", "error_layer"),
    ("id,model,error_layer\nghost,vlm,perception\n", "id"),
    ("id,model,error_layer\nq0,vlm,perception\nq0,vlm,reasoning\n", "id"),
    ("id,model\nq0,vlm\n", None),
])
def test_bad_error_layer_csv_names_the_line(tmp_path, csv_text, field):
    (tmp_path / "e.csv").write_text(csv_text)
    with pytest.raises(InputError) as info:
        read_error_layer_csv(tmp_path / "e.csv", known_ids=["q0"])
    assert info.value.field == field and info.value.line is not None


# --- answer expansion ----------------------------------------------------------------------


def _expansion_table(tmp_path: Path):
    items = [make_item(id="o1", **OPEN), make_item(id="o2", **OPEN), make_item(id="m1", **MC)]
    write_items(tmp_path / "items.jsonl", items)
    write_scores(tmp_path / "scores", {
        "a": {"image": {"o1": ("crimson", False), "o2": ("blue", False), "m1": ("B", False)}},
        "b": {"image": {"o1": ("crimson", False), "o2": ("red", True), "m1": ("A", True)}},
        "c": {"image": {"o1": ("scarlet", False), "o2": ("red", True), "m1": ("A", True)}},
    })
    return read_score_table(read_items(tmp_path / "items.jsonl"), tmp_path / "scores")


def test_answer_candidates_are_wrong_answers_close_to_the_gold(tmp_path):
    rows = answer_candidates(_expansion_table(tmp_path), 0.85, encode=fake_encode)
    assert [(r["id"], r["candidate"], r["models"]) for r in rows] == \
        [("o1", "crimson", "a;b"), ("o1", "scarlet", "c")]
    assert rows[0]["similarity"] == pytest.approx(0.96, abs=1e-4)
    assert answer_candidates(_expansion_table(tmp_path), 0.95, encode=fake_encode)[0][
        "candidate"] == "crimson"


def test_accept_answers_adds_gold_with_provenance_once(tmp_path):
    sheet = tmp_path / "sheet.csv"
    sheet.write_text("id,question,gold,candidate,similarity,models,accept\n"
                     "o1,q,red,crimson,0.96,a;b,yes\no1,q,red,scarlet,0.9,c,no\n")
    write_items(tmp_path / "items.jsonl", [make_item(id="o1", **OPEN), make_item(id="m1", **MC)])
    before = (tmp_path / "items.jsonl").read_text().splitlines()
    result = invoke("audit", "accept-answers", str(sheet), "--items", str(tmp_path / "items.jsonl"))
    assert result.exit_code == 0, result.output
    assert "1 answers added to 1 items" in result.output
    rows = [json.loads(line) for line in (tmp_path / "items.jsonl").read_text().splitlines()]
    assert rows[0]["answers"] == ["red", "crimson"]
    assert rows[0]["meta"]["answer_provenance"] == [
        {"answer": "crimson", "source": "answer_expansion", "sheet": "sheet.csv",
         "similarity": 0.96, "models": ["a", "b"]}]
    assert rows[1] == json.loads(before[1])  # other items keep every field
    again = invoke("audit", "accept-answers", str(sheet), "--items", str(tmp_path / "items.jsonl"))
    assert "0 answers added" in again.output and "1 already present" in again.output


def test_accept_answers_refuses_unknown_ids_and_closed_tasks(tmp_path):
    write_items(tmp_path / "items.jsonl", [make_item(id="m1", **MC)])
    original = (tmp_path / "items.jsonl").read_bytes()
    for row, message in (("ghost,q,red,x,0.9,a,y", "ghost"), ("m1,q,A,C,0.9,a,y", "mc item")):
        (tmp_path / "s.csv").write_text("id,question,gold,candidate,similarity,models,accept\n"
                                        + row + "\n")
        result = invoke("audit", "accept-answers", str(tmp_path / "s.csv"), "--items",
                        str(tmp_path / "items.jsonl"))
        assert result.exit_code == 1 and message in result.output and "s.csv:2" in result.output
    assert (tmp_path / "items.jsonl").read_bytes() == original


@pytest.mark.slow
def test_accepted_answer_is_picked_up_by_the_next_dvc_repro(tmp_path):
    """accept-answers edits a source items file; the stage that reads it re-runs."""
    write_items(tmp_path / "items.jsonl", [make_item(id=f"o{n}", group=f"g{n}", **OPEN)
                                           for n in range(4)])
    (tmp_path / "params.yaml").write_text("split:\n  seed: 0\n  dev_share: 0.0\n")
    (tmp_path / "dvc.yaml").write_text(
        "stages:\n  split:\n    cmd: bench-kit split --items items.jsonl --out splits\n"
        "    deps: [items.jsonl]\n    params: [split]\n    outs: [splits]\n")
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
               DVC_NO_ANALYTICS="1")

    def run(*cmd: str) -> str:
        proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=300)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc.stdout + proc.stderr

    run("dvc", "init", "--no-scm", "-q")
    run("dvc", "repro")
    assert "crimson" not in (tmp_path / "splits/test.jsonl").read_text()
    (tmp_path / "sheet.csv").write_text("id,candidate,accept\no2,crimson,yes\n")
    run(sys.executable, "-m", "bench_kit", "audit", "accept-answers", "sheet.csv",
        "--items", "items.jsonl")
    assert "Running stage 'split'" in run("dvc", "repro")
    rows = {json.loads(line)["id"]: json.loads(line)
            for line in (tmp_path / "splits/test.jsonl").read_text().splitlines()}
    assert rows["o2"]["answers"] == ["red", "crimson"]
    assert shutil.which("dvc", path=env["PATH"])


# --- quarantine ----------------------------------------------------------------------------


def test_quarantine_keeps_error_findings_with_reasons(tmp_path):
    # (the easy items let the review measure that these models are usually right)
    answers = {"bad_gold": ["C"] * 5, "shaky": ["B", "B", "B", "B", "A"], "fine": ["A"] * 5,
               **{f"easy{k}": ["A"] * 5 for k in range(3)}}
    items = [make_item(id=name, **MC) for name in answers]
    scores: dict = {}
    for name, votes in answers.items():
        for n, vote in enumerate(votes):
            scores.setdefault(f"m{n}", {}).setdefault("image", {})[name] = (vote, vote == "A")
    run_audit(tmp_path, items, scores)
    data = tmp_path / "findings.jsonl"
    data.write_text(json.dumps({"id": "fine", "check": "label.gold_not_in_choices",
                                "severity": "error", "score": 1.0,
                                "message": "gold\tZ not\namong choices", "evidence": {}}) + "\n")
    out = tmp_path / "audits/quarantine.txt"
    result = invoke("audit", "quarantine", "--findings", str(data), "--findings",
                    str(tmp_path / "out/model_findings.jsonl"), "--out", str(out))
    assert result.exit_code == 0, result.output
    lines = [line for line in out.read_text().splitlines() if not line.startswith("#")]
    assert [line.split("\t")[:2] for line in lines] == [
        ["bad_gold", "label.suspect_gold"], ["fine", "label.gold_not_in_choices"]]
    assert lines[1].split("\t")[2] == "gold Z not among choices"
    # round trip: `bench-kit split` leaves the quarantined ids out, with the reasons
    (tmp_path / "split.yaml").write_text(
        f"split:\n  seed: 0\n  apply_exclusions: true\n  exclude_files: [{out}]\n")
    result = invoke("split", "--items", str(tmp_path / "items.jsonl"), "--out",
                    str(tmp_path / "splits"), "--params", str(tmp_path / "split.yaml"))
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "splits/manifest.json").read_text())
    dropped = {row["id"]: row["reason"] for row in manifest["excluded"]["items"]}
    assert set(dropped) == {"bad_gold", "fine"}
    assert dropped["bad_gold"].startswith("label.suspect_gold")
    kept = [json.loads(line)["id"] for name in ("dev", "test")
            for line in (tmp_path / f"splits/{name}.jsonl").read_text().splitlines()]
    assert kept == ["shaky", "easy0", "easy1", "easy2"] or \
        sorted(kept) == ["easy0", "easy1", "easy2", "shaky"]
    warn = invoke("audit", "quarantine", "--findings", str(tmp_path / "out/model_findings.jsonl"),
                  "--out", str(out), "--severity", "warn")
    assert "shaky" in out.read_text() and warn.exit_code == 0


def test_quarantine_missing_findings_file_is_an_error(tmp_path):
    result = invoke("audit", "quarantine", "--findings", str(tmp_path / "nope.jsonl"),
                    "--out", str(tmp_path / "q.txt"))
    assert result.exit_code == 1 and "nope.jsonl" in result.output
    assert not (tmp_path / "q.txt").exists()

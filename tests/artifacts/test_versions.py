"""Files of the previous layout are read; files of a newer format_version are refused with
one line naming the file, line and field."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from bench_kit.artifacts import paths
from bench_kit.artifacts.exclusions import read_exclusions, write_exclusion_list
from bench_kit.artifacts.predictions import load_predictions, write_predictions
from bench_kit.artifacts.tables import (
    read_audit_summary,
    read_findings,
    read_item_stats,
    read_metrics,
    read_scores,
    write_audit_summary,
    write_item_stats,
    write_metrics,
    write_scores,
)
from bench_kit.artifacts.versions import CURRENT, KEY
from bench_kit.audit.results.inputs import read_score_table
from bench_kit.cli import cli
from bench_kit.errors import InputError
from bench_kit.items import read_items
from bench_kit.report.inputs import load_inputs

V1 = Path(__file__).parent / "fixtures" / "v1"
MODELS = ("random", "random2", "text-only")


@pytest.fixture
def old(tmp_path) -> Path:
    """A writable copy of the version-1 fixture project."""
    root = tmp_path / "v1"
    shutil.copytree(V1, root)
    return root


def test_fixtures_are_unversioned_files_of_the_old_layout():
    first = json.loads((V1 / "results/old/random/image.jsonl").read_text().splitlines()[0])
    assert KEY not in first
    assert KEY not in json.loads((V1 / "metrics/old/random.json").read_text())
    assert KEY not in (V1 / "audits/old/quarantine.txt").read_text()


def test_every_old_file_is_read():
    items = read_items(V1 / "items.jsonl")
    run = load_predictions(V1 / "results/old/random/image.jsonl", model="random", mode="image")
    assert [p.id for p in run.predictions] == [i.id for i in items]
    scores = read_scores(V1 / "scores/old/random2/no_image.jsonl")
    assert len(scores) == 6 and sum(s.hit for s in scores) == 4
    assert read_metrics(V1 / "metrics/old/random2.json", "random2")["model"] == "random2"
    assert read_audit_summary(V1 / "audits/old/summary.json")["items"] == 6
    model_summary = read_audit_summary(V1 / "audits/old/results/model_summary.json")
    assert KEY not in model_summary and "blind_panel" in model_summary
    assert {row["id"] for row in read_item_stats(V1 / "audits/old/results/item_stats.jsonl")} \
        == {i.id for i in items}
    assert read_findings(V1 / "audits/old/results/model_findings.jsonl")
    quarantine = read_exclusions(V1 / "audits/old/quarantine.txt")
    assert set(quarantine.reasons) == {"q1", "q4"}
    assert set(read_exclusions(V1 / "review_rejected.txt").reasons) == {"q5"}


def test_report_and_model_audit_read_old_files():
    inputs = load_inputs(V1 / "items.jsonl", V1 / "scores/old", V1 / "metrics/old",
                         results_dir=V1 / "results/old", audit_dir=V1 / "audits/old",
                         model_audit_dir=V1 / "audits/old/results")
    assert [run.model for run in inputs.runs] == sorted(MODELS)
    assert inputs.runs[0].calls == {"image": 6, "no_image": 6}
    assert KEY not in inputs.runs[0].metrics
    table = read_score_table(read_items(V1 / "items.jsonl"), V1 / "scores/old")
    assert table.models == sorted(MODELS)


def _stamp_rows(path: Path, version) -> None:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    path.write_text("".join(json.dumps({**row, KEY: version}) + "\n" for row in rows))


def _stamp_object(path: Path, version) -> None:
    path.write_text(json.dumps({**json.loads(path.read_text()), KEY: version}))


NEWER = [
    ("results/old/random/image.jsonl", _stamp_rows,
     lambda p: load_predictions(p, model="random", mode="image"), 1),
    ("scores/old/random/image.jsonl", _stamp_rows, read_scores, 1),
    ("audits/old/results/item_stats.jsonl", _stamp_rows, read_item_stats, 1),
    ("metrics/old/random.json", _stamp_object, read_metrics, None),
    ("audits/old/summary.json", _stamp_object, read_audit_summary, None),
    ("audits/old/results/model_summary.json", _stamp_object, read_audit_summary, None),
]


@pytest.mark.parametrize(("rel", "stamp", "read", "line"), NEWER,
                         ids=[rel for rel, *_ in NEWER])
def test_a_newer_version_is_refused(old, rel, stamp, read, line):
    path = old / rel
    stamp(path, 99)
    with pytest.raises(InputError) as info:
        read(path)
    message = str(info.value)
    where = f"{path}:{line}" if line else f"{path}"
    assert message.startswith(f"{where}: field '{KEY}': ")
    assert "99, newer than this bench-kit reads (up to 1); upgrade bench-kit" in message
    assert "\n" not in message


@pytest.mark.parametrize("bad", ["2", 0, 1.5, True])
def test_a_malformed_version_is_refused(old, bad):
    path = old / "scores/old/random/image.jsonl"
    _stamp_rows(path, bad)
    with pytest.raises(InputError, match=f"{KEY} must be a whole number"):
        read_scores(path)


def test_a_newer_exclusion_list_is_refused(old):
    path = old / "audits/old/quarantine.txt"
    path.write_text(f"# {KEY}: 7\n" + path.read_text())
    with pytest.raises(InputError, match=rf"quarantine.txt:1: field '{KEY}': exclusions file "
                                         r"of format_version 7, newer"):
        read_exclusions(path)
    jsonl = old / "rejected.jsonl"
    jsonl.write_text(json.dumps({"id": "q1", "reason": "r", KEY: 3}) + "\n")
    with pytest.raises(InputError, match=rf"rejected.jsonl:1: field '{KEY}'"):
        read_exclusions(jsonl)


def test_the_cli_refuses_a_newer_file_in_one_line(old):
    _stamp_object(old / "metrics/old/random2.json", 2)
    result = CliRunner().invoke(cli, [
        "report", "--items", str(old / "items.jsonl"), "--scores", str(old / "scores/old"),
        "--metrics", str(old / "metrics/old"), "--out", str(old / "reports")])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert lines[-1].startswith(f"error: {old / 'metrics/old/random2.json'}: field '{KEY}'")
    assert "Traceback" not in result.output


def test_writers_stamp_the_current_version_and_round_trip(old, tmp_path):
    predictions = load_predictions(V1 / "results/old/random/image.jsonl", model="random",
                                   mode="image").predictions
    out = tmp_path / "new"
    write_predictions(paths.mode_file(out / "results", "image"), predictions)
    write_scores(out / "scores.jsonl", read_scores(V1 / "scores/old/random/image.jsonl"))
    metrics = read_metrics(V1 / "metrics/old/random.json")
    write_metrics(out / "metrics.json", metrics)
    summary = read_audit_summary(V1 / "audits/old/summary.json")
    write_audit_summary(out / "summary.json", summary)
    stats = read_item_stats(V1 / "audits/old/results/item_stats.jsonl")
    write_item_stats(out / "item_stats.jsonl", stats)
    write_exclusion_list(out / "quarantine.txt", ["q1\tcheck\treason"])

    first_row = json.loads((out / "results/image.jsonl").read_text().splitlines()[0])
    assert first_row[KEY] == CURRENT["predictions"]
    assert json.loads((out / "metrics.json").read_text())[KEY] == CURRENT["metrics"]
    assert (out / "quarantine.txt").read_text().startswith(f"# {KEY}: {CURRENT['exclusions']}\n")
    assert load_predictions(out / "results/image.jsonl", model="random",
                            mode="image").predictions == predictions
    assert read_scores(out / "scores.jsonl") == read_scores(V1 / "scores/old/random/image.jsonl")
    assert read_metrics(out / "metrics.json") == metrics
    assert read_audit_summary(out / "summary.json") == summary
    assert read_item_stats(out / "item_stats.jsonl") == stats
    assert read_exclusions(out / "quarantine.txt").reasons == {"q1": "check; reason"}

"""Hostile inputs to `validate`, `audit data`, `eval score`, `report` and the YAML readers.

Each hostile file gets a one-line reason naming the file, the line and (where there is one)
the field, exit code 1, no traceback, no hang (inputs that could hang run in a subprocess
with a timeout) and no partial output; valid-but-extreme input (a 5 MB question, a model response of megabytes)
is handled. `bench-kit import` does not exist yet, so importers are not covered here.
Property-based tests show the answer extractors never raise on any string.
"""

from __future__ import annotations

import contextlib
import json
import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from conftest import make_item, write_png
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench_kit.cli import cli
from bench_kit.io import write_jsonl
from bench_kit.scoring.extract.answers import extract_choice, extract_yesno
from bench_kit.scoring.extract.boxes import extract_box
from bench_kit.scoring.extract.checklist import parse_checklist
from bench_kit.scoring.extract.numbers import extract_number

REPO = Path(__file__).resolve().parents[1]
BENCH_KIT = [sys.executable, "-m", "bench_kit"]
TIMEOUT = 120


def _chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


def png_claiming(width: int, height: int, *, full: bool = False) -> bytes:
    """A grayscale PNG with the given header size; `full` = every row really present
    (a few hundred KB of deflated zeros that decode to width*height bytes)."""
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    if full:
        packer, row = zlib.compressobj(9), b"\0" * (width + 1)
        data = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    else:
        data = zlib.compress(b"\0" * 64)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", data)
            + _chunk(b"IEND", b""))


def _line(**overrides: Any) -> bytes:
    return (json.dumps(make_item(**overrides)) + "\n").encode()


GOOD = _line(id="good", image="img/ok.png")
_ITEM_TAIL = ('"task":"numeric","answers":["2"],"capability":"perception.count",'
              '"layer":"perception","difficulty":"easy","created_at":"2026-11-01T00:00:00Z"}')

# name -> (bytes of line 2 of the items file, expected field name or None)
ITEM_CASES: dict[str, tuple[bytes, str | None]] = {
    "invalid_utf8": (b'{"id":"bad","question":"caf\xe9 \xff?",' + _ITEM_TAIL.encode() + b"\n",
                     None),
    "truncated_line": (b'{"id":"bad","question":"How many', None),
    "nan": (('{"id":"bad","question":"q","tolerance":NaN,' + _ITEM_TAIL + "\n").encode(), None),
    "infinity": (('{"id":"bad","question":"q","tolerance":-Infinity,' + _ITEM_TAIL
                  + "\n").encode(), None),
    "wrong_type": (_line(id="bad", answers="2"), "answers"),
    "wrong_type_id": (_line(id=7), "id"),
    "duplicate_key": (('{"id":"bad","id":"bad2","question":"q",' + _ITEM_TAIL
                       + "\n").encode(), None),
    "deeply_nested": (b'{"id":"bad","meta":' + b"[" * 100_000 + b"]" * 100_000 + b"}\n",
                      None),
    "long_malformed_line": (b'{"id":"bad","question":"' + b"x" * 50_000_000 + b"\n", None),
    "corrupt_image": (_line(id="bad", image="img/corrupt.png"), "image"),
    "zero_byte_image": (_line(id="bad", image="img/empty.png"), "image"),
    "bomb_header": (_line(id="bad", image="img/huge.png"), "image"),
    "bomb_within_2x_limit": (_line(id="bad", image="img/window.png"), "image"),
    "symlink_escape": (_line(id="bad", image="img/link.png"), "image"),
    "dotdot_escape": (_line(id="bad", image="../outside.png"), "image"),
    "absolute_path": (_line(id="bad", image="/etc/passwd"), "image"),
}


@pytest.fixture(scope="module")
def hostile_root(tmp_path_factory) -> Path:
    """A benchmark folder with a good image and every kind of bad one."""
    root = tmp_path_factory.mktemp("hostile")
    bench = root / "bench"
    write_png(bench / "img" / "ok.png")
    write_png(root / "outside.png")
    (bench / "img" / "corrupt.png").write_bytes(b"\x89PNG\r\n\x1a\n" + os.urandom(512))
    (bench / "img" / "empty.png").write_bytes(b"")
    (bench / "img" / "huge.png").write_bytes(png_claiming(100_000, 100_000))
    (bench / "img" / "window.png").write_bytes(png_claiming(9_000, 9_000, full=True))
    (bench / "img" / "link.png").symlink_to(root / "outside.png")
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    (root / "params.yaml").write_text(yaml.safe_dump(
        {"bench": "hostile", "taxonomy": params["taxonomy"], "audit": params["audit"]}))
    return root


# Inputs that could make a reader hang or blow the stack run in a subprocess with a timeout;
# the rest run in-process (CliRunner), which is seconds faster per case.
ISOLATED = {"long_malformed_line", "deeply_nested", "bomb_header", "bomb_within_2x_limit"}


def run_cli(args: list[str], cwd: Path, *,
            isolated: bool = False) -> subprocess.CompletedProcess:
    """Run bench-kit; `isolated` = in a subprocess, where a hang fails through the timeout.
    In-process, an uncaught exception is reported as a traceback on stderr."""
    if isolated:
        return subprocess.run(BENCH_KIT + args, cwd=cwd, capture_output=True, text=True,
                              timeout=TIMEOUT, errors="replace")
    with contextlib.chdir(cwd):
        result = CliRunner().invoke(cli, args)
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += f"Traceback: {result.exception!r}"
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout, stderr)


def assert_clean_failure(proc: subprocess.CompletedProcess, *needles: str) -> None:
    """Exit 1, no traceback, every stderr line short, and the last one names the problem."""
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert lines and lines[-1].startswith("error: "), proc.stderr[-2000:]
    assert all(len(line) < 400 for line in lines), max(lines, key=len)[:400]
    for needle in needles:
        assert needle in proc.stderr, (needle, proc.stderr[-2000:])


def _items_file(root: Path, name: str) -> Path:
    line, _ = ITEM_CASES[name]
    path = root / "bench" / f"{name}.jsonl"
    path.write_bytes(GOOD + line)
    return path


@pytest.mark.slow
@pytest.mark.parametrize("name", list(ITEM_CASES))
def test_validate_names_file_line_and_field(hostile_root, name) -> None:
    path = _items_file(hostile_root, name)
    report = hostile_root / "reports" / f"{name}.json"
    proc = run_cli(["validate", str(path), "--params", "params.yaml"], hostile_root,
                   isolated=name in ISOLATED)
    _, field = ITEM_CASES[name]
    assert_clean_failure(proc, f"{path}:2:", *([f"field={field}"] if field else []))
    assert not report.exists()


@pytest.mark.slow
@pytest.mark.parametrize("name", list(ITEM_CASES))
def test_audit_data_reports_the_bad_line_and_audits_the_rest(hostile_root, name) -> None:
    # An auditor reports every defect of a dirty file (docs/AUDITS.md#dirty-files-are-
    # audited-not-refused): the hostile line becomes a finding naming line 2 and field.
    path = _items_file(hostile_root, name)
    out = hostile_root / "audits" / name
    proc = run_cli(["audit", "data", "--items", str(path), "--params", "params.yaml",
                    "--out", str(out)], hostile_root, isolated=name in ISOLATED)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout
    assert all(len(line) < 400 for line in proc.stderr.splitlines())
    findings = [json.loads(line) for line in
                (out / "findings.jsonl").read_text(encoding="utf-8").splitlines()]
    bad = [f for f in findings if f["check"].startswith(("schema.", "label."))
           and f["evidence"].get("line") == 2]
    assert bad, findings
    _, field = ITEM_CASES[name]
    if field:
        assert bad[0]["evidence"]["field"] == field, bad[0]
    assert all(len(f["message"]) < 2000 for f in findings)
    assert not any(f["id"] == "good" and f["severity"] == "error" for f in findings)


IMPORT_JSONL_CASES = [name for name in ITEM_CASES if not name.startswith("wrong_type")]


@pytest.mark.slow
@pytest.mark.parametrize("name", IMPORT_JSONL_CASES)
def test_import_jsonl_fails_in_one_line_and_writes_nothing(hostile_root, name) -> None:
    path = _items_file(hostile_root, name)
    out = hostile_root / "imported" / name
    proc = run_cli(["import", "jsonl", str(path), "--out", str(out / "items.jsonl"),
                    "--params", "params.yaml"], hostile_root, isolated=name in ISOLATED)
    assert_clean_failure(proc, str(path))
    assert ":2" in proc.stderr or "(id bad)" in proc.stderr or "id=bad" in proc.stderr, \
        proc.stderr
    assert not out.exists() or not any(out.rglob("*.jsonl"))


def _b64(data: bytes) -> str:
    import base64

    return base64.b64encode(data).decode("ascii")


_TSV_HEADER = "index\tquestion\tA\tB\tanswer\timage\tcategory\n"
# name -> line 3 of a VLMEvalKit TSV whose line 2 is a good row (image column = base64)
TSV_CASES: dict[str, bytes] = {
    "giant_base64_field": b"2\tWhat?\tred\tblue\tA\t" + b"QUFB" * 1_000_000 + b"\tc\n",
    "not_base64": b"2\tWhat?\tred\tblue\tA\t!!not-base64!!\tc\n",
    "invalid_utf8": b"2\tWh\xff\xfeat?\tred\tblue\tA\tQUFB\tc\n",
    "bomb_in_base64": ("2\tWhat?\tred\tblue\tA\t" + _b64(png_claiming(100_000, 100_000))
                       + "\tc\n").encode(),
    "corrupt_image_base64": ("2\tWhat?\tred\tblue\tA\t" + _b64(b"\x89PNG" + os.urandom(300))
                             + "\tc\n").encode(),
}


@pytest.mark.parametrize("name", list(TSV_CASES))
def test_import_tsv_fails_in_one_line_and_writes_nothing(hostile_root, name) -> None:
    good_png = (hostile_root / "bench" / "img" / "ok.png").read_bytes()
    good = f"1\tWhat colour?\tred\tblue\tA\t{_b64(good_png)}\tc\n".encode()
    path = hostile_root / f"{name}.tsv"
    path.write_bytes(_TSV_HEADER.encode() + good + TSV_CASES[name])
    out = hostile_root / "imported-tsv" / name
    proc = run_cli(["import", "vlmevalkit", str(path), "--out", str(out / "items.jsonl"),
                    "--capability", "perception.colour", "--max-image-mb", "1", "--params",
                    "params.yaml"], hostile_root, isolated=True)
    assert_clean_failure(proc, f"{path.name}:3")
    assert not out.exists() or not any(out.rglob("*"))


def test_a_huge_question_is_a_validation_problem_not_a_cost(hostile_root) -> None:
    path = hostile_root / "bench" / "huge_question.jsonl"
    path.write_bytes(GOOD + _line(id="big", question="How many dots? " + "dot " * 1_250_000))
    proc = run_cli(["validate", str(path), "--params", "params.yaml"], hostile_root,
                   isolated=True)
    assert_clean_failure(proc, f"{path}:2: id=big field=question: 5,000,015 characters, more "
                               f"than validate.max_question_chars (20,000)")
    # the limit is a setting: raised, the same file is valid
    params = yaml.safe_load((hostile_root / "params.yaml").read_text())
    (hostile_root / "big.yaml").write_text(yaml.safe_dump(
        {**params, "validate": {"max_question_chars": 6_000_000}}))
    proc = run_cli(["validate", str(path), "--params", "big.yaml"], hostile_root)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]


def test_over_long_options_and_answers_are_validation_problems(hostile_root) -> None:
    path = hostile_root / "bench" / "long_options.jsonl"
    path.write_bytes(GOOD + _line(id="long", task="mc", choices={"A": "x" * 2_001, "B": "y"},
                                  answers=["B"]))
    proc = run_cli(["validate", str(path), "--params", "params.yaml"], hostile_root)
    assert_clean_failure(proc, f"{path}:2: id=long field=choices.A: 2,001 characters, more "
                               f"than validate.max_option_chars (2,000)")


@pytest.mark.parametrize("command", [
    ["validate", "bench/items.jsonl", "--params", "evil.yaml"],
    ["audit", "data", "--items", "bench/items.jsonl", "--params", "evil.yaml", "--out", "a"],
    ["split", "--items", "bench/items.jsonl", "--params", "evil.yaml", "--out", "s"],
    ["eval", "run", "--items", "bench/items.jsonl", "--model", "random", "--params",
     "evil.yaml", "--out", "r/image.jsonl"],
    ["import", "jsonl", "bench/items.jsonl", "--out", "i/items.jsonl", "--capability",
     "perception.count", "--category-map", "evil.yaml"],
])
def test_yaml_tags_in_params_are_refused_not_executed(hostile_root, command) -> None:
    write_jsonl(hostile_root / "bench" / "items.jsonl", [make_item(id="good")])
    marker = hostile_root / "PWNED"
    (hostile_root / "evil.yaml").write_text(
        f'bench: !!python/object/apply:os.system ["touch {marker}"]\n'
        "taxonomy: {perception.count: perception}\n")
    proc = run_cli(command, hostile_root)
    assert_clean_failure(proc, "evil.yaml")
    assert not marker.exists()
    assert not any((hostile_root / d).exists() for d in ("a", "s", "r", "i"))


def test_yaml_tags_in_templates_are_refused_not_executed(tmp_path) -> None:
    marker = tmp_path / "PWNED"
    (tmp_path / "annotations.jsonl").write_text("")
    (tmp_path / "templates.yaml").write_text(
        f'templates: !!python/object/apply:os.system ["touch {marker}"]\n')
    (tmp_path / "params.yaml").write_text((REPO / "params.yaml").read_text())
    proc = run_cli(["author", "generate", "--annotations", "annotations.jsonl",
                    "--templates", "templates.yaml", "--out", "items.jsonl"], tmp_path)
    assert_clean_failure(proc, "templates.yaml")
    assert not marker.exists() and not (tmp_path / "items.jsonl").exists()


# --- predictions: score and report -------------------------------------------------------

def _prediction(ident: str, response: Any = "B", **extra: Any) -> dict[str, Any]:
    return {"id": ident, "model": "m", "mode": "image", "rotation": 0, "prompt_sha": "0" * 64,
            "response": response, "error": None, "latency_s": 0.1, "tokens_in": 1,
            "tokens_out": 1, "cost": 0.0, "cached": True,
            "created_at": "2026-11-01T00:00:00Z", **extra}


def _pred_line(**kwargs: Any) -> bytes:
    return (json.dumps(_prediction(**kwargs)) + "\n").encode()


PREDICTION_CASES: dict[str, tuple[bytes, str | None]] = {
    "invalid_utf8": (b'{"id":"q2","response":"\xff\xfe"}\n', None),
    "truncated_line": (b'{"id":"q2","model":"m","response":"B', None),
    "nan_latency": (_pred_line(ident="q2").replace(b'"latency_s": 0.1', b'"latency_s": NaN'),
                    None),
    "wrong_type_response": (_pred_line(ident="q2", response=5), "response"),
    "duplicate_key": (_pred_line(ident="q2").replace(b'{"id": "q2",', b'{"id": "q2", "id": "q3",'),
                      None),
    "not_an_object": (b'["q2", "B"]\n', None),
}


@pytest.fixture
def scored_bench(tmp_path) -> Path:
    items = [make_item(id=f"q{n}", task="mc", question=f"Which colour {n}?",
                       choices={"A": "red", "B": "blue"}, answers=["B"]) for n in (1, 2)]
    write_jsonl(tmp_path / "items.jsonl", items)
    (tmp_path / "params.yaml").write_text((REPO / "params.yaml").read_text())
    (tmp_path / "results" / "m").mkdir(parents=True)
    return tmp_path


def _score(root: Path) -> subprocess.CompletedProcess:
    return run_cli(["eval", "score", "--items", "items.jsonl", "--model", "m", "--results",
                    "results/m", "--out", "scores/m", "--metrics", "metrics/m.json"], root)


@pytest.mark.parametrize("name", list(PREDICTION_CASES))
def test_score_refuses_hostile_predictions_in_one_line(scored_bench, name) -> None:
    line, field = PREDICTION_CASES[name]
    path = scored_bench / "results" / "m" / "image.jsonl"
    path.write_bytes(_pred_line(ident="q1") + line)
    proc = _score(scored_bench)
    assert_clean_failure(proc, f"{Path('results/m/image.jsonl')}", ":2",
                         *([field] if field else []))
    assert not (scored_bench / "scores").exists() and not (scored_bench / "metrics").exists()


def test_a_response_of_megabytes_is_scored_and_clipped_in_the_report(scored_bench) -> None:
    giant = "I think the answer is B. " + "blah " * 400_000  # 2 MB
    write_jsonl(scored_bench / "results" / "m" / "image.jsonl",
                [_prediction("q1", giant), _prediction("q2", "A" + " no" * 700_000)])
    proc = _score(scored_bench)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    metrics = json.loads((scored_bench / "metrics" / "m.json").read_text())
    assert metrics["image"]["n"] == 2 and metrics["image"]["errors"] == 0
    proc = run_cli(["report", "--items", "items.jsonl", "--scores", "scores", "--metrics",
                    "metrics", "--results", "results", "--out", "reports"], scored_bench)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    for name in ("report.md", "report.html"):
        size = (scored_bench / "reports" / name).stat().st_size
        assert size < 1_000_000, f"{name} holds the whole response ({size} bytes)"


# --- extractors never raise ----------------------------------------------------------------

CHOICES = {"A": "red", "B": "blue", "C": "green (dark)", "D": "none of the above"}
ADVERSARIAL = st.one_of(
    st.text(),
    st.text(alphabet="ABCDabcd()[]{}.:;,*#!? \n\t-答案选项是否yesnoYESNO0123456789<>/think",
            max_size=400),
    st.from_regex(r"(answer|Answer|ANSWER)?\s*(is|:)?\s*[\(\[]?[A-Da-d][\)\]]?[.,;]?.*",
                  fullmatch=True),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ADVERSARIAL)
def test_extract_choice_never_raises(text: str) -> None:
    result = extract_choice(text, CHOICES)
    assert result is None or result in CHOICES


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ADVERSARIAL)
def test_extract_yesno_never_raises(text: str) -> None:
    assert extract_yesno(text) in (None, "yes", "no")


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.sampled_from("ABCDEFGHIJ"), st.text(min_size=1, max_size=30),
                       min_size=2, max_size=10), st.text())
def test_extract_choice_never_raises_for_any_options(choices: dict, text: str) -> None:
    result = extract_choice(text, choices)
    assert result is None or result in choices


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(ADVERSARIAL,
                 st.text(alphabet="0123456789.,-+e/%[]() 一二三十百千万", max_size=300)))
def test_number_box_and_checklist_extractors_never_raise(text: str) -> None:
    value = extract_number(text)
    assert value is None or isinstance(value, float)
    box = extract_box(text, 640, 480)
    assert box is None or len(box) == 4
    verdicts = parse_checklist(text, ["red circle", "blue square"])
    assert len(verdicts) == 2 and all(v in (None, True, False) for v in verdicts)

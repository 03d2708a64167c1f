"""The library speaks of parameters, the CLI of flags: a library message names a parameter
as `name` or `name=value` (bench_kit.errors.param) and the CLI prints the running
command's option instead (bench_kit.cli._common.as_flags), from the command's own options."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import bench_kit
from bench_kit.cli import cli
from bench_kit.cli._common import as_flags
from bench_kit.errors import InputError, param
from tests.conftest import write_png

ROOT = Path(bench_kit.__file__).parent
IMPORT = click.Command("import", params=[
    click.Option(["--map", "column_map"], multiple=True),
    click.Option(["--join-on"]), click.Option(["--items", "items_path"]),
    click.Option(["-x", "--expand"], is_flag=True), click.Option(["--text-field"])])


@pytest.mark.parametrize("library, user", [
    (f"{param('join_on', 'qid')}: no such field", "--join-on qid: no such field"),
    (f"use {param('column_map', 'question=COLUMN')})", "use --map question=COLUMN)"),
    (f"{param('expand')} needs a ground_truth column", "--expand needs a ground_truth column"),
    # known by the option's Python name or by its flag written as a name
    (f"{param('items_path', 'a.jsonl')} / {param('items')}", "--items a.jsonl / --items"),
    (f"choose one with {param('text_field')}", "choose one with --text-field"),
    # not this command's parameter, or not a parameter at all: left as written
    (f"pass {param('gold_index', 0)}", "pass `gold_index=0`"),
    ("build it with `bench-kit audit reference build --out FILE`",
     "build it with `bench-kit audit reference build --out FILE`"),
    ("add them under `taxonomy:` and `eval.cache`", "add them under `taxonomy:` and `eval.cache`"),
])
def test_a_library_parameter_reads_as_the_commands_flag(library, user) -> None:
    assert as_flags(library, IMPORT) == user


def test_outside_a_command_a_message_is_left_as_written() -> None:
    assert as_flags(f"pass {param('task', 'open')}") == "pass `task=open`"


def _join_files(tmp_path: Path) -> tuple[Path, Path]:
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"question_id": 1, "image": "a.png", "text": "What?"})
                         + "\n")
    answers = tmp_path / "a.jsonl"
    answers.write_text(json.dumps({"id": 1, "text": "cat"}) + "\n")
    return questions, answers


def test_the_library_names_the_parameter_and_the_user_reads_the_flag(tmp_path) -> None:
    from bench_kit.exchange.importers import read_import
    from bench_kit.exchange.rows import ImportOptions

    questions, answers = _join_files(tmp_path)
    opts = ImportOptions(capability="perception.test", answers_path=answers,
                         join_on="question_id")
    with pytest.raises(InputError, match="`join_on=question_id`: no such field"):
        read_import("json", questions, opts)
    result = CliRunner().invoke(cli, ["import", "json", str(questions), "--out",
                                      str(tmp_path / "o" / "items.jsonl"), "--answers",
                                      str(answers), "--join-on", "question_id",
                                      "--capability", "perception.test"])
    assert result.exit_code == 1
    assert result.stderr.strip() == (f"error: {answers}:1: --join-on question_id: no such "
                                     "field")


def test_row_problems_and_decisions_read_as_flags_too(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # no params.yaml: no taxonomy to check capabilities against
    src = tmp_path / "in.csv"
    src.write_text("id,image,ask,answer\nq1,p.png,What?,cat\n")
    write_png(tmp_path / "p.png")
    problems = CliRunner().invoke(cli, ["import", "csv", str(src), "--out",
                                        str(tmp_path / "o.jsonl"), "--capability", "perception.t",
                                        "--map", "question=prompt"])
    assert problems.exit_code == 1
    assert "field=question: --map question=prompt: no column 'prompt'" in problems.stderr
    assert "`" not in problems.stderr
    decided = CliRunner().invoke(cli, ["import", "csv", str(src), "--out",
                                       str(tmp_path / "o.jsonl"), "--capability", "perception.t",
                                       "--map", "question=ask", "--task", "open"])
    assert decided.exit_code == 0, decided.output
    assert "task: open for every row (--task)" in decided.stderr
    assert "1 open: --task" in decided.stderr


# A flag in a library string (outside docstrings and whole commands quoted in backticks,
# which tell the user which command to run). Files still to convert, each with its reason:
STILL_FLAGS = {
    # shared by commands with and without --model / --results
    "artifacts/predictions.py",
    # texts written into audit reports (findings, why a check was skipped, how to build a
    # reference), read outside the command that ran
    "audit/contamination_specific.py", "audit/registry.py", "audit/distributed/matching.py",
    # an HTML page's CSS (`--var`), not a flag
    "authoring/review.py",
}
_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
_QUOTED = re.compile(r"`[^`]*`")
_ARGUMENT = re.compile(r"--[a-z][a-z0-9-]*(=\S*)?")  # a subprocess argument (git --quiet)


def library_flags(source: str) -> list[str]:
    """Flags named in the non-docstring strings of `source`."""
    tree = ast.parse(source)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                       ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in docstrings and not _ARGUMENT.fullmatch(node.value):
            found += _FLAG.findall(_QUOTED.sub("", node.value))
    return found


def test_the_detector_finds_the_flags_this_replaced() -> None:
    assert library_flags('raise InputError(f"--join-on {join_on}: no such field")') == [
        "--join-on"]
    assert library_flags('rule = "use --map question=COLUMN"') == ["--map"]
    assert library_flags('x = "build one with `bench-kit audit reference build --out F`"') == []
    assert library_flags('git(repo, "rev-parse", "--verify", "--quiet")') == []
    assert library_flags('def f():\n    """Read --map FIELD=COLUMN values."""\n') == []


@pytest.mark.parametrize("path", sorted(p for p in ROOT.rglob("*.py") if "cli" not in p.parts),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_the_library_names_parameters_not_flags(path: Path) -> None:
    where = str(path.relative_to(ROOT))
    flags = library_flags(path.read_text(encoding="utf-8"))
    if where in STILL_FLAGS:
        assert flags, f"{where} names no flag now: take it off STILL_FLAGS"
    else:
        assert not flags, (f"{where}: {flags} in a library message; name the parameter "
                           "with bench_kit.errors.param (the CLI shows its flag)")

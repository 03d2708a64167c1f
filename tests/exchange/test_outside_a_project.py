"""A first hour outside a project: no params.yaml, documented defaults, one notice line."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from bench_kit.cli import cli
from bench_kit.io import read_jsonl
from bench_kit.params import DEFAULTS_NOTICE

FLICKR = Path(__file__).parent / "fixtures" / "real" / "flickr8k_tokens"


def _run(*args: str):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_commands_run_with_documented_defaults_without_params_yaml(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    made = _run("author", "from-captions", "--captions", FLICKR / "Flickr8k.token.txt",
                "--image-root", FLICKR / "Flicker8k_Dataset", "--out", "mine/items.jsonl")
    assert made.exit_code == 0, made.output
    assert made.stderr.splitlines().count(DEFAULTS_NOTICE) == 1

    audited = _run("audit", "data", "--items", "mine/items.jsonl", "--out", "audits/mine")
    assert audited.exit_code == 0, audited.output
    assert audited.stderr.splitlines()[0] == DEFAULTS_NOTICE
    assert (tmp_path / "audits/mine/summary.json").is_file()

    ran = _run("eval", "run", "--items", "mine/items.jsonl", "--model", "random")
    assert ran.exit_code == 0, ran.output
    out = tmp_path / "scratch/eval/random/image.jsonl"       # scratch, not results/
    assert len(read_jsonl(out)) == 9 and not (tmp_path / "results").exists()


def test_a_missing_params_file_given_by_name_is_still_an_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = _run("audit", "data", "--items", "x.jsonl", "--out", "a",
                  "--params", "other.yaml")
    assert result.exit_code == 1 and "other.yaml" in result.stderr

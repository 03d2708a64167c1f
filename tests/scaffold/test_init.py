"""`bench-kit init`: the scaffold, its git/DVC setup, and (slow) `dvc repro` + `dvc push`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from bench_kit.cli import cli

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "DVC_NO_ANALYTICS": "1"}


@pytest.fixture
def git_identity(monkeypatch):
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)


def test_init_scaffolds_git_dvc_remote_and_tracked_images(tmp_path, git_identity):
    result = CliRunner().invoke(cli, ["init", str(tmp_path / "My Bench")])
    assert result.exit_code == 0, result.output
    root = tmp_path / "My Bench"
    params = yaml.safe_load((root / "params.yaml").read_text())
    assert params["bench"] == "my-bench"
    assert (root / "dvc.yaml").is_file() and (root / "datasets/my-bench/templates.yaml").is_file()
    assert (root / "datasets/my-bench/images.dvc").is_file()
    assert len(list((root / "datasets/my-bench/images").glob("*.png"))) == 14
    config = (root / ".dvc/config").read_text()
    assert "analytics = false" in config and "remote = local" in config
    assert (tmp_path / "my-bench-dvc-remote").is_dir()
    tracked = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True,
                             check=True).stdout.split()
    assert "datasets/my-bench/images.dvc" in tracked and "params.yaml" in tracked
    assert not any(p.startswith("datasets/my-bench/images/") for p in tracked)
    assert "What to edit first" in (root / "README.md").read_text()
    log = subprocess.run(["git", "log", "--oneline"], cwd=root, capture_output=True, text=True,
                         check=True)
    assert "bench-kit init my-bench" in log.stdout
    # models are a top-level section; the split stage depends on every (existing) exclude list
    assert "models" not in params["eval"] and "random" in params["models"]
    stages = yaml.safe_load((root / "dvc.yaml").read_text())["stages"]
    assert "models.${item.model}" in stages["eval"]["params"]
    split_deps = [d.replace("${bench}", "my-bench") for d in stages["split"]["deps"]]
    assert params["split"]["exclude_files"]
    for rel in params["split"]["exclude_files"]:
        assert rel in split_deps and (root / rel).is_file() and rel in tracked


def test_init_refuses_a_non_empty_folder(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "keep.txt").write_text("mine")
    result = CliRunner().invoke(cli, ["init", str(tmp_path / "x")])
    assert result.exit_code == 2 and "not an empty folder" in result.output
    assert sorted(p.name for p in (tmp_path / "x").iterdir()) == ["keep.txt"]


def test_scaffold_templates_do_not_look_like_dvc_files():
    # DVC collects every dvc.yaml in a repository: the templates must not be named so
    folder = Path(__file__).resolve().parents[2] / "bench_kit" / "scaffold" / "templates"
    assert not list(folder.rglob("dvc.yaml")) and list(folder.glob("*.j2"))


@pytest.mark.slow
def test_init_then_dvc_repro_and_push_work_as_is(tmp_path):
    env = dict(os.environ, **GIT_ENV,
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")

    def run(cmd: str, cwd: Path) -> str:
        proc = subprocess.run(cmd, shell=True, cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=900, check=False)
        assert proc.returncode == 0, f"{cmd}:\n{(proc.stdout + proc.stderr)[-3000:]}"
        return proc.stdout + proc.stderr

    first = run("bench-kit init x && cd x && dvc repro", tmp_path)
    # the first hour has no dead ends: the scaffold meets its own quotas, DVC has nothing
    # to warn about (an empty output file would be)
    assert "warning" not in first.lower(), [ln for ln in first.splitlines()
                                            if "warning" in ln.lower()]
    root = tmp_path / "x"
    assert "<html" in (root / "reports/x/report.html").read_text().lower()
    assert (root / "datasets/x/splits/test.jsonl").stat().st_size > 0
    assert "up to date" in run("dvc repro", root)
    run("dvc push", root)
    remote = tmp_path / "x-dvc-remote"
    assert sum(1 for p in remote.rglob("*") if p.is_file()) >= 14


def _models(params: dict) -> dict:
    # the models section moves from eval.models to a top-level models: (either is read)
    return params.get("models") or params["eval"]["models"]


def test_readme_models_commands_and_quotas_of_the_scaffold(tmp_path,
                                                                      git_identity):
    assert CliRunner().invoke(cli, ["init", str(tmp_path / "b")]).exit_code == 0
    root = tmp_path / "b"
    readme = (root / "README.md").read_text()
    params = yaml.safe_load((root / "params.yaml").read_text())
    for name in ("random", "text-only", "ocr", "gpt-4o-mini"):
        if f"`{name}`" in readme or f"--model {name}" in readme:
            assert name in _models(params), name
    assert "ocr" in _models(params) and _models(params)["ocr"]["adapter"] == "ocr"
    commands = [line.strip() for line in readme.splitlines()]
    for os_specific in ("open ", "xdg-open", "start ", "brew ", "apt ", "apt-get", "cmd /c"):
        assert not any(c.startswith(os_specific) for c in commands), os_specific
    # how to bring in an existing benchmark, track it and wire it into the pipeline
    assert "bench-kit import" in readme and "dvc add" in readme and "dvc.yaml" in readme
    assert "--on-error skip" in readme

    # the scaffold's own templates meet the scaffold's quotas (generate warns otherwise)
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    cmd = yaml.safe_load((root / "dvc.yaml").read_text())["stages"]["generate"]["cmd"]
    cmd = cmd.replace("${bench}", "b")
    proc = subprocess.run(cmd, shell=True, cwd=root, env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "warning" not in proc.stderr.lower(), proc.stderr


@pytest.mark.slow
def test_init_items_then_dvc_repro_reports_imported_items(tmp_path):
    """A real benchmark file in, `init --items`, `dvc repro` to a report: no hand edits."""
    env = dict(os.environ, **GIT_ENV,
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    real = Path(__file__).resolve().parents[1] / "exchange" / "fixtures" / "real"
    sqa = real / "scienceqa_problems"

    def run(cmd: str, cwd: Path) -> str:
        proc = subprocess.run(cmd, shell=True, cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=900, check=False)
        assert proc.returncode == 0, f"{cmd}:\n{(proc.stdout + proc.stderr)[-3000:]}"
        return proc.stdout + proc.stderr

    run(f"bench-kit import json {sqa / 'problems.json'} --out sq/items.jsonl "
        f"--capability reasoning.science --image-root {sqa / 'images'} "
        "--created-at 2026-01-31T00:00:00Z", tmp_path)
    out = run("bench-kit init proj --items sq/items.jsonl && cd proj && dvc repro", tmp_path)
    root = tmp_path / "proj"
    assert "5 imported images" in out and "Running stage 'generate'" not in out
    params = yaml.safe_load((root / "params.yaml").read_text())
    assert params["taxonomy"] == {"reasoning.science": "reasoning"}
    assert "<html" in (root / "reports/proj/report.html").read_text().lower()
    test_ids = [json.loads(line)["id"] for line in
                (root / "datasets/proj/splits/test.jsonl").read_text().splitlines()]
    assert test_ids and set(test_ids) <= {str(n) for n in range(1, 9)}
    assert "up to date" in run("dvc repro", root)

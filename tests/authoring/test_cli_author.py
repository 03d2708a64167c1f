"""`bench-kit author scenes` and `bench-kit author generate` through click's CliRunner."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from bench_kit.cli import cli
from bench_kit.items import read_items

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "datasets" / "demo" / "templates.yaml"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A tmp project: params.yaml with few scenes and the demo templates."""
    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    params["scenes"].update(n_shapes=10, n_signs=4, n_charts=3)
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True),
                                          encoding="utf-8")
    shutil.copy(TEMPLATES, tmp_path / "templates.yaml")
    return tmp_path


def _scenes(project: Path):
    return CliRunner().invoke(cli, ["author", "scenes", "--params", str(project / "params.yaml"),
                                    "--out", str(project / "bench")], catch_exceptions=False)


def _generate(project: Path, templates: Path | None = None):
    return CliRunner().invoke(cli, [
        "author", "generate", "--params", str(project / "params.yaml"),
        "--annotations", str(project / "bench" / "annotations.jsonl"),
        "--templates", str(templates or project / "templates.yaml"),
        "--out", str(project / "bench" / "items.jsonl")], catch_exceptions=False)


def test_scenes_then_generate(project):
    result = _scenes(project)
    assert result.exit_code == 0, result.stderr
    assert "wrote 17 scenes (10 shapes, 4 sign, 3 chart" in result.stderr
    assert len(list((project / "bench" / "images").glob("s*.png"))) == 17

    result = _generate(project)
    assert result.exit_code == 0, result.stderr
    items = read_items(project / "bench" / "items.jsonl")
    assert items and result.stdout == ""
    for heading in ("capability", "easy", "medium", "hard", "template", "task:", "layer:",
                    "perception.count", "spatial_left_of"):
        assert heading in result.stderr
    assert f"wrote {len(items)} items to {project / 'bench' / 'items.jsonl'}" in result.stderr


def test_generate_reads_templates_path_from_params(project, monkeypatch):
    assert _scenes(project).exit_code == 0
    params = yaml.safe_load((project / "params.yaml").read_text(encoding="utf-8"))
    params["generate"]["templates"] = "templates.yaml"
    (project / "params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True),
                                         encoding="utf-8")
    monkeypatch.chdir(project)
    result = CliRunner().invoke(cli, ["author", "generate", "--annotations",
                                      "bench/annotations.jsonl", "--out", "bench/items.jsonl"])
    assert result.exit_code == 0, result.stderr
    assert (project / "bench" / "items.jsonl").is_file()


@pytest.mark.parametrize("edit, message", [
    (lambda t: t[0].update(capability="perception.smell"),
     "template 'shape_of_colour': key 'capability'"),
    (lambda t: t[3]["gold"].update(solver="colour_off"),
     "template 'colour_of_shape': key 'gold.solver': unknown solver 'colour_off'"),
    (lambda t: t[0].update(question="What shape is the {color} object?"),
     "template 'shape_of_colour': key 'question': unknown slot(s) ['color']"),
])
def test_bad_template_is_one_line_and_writes_nothing(project, edit, message):
    assert _scenes(project).exit_code == 0
    doc = yaml.safe_load(TEMPLATES.read_text(encoding="utf-8"))
    edit(doc["templates"])
    bad = project / "bad.yaml"
    bad.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    result = _generate(project, bad)
    assert result.exit_code == 1
    assert result.stderr.startswith("error: ") and message in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert not (project / "bench" / "items.jsonl").exists()


def test_invalid_yaml_names_file_and_line(project):
    assert _scenes(project).exit_code == 0
    bad = project / "broken.yaml"
    bad.write_text("templates:\n  - id: x\n    question: [unclosed\n", encoding="utf-8")
    result = _generate(project, bad)
    assert result.exit_code == 1 and f"{bad}:" in result.stderr and "invalid YAML" in result.stderr
    assert result.stderr.count("\n") == 1


def test_missing_annotations_is_one_line(project):
    result = _generate(project)
    assert result.exit_code == 1
    assert "annotations.jsonl: file not found" in result.stderr
    assert result.stderr.count("\n") == 1


def test_bad_scene_params_name_the_key(project):
    params = yaml.safe_load((project / "params.yaml").read_text(encoding="utf-8"))
    params["scenes"]["width"] = "wide"
    (project / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")
    result = _scenes(project)
    assert result.exit_code == 1 and "scenes.width" in result.stderr
    assert not (project / "bench" / "annotations.jsonl").exists()


@pytest.mark.parametrize("command", ["scenes", "generate"])
def test_help_has_an_example(command):
    result = CliRunner().invoke(cli, ["author", command, "--help"])
    assert result.exit_code == 0 and "Example:" in result.output
    assert f"bench-kit author {command}" in result.output

"""dvc.yaml's code dependencies are right: every bench_kit module a stage's command can run
(its CLI module's imports, transitively, function-level imports included) lies under one
of the stage's `deps`; `split` depends on every exclusion list of params.yaml; each stage
that reads model settings lists `models` in its params."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import click
import pytest
import yaml

from bench_kit.cli import cli

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "bench_kit"
# Imported by every command before it runs but holding no stage's logic: the command
# dispatcher (it imports every CLI module for `--help`) and the version string.
DISPATCH = {"bench_kit/__init__.py", "bench_kit/__main__.py", "bench_kit/cli/__init__.py"}


def module_file(name: str) -> Path | None:
    """The source file of a bench_kit module (package -> its __init__.py), if it exists."""
    base = REPO / Path(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, within: ast.AST | None = None) -> set[str]:
    """bench_kit modules named by any import statement in a file (function bodies too), or
    only in the node `within` of it. `from bench_kit.a import b` names bench_kit.a and, when
    it is a module, bench_kit.a.b."""
    tree = within or ast.parse(path.read_text(encoding="utf-8"))
    package = _module_name(path) if path.name == "__init__.py" else \
        _module_name(path).rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return {name for name in found
            if name.split(".")[0] == "bench_kit" and module_file(name) is not None}


@cache
def closure(*start: str) -> frozenset[str]:
    """Repo-relative files of the modules `start` and every bench_kit module they import,
    transitively, with the packages (`__init__.py`) they sit in."""
    seen: set[str] = set()
    todo = list(start)
    while todo:
        name = todo.pop()
        parts = name.split(".")
        for size in range(1, len(parts) + 1):  # a module runs its packages' __init__ first
            parent = ".".join(parts[:size])
            path = module_file(parent)
            rel = path.relative_to(REPO).as_posix() if path else None
            if rel is None or rel in seen:
                continue
            seen.add(rel)
            if rel not in DISPATCH:
                todo.extend(imported_modules(path))
    return frozenset(seen - DISPATCH)


def command_module(cmd: str) -> str:
    """The module defining the click command a `bench-kit ...` command line runs."""
    return _command(cmd).callback.__module__


def _command(cmd: str) -> click.Command:
    words = cmd.split()
    assert words[0] == "bench-kit", cmd
    command: click.Command = cli
    for word in words[1:]:
        if not isinstance(command, click.Group) or word.startswith("-"):
            break
        command = command.commands[word]
    return command


def command_closure(cmd: str) -> frozenset[str]:
    """Files a `bench-kit ...` command runs: its CLI module, that module's top-level
    imports and the imports inside the command's function, each walked transitively.
    (A CLI module holding several commands does not drag in its siblings' imports.)"""
    callback = _command(cmd).callback
    module = callback.__module__
    path = module_file(module)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    body = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
            and node.name == callback.__name__]
    assert len(body) == 1, f"{cmd}: cannot find def {callback.__name__} in {path}"
    names = set(imported_modules(path, body[0]))
    for node in top:
        names |= imported_modules(path, node)
    return frozenset({path.relative_to(REPO).as_posix()} | closure(*sorted(names)))


def pipeline() -> dict:
    return yaml.safe_load((REPO / "dvc.yaml").read_text(encoding="utf-8"))["stages"]


def params() -> dict:
    return yaml.safe_load((REPO / "params.yaml").read_text(encoding="utf-8"))


def stage_body(stage: dict) -> dict:
    return stage.get("do", stage)


def code_deps(stage: dict) -> list[str]:
    deps = [d if isinstance(d, str) else next(iter(d)) for d in stage_body(stage)["deps"]]
    return [d.rstrip("/") for d in deps if d.startswith("bench_kit")]


def covered(path: str, deps: list[str]) -> bool:
    return any(path == dep or path.startswith(dep + "/") for dep in deps)


STAGES = sorted(pipeline())


@pytest.mark.parametrize("name", STAGES)
def test_every_module_a_stage_runs_is_a_dep(name):
    stage = pipeline()[name]
    cmd = " ".join(stage_body(stage)["cmd"].split())
    needed = command_closure(cmd)
    deps = code_deps(stage)
    for dep in deps:
        assert (REPO / dep).exists(), f"{name}: dep {dep} does not exist"
    missing = sorted(path for path in needed if not covered(path, deps))
    assert not missing, f"stage {name} runs {missing} but does not list them in deps"


def test_the_walk_finds_function_level_and_transitive_imports():
    split_run = command_closure("bench-kit split --items x --out y")
    assert "bench_kit/split/assign.py" in split_run          # imported inside the command
    assert "bench_kit/artifacts/exclusions.py" in split_run  # through split/exclusions.py
    assert "bench_kit/io.py" in split_run and "bench_kit/errors.py" in split_run
    assert "bench_kit/scoring/stage.py" not in split_run
    assert command_module("bench-kit eval run --items x") == "bench_kit.cli.evaluate"


@pytest.mark.parametrize("name", STAGES)
def test_every_dataset_file_a_stage_names_is_a_dep_or_an_out(name):
    """A `datasets/...` path in a stage's command (e.g. audit-results' `--prior-items`) is
    read, so it is a dep, unless the stage writes it (an out, or a folder holding outs)."""
    body = stage_body(pipeline()[name])
    deps = [d if isinstance(d, str) else next(iter(d)) for d in body["deps"]]
    outs = [o if isinstance(o, str) else next(iter(o)) for o in body.get("outs", [])]
    for path in re.findall(r"(?<=\s)datasets/\S+", " " + body["cmd"]):
        written = any(covered(path, [out]) or out.startswith(path + "/") for out in outs)
        assert path in deps or written, f"stage {name} reads {path} but does not list it"


def test_split_depends_on_every_exclusion_list():
    split = params()["split"]
    bench = params()["bench"]
    deps = [d.replace("${bench}", bench) for d in pipeline()["split"]["deps"]]
    assert split["exclude_files"], "the demo lists its exclusion lists"
    for path in split["exclude_files"]:
        assert path in deps, f"split does not depend on exclusion list {path}"
        assert (REPO / path).is_file(), f"{path} must exist (an empty list) to be a DVC dep"


# The commands that read model settings (bench_kit.models.config) through params.yaml.
MODEL_READERS = {"eval", "audit", "variants"}


@pytest.mark.parametrize("name", sorted(MODEL_READERS))
def test_stages_that_read_model_settings_list_models(name):
    stage_params = stage_body(pipeline()[name])["params"]
    assert any(re.fullmatch(r"models(\..+)?", str(p)) for p in stage_params), stage_params
    assert not any(str(p).startswith("eval.models") for p in stage_params)


def test_model_readers_are_the_stages_that_import_the_model_config():
    readers = {name for name in STAGES
               if "bench_kit/models/config.py" in command_closure(
                   " ".join(stage_body(pipeline()[name])["cmd"].split()))}
    # generate's audit gate loads every audit check (the contamination judge could read a
    # model) but runs only the ambiguity and label checks, which read none.
    assert readers <= MODEL_READERS | {"score", "report", "audit-results", "generate"}, readers
    assert MODEL_READERS <= readers


@pytest.mark.parametrize("name", STAGES)
def test_every_params_key_a_stage_lists_exists(name):
    doc = params()
    for key in stage_body(pipeline()[name]).get("params", []):
        key = str(key).replace("${item.model}", doc["eval"]["run_models"][0])
        node = doc
        for part in key.split("."):
            assert isinstance(node, dict) and part in node, f"{name}: params key {key} missing"
            node = node[part]

"""The docs describe today's code: every benchmark script they name exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = sorted((REPO / "docs").glob("*.md")) + [REPO / "README.md"]
SCRIPT = re.compile(r"\b((?:benchmarks|scripts)/[A-Za-z0-9_./-]+\.(?:py|sh))\b")


def named_scripts(text: str) -> set[str]:
    """`benchmarks/…py` and `scripts/…(py|sh)` paths named in a Markdown text."""
    return set(SCRIPT.findall(text))


def test_the_pattern_finds_scripts_in_commands_and_prose() -> None:
    text = ("Command: `.venv/bin/python benchmarks/runner_throughput.py --rounds 20`;\n"
            "the server is benchmarks/latency_server.py, see scripts/mutation.sh.")
    assert named_scripts(text) == {"benchmarks/runner_throughput.py",
                                   "benchmarks/latency_server.py", "scripts/mutation.sh"}


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_named_benchmark_script_exists(doc: Path) -> None:
    missing = sorted(s for s in named_scripts(doc.read_text(encoding="utf-8"))
                     if not (REPO / s).is_file())
    assert not missing, f"{doc.relative_to(REPO)} names scripts that do not exist: {missing}"


def test_benchmarks_md_names_scripts() -> None:
    assert len(named_scripts((REPO / "docs" / "BENCHMARKS.md").read_text())) >= 4


def _commands(group, prefix: str = ""):
    """(full name, click command) of every leaf command of the CLI."""
    import click

    for name, command in group.commands.items():
        full = f"{prefix} {name}".strip()
        if isinstance(command, click.Group):
            yield from _commands(command, full)
        else:
            yield full, command


def test_readme_names_exactly_the_commands_that_take_format_json() -> None:
    from bench_kit.cli import cli

    line = next(line for line in (REPO / "README.md").read_text().splitlines()
                if line.startswith("`--format json` (the summary as JSON on stdout)"))
    takes, text_only = line.split(" print text only")[0].split("; ")
    named = set(re.findall(r"`([a-z -]+)`", takes)) - {"--format json"}
    with_json = {name for name, command in _commands(cli)
                 if any("--format" in p.opts and "json" in getattr(p.type, "choices", ())
                        for p in command.params)}
    assert named == with_json
    assert not set(re.findall(r"`([a-z -]+)`", text_only)) & with_json

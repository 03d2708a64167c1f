"""`bench-kit init DIR`: scaffold a new benchmark project."""

from __future__ import annotations

import click

from bench_kit.cli._common import info


@click.command("init")
@click.argument("directory", type=click.Path(file_okay=False))
@click.option("--name", default=None,
              help="Benchmark name (datasets/<name>/) [default: from DIRECTORY].")
@click.option("--remote", default=None,
              help="DVC remote URL or folder [default: DIRECTORY/../<name>-dvc-remote].")
@click.option("--no-commit", is_flag=True, help="Stage the files in git but do not commit.")
@click.option("--items", "items_path", default=None, type=click.Path(dir_okay=False),
              help="Build the project around this items file (e.g. from `bench-kit import`) "
                   "and its images/ instead of the example content.")
def init(directory: str, name: str | None, remote: str | None, no_commit: bool,
         items_path: str | None) -> None:
    """Scaffold a new benchmark project that `dvc repro` runs as it is.

    Writes params.yaml, dvc.yaml, templates.yaml, a README (what to edit first) and a few
    example images (tracked with `dvc add`); initialises git and DVC (analytics off) with a
    local folder as the default DVC remote.

    With --items, the project is built around an existing items file instead: it and
    the images it names are copied to datasets/<name>/, its capabilities become the
    taxonomy and the pipeline has no generate stage, so `dvc repro` validates, audits,
    splits, evaluates, scores and reports it as it is.

    \b
    Example:
      bench-kit init my-bench && cd my-bench && dvc repro && dvc push
      bench-kit import json problems.json --out sqa/items.jsonl --image-root images \\
          --capability reasoning.science
      bench-kit init sqa-bench --items sqa/items.jsonl && cd sqa-bench && dvc repro
    """
    from bench_kit.scaffold.project import init_project

    summary = init_project(directory, name=name, remote=remote, git_commit=not no_commit,
                           items=items_path)
    kind = "imported" if items_path else "example"
    info(f"created benchmark '{summary.name}' in {summary.root} ({summary.images} {kind} "
         f"images; DVC remote: {summary.remote})")
    for note in summary.notes:
        info(f"note: {note}")
    info(f"next: cd {summary.root} && dvc repro   (then read README.md: what to edit first)")

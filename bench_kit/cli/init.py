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
def init(directory: str, name: str | None, remote: str | None, no_commit: bool) -> None:
    """Scaffold a new benchmark project that `dvc repro` runs as it is.

    Writes params.yaml, dvc.yaml, templates.yaml, a README (what to edit first) and a few
    example images (tracked with `dvc add`); initialises git and DVC (analytics off) with a
    local folder as the default DVC remote.

    \b
    Example:
      bench-kit init my-bench && cd my-bench && dvc repro && dvc push
    """
    from bench_kit.scaffold.project import init_project

    summary = init_project(directory, name=name, remote=remote, git_commit=not no_commit)
    info(f"created benchmark '{summary.name}' in {summary.root} ({summary.images} example "
         f"images; DVC remote: {summary.remote})")
    for note in summary.notes:
        info(f"note: {note}")
    info(f"next: cd {summary.root} && dvc repro   (then read README.md: what to edit first)")

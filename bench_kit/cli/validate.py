"""`bench-kit validate`."""

from __future__ import annotations

import click

from bench_kit.cli._common import info
from bench_kit.errors import ValidationFailed


@click.command("validate")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--root", type=click.Path(file_okay=False), default=None,
              help="Folder image paths are relative to. [default: the items file's folder, "
                   "or its parent for files in splits/]")
@click.option("--params", "params_path", type=click.Path(dir_okay=False), default=None,
              help="params.yaml holding the capability taxonomy. [default: ./params.yaml if "
                   "it exists; otherwise taxonomy checks are skipped with a warning]")
@click.option("--report", "report_path", type=click.Path(dir_okay=False), default=None,
              help="Also write a JSON report (path, items, valid, problems), valid or not.")
def validate(path: str, root: str | None, params_path: str | None,
             report_path: str | None) -> None:
    """Check an items file and list every problem, one line each.

    Each problem is printed to stderr as PATH:LINE: id=ID field=FIELD: reason. Checks:
    JSON syntax, required fields and types, id pattern and uniqueness, task, difficulty
    and layer values, capability against the taxonomy, mc gold among the choices, non-empty
    answers, created_at, variant_of targets (an original of this file), one image set per
    group, metric names, and every image (inside the benchmark folder, present,
    decodable). Column and table rules run as the pandera schema; see docs/ITEMS.md.
    Exit 0 when valid, 1 otherwise.

    \b
    Example:
      bench-kit validate datasets/demo/items.jsonl --report reports/demo/validate.json
    """
    from bench_kit.io import write_json
    from bench_kit.validate import validate_items_file

    result = validate_items_file(path, root=root, params_path=params_path,
                                 metrics=_metric_names())
    for warning in result.warnings:
        info(f"warning: {warning}")
    if report_path:
        write_json(report_path, result.to_dict())
    if not result.valid:
        raise ValidationFailed(result.problems, path)
    click.echo(f"OK: {result.items} items in {path}")


def _metric_names() -> set[str]:
    """The names registered in the scoring engine's metric registry."""
    from bench_kit.scoring.item import METRICS

    return set(METRICS)

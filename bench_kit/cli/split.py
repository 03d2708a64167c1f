"""`bench-kit split`."""

from __future__ import annotations

import click

from bench_kit.cli._common import info, params_option


@click.command("split")
@click.option("--items", "items_path", required=True, type=click.Path(dir_okay=False),
              help="Items JSONL to split.")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Folder for dev.jsonl, test.jsonl and manifest.json.")
@params_option
def split(items_path: str, out_dir: str, params_path: str) -> None:
    """Split items into stable, grouped dev/test files.

    Groups (one scene/image) are never cut, variants follow their v0 item, and the
    assignment is a hash of (seed, group): adding items never moves an existing one.

    \b
    Example:
      bench-kit split --items datasets/demo/items.jsonl --out datasets/demo/splits
    """
    from bench_kit.authoring.split import SplitParams, write_splits
    from bench_kit.params import load_params, section

    settings = section(load_params(params_path), "split", SplitParams, source=params_path)
    summary = write_splits(items_path, out_dir, settings)
    counts = ", ".join(f"{name} {n}" for name, n in summary["counts"].items())
    info(f"split: {counts} -> {out_dir}")

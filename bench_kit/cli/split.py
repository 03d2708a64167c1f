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
    """Split items into stable, grouped, stratified dev/test files.

    Groups (one scene/image) are never cut, variants follow their v0 item, and each group
    is placed by a hash of (seed, group) within its capability x difficulty stratum
    (params `split.method`: threshold = adding items never moves one; ranked = exact
    shares per stratum; field = the benchmark's own split from `split.field`, e.g.
    meta.split, groups kept whole and conflicts reported). With `split.apply_exclusions`, ids listed in
    `split.exclude_files` (quarantine, rejected review batches) are left out; the
    manifest lists them with the reason. A missing list is created empty, so the DVC
    stage can depend on it.

    \b
    Example:
      bench-kit split --items datasets/demo/items.jsonl --out datasets/demo/splits
    """
    from bench_kit.params import load_params, section
    from bench_kit.split.assign import SplitParams, write_splits

    settings = section(load_params(params_path), "split", SplitParams, source=params_path)
    summary = write_splits(items_path, out_dir, settings)
    counts = ", ".join(f"{name} {n}" for name, n in summary["counts"].items())
    info(f"split: {counts} -> {out_dir}")
    for conflict in summary.get("conflicts", []):
        info(f"warning: group {conflict['group']}: items name different splits "
             f"{conflict['counts']}; kept whole in {conflict['placed']}")
    excluded = summary["excluded"]
    for path in excluded["created"]:
        info(f"exclude list {path}: not found, created empty (list it in the split stage's "
             "deps in dvc.yaml)")
    for entry in excluded["files"]:
        state = f"{entry['ids']} ids" if entry["found"] else "not found (nothing excluded)"
        info(f"exclude list {entry['path']}: {state}")
    if excluded["applied"]:
        info(f"excluded {excluded['count']} items (listed in manifest.json)")

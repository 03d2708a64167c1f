"""`bench-kit import` and `bench-kit export`: existing items in, shareable files out."""

from __future__ import annotations

import click

from bench_kit.cli._common import info

IMPORT_FORMATS = ("csv", "jsonl", "vlmevalkit", "hf")
EXPORT_FORMATS = ("vlmevalkit", "hf")


@click.command("import")
@click.argument("fmt", metavar="FORMAT", type=click.Choice(IMPORT_FORMATS))
@click.argument("src", type=click.Path())
@click.option("--out", "out_path", required=True, type=click.Path(dir_okay=False),
              help="Items JSONL to write; images go to images/ next to it.")
@click.option("--created-at", default=None,
              help="Timestamp for rows without created_at [default: now], e.g. "
                   "2026-01-31T00:00:00Z.")
@click.option("--capability", default=None, help="Capability for rows without one.")
@click.option("--layer", default=None,
              type=click.Choice(["perception", "understanding", "reasoning", "alignment"]),
              help="Layer when neither the row nor the taxonomy gives one.")
@click.option("--difficulty", default="medium", show_default=True,
              type=click.Choice(["easy", "medium", "hard"]),
              help="Difficulty for rows without one.")
@click.option("--category-map", default=None, type=click.Path(dir_okay=False),
              help="YAML {category or l2-category: capability}.")
@click.option("--id-prefix", default="", help="Prefix for every imported id.")
@click.option("--hint", type=click.Choice(["meta", "prepend"]), default="meta",
              show_default=True, help="Keep a hint column in meta, or also prepend it to "
                                      "the question.")
@click.option("--split", default=None, help="hf: which split to read [default: test, else "
                                            "the first].")
@click.option("--max-image-mb", default=32, show_default=True, type=click.IntRange(1, 1024),
              help="Refuse images (and base64 fields) larger than this.")
@click.option("--params", "params_path", default=None, type=click.Path(dir_okay=False),
              help="params.yaml whose taxonomy gives layers [default: ./params.yaml if any].")
def import_cmd(fmt: str, src: str, out_path: str, created_at: str | None,
               capability: str | None, layer: str | None, difficulty: str,
               category_map: str | None, id_prefix: str, hint: str, split: str | None,
               max_image_mb: int, params_path: str | None) -> None:
    """Import items from CSV, JSONL, VLMEvalKit TSV or a local Hugging Face dataset.

    Every row is validated before anything is written; a bad row stops the import with
    one line naming the file, line and field. Images are stored by content hash under
    images/ next to the output; imported items get `source: import:FORMAT`.

    \b
    Example:
      bench-kit import vlmevalkit MMBench_DEV_EN.tsv --out datasets/mmb/items.jsonl \\
          --category-map mmb_categories.yaml --created-at 2026-01-31T00:00:00Z
      bench-kit import jsonl checklist.jsonl --out datasets/mine/items.jsonl \\
          --capability perception.count
    """
    from bench_kit.exchange.importers import run_import

    summary = run_import(fmt, src, out_path, params_path=params_path,
                         category_map=category_map, created_at=created_at,
                         capability=capability, layer=layer, difficulty=difficulty,
                         id_prefix=id_prefix, hint=hint, split=split,
                         max_image_bytes=max_image_mb * 1024 * 1024)
    tasks = ", ".join(f"{n} {task}" for task, n in summary.by_task.items())
    info(f"imported {summary.items} items ({tasks}) and {summary.images} images "
         f"-> {summary.out_path}")
    if summary.not_in_taxonomy:
        info(f"warning: capabilities not in the taxonomy: {', '.join(summary.not_in_taxonomy)}")


@click.command("export")
@click.argument("fmt", metavar="FORMAT", type=click.Choice(EXPORT_FORMATS))
@click.option("--items", "items_path", required=True, type=click.Path(dir_okay=False),
              help="Items JSONL to export.")
@click.option("--out", "out_path", required=True, type=click.Path(),
              help="vlmevalkit: the .tsv file; hf: a folder (data/test-*.parquet inside).")
@click.option("--root", default=None, type=click.Path(file_okay=False),
              help="Folder image paths are relative to [default: the items file's folder].")
def export_cmd(fmt: str, items_path: str, out_path: str, root: str | None) -> None:
    """Export items to a VLMEvalKit TSV or a Hugging Face parquet dataset.

    Images are embedded (base64 in the TSV, bytes in the parquet); every item field is
    kept, so `bench-kit import` of the export gives back the same items.

    \b
    Example:
      bench-kit export vlmevalkit --items datasets/demo/splits/test.jsonl --out demo.tsv
      bench-kit export hf --items datasets/demo/items.jsonl --out export/demo-hf
    """
    from bench_kit.exchange.exporters import export_items

    summary = export_items(fmt, items_path, out_path, root)
    info(f"exported {summary.items} items ({summary.images} images) -> {summary.out_path}")

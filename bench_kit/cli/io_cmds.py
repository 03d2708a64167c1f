"""`bench-kit import` and `bench-kit export`: existing items in, shareable files out."""

from __future__ import annotations

import click

from bench_kit.cli._common import info

IMPORT_FORMATS = ("csv", "json", "jsonl", "vlmevalkit", "hf", "checklist-csv")
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
@click.option("--map", "column_map", multiple=True, metavar="FIELD=COLUMN",
              help="Read FIELD (question, answer, answers, choices, image, id, category, "
                   "hint) from COLUMN; repeatable.")
@click.option("--image-root", default=None, type=click.Path(file_okay=False),
              help="Find stored image paths that do not exist (e.g. absolute paths from "
                   "another machine) by their trailing parts under this folder.")
@click.option("--expand", is_flag=True,
              help="Every row's ground_truth holds Donut-style question/answer pairs: one "
                   "item per pair (detected without the flag; with it, a row without pairs "
                   "is a problem).")
@click.option("--task", default=None,
              type=click.Choice(["mc", "yesno", "open", "numeric", "grounding", "checklist"]),
              help="Task for every row (overrides the task the import infers).")
@click.option("--metric", default=None, help="Metric for every row, e.g. relaxed_match.")
@click.option("--rubric", default=None, help="Judge rubric for every row.")
@click.option("--gold-index", type=click.Choice(["0", "1"]), default=None,
              help="Golds are option numbers counting from 0 or 1 (detected only when the "
                   "data decide it: some gold is 0, or some gold equals its option count).")
@click.option("--delimiter", default=None,
              help="csv: cell delimiter [default: tab when the first line has more tabs "
                   "than commas, else comma]; \\t for tab.")
@click.option("--columns", default=None, metavar="NAME,NAME,...",
              help="csv: the file has no header; these are its column names.")
@click.option("--answers", "answers_path", default=None, type=click.Path(dir_okay=False),
              help="json: answers in a second file (LLaVA-Bench), joined with --join-on.")
@click.option("--join-on", default=None, help="json: the field shared by questions and "
                                              "--answers, e.g. question_id.")
@click.option("--on-error", type=click.Choice(["fail", "skip"]), default="fail",
              show_default=True,
              help="fail: list every problem and write nothing; skip: write the good rows "
                   "and the rejected ones (with reasons) to ITEMS.rejects.jsonl.")
@click.option("--params", "params_path", default=None, type=click.Path(dir_okay=False),
              help="params.yaml whose taxonomy gives layers [default: ./params.yaml if any].")
def import_cmd(fmt: str, src: str, out_path: str, created_at: str | None,
               capability: str | None, layer: str | None, difficulty: str,
               category_map: str | None, id_prefix: str, hint: str, split: str | None,
               max_image_mb: int, column_map: tuple[str, ...], image_root: str | None,
               expand: bool, task: str | None, metric: str | None, rubric: str | None,
               gold_index: str | None, delimiter: str | None, columns: str | None,
               answers_path: str | None, join_on: str | None, on_error: str,
               params_path: str | None) -> None:
    """Import items from an existing benchmark file.

    \b
    FORMAT is one of:
      csv            CSV/TSV (delimiter sniffed), with a header or --columns; a
                     folder of such files: the category is each file's name
      json           JSON array, object keyed by id, JSON Lines in a .json file,
                     chat records (LLaVA conversations, HF messages);
                     --answers FILE --join-on FIELD
      jsonl          JSON Lines (vlmeter-style checks too)
      vlmevalkit     VLMEvalKit TSV (base64 images or image_path)
      hf             Hugging Face dataset: save_to_disk folder, parquet file(s),
                     or an imagefolder with metadata.jsonl/metadata.csv; image
                     structs or lists of them; chat records (messages)
      checklist-csv  long-form checklists (DSG/TIFA): one row per (prompt, check)

    Columns are recognised by common names (question/problem/query/prompt/text,
    answer/answers/gt/label/gt_answer, image/images/image_path/file_name), and a column
    whose values are image files is the image column; use --map for others. Golds are
    typed on the whole file: 1/0 or true/false golds of yes/no questions become yesno
    items, option numbers become letters (--gold-index), letter golds with the options
    written in the question become mc items. Every decision is printed with its
    override; unmapped source columns are kept under meta.source.
    Multi-answer golds (A;C, A,C, ["A","C"]) make multi-answer items, box answers
    (x1,y1,x2,y2) grounding items. Every row is read first: problems are listed one per
    line (FILE:LINE: field=FIELD: reason) and nothing is written, unless --on-error skip.
    Images are stored by content hash under images/ next to the output; imported items
    get `source: import:FORMAT`.

    \b
    Example:
      bench-kit import vlmevalkit MMBench_DEV_EN.tsv --out datasets/mmb/items.jsonl \\
          --category-map mmb_categories.yaml --created-at 2026-01-31T00:00:00Z
      bench-kit import jsonl checklist.jsonl --out datasets/mine/items.jsonl \\
          --capability perception.count
      bench-kit import csv mine.csv --out datasets/mine/items.jsonl \\
          --map question=prompt_text --map answer=gold --on-error skip
      bench-kit import json problems.json --out datasets/sqa/items.jsonl \\
          --image-root images --capability reasoning.science
    """
    from pathlib import Path

    from bench_kit.exchange.importers import run_import

    summary = run_import(fmt, src, out_path, params_path=params_path,
                         category_map=category_map, created_at=created_at,
                         capability=capability, layer=layer, difficulty=difficulty,
                         id_prefix=id_prefix, hint=hint, split=split,
                         max_image_bytes=max_image_mb * 1024 * 1024, column_map=column_map,
                         image_root=Path(image_root) if image_root else None, expand=expand,
                         task=task, metric=metric, rubric=rubric,
                         gold_index=int(gold_index) if gold_index else None,
                         delimiter="\t" if delimiter in ("\\t", "tab") else delimiter,
                         columns=tuple(c.strip() for c in columns.split(",")) if columns
                         else None,
                         answers_path=Path(answers_path) if answers_path else None,
                         join_on=join_on, on_error=on_error)
    for line in summary.decisions:
        info(line)
    tasks = ", ".join(f"{n} {task}" for task, n in summary.by_task.items())
    info(f"imported {summary.items} items ({tasks}) and {summary.images} images "
         f"-> {summary.out_path}")
    if summary.rejected:
        info(f"rejected {summary.rejected} rows (reasons in {summary.rejects_path})")


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

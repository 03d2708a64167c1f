"""`bench-kit audit` commands."""

from __future__ import annotations

import json
import time

import click

from bench_kit.cli._common import BenchKitGroup, format_option, info, params_option


@click.group("audit", cls=BenchKitGroup)
def audit() -> None:
    """Audit items for ambiguity, bad labels, contamination and redundancy."""


@audit.command("data")
@click.option("--items", "items_path", required=True, type=click.Path(dir_okay=False),
              help="Items JSONL file to audit.")
@click.option("--root", type=click.Path(file_okay=False),
              help="Folder image paths are relative to [default: the items file's benchmark "
                   "folder].")
@params_option
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Folder for findings.jsonl and summary.json.")
@click.option("--splits", "splits_dir", type=click.Path(file_okay=False),
              help="Folder of split files: those its manifest.json names, else dev/test/"
                   "train/val(idation).jsonl; enables leakage.cross_split.")
@click.option("--reference", "references", multiple=True, type=click.Path(),
              help="Reference file (or partitioned reference folder/URL) built by `bench-kit "
                   "audit reference build` (repeatable); enables the text contamination "
                   "checks.")
@click.option("--reference-images", "reference_images", multiple=True,
              type=click.Path(file_okay=False),
              help="Folder of reference images (repeatable); enables contamination.image.")
def audit_data_command(items_path: str, root: str | None, params_path: str, out_dir: str,
                       splits_dir: str | None, references: tuple[str, ...],
                       reference_images: tuple[str, ...]) -> None:
    """Run the data checks on an items file; write findings.jsonl and summary.json.

    Thresholds and switched-off checks come from the `audit:` section of params.yaml
    (defaults when there is no ./params.yaml; `bench-kit audit list-checks` shows every
    check). A dirty file is audited, not refused: each line that fails validation becomes
    a finding (`schema.*`, `label.gold_not_in_choices`, `label.empty_answers`) naming its
    line, and every other item is audited. Severity: error = a defect to fix, warn = likely
    defect to review, info = a hint (not counted as flagged).

    \b
    Example:
      bench-kit audit data --items datasets/demo/items.jsonl --out audits/demo
      bench-kit audit data --items datasets/demo/items.jsonl --out audits/demo \\
          --splits datasets/demo/splits
      bench-kit audit data --items datasets/demo/items.jsonl --out audits/demo \\
          --reference refs/public.jsonl --reference-images refs/images
    """
    from bench_kit.audit.stage import audit_data

    started = time.monotonic()

    def progress(stage: str, done: int, total: int) -> None:
        rate = done / max(time.monotonic() - started, 1e-9)
        info(f"audit: {stage} {done}/{total} ({rate:.0f}/s, ETA {(total - done) / rate:.0f}s)")

    result = audit_data(items_path, out_dir, root=root, params_path=params_path,
                        splits_dir=splits_dir, references=references,
                        reference_images=reference_images, progress=progress)
    summary = result.summary
    if "splits_read" in summary:
        read = summary["splits_read"]
        info(f"audit: splits read: {', '.join(read['files'])} (named by {read['named_by']})")
    invalid = summary.get("invalid_lines", 0)
    info(f"audit: {summary['items']} items, {summary['findings']} findings; flagged (warn or "
         f"error): {summary['flagged_items']} items; info only: "
         f"{summary.get('info_only_items', 0)} items"
         + (f"; {invalid} invalid lines reported as findings and left out of the other checks"
            if invalid else "") + f" -> {out_dir}")


@audit.command("list-checks")
@format_option("Output format.")
def list_checks_command(fmt: str) -> None:
    """List every audit check: name, family, default severity and what it finds.

    \b
    Example:
      bench-kit audit list-checks
      bench-kit audit list-checks --format json
    """
    from bench_kit.audit.stage import list_checks

    specs = list_checks()
    if fmt == "json":
        rows = [{"check": s.name, "family": s.family, "severity": s.severity,
                 "description": s.description, "requires": list(s.requires),
                 "params": s.params().model_dump(mode="json")} for s in specs]
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    width = max(len(s.name) for s in specs)
    family_width = max(len(s.family) for s in specs)
    for s in specs:
        click.echo(f"{s.name:<{width}}  {s.family:<{family_width}}  {s.severity:<5}  "
                   f"{s.description}")


def _attach_model_audits() -> None:
    from bench_kit.cli.audit_results import COMMANDS

    for command in COMMANDS:
        audit.add_command(command)


_attach_model_audits()


@audit.group("reference", cls=BenchKitGroup)
def reference() -> None:
    """Reference corpora for the contamination checks."""


@reference.command("build")
@click.option("--out", "out_path", type=click.Path(dir_okay=False),
              help="Reference JSONL file to write.")
@click.option("--partitioned", "partitioned", metavar="DIR_OR_URL",
              help="Write a partitioned parquet reference with its features and manifest.json "
                   "here instead (folder or fsspec URL; built on audit.engine, resumable).")
@click.option("--rows-per-partition", default=100_000, show_default=True,
              type=click.IntRange(min=1),
              help="Source rows per partition (lines for JSONL; with --partitioned).")
@click.option("--embeddings/--no-embeddings", default=False, show_default=True,
              help="Store embeddings of the `embed:` backend too (with --partitioned).")
@params_option
@click.option("--text-field", default="question", show_default=True,
              help="Column holding the question text.")
@click.option("--id-field", default="id", show_default=True,
              help="Column holding the row id (missing ids become FILE:ROW).")
@click.option("--options-field", default="choices", show_default=True,
              help="Column holding answer options ({letter: text} or a list); '' for none.")
@click.option("--hint-field", default="hint", show_default=True,
              help="Column holding a hint/passage joined to the question (as items' "
                   "meta.hint is); '' for none.")
@click.argument("sources", nargs=-1, required=True)
def reference_build_command(out_path: str | None, partitioned: str | None,
                            rows_per_partition: int, embeddings: bool, params_path: str,
                            text_field: str, id_field: str, options_field: str,
                            hint_field: str,
                            sources: tuple[str, ...]) -> None:
    """Build a normalised reference file from JSONL/CSV/TSV/parquet files or saved HF datasets.

    Each row of the output holds the reference id, its source file, the normalised text
    (NFKC, lowercase, no punctuation; hint + question + options) and the original question.
    A folder is read with `datasets.load_from_disk` (every split). With --partitioned,
    parquet and JSONL sources may be fsspec URLs (s3://..., gs://...): each partition's
    rows are read by the worker that builds it.

    \b
    Example:
      bench-kit audit reference build --out refs/public.jsonl \\
          mmbench_dev.tsv scienceqa.parquet hf_saved/vqav2
      bench-kit audit reference build --out refs/web.jsonl --text-field text \\
          --id-field url --options-field '' scraped.jsonl
      bench-kit audit reference build --partitioned refs/web-parts --text-field text \\
          --options-field '' shard-*.parquet
    """
    from bench_kit.audit.reference import FieldNames, build_reference

    fields = FieldNames(text=text_field, id=id_field or None, options=options_field or None,
                        hint=hint_field or None)
    if (out_path is None) == (partitioned is None):
        raise click.UsageError("give exactly one of --out FILE and --partitioned DIR_OR_URL")
    if partitioned is not None:
        from bench_kit.audit.distributed.build import build_command

        report = build_command(list(sources), partitioned, fields, params_path=params_path,
                               rows_per_partition=rows_per_partition, embeddings=embeddings,
                               progress=lambda parts, rows: info(
                                   f"reference: partition {parts}, {rows} rows"))
        info(f"reference: {report.manifest['rows']} rows in "
             f"{len(report.manifest['partitions'])} partitions ({report.written} written, "
             f"{report.skipped} already built) -> {partitioned}/manifest.json")
        return
    assert out_path is not None  # exactly one of --out and --partitioned (checked above)
    count = build_reference(sources, out_path, fields)
    info(f"reference: {count} rows from {len(sources)} source(s) -> {out_path}")

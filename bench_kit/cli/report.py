"""`bench-kit report`."""

from __future__ import annotations

import click

from bench_kit.cli._common import info, params_option


@click.command("report")
@click.option("--items", "items_path", required=True, type=click.Path(dir_okay=False),
              help="Items (split) file the models were scored on.")
@click.option("--scores", "scores_dir", required=True, type=click.Path(file_okay=False),
              help="scores/<bench> folder: one <model>/<mode>.jsonl folder per model.")
@click.option("--metrics", "metrics_dir", required=True, type=click.Path(file_okay=False),
              help="metrics/<bench> folder: one <model>.json per model (defines the models).")
@click.option("--results", "results_dir", default=None, type=click.Path(file_okay=False),
              help="results/<bench> folder, for the raw responses of the worst items.")
@click.option("--audit", "audit_dir", default=None, type=click.Path(file_okay=False),
              help="audits/<bench> folder with findings.jsonl (and summary.json).")
@click.option("--root", default=None, type=click.Path(file_okay=False),
              help="Benchmark root that image paths are relative to (for thumbnails) "
                   "[default: the items file's folder].")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Folder for report.html and report.md.")
@params_option
def report(items_path: str, scores_dir: str, metrics_dir: str, results_dir: str | None,
           audit_dir: str | None, root: str | None, out_dir: str, params_path: str) -> None:
    """Write report.md and a self-contained report.html (no scripts, no external files).

    Leaderboard with Wilson 95% CIs, vision gain, per-capability tables, the worst items
    with raw responses, and the audit summary. Settings: the `report:` section of params.

    \b
    Example:
      bench-kit report --items datasets/demo/splits/test.jsonl \\
        --scores scores/demo --metrics metrics/demo --results results/demo \\
        --audit audits/demo --out reports/demo
    """
    from bench_kit.eval.report import write_report
    from bench_kit.eval.report_data import ReportSettings
    from bench_kit.params import load_params, section

    settings = section(load_params(params_path), "report", ReportSettings, source=params_path)
    files = write_report(items_path, scores_dir, metrics_dir, out_dir, results_dir=results_dir,
                         audit_dir=audit_dir, root=root, settings=settings)
    info(f"report: {len(files.models)} model(s) x {len(files.modes)} mode(s) "
         f"({', '.join(files.modes)}) -> {files.html} (and {files.markdown.name})")

"""`bench-kit report`."""

from __future__ import annotations

import json

import click

from bench_kit.cli._common import format_option, info, params_option


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
@click.option("--model-audit", "model_audit_dir", default=None,
              type=click.Path(file_okay=False),
              help="audits/<bench>/results folder from `bench-kit audit results` "
                   "(blind panel, MG/ML, label findings).")
@click.option("--root", default=None, type=click.Path(file_okay=False),
              help="Benchmark root that image paths are relative to (for thumbnails) "
                   "[default: the items file's folder].")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Folder for report.html and report.md.")
@click.option("--plots", "plots_dir", default=None, type=click.Path(file_okay=False),
              help="Folder for the dvc plots data: accuracy_<mode>.json, vision_gain.json.")
@format_option("json: print the leaderboard, pairwise tests and MDD to stdout.")
@params_option
def report(items_path: str, scores_dir: str, metrics_dir: str, results_dir: str | None,
           audit_dir: str | None, model_audit_dir: str | None, root: str | None,
           out_dir: str, plots_dir: str | None,
           fmt: str, params_path: str) -> None:
    """Write report.md, a self-contained report.html (no scripts, no external files) and
    summary.json (the report's numbers; a DVC metrics file).

    Leaderboard with Wilson 95% CIs, macro accuracy with clustered bootstrap CIs, cost per
    1,000 calls and the minimum detectable difference; pairwise McNemar tests (Holm);
    sections per source/subset; capability heatmap, difficulty curves, vision gain,
    variant robustness, extraction, cost–accuracy; worst items with raw responses, the
    audit summary and (with --model-audit) the model-based audit: blind-panel verdicts,
    blind hits per item, MG/ML, label findings and observed difficulty. Settings: the
    `report:` section of params.

    \b
    Example:
      bench-kit report --items datasets/demo/splits/test.jsonl \\
        --scores scores/demo --metrics metrics/demo --results results/demo \\
        --audit audits/demo --model-audit audits/demo/results \\
        --out reports/demo --plots plots/demo/report
      bench-kit report ... --format json   # numbers on stdout for dashboards
    """
    from bench_kit.params import load_params, section
    from bench_kit.report.inputs import ReportSettings
    from bench_kit.report.render import write_report

    settings = section(load_params(params_path), "report", ReportSettings, source=params_path)
    files = write_report(items_path, scores_dir, metrics_dir, out_dir, results_dir=results_dir,
                         audit_dir=audit_dir, model_audit_dir=model_audit_dir, root=root,
                         settings=settings,
                         plots_dir=plots_dir)
    if fmt == "json":
        click.echo(json.dumps(files.summary, indent=2, sort_keys=True, ensure_ascii=False))
    info(f"report: {len(files.models)} model(s) x {len(files.modes)} mode(s) "
         f"({', '.join(files.modes)}) -> {files.html} (and {files.markdown.name})")

"""`bench-kit audit results`, `import-error-layers`, `accept-answers` and `quarantine`:
the model-based audits (attached to the `audit` group in cli/audit.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from bench_kit.cli._common import info

if TYPE_CHECKING:
    from bench_kit.types import Severity


def _base_model_pairs(ctx: click.Context, param: click.Parameter,
                      values: tuple[str, ...]) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for value in values:
        model, sep, base = value.partition("=")
        if not sep or not model.strip() or not base.strip():
            raise click.BadParameter(f"{value!r}: expected VISION_MODEL=BASE_MODEL")
        pairs[model.strip()] = base.strip()
    return pairs


@click.command("results")
@click.option("--items", "items_path", required=True, type=click.Path(dir_okay=False),
              help="Items (split) file the models were scored on.")
@click.option("--scores", "scores_dir", required=True, type=click.Path(file_okay=False),
              help="Folder of <model>/<mode>.jsonl Score rows (scores/<bench>).")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Folder for model_findings.jsonl, model_summary.json, item_stats.jsonl "
                   "and answer_candidates.csv.")
@click.option("--metrics", "metrics_path", type=click.Path(dir_okay=False),
              help="Also write a compact metrics JSON (MG/ML per model) for `dvc metrics`.")
@click.option("--error-layers", "error_layers_path", type=click.Path(dir_okay=False),
              help="Error-layers JSONL from `bench-kit audit import-error-layers`.")
@click.option("--base-model", "base_models", multiple=True, callback=_base_model_pairs,
              metavar="VL=LM", help="Pair a vision model with its text-only base model "
                                    "(repeatable); ML is reported for each pair.")
@click.option("--prior-items", "prior_items_path", type=click.Path(dir_okay=False),
              help="Items whose gold distribution is the answer prior (e.g. the dev or "
                   "train split) [default: the audited items].")
@click.option("--params", "params_path", default=None, type=click.Path(dir_okay=False),
              help="params.yaml to read `audit_results:` from [default: ./params.yaml if "
                   "it exists, else the documented defaults].")
def audit_results_command(items_path: str, scores_dir: str, out_dir: str,
                          metrics_path: str | None, error_layers_path: str | None,
                          base_models: dict[str, str], prior_items_path: str | None,
                          params_path: str | None) -> None:
    """Audit items with the scores of several models (blind panel against chance,
    prior-answerable templates, MG/ML, suspect golds, ambiguity, observed difficulty,
    variant robustness, extraction sensitivity, answer expansion).

    Thresholds come from the `audit_results:` section of params.yaml; outside a project
    the defaults of docs/MODEL_AUDITS.md apply. Needs runs in modes image, no_image
    and/or blank_image.

    \b
    Example:
      bench-kit audit results --items datasets/demo/splits/test.jsonl \\
          --scores scores/demo --out audits/demo/results \\
          --metrics metrics/demo/audit/model_audit.json --base-model ocr=text-only \\
          --prior-items datasets/demo/splits/dev.jsonl
    """
    from pathlib import Path

    from bench_kit.audit.results.stage import audit_results

    if params_path is None and Path("params.yaml").is_file():
        params_path = "params.yaml"
    result = audit_results(items_path, scores_dir, out_dir, params_path=params_path,
                           metrics_path=metrics_path, error_layers_path=error_layers_path,
                           base_models=base_models, prior_items_path=prior_items_path)
    summary = result.summary
    panel = summary["blind_panel"]["overall"]
    members = summary["panel"]
    info(f"audit results: {summary['items']} items, {len(summary['models'])} models; blind "
         f"panel of {members['size']} model(s) ({', '.join(members['members']) or 'none'}; "
         f"language model: {'yes' if members['holds_language_model'] else 'no'}): "
         f"{panel['text_answerable']} text_answerable, {panel['prior_answerable']} "
         f"prior_answerable, {panel['vision_required']} vision_required, "
         f"{panel['undetermined']} undetermined, {panel['review']} review, "
         f"{panel['no_image']} no_image; {len(result.findings)} findings -> {out_dir}")
    if params_path is None:
        info("  (no params.yaml: default thresholds, docs/MODEL_AUDITS.md)")
    calls = summary["false_calls"]
    info("  expected false calls at most: " + "; ".join(
        f"{check} {c['expected_false_at_most']} of {c['calls']}" for check, c in calls.items()))
    for model, gain in summary["vision_gain"].items():
        mg, ml = gain["mg"], gain["ml"]
        base = f" vs {gain['base_model']}" if gain["base_model"] else ""
        info(f"  {model}: MG {'n/a' if mg is None else f'{100 * mg:+.1f} pts'}, "
             f"ML{base} {'n/a' if ml is None else f'{100 * ml:.1f} pts'}")


@click.command("import-error-layers")
@click.argument("csv_path", type=click.Path(dir_okay=False))
@click.option("--out", "out_path", required=True, type=click.Path(dir_okay=False),
              help="Error-layers JSONL to write (replaced as a whole).")
@click.option("--items", "items_path", type=click.Path(dir_okay=False),
              help="Items file: reject ids that are not among its items.")
def import_error_layers_command(csv_path: str, out_path: str, items_path: str | None) -> None:
    """Import reviewer error layers (CSV: id, model, error_layer[, note]) into a JSONL.

    Layers: input, perception, knowledge, reasoning, extraction, annotation, unclassified.

    \b
    Example:
      bench-kit audit import-error-layers review/errors.csv \\
          --out audits/demo/error_layers.jsonl --items datasets/demo/splits/test.jsonl
    """
    from bench_kit.audit.results.error_layers import import_error_layers
    from bench_kit.items import read_items

    known = [item.id for item in read_items(items_path)] if items_path else None
    count = import_error_layers(csv_path, out_path, known_ids=known)
    info(f"import-error-layers: {count} rows -> {out_path}")


@click.command("accept-answers")
@click.argument("sheet", type=click.Path(dir_okay=False))
@click.option("--items", "items_path", required=True, type=click.Path(dir_okay=False),
              help="The SOURCE items file to add accepted answers to (not a stage output).")
def accept_answers_command(sheet: str, items_path: str) -> None:
    """Add the accepted candidate golds of a review sheet to an items file.

    Rows whose `accept` column says yes / y / 1 / true / x are added to the item's
    `answers`, with provenance in `meta.answer_provenance`; the file is rewritten
    atomically, and accepting twice adds nothing.

    \b
    Example:
      bench-kit audit accept-answers audits/demo/results/answer_candidates.csv \\
          --items datasets/mybench/items.jsonl
    """
    from bench_kit.audit.results.expansion import accept_answers

    result = accept_answers(sheet, items_path)
    info(f"accept-answers: {result.accepted} accepted rows, {result.added} answers added to "
         f"{len(result.items_changed)} items ({result.already_present} already present) "
         f"-> {items_path}")


@click.command("quarantine")
@click.option("--findings", "findings_paths", required=True, multiple=True,
              type=click.Path(dir_okay=False),
              help="Findings JSONL (repeatable): audits/<bench>/findings.jsonl, "
                   "audits/<bench>/results/model_findings.jsonl.")
@click.option("--out", "out_path", required=True, type=click.Path(dir_okay=False),
              help="Quarantine file to write (audits/<bench>/quarantine.txt).")
@click.option("--severity", type=click.Choice(["warn", "error"]), default="error",
              show_default=True, help="Lowest severity that quarantines an item.")
def quarantine_command(findings_paths: tuple[str, ...], out_path: str,
                       severity: Severity) -> None:
    """Write the ids of items with error findings, with reasons, to a quarantine file.

    Run it by hand between evaluation rounds and commit the file: `bench-kit split`
    reads it before evaluation, so it cannot be a stage after scoring.

    \b
    Example:
      bench-kit audit quarantine --findings audits/demo/findings.jsonl \\
          --findings audits/demo/results/model_findings.jsonl \\
          --out audits/demo/quarantine.txt
    """
    from bench_kit.audit.results.quarantine import build_quarantine

    lines = build_quarantine(findings_paths, out_path, min_severity=severity)
    items = len({line.split("\t", 1)[0] for line in lines})
    info(f"quarantine: {items} items ({len(lines)} findings at {severity} or above) "
         f"-> {out_path}")


COMMANDS = (audit_results_command, import_error_layers_command, accept_answers_command,
            quarantine_command)

"""`bench-kit author` commands: demo scenes, templates + quotas, variants, captions, review."""

from __future__ import annotations

import click

from bench_kit.cli._common import BenchKitGroup, format_option, info, params_option


@click.group("author", cls=BenchKitGroup)
def author() -> None:
    """Author benchmark items: demo scenes, templates, variants, captions, review."""


@author.command("scenes")
@params_option
@click.option("--out", "out_dir", default="datasets/demo", show_default=True,
              type=click.Path(file_okay=False),
              help="Benchmark folder: writes images/<scene>.png and annotations.jsonl there.")
def scenes(params_path: str, out_dir: str) -> None:
    """Draw the synthetic demo scenes (shapes, signs, bar charts) with annotations.

    Reads `scenes:` (seed, n_shapes, n_signs, n_charts, width, height) from params.yaml;
    the same params give byte-identical images and annotations.

    \b
    Example:
      bench-kit author scenes --params params.yaml --out datasets/demo
    """
    from bench_kit.authoring.scenes import run_scenes

    summary = run_scenes(params_path, out_dir)
    kinds = ", ".join(f"{n} {kind}" for kind, n in summary.counts.items())
    info(f"wrote {summary.total} scenes ({kinds}; {summary.n_objects} objects, "
         f"{summary.n_texts} texts) to {summary.out_dir}")


def _render_coverage(summary, fmt: str, strict: bool, verb: str) -> None:
    """Print the coverage (text to stderr, or JSON to stdout), the quota warnings, and exit 1
    under --strict when a quota is broken."""
    import json

    from bench_kit.authoring.generate import format_coverage

    if fmt == "json":
        click.echo(json.dumps(summary.as_dict(), ensure_ascii=False, indent=2, default=str))
    else:
        info(format_coverage(summary.coverage))
    for violation in summary.violations:
        info(f"warning: quota {violation.rule}: {violation.message}")
    info(f"{verb} {summary.coverage.total} items {'to' if verb == 'wrote' else 'in'} "
         f"{summary.out_path}")
    if strict and summary.violations:
        info(f"error: {len(summary.violations)} quota violation(s) (--strict)")
        raise SystemExit(1)


_strict_option = click.option(
    "--strict", is_flag=True,
    help="Exit 1 when a quota of params generate.quotas is broken (items are still written).")
_format_option = format_option(
    "Coverage as text tables (stderr) or one JSON object (stdout).")


_keep_flagged_option = click.option(
    "--keep-flagged", is_flag=True,
    help="Write items the audit's ambiguity/label checks flag (warn+) instead of rejecting them.")


@author.command("generate")
@params_option
@click.option("--annotations", default="datasets/demo/annotations.jsonl", show_default=True,
              type=click.Path(dir_okay=False), help="Scene annotations written by `scenes`.")
@click.option("--templates", default=None, type=click.Path(dir_okay=False),
              help="Templates YAML [default: params generate.templates].")
@click.option("--out", "out_path", default="datasets/demo/items.v0.jsonl", show_default=True,
              type=click.Path(dir_okay=False),
              help="Items file to write (keep it next to the annotations: image paths are "
                   "relative to that folder).")
@click.option("--rejects", "rejects_path", default=None, type=click.Path(dir_okay=False),
              help="Items the answerability oracle or the audit rejected, with the reason "
                   "[default: generate_rejects.jsonl next to --out].")
@_keep_flagged_option
@_strict_option
@_format_option
def generate(params_path: str, annotations: str, templates: str | None, out_path: str,
             rejects_path: str | None, keep_flagged: bool, strict: bool, fmt: str) -> None:
    """Fill the question templates from the scene annotations and write items.

    Prints a coverage table (capability x difficulty, per template, per task and layer,
    fresh items) and checks the quotas of params `generate.quotas` (max share per template,
    difficulty mix, items per capability, fresh share): each broken quota is a warning line;
    with --strict the items are still written but the exit code is 1. A bad template stops
    with a one-line error naming it; nothing is written. Every item must be answerable as
    written (the round-trip oracle of docs/AUTHORING.md) and pass the data audit's
    ambiguity and label checks (unless --keep-flagged); the others go to --rejects.

    \b
    Example:
      bench-kit author generate --templates datasets/demo/templates.yaml \\
          --out datasets/demo/items.v0.jsonl --strict
    """
    from pathlib import Path

    from bench_kit.authoring.generate import run_generate

    rejects = rejects_path or str(Path(out_path).parent / "generate_rejects.jsonl")
    summary = run_generate(params_path, annotations, templates, out_path, rejects, keep_flagged)
    if summary.answerability and fmt == "text":
        from bench_kit.authoring.answerability import format_rates

        info(format_rates(summary.answerability))
    if summary.rejected:
        info(f"rejected {summary.rejected} item(s) (answerability / audit gate) to {rejects}")
    _render_coverage(summary, fmt, strict, "wrote")


@author.command("coverage")
@params_option
@click.option("--items", "items_path", default="datasets/demo/items.jsonl", show_default=True,
              type=click.Path(dir_okay=False), help="Items file to report on.")
@_strict_option
@_format_option
def coverage(params_path: str, items_path: str, strict: bool, fmt: str) -> None:
    """Coverage table and quota check of any items file (variants, imports, captions).

    \b
    Example:
      bench-kit author coverage --items datasets/demo/items.jsonl --format json
    """
    from bench_kit.authoring.generate import coverage_of_file

    _render_coverage(coverage_of_file(params_path, items_path), fmt, strict, "counted")


@author.command("variants")
@params_option
@click.option("--items", "items_path", default="datasets/demo/items.v0.jsonl", show_default=True,
              type=click.Path(dir_okay=False), help="v0 items (written by `generate`).")
@click.option("--annotations", default=None, type=click.Path(dir_okay=False),
              help="Scene annotations; needed to recompute negation, counterfactual "
                   "(hypothetical) and irrelevant-premise golds.")
@click.option("--templates", default=None, type=click.Path(dir_okay=False),
              help="Templates YAML [default: params generate.templates].")
@click.option("--out", "out_path", default="datasets/demo/items.jsonl", show_default=True,
              type=click.Path(dir_okay=False), help="Items file to write: v0 + variants.")
@click.option("--rejects", "rejects_path", default=None, type=click.Path(dir_okay=False),
              help="Gate rejects and skips [default: variant_rejects.jsonl next to --out].")
@click.option("--strict", is_flag=True,
              help="Exit 1 when a v0 item gets fewer than params variants.min_kinds kinds.")
@_keep_flagged_option
def variants(params_path: str, items_path: str, annotations: str | None, templates: str | None,
             out_path: str, rejects_path: str | None, strict: bool, keep_flagged: bool) -> None:
    """Create parallel variants of each v0 item, gated for meaning and rewriting.

    Kinds (params `variants.kinds`): synonym, negation, hypothetical (a counterfactual that
    moves the gold), deixis, register, irrelevant_premise (a condition that cannot matter);
    plus paraphrase when `variants.paraphraser` names a model of `models:`. Variant ids are
    `<v0 id>.v<k>` with `variant_of` set. A variant enters --out only if its embedding
    similarity to the original and its token edit ratio reach the gate thresholds; the others,
    and kinds that do not apply to an item (with the reason), go to --rejects. Deixis
    variants that erase a reference to an object, sign, bar or text get a copy of the image
    with the referent marked (folder params variants.visual_prompt.folder next to --out).
    With --annotations every template variant must be answerable as written with its gold
    (round-trip oracle); every variant must pass the audit's ambiguity and label checks
    unless --keep-flagged.

    \b
    Example:
      bench-kit author variants --items datasets/demo/items.v0.jsonl \\
          --annotations datasets/demo/annotations.jsonl --out datasets/demo/items.jsonl
    """
    from pathlib import Path

    from bench_kit.authoring.variants import format_variant_summary, run_variants

    rejects = rejects_path or str(Path(out_path).parent / "variant_rejects.jsonl")
    summary = run_variants(params_path, items_path, out_path, rejects, annotations, templates,
                           keep_flagged=keep_flagged)
    info(format_variant_summary(summary))
    info(f"wrote {summary.n_items} items ({summary.n_base} v0) to {summary.out_path}; "
         f"rejects and skips to {summary.rejects_path}")
    if strict and summary.short_items:
        info(f"error: {summary.short_items} v0 item(s) have fewer than {summary.min_kinds} "
             "variant kinds (--strict)")
        raise SystemExit(1)


@author.command("from-captions")
@params_option
@click.option("--captions", required=True, type=click.Path(),
              help="COCO captions JSON (annotations + images), a Flickr8k token file "
                   "(NAME.jpg#N<TAB>caption), JSONL or CSV with image + caption columns "
                   "(optional id), or a Hugging Face dataset folder (save_to_disk).")
@click.option("--out", "out_path", required=True, type=click.Path(dir_okay=False),
              help="Items file to write; image paths are made relative to its folder "
                   "(images outside it are copied to images/ next to it).")
@click.option("--image-root", default=None, type=click.Path(file_okay=False),
              help="Folder holding the images the captions name [default: the captions "
                   "file's folder]; paths that do not exist are found by their trailing parts.")
@click.option("--on-error", type=click.Choice(["fail", "skip"]), default="fail",
              show_default=True,
              help="fail: list every unusable caption row and write nothing; skip: write the "
                   "good ones and the rejects (with reasons) to OUT.rejects.jsonl.")
def from_captions(params_path: str, captions: str, out_path: str, image_root: str | None,
                  on_error: str) -> None:
    """Turn image captions into questions by rules (English and Chinese).

    Rules (params captions.rules): count, attribute (colour), relation, object; each takes
    its gold from the statement, e.g. "Two dogs sit on a bench." -> "How many dogs sit on a
    bench?" (2). Every generated question is checked (the counted or coloured word is a
    whole noun, the question parses, no dangling words); malformed ones are never written:
    they go to OUT.rejects.jsonl with the reason. Items are marked `source: rewrite:<rule>`.

    \b
    Example:
      bench-kit author from-captions --captions datasets/mine/captions.jsonl \\
          --out datasets/mine/items.captions.jsonl
      bench-kit author from-captions --captions annotations/captions_val2017.json \\
          --image-root val2017 --out datasets/coco/items.jsonl --on-error skip
    """
    from bench_kit.authoring.captions import run_from_captions

    summary = run_from_captions(params_path, captions, out_path, image_root=image_root,
                                on_error=on_error)
    rules = ", ".join(f"{rule} {n}" for rule, n in summary.per_rule.items())
    info(f"wrote {summary.total} items ({rules}) from {summary.n_captions} captions to "
         f"{summary.out_path}; {summary.unused} captions gave no well-formed question")
    info(f"kept {summary.total} of {summary.generated} generated questions; rejected "
         f"{summary.rejected_questions} malformed questions and {summary.rejected_rows} "
         f"caption rows (reasons in {summary.rejects_path})")


@author.group("review", cls=BenchKitGroup)
def review() -> None:
    """Human review of a sample of every batch: draw a sheet, then apply its verdicts."""


@review.command("sample")
@params_option
@click.option("--items", "items_path", default="datasets/demo/items.jsonl", show_default=True,
              type=click.Path(dir_okay=False), help="Items file to sample from.")
@click.option("--rate", type=click.FloatRange(0.0, 1.0, min_open=True), default=None,
              help="Share of each batch to review [default: params review.rate].")
@click.option("--out", "out_dir", default="reviews/demo", show_default=True,
              type=click.Path(file_okay=False),
              help="Folder for review_sheet.csv and review_sheet.html.")
def review_sample(params_path: str, items_path: str, rate: float | None, out_dir: str) -> None:
    """Draw a stratified review sample per batch (template / source).

    Writes a CSV sheet with empty columns fluency, difficulty_ok and answer_ok (fill them
    with yes/no) and a self-contained HTML page showing each item's image, question and gold.

    \b
    Example:
      bench-kit author review sample --items datasets/demo/items.jsonl --rate 0.05 \\
          --out reviews/demo
    """
    from bench_kit.authoring.review import ReviewParams, sample_review
    from bench_kit.params import load_params, section

    settings = section(load_params(params_path), "review", ReviewParams, source=params_path)
    result = sample_review(items_path, out_dir, settings, rate)
    info(f"sampled {result.total} items from {len(result.batches)} batches to {result.sheet} "
         f"and {result.html}")


@review.command("apply")
@params_option
@click.argument("sheet", type=click.Path(dir_okay=False))
@click.option("--items", "items_path", default="datasets/demo/items.jsonl", show_default=True,
              type=click.Path(dir_okay=False), help="Items file the sheet was drawn from.")
def review_apply(params_path: str, sheet: str, items_path: str) -> None:
    """Record a filled review sheet and accept or reject its batches.

    A batch whose failure rate (items with any 'no') exceeds params review.max_failure_rate
    is rejected: all its items are listed in review_rejected.txt next to the items, which
    `bench-kit split` can exclude. Verdicts go to review_history.jsonl next to the items.

    \b
    Example:
      bench-kit author review apply reviews/demo/review_sheet.csv \\
          --items datasets/demo/items.jsonl
    """
    from bench_kit.authoring.review import ReviewParams, apply_review
    from bench_kit.params import load_params, section

    settings = section(load_params(params_path), "review", ReviewParams, source=params_path)
    outcome = apply_review(sheet, items_path, settings)
    for d in outcome.decisions:
        info(f"{d.batch}: {d.decision} ({d.failed}/{d.reviewed} failed, "
             f"{d.failure_rate:.0%} vs max {settings.max_failure_rate:.0%})")
    note = " (sheet already recorded)" if outcome.already_applied else ""
    info(f"history: {outcome.history}{note}; {outcome.rejected_ids} rejected ids in "
         f"{outcome.rejected_path}")

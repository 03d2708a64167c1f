"""`bench-kit compare` and `bench-kit history`: scores across commits."""

from __future__ import annotations

import json

import click

from bench_kit.cli._common import format_option


@click.command("compare")
@click.option("--rev", "revs", multiple=True, required=True,
              help="A git revision; give exactly two (older first).")
@click.option("--bench", default="demo", show_default=True, help="Benchmark name.")
@click.option("--items", "items_path", default=None,
              help="Items file inside the repo [datasets/<bench>/splits/test.jsonl].")
@click.option("--scores", "scores_dir", default=None,
              help="Scores folder inside the repo [scores/<bench>].")
@click.option("--repo", default=".", show_default=True, type=click.Path(file_okay=False),
              help="The git + DVC project root.")
@click.option("--alpha", default=0.05, show_default=True, type=click.FloatRange(0, 1,
              min_open=True, max_open=True), help="Significance level (Holm-corrected).")
@click.option("--capabilities/--no-capabilities", default=True, show_default=True,
              help="List per-capability changes in the text output.")
@format_option()
def compare(revs: tuple[str, ...], bench: str, items_path: str | None,
            scores_dir: str | None, repo: str, alpha: float, capabilities: bool,
            fmt: str) -> None:
    """Compare per-item scores between two revisions, separating data from model changes.

    Reads both revisions' items and scores through git and the DVC cache; per model and
    mode prints the accuracy change split into the change on unchanged items (McNemar,
    Holm-corrected) and the part due to items added, removed or edited.

    \b
    Example:
      bench-kit compare --rev HEAD~1 --rev HEAD --bench demo
      bench-kit compare --rev v1.0 --rev main --format json
    """
    from bench_kit.errors import UsageError
    from bench_kit.history.compare import compare_revisions, format_comparison

    if len(revs) != 2:
        raise UsageError(f"give --rev exactly twice (older, newer), got {len(revs)}")
    result = compare_revisions(repo, revs[0], revs[1], bench=bench, items_path=items_path,
                               scores_dir=scores_dir, alpha=alpha)
    if fmt == "json":
        click.echo(json.dumps(result, indent=2, sort_keys=True, ensure_ascii=False))
    else:
        click.echo(format_comparison(result, capabilities=capabilities))


@click.command("history")
@click.option("--metric", default="image.accuracy", show_default=True,
              help="Dotted key in metrics/<bench>/<model>.json, e.g. "
                   "image.by_capability.perception.count.accuracy or vision_gain.overall.")
@click.option("-n", "limit", default=10, show_default=True, type=click.IntRange(min=1),
              help="How many commits back.")
@click.option("--bench", default="demo", show_default=True, help="Benchmark name.")
@click.option("--metrics", "metrics_dir", default=None,
              help="Metrics folder inside the repo [metrics/<bench>].")
@click.option("--rev", default="HEAD", show_default=True, help="Newest commit to show.")
@click.option("--repo", default=".", show_default=True, type=click.Path(file_okay=False),
              help="The git project root.")
@format_option()
def history(metric: str, limit: int, bench: str, metrics_dir: str | None, rev: str,
            repo: str, fmt: str) -> None:
    """Show one metric of every model over the last N commits (newest first).

    \b
    Example:
      bench-kit history --metric image.accuracy -n 10
      bench-kit history --metric vision_gain.overall --format json
    """
    from bench_kit.history.metric_history import format_history, metric_history

    result = metric_history(repo, metric=metric, limit=limit, bench=bench,
                            metrics_dir=metrics_dir, rev=rev)
    if fmt == "json":
        click.echo(json.dumps(result, indent=2, sort_keys=True, ensure_ascii=False))
    else:
        click.echo(format_history(result))

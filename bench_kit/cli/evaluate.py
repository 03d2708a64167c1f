"""`bench-kit eval` commands."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from bench_kit.cli._common import (
    BenchKitGroup,
    budget_options,
    format_option,
    info,
    params_option,
)

if TYPE_CHECKING:
    from bench_kit.types import Mode


# `eval run` stopped by its budget: predictions were written, some as "budget exhausted".
BUDGET_EXIT_CODE = 3
# `eval run` wrote every prediction but more of them failed than `eval.max_error_share`
# allows (default 0: any failure); see docs/EVAL.md "Exit codes".
ERRORS_EXIT_CODE = 4


@click.group("eval", cls=BenchKitGroup)
def eval_group() -> None:
    """Run models on items and score their answers."""


class _ProgressLine:
    """Progress of a run on stderr: a rewritten line on a terminal, a few log lines else."""

    def __init__(self, label: str) -> None:
        import sys
        import time

        self.label, self.clock = label, time.monotonic
        self.stream = sys.stderr
        self.tty = self.stream.isatty()
        self.start = self.last = self.clock()
        self.next_share = 0.25

    def __call__(self, done: int, total: int) -> None:
        now = self.clock()
        elapsed = max(now - self.start, 1e-9)
        rate = done / elapsed
        eta = (total - done) / rate if rate > 0 else 0.0
        line = f"{self.label}: {done}/{total} ({rate:.1f}/s, ETA {eta:.0f}s)"
        if self.tty:
            if done == total or now - self.last >= 0.1:
                end = "\n" if done == total else ""
                self.stream.write(f"\r{line}\x1b[K{end}")
                self.stream.flush()
                self.last = now
        elif done >= total * self.next_share or now - self.last >= 30:
            self.stream.write(line + "\n")
            self.stream.flush()
            self.last = now
            while self.next_share <= done / max(total, 1):
                self.next_share += 0.25


@eval_group.command("run")
@click.option("--items", "items_path", default=None, type=click.Path(dir_okay=False),
              help="Items (split) file to run [default: datasets/<bench>/splits/<eval.split>"
                   ".jsonl from params].")
@click.option("--root", default=None, type=click.Path(file_okay=False),
              help="Benchmark root that image paths are relative to [default: the items "
                   "file's folder, or its parent for a file in splits/].")
@click.option("--model", required=True, help="Model name under `models:` in params.yaml.")
@click.option("--mode", default="image", show_default=True,
              type=click.Choice(["image", "no_image", "blank_image"]),
              help="Show the image, no image (question only), or a mid-grey image of the "
                   "same size.")
@click.option("--out", "out_path", default=None, type=click.Path(dir_okay=False),
              help="Predictions JSONL to write [default: scratch/eval/<model>/<mode>.jsonl, "
                   "never a pipeline output; the pipeline's stages give --out themselves].")
@click.option("--params", "params_path", default="params.yaml", show_default=True,
              type=click.Path(dir_okay=False), help="params.yaml to read settings from.")
@click.option("--limit", default=None, type=click.IntRange(min=1),
              help="Only the first N items.")
@click.option("--fresh", is_flag=True,
              help="Call the model even for items in the call cache (results are re-cached).")
@click.option("--circular", is_flag=True,
              help="CircularEval: ask each mc item once per rotation of its options (one "
                   "prediction row per id and rotation, each cached separately).")
@budget_options("model calls")
@format_option("text: the summary line on stderr; json: also the summary as JSON on "
               "stdout.")
@click.option("--allow-errors", is_flag=True,
              help="Exit 0 even when more rows failed than eval.max_error_share allows "
                   "(the failures are still written and counted).")
def run_command(items_path: str | None, root: str | None, model: str, mode: Mode,
                out_path: str | None, params_path: str, limit: int | None, fresh: bool,
                circular: bool, max_cost: float | None, max_requests: int | None,
                fmt: str, allow_errors: bool) -> None:
    """Run one model on every item in one mode; write one prediction per item.

    Calls run concurrently (the model's `concurrency`) and every answer is cached in
    SQLite (`eval.cache`), so a re-run, or a run after Ctrl-C, only calls the model for
    items it has not answered. A failed call is written as a prediction with `error` set,
    never as a wrong answer. API keys come from the environment variable named by the
    model's `api_key_env`.

    A budget (--max-cost, --max-requests) stops new calls cleanly: answers already
    received are kept and the items left unasked are written with `error: budget
    exhausted`; the command then exits with code 3 (re-run with a larger budget to
    continue from the cache).

    Exit codes: 0 done; 1 bad config or input (nothing written); 2 usage error; 3 the
    budget stopped the run; 4 more rows failed after all retries than
    `eval.max_error_share` allows (default 0: any failed row), so a pipeline never
    records a half-failed run as done. The predictions file is written before exit 4
    (nothing is lost); a re-run calls only the failed items. --allow-errors exits 0
    instead of 4.

    \b
    Example:
      bench-kit eval run --items datasets/demo/splits/test.jsonl --model ocr \\
        --mode image --out results/demo/ocr/image.jsonl
      bench-kit eval run --model gpt-4o-mini --circular --max-cost 2.50
      bench-kit eval run --model gpt-4o-mini --allow-errors
    """
    from pathlib import Path

    from bench_kit.eval.runner import RunSpec, run_eval

    if out_path is None:  # a hand run must not overwrite the DVC stage's results/ output
        out_path = str(Path("scratch") / "eval" / model / f"{mode}.jsonl")
    spec = RunSpec(model=model, mode=mode, items=Path(items_path) if items_path else None,
                   out=Path(out_path),
                   root=Path(root) if root else None, params=Path(params_path),
                   limit=limit, fresh=fresh, circular=circular, max_cost=max_cost,
                   max_requests=max_requests)
    summary = run_eval(spec, progress=_ProgressLine(f"eval {model}/{mode}"))
    info(summary.log_line())
    if fmt == "json":
        import json

        click.echo(json.dumps(summary.as_dict(), indent=2, sort_keys=True))
    if summary.budget_skipped:
        info(f"error: {summary.stopped}; {summary.budget_skipped} predictions written as "
             f"errors (re-run with a larger budget to continue)")
        raise SystemExit(BUDGET_EXIT_CODE)
    if summary.too_many_errors and not allow_errors:
        info(f"error: {summary.failed} of {summary.total} predictions failed "
             f"({summary.error_share:.1%} > eval.max_error_share {summary.max_error_share:g}); "
             f"they are written with `error` set: re-run to retry them, or pass "
             f"--allow-errors")
        raise SystemExit(ERRORS_EXIT_CODE)


@eval_group.command("score")
@click.option("--items", "items_path", required=True, type=click.Path(dir_okay=False),
              help="Items (split) file the model was run on.")
@click.option("--root", default=None, type=click.Path(file_okay=False),
              help="Benchmark root that image, mask and map paths are relative to "
                   "[default: the items file's folder].")
@click.option("--model", required=True, help="Model name; every prediction row must carry it "
                                             "(filled in for rows of --predictions without one).")
@click.option("--results", "results_dir", default=None, type=click.Path(file_okay=False),
              help="results/<bench>/<model> folder with <mode>.jsonl predictions.")
@click.option("--predictions", "predictions_path", default=None,
              type=click.Path(dir_okay=False),
              help="Instead of --results: one JSONL file of any origin with at least `id` "
                   "and `response` per row (see docs/SCORING.md).")
@click.option("--mode", default="image", show_default=True,
              type=click.Choice(["image", "no_image", "blank_image"]),
              help="Mode of the --predictions file.")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Folder for the <mode>.jsonl score rows.")
@click.option("--metrics", "metrics_path", required=True, type=click.Path(dir_okay=False),
              help="Metrics JSON to write (DVC metrics).")
@click.option("--plots", "plots_path", default=None, type=click.Path(dir_okay=False),
              help="Also write per-capability accuracy rows for `dvc plots` (JSON).")
@format_option("text: one summary line on stderr; json: the summary as JSON on "
               "stdout.")
@click.option("--judgements", "judgements_path", default=None,
              type=click.Path(dir_okay=False),
              help="Verdicts of `bench-kit eval judge` for this model: the judged items' "
                   "rows get parse `judge` and the judge's hit and score (see docs/EVAL.md).")
@params_option
def score_command(items_path: str, root: str | None, model: str, results_dir: str | None,
                  predictions_path: str | None, mode: str, out_dir: str, metrics_path: str,
                  plots_path: str | None, fmt: str, judgements_path: str | None,
                  params_path: str) -> None:
    """Score one model's predictions: per-item scores and the metrics JSON.

    Failed requests are left out of every denominator and counted as errors (items the
    adapter cannot take as `unsupported`); unparseable answers count as wrong and as parse
    failures; items without a prediction are `missing`, unknown ids `extra`, repeated rows
    `duplicated`. Settings: the `score:` section of params. With --judgements, the items
    an LLM judge graded (`bench-kit eval judge`) are scored by its verdict (parse
    `judge`); replies it could not settle keep the extractor's score and are counted.

    \b
    Examples:
      bench-kit eval score --items datasets/demo/splits/test.jsonl --model ocr \\
        --results results/demo/ocr --out scores/demo/ocr --metrics metrics/demo/ocr.json
      bench-kit eval score --items datasets/demo/splits/test.jsonl --model other \\
        --predictions other_harness.jsonl --mode image --out scores/demo/other \\
        --metrics metrics/demo/other.json --format json
      bench-kit eval score --items datasets/demo/splits/test.jsonl --model gpt \\
        --results results/demo/gpt --out scores/demo/gpt --metrics metrics/demo/gpt.json \\
        --judgements judge/demo/gpt.jsonl
    """
    import json

    from bench_kit.errors import UsageError
    from bench_kit.params import load_params, section
    from bench_kit.scoring.aggregate import summary_dict, summary_line
    from bench_kit.scoring.item import ScoreSettings
    from bench_kit.scoring.stage import score_model, score_predictions

    if (results_dir is None) == (predictions_path is None):
        raise UsageError("give exactly one of --results DIR and --predictions FILE")
    from bench_kit.models.config import model_box_format
    from bench_kit.stats.intervals import ReportAlpha

    params = load_params(params_path)
    settings = section(params, "score", ScoreSettings, source=params_path)
    box_format = model_box_format(params, model, params_path)
    alpha = section(params, "report", ReportAlpha, source=params_path).alpha
    if predictions_path is not None:
        run = score_predictions(items_path, predictions_path, out_dir, metrics_path,
                                model=model, mode=mode, root=root, settings=settings,
                                plots_path=plots_path, judgements=judgements_path,
                                box_format=box_format, alpha=alpha)
    else:
        assert results_dir is not None  # exactly one of the two (checked above)
        run = score_model(items_path, results_dir, out_dir, metrics_path, model=model,
                          root=root, settings=settings, plots_path=plots_path,
                          judgements=judgements_path, box_format=box_format, alpha=alpha)
    if fmt == "json":
        click.echo(json.dumps(summary_dict(run.metrics, str(run.metrics_path)), indent=2,
                              sort_keys=True))
    else:
        info(f"score {run.model}: {summary_line(run.metrics)} -> {run.metrics_path}")


@eval_group.command("judge")
@click.option("--items", "items_path", required=True, type=click.Path(dir_okay=False),
              help="Items (split) file the model was run on (rubrics come from here).")
@click.option("--results", "results_dir", required=True, type=click.Path(file_okay=False),
              help="results/<bench>/<model> folder with <mode>.jsonl predictions (any file "
                   "with `id` and `response` rows).")
@click.option("--model", required=True, help="Name of the model under test (for the rows).")
@click.option("--judge", "judge", default=None,
              help="Judge model under `models:` [default: judge.model from params].")
@click.option("--out", "out_path", required=True, type=click.Path(dir_okay=False),
              help="Verdict rows JSONL to write.")
@click.option("--metrics", "metrics_path", default=None, type=click.Path(dir_okay=False),
              help="Also write the judge metrics JSON (counts, pass rate, judge, cost).")
@budget_options("judge calls")
@format_option("text: the summary line on stderr; json: also the summary as JSON on "
               "stdout.")
@params_option
def judge_command(items_path: str, results_dir: str, model: str, judge: str | None,
                  out_path: str, metrics_path: str | None, max_cost: float | None,
                  max_requests: int | None, fmt: str, params_path: str) -> None:
    """Grade a model's responses with an LLM judge, per rubric dimension.

    Items are judged when they have a `rubric` or their capability has one under
    `judge.rubrics` in params. Each verdict row records the judge, its served model,
    the judge prompt version and the cost (apart from the model under test). A reply
    that does not parse is `parse: failed` and counted, never a silent wrong; judge calls
    are cached, so a re-run costs nothing. A budget (--max-cost, --max-requests, else
    eval.budget) stops new judge calls: the responses left unjudged are written with
    `error: budget exhausted (...)` and the command exits with code 3. Feed the verdicts
    into the score rows with `bench-kit eval score --judgements FILE`.

    \b
    Example:
      bench-kit eval judge --items datasets/demo/splits/test.jsonl \\
        --results results/demo/qwen-vl-vllm --model qwen-vl-vllm --judge gpt-4o-mini \\
        --out judge/demo/qwen-vl-vllm.jsonl
    """
    from bench_kit.eval.judge import judge_results

    run = judge_results(items_path, results_dir, out_path, model=model, judge=judge,
                        params=params_path, metrics_path=metrics_path, max_cost=max_cost,
                        max_requests=max_requests, progress=_ProgressLine("judge"))
    info(f"{run.log_line()} -> {out_path}")
    if fmt == "json":
        import json

        click.echo(json.dumps({**run.metrics(), "called": run.called,
                               "from_cache": run.from_cache, "out": out_path},
                              indent=2, sort_keys=True))
    if run.budget_skipped:
        info(f"error: {run.stopped}; {run.budget_skipped} responses written unjudged "
             f"(re-run with a larger budget to continue)")
        raise SystemExit(BUDGET_EXIT_CODE)

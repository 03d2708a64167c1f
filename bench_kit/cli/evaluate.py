"""`bench-kit eval` commands."""

from __future__ import annotations

import click

from bench_kit.cli._common import BenchKitGroup, params_option


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
@click.option("--model", required=True, help="Model name under eval.models in params.yaml.")
@click.option("--mode", default="image", show_default=True,
              type=click.Choice(["image", "no_image", "blank_image"]),
              help="Show the image, no image (question only), or a mid-grey image of the "
                   "same size.")
@click.option("--out", "out_path", default=None, type=click.Path(dir_okay=False),
              help="Predictions JSONL to write [default: results/<bench>/<model>/<mode>.jsonl].")
@click.option("--params", "params_path", default="params.yaml", show_default=True,
              type=click.Path(dir_okay=False), help="params.yaml to read settings from.")
@click.option("--limit", default=None, type=click.IntRange(min=1),
              help="Only the first N items.")
@click.option("--fresh", is_flag=True,
              help="Call the model even for items in the call cache (results are re-cached).")
def run_command(items_path: str | None, root: str | None, model: str, mode: str,
                out_path: str | None, params_path: str, limit: int | None, fresh: bool) -> None:
    """Run one model on every item in one mode; write one prediction per item.

    Calls run concurrently (the model's `concurrency`) and every answer is cached in
    SQLite (`eval.cache`), so a re-run, or a run after Ctrl-C, only calls the model for
    items it has not answered. A failed call is written as a prediction with `error` set,
    never as a wrong answer. API keys come from the environment variable named by the
    model's `api_key_env`.

    \b
    Example:
      bench-kit eval run --items datasets/demo/splits/test.jsonl --model ocr \\
        --mode image --out results/demo/ocr/image.jsonl
    """
    from pathlib import Path

    from bench_kit.cli._common import info
    from bench_kit.eval.runner import RunSpec, run_eval

    spec = RunSpec(model=model, mode=mode, items=Path(items_path) if items_path else None,
                   out=Path(out_path) if out_path else None,
                   root=Path(root) if root else None, params=Path(params_path),
                   limit=limit, fresh=fresh)
    summary = run_eval(spec, progress=_ProgressLine(f"eval {model}/{mode}"))
    info(summary.log_line())


@eval_group.command("score")
@click.option("--items", "items_path", required=True, type=click.Path(dir_okay=False),
              help="Items (split) file the model was run on.")
@click.option("--root", default=None, type=click.Path(file_okay=False),
              help="Benchmark root that image paths are relative to (grounding needs image "
                   "sizes) [default: the items file's folder].")
@click.option("--model", required=True, help="Model name; every prediction row must carry it.")
@click.option("--results", "results_dir", required=True, type=click.Path(file_okay=False),
              help="results/<bench>/<model> folder with <mode>.jsonl predictions.")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Folder for the <mode>.jsonl score rows.")
@click.option("--metrics", "metrics_path", required=True, type=click.Path(dir_okay=False),
              help="Metrics JSON to write (DVC metrics).")
@click.option("--plots", "plots_path", default=None, type=click.Path(dir_okay=False),
              help="Also write per-capability accuracy rows for `dvc plots` (JSON).")
@params_option
def score_command(items_path: str, root: str | None, model: str, results_dir: str,
                  out_dir: str, metrics_path: str, plots_path: str | None,
                  params_path: str) -> None:
    """Score one model's predictions: per-item scores and the metrics JSON.

    Failed requests are left out of every denominator and counted as errors; unparseable
    answers count as wrong and as parse failures. Settings: the `score:` section of params.

    \b
    Example:
      bench-kit eval score --items datasets/demo/splits/test.jsonl --model ocr \\
        --results results/demo/ocr --out scores/demo/ocr --metrics metrics/demo/ocr.json
    """
    from bench_kit.cli._common import info
    from bench_kit.eval.aggregate import summary_line
    from bench_kit.eval.score import score_model
    from bench_kit.eval.scoring import ScoreSettings
    from bench_kit.params import load_params, section

    settings = section(load_params(params_path), "score", ScoreSettings, source=params_path)
    run = score_model(items_path, results_dir, out_dir, metrics_path, model=model, root=root,
                      settings=settings, plots_path=plots_path)
    info(f"score {run.model}: {summary_line(run.metrics)} -> {run.metrics_path}")

"""Extraction and scoring throughput on 1,000,000 multiple-choice predictions.

Three figures, each measured in a fresh child process (so peak memory is its own):

1. `extract`: `extract_choice` over the responses held in memory, one core, next to a
   baseline measured in the same process: a naive `\b[A-D]\b` regex search (the "first
   capital letter" extractor DOMAIN §2 calls a bug) over the same responses;
2. `stream`: read the predictions JSONL line by line, `score_item` each against its item
   (items held by id), count hits — extract + score with nothing else;
3. `library`: `bench_kit.scoring.stage.score_predictions` on the same files — the real
   `bench-kit eval score --predictions` path: JSON and pydantic validation of every item
   and prediction, coverage, corpus metrics, score rows and metrics JSON written.

Responses mix the forms models write (bare letters, "The answer is B", markdown, Chinese,
reasoning blocks, option text, prose with a letter, unparseable), generated with a fixed
seed. Items: 1,000 distinct questions; the predictions refer to ids q0..q{N-1}.

Usage:
    .venv/bin/python benchmarks/extract_bench.py [--n 1000000] [--library-n 1000000]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CHOICES = {"A": "a red circle", "B": "two blue squares", "C": "a green triangle",
           "D": "none of them"}
FORMS = [
    "{L}", "({L})", "{L}.", "The answer is {L}.", "Answer: {L}", "**{L}**", "答案是{L}",
    "<think>Let me look. Maybe A? Or C.</think>\n{L}", "I think it is {T}.",
    "Looking at the image, the shapes match option {L} best because of the colour.",
    "The correct option is ({L}) {T}", "{L}. {T}",
    "I cannot tell from this image.", "<answer>{L}</answer>",
]


def _response(rng: random.Random) -> tuple[str, str]:
    letter = rng.choice("ABCD")
    form = rng.choice(FORMS)
    return letter, form.format(L=letter, T=CHOICES[letter])


def make_files(folder: Path, n: int, seed: int = 0) -> tuple[Path, Path]:
    """Write items.jsonl (n items) and predictions.jsonl (one response per item)."""
    rng = random.Random(seed)
    items, preds = folder / "items.jsonl", folder / "predictions.jsonl"
    with items.open("w", encoding="utf-8") as fi, preds.open("w", encoding="utf-8") as fp:
        for i in range(n):
            gold = "ABCD"[i % 4]
            fi.write(json.dumps({
                "id": f"q{i}", "question": "Which shape is shown?", "task": "mc",
                "choices": CHOICES, "answers": [gold], "capability": "perception.shape",
                "layer": "perception", "difficulty": "easy",
                "created_at": "2026-11-01T00:00:00Z"}) + "\n")
            fp.write(json.dumps({"id": f"q{i}", "response": _response(rng)[1]}) + "\n")
    return items, preds


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _extract(preds: Path, queue) -> None:
    import re

    from bench_kit.scoring.extract.answers import extract_choice

    responses = [json.loads(line)["response"] for line in preds.open(encoding="utf-8")]
    # Baseline: the naive "first capital letter A-D" extractor (a known reference bug).
    naive = re.compile(r"\b([A-D])\b").search
    start = time.process_time()
    sum(naive(r) is not None for r in responses)
    baseline = time.process_time() - start
    start = time.process_time()
    found = sum(extract_choice(r, CHOICES) is not None for r in responses)
    cpu = time.process_time() - start
    queue.put({"n": len(responses), "cpu_s": cpu, "baseline_s": baseline, "parsed": found,
               "peak_mb": _peak_mb()})


def _stream(items: Path, preds: Path, queue) -> None:
    from bench_kit.scoring.item import score_item
    from bench_kit.types import Item

    first = json.loads(items.open(encoding="utf-8").readline())
    item = Item.model_validate(first)
    golds = {g: item.model_copy(update={"answers": [g]}) for g in "ABCD"}
    start_wall, start = time.perf_counter(), time.process_time()
    n = hits = 0
    with preds.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            number = int(row["id"][1:])
            hits += score_item(golds["ABCD"[number % 4]], row["response"]).hit
            n += 1
    queue.put({"n": n, "cpu_s": time.process_time() - start,
               "wall_s": time.perf_counter() - start_wall, "hits": hits, "peak_mb": _peak_mb()})


def _library(items: Path, preds: Path, out: Path, queue) -> None:
    from bench_kit.scoring.stage import score_predictions

    start_wall, start = time.perf_counter(), time.process_time()
    run = score_predictions(items, preds, out / "scores", out / "metrics.json", model="bench")
    queue.put({"n": run.metrics["image"]["n"], "cpu_s": time.process_time() - start,
               "wall_s": time.perf_counter() - start_wall, "peak_mb": _peak_mb(),
               "accuracy": run.metrics["image"]["accuracy"],
               "accuracy_strict": run.metrics["image"]["accuracy_strict"]})


def _child(target, *args) -> dict:
    queue = multiprocessing.get_context("fork").Queue()
    proc = multiprocessing.get_context("fork").Process(target=target, args=(*args, queue))
    proc.start()
    result = queue.get()
    proc.join()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--library-n", type=int, default=1_000_000)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        items, preds = make_files(folder, args.n)
        print(f"generated {args.n:,} items + predictions in {time.perf_counter() - started:.1f}s")
        ext = _child(_extract, preds)
        print(f"extract : {ext['n']:,} responses, {ext['n'] / ext['cpu_s']:,.0f} items/s "
              f"(CPU, one core), {ext['parsed'] / ext['n']:.1%} parsed, "
              f"peak RSS {ext['peak_mb']:,.0f} MB; baseline naive regex "
              f"{ext['n'] / ext['baseline_s']:,.0f} items/s "
              f"(x{ext['cpu_s'] / ext['baseline_s']:.1f} the baseline's time)")
        stream = _child(_stream, items, preds)
        print(f"stream  : {stream['n']:,} JSONL rows extracted + scored, "
              f"{stream['n'] / stream['wall_s']:,.0f} items/s wall "
              f"({stream['n'] / stream['cpu_s']:,.0f}/s CPU), peak RSS "
              f"{stream['peak_mb']:,.0f} MB")
        if args.library_n:
            if args.library_n != args.n:
                sub = folder / "sub"
                sub.mkdir()
                items, preds = make_files(sub, args.library_n)
            lib = _child(_library, items, preds, folder)
            print(f"library : score_predictions on {lib['n']:,} items, "
                  f"{lib['n'] / lib['wall_s']:,.0f} items/s wall ({lib['wall_s']:.1f}s; "
                  f"{lib['n'] / lib['cpu_s']:,.0f}/s CPU), peak RSS {lib['peak_mb']:,.0f} MB, "
                  f"accuracy {lib['accuracy']:.4f} (strict {lib['accuracy_strict']:.4f})")


if __name__ == "__main__":
    main()

"""The bundled encoder's runtimes side by side in one process (docs/BENCHMARKS.md
`## Encoder runtime`): torch (sentence-transformers) vs ONNX Runtime fp32 vs ONNX Runtime
int8 (`embed.local_runtime: onnx`, `embed.onnx_int8`).

    .venv/bin/python benchmarks/encoder_runtime.py --n 2000 --repeats 3

Texts: `--n` distinct benchmark questions of realistic lengths — the hand-written public-
style questions (tests/cases/public_questions.json, English and Chinese), the demo
templates' questions filled with the demo's colours, shapes, labels and sign texts
(bench_kit/scaffold/templates/templates.yaml.j2), multiple-choice forms with lettered
options and an answer instruction, and chart/document questions with one to four
sentences of context. Speed: texts/s of each runtime over all texts, repeated
`--repeats` times interleaved (torch, fp32, int8, torch, …) so machine load hits them
alike; the median run is reported, with the speed-up against torch, in wall time and in
CPU time of the process (less sensitive to other jobs on a shared machine). Agreement with torch:
the vectors (cosine to the torch vector, largest component difference), the pairwise
cosines of a `--sample` of texts, and the two decisions that read a cosine: the variant
gate (bench_kit/authoring/gate.py thresholds of params.yaml, on (question, rewrite) pairs
from the rule-based variant kinds) and the contamination rephrase check (warn at cosine
>= 0.9, review band from 0.6; on the same pairs and as nearest neighbours of half the
questions among the other half plus rewrites of a quarter of the first half).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

COLOURS = ["red", "green", "blue", "yellow", "purple", "orange", "black", "white"]
COLOURS_ZH = ["红色", "绿色", "蓝色", "黄色", "紫色", "橙色", "黑色", "白色"]
SHAPES = ["circle", "square", "triangle", "star", "hexagon", "rectangle"]
SHAPES_ZH = ["圆形", "正方形", "三角形", "星形", "六边形", "长方形"]
LABELS = ["2018", "2019", "2020", "2021", "Q1", "Q2", "Q3", "Q4", "Monday", "Tuesday",
          "apples", "pears", "Berlin", "Paris", "north", "south"]
SIGNS = ["OPEN", "EXIT", "SALE 50%", "NO PARKING", "Bakery", "Platform 3", "出口", "营业中"]
CONTEXT = ["The chart below shows the monthly sales of a small bakery in 2021.",
           "Look at the receipt in the image; prices are in euros and include tax.",
           "The diagram shows a food web in a freshwater pond.",
           "The table lists the population of five cities in thousands.",
           "Read the sign carefully before answering.",
           "The photo was taken on a rainy afternoon in a busy street.",
           "Each bar is labelled with its value at the top.",
           "The document is a scanned invoice with a handwritten note at the bottom.",
           "Ignore the watermark in the lower right corner.",
           "The figure has two panels: the left one before heating and the right one after."]
INSTRUCTIONS = ["Answer with the option's letter from the given choices directly.",
                "Answer the question using a single word or phrase.",
                "Think step by step, then give the final answer on the last line."]
CLAUSES = ["the red square were removed", "the chart showed one more bar",
           "the light were switched off", "the blue circle were twice as large"]
CLAUSES_ZH = ["去掉红色的正方形", "图中多了一个蓝色的圆形"]


def _plural(shape: str) -> str:
    return shape + ("es" if shape.endswith("x") else "s")


def _template_question(rng: random.Random) -> str:
    c1, c2 = rng.sample(COLOURS, 2)
    s1, s2 = rng.sample(SHAPES, 2)
    k = rng.randrange(len(COLOURS))
    m = rng.randrange(len(SHAPES))
    return rng.choice([
        f"What shape is the {c1} object?",
        f"What colour is the {s1}?",
        f"How many {_plural(s1)} are there in the image?",
        f"How many {c1} {_plural(s1)} are there in the image?",
        f"From the viewer's perspective, is the {c1} {s1} to the left of the {c2} {s2}?",
        f"Which text is written on the {c1} sign?",
        f"What is the value of the {rng.choice(LABELS)} bar in the chart?",
        f"Which bar in the chart is the tallest, {rng.choice(LABELS)} or {rng.choice(LABELS)}?",
        f"Are there more {_plural(s1)} than {_plural(s2)} in the image?",
        f"图中{COLOURS_ZH[k]}的物体是什么形状？",
        f"图中有几个{COLOURS_ZH[k]}的{SHAPES_ZH[m]}？",
        (f"{COLOURS_ZH[k]}的{SHAPES_ZH[m]}在{COLOURS_ZH[(k + 1) % 8]}的"
         f"{SHAPES_ZH[(m + 1) % 6]}左边吗？"),
        f"Is the sign that says \"{rng.choice(SIGNS)}\" above the {c1} door?",
    ])


def questions(n: int, seed: int = 7) -> list[str]:
    """`n` distinct benchmark-style questions (deterministic for a seed)."""
    rng = random.Random(seed)
    public = json.loads((REPO / "tests/cases/public_questions.json").read_text())["questions"]
    out: dict[str, None] = dict.fromkeys(public)
    while len(out) < n:
        base = rng.choice(public) if rng.random() < 0.4 else _template_question(rng)
        form = rng.random()
        if form < 0.45:
            text = base
        elif form < 0.7:
            options = rng.sample(COLOURS + SHAPES + LABELS, 4)
            text = (f"{base}\nOptions: " + " ".join(f"{'ABCD'[j]}. {o}"
                                                     for j, o in enumerate(options))
                    + f"\n{rng.choice(INSTRUCTIONS)}")
        else:
            text = " ".join(rng.sample(CONTEXT, rng.randint(1, 4))) + " " + base
        out.setdefault(text, None)
    return list(out)[:n]


def gate_pairs(texts: list[str]) -> list[tuple[str, str, str]]:
    """(kind, original, rewrite) for the rule-based text variant kinds that change a text."""
    from bench_kit.authoring.lexicon import (
        condition_prefix,
        deixis_rewrite,
        is_chinese,
        register_rewrite,
        synonym_rewrite,
    )

    out = []
    for k, text in enumerate(texts):
        clause = (CLAUSES_ZH if is_chinese(text) else CLAUSES)[k % 2]
        style = ("colloquial", "formal")[k % 2]
        for kind, rewrite in (("synonym", synonym_rewrite(text)),
                              ("deixis", deixis_rewrite(text)),
                              ("register", register_rewrite(text, style, k)),
                              ("hypothetical", condition_prefix(text, clause))):
            if rewrite != text:
                out.append((kind, text, rewrite))
    return out


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def _flips(a: Any, b: Any) -> int:
    return int((a != b).sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="distinct questions")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per runtime")
    parser.add_argument("--sample", type=int, default=500, help="texts for pairwise cosines")
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()

    import numpy as np
    import onnxruntime
    import torch
    import yaml

    from bench_kit.authoring.gate import judge
    from bench_kit.authoring.variants import VariantParams
    from bench_kit.embed import TorchEmbedder
    from bench_kit.embed.local_onnx import OnnxEmbedder
    from bench_kit.text.edit import edit_ratio

    texts = questions(args.n)
    lengths = [len(t) for t in texts]
    print(f"texts: {len(texts)} distinct, characters median {statistics.median(lengths):.0f}, "
          f"max {max(lengths)}; torch threads {torch.get_num_threads()}, "
          f"onnxruntime {onnxruntime.__version__}")
    with tempfile.TemporaryDirectory() as cache:
        export_s, fp32 = _timed(lambda: OnnxEmbedder(batch_size=args.batch_size,
                                                     cache_dir=cache))
        quant_s, int8 = _timed(lambda: OnnxEmbedder(int8=True, batch_size=args.batch_size,
                                                    cache_dir=cache))
        again_s, _ = _timed(lambda: OnnxEmbedder(int8=True, batch_size=args.batch_size,
                                                 cache_dir=cache))
        sizes = {p.name.rsplit("-", 1)[-1]: p.stat().st_size for p in Path(cache).iterdir()}
    print(f"first use: export fp32 {export_s:.1f} s, quantise int8 {quant_s:.1f} s; "
          f"construction from the cache {again_s:.1f} s; files "
          + ", ".join(f"{k} {v / 1e6:.1f} MB" for k, v in sorted(sizes.items())))
    runtimes = {"torch": TorchEmbedder(batch_size=args.batch_size), "onnx fp32": fp32,
                "onnx int8": int8}
    for embedder in runtimes.values():  # warm up: model load, first-call allocations
        embedder.encode(texts[:args.batch_size])
    seconds: dict[str, list[float]] = {name: [] for name in runtimes}
    cpu: dict[str, list[float]] = {name: [] for name in runtimes}
    vectors: dict[str, Any] = {}
    for _ in range(args.repeats):
        for name, embedder in runtimes.items():
            started = time.process_time()
            elapsed, vectors[name] = _timed(lambda e=embedder: e.encode(texts))
            seconds[name].append(elapsed)
            cpu[name].append(time.process_time() - started)
    base = statistics.median(seconds["torch"])
    base_cpu = statistics.median(cpu["torch"])
    print("\n| runtime | name | texts/s (median run) | runs (s) | speed-up vs torch "
          "| CPU s per run (median) | CPU speed-up vs torch |")
    print("|---|---|---:|---|---:|---:|---:|")
    for name, embedder in runtimes.items():
        median, median_cpu = statistics.median(seconds[name]), statistics.median(cpu[name])
        print(f"| {name} | `{embedder.name}` | {len(texts) / median:.0f} | "
              f"{', '.join(f'{s:.1f}' for s in seconds[name])} | {base / median:.2f}x | "
              f"{median_cpu:.1f} | {base_cpu / median_cpu:.2f}x |")

    ref = vectors["torch"]
    rng = np.random.default_rng(0)
    sample = rng.choice(len(texts), size=min(args.sample, len(texts)), replace=False)
    upper = np.triu_indices(len(sample), k=1)
    ref_pairs = (ref[sample] @ ref[sample].T)[upper]
    pairs = gate_pairs(texts)
    params = VariantParams(**yaml.safe_load((REPO / "params.yaml").read_text())["variants"])
    ratios = [edit_ratio(a, b) for _, a, b in pairs]
    pair_index = {t: k for k, t in enumerate(texts)}
    extra = sorted({b for _, _, b in pairs} - set(pair_index))

    index = {**pair_index, **{t: len(texts) + k for k, t in enumerate(extra)}}
    tables = {name: np.concatenate([vectors[name], runtimes[name].encode(extra)])
              for name in runtimes}  # every text and rewrite, once per runtime

    def pair_cosines(name: str) -> Any:
        table = tables[name]
        return np.array([float(table[index[a]] @ table[index[b]]) for _, a, b in pairs])

    def gate_decisions(cosines: Any) -> Any:
        return np.array([judge(float(c), r, params.limits(kind)).accepted
                         for c, r, (kind, _, _) in zip(cosines, ratios, pairs)])

    half = len(texts) // 2
    planted = [b for kind, a, b in pairs if kind in ("synonym", "register")
               and pair_index[a] < half // 2]
    references = list(range(half, len(texts))) + [index[b] for b in dict.fromkeys(planted)]

    torch_scores = tables["torch"][:half] @ tables["torch"][references].T

    def nearest(name: str) -> tuple[Any, Any]:
        scores = tables[name][:half] @ tables[name][references].T
        return scores.max(axis=1).round(4), scores.argmax(axis=1)

    def neighbour_gap(where: Any) -> float:
        """How much lower torch scores the runtime's neighbour than torch's own (max)."""
        rows = np.arange(half)
        return float((torch_scores.max(axis=1) - torch_scores[rows, where]).max())

    base_cos = pair_cosines("torch")
    base_gate = gate_decisions(base_cos)
    base_nn, base_where = nearest("torch")
    limits = np.array([params.limits(kind).min_similarity for kind, _, _ in pairs])
    print(f"(question, rewrite) pairs within 0.02 of their gate threshold under torch: "
          f"{int((np.abs(base_cos - limits) < 0.02).sum())}; within 0.02 of 0.9: "
          f"{int((np.abs(base_cos - 0.9) < 0.02).sum())}; nearest-neighbour scores within "
          f"0.02 of 0.9: {int((np.abs(base_nn - 0.9) < 0.02).sum())}")
    print(f"\nagreement with torch — {len(sample)} sampled texts ({len(ref_pairs)} pairs); "
          f"{len(pairs)} (question, rewrite) pairs ({base_gate.sum()} accepted by torch); "
          f"nearest neighbours of {half} questions among {len(texts) - half} questions + "
          f"{len(references) - (len(texts) - half)} rewrites "
          f"({int((base_nn >= 0.9).sum())} warn by torch)")
    print("\n| runtime | min / mean cosine to torch vector | max abs vector component diff "
          "| pairwise cosine abs diff max / mean | (question, rewrite) cosine abs diff max "
          "| gate flips | rephrase-warn flips (pairs) "
          "| review-band flips (pairs) | nearest-neighbour warn flips | review flips "
          "| other neighbour (torch's score gap, max) |")
    print("|---|---|---|---|---|---:|---:|---:|---:|---:|---:|")
    for name in ("onnx fp32", "onnx int8"):
        vec = vectors[name]
        to_torch = (vec * ref).sum(axis=1)
        diff = np.abs((vec[sample] @ vec[sample].T)[upper] - ref_pairs)
        cos = pair_cosines(name)
        nn, where = nearest(name)
        print(f"| {name} | {to_torch.min():.4f} / {to_torch.mean():.4f} | "
              f"{np.abs(vec - ref).max():.2e} | {diff.max():.2e} / {diff.mean():.2e} | "
              f"{np.abs(cos - base_cos).max():.2e} | "
              f"{_flips(gate_decisions(cos), base_gate)} / {len(pairs)} | "
              f"{_flips(cos.round(4) >= 0.9, base_cos.round(4) >= 0.9)} | "
              f"{_flips(cos.round(4) >= 0.6, base_cos.round(4) >= 0.6)} | "
              f"{_flips(nn >= 0.9, base_nn >= 0.9)} / {half} | "
              f"{_flips(nn >= 0.6, base_nn >= 0.6)} | "
              f"{_flips(where, base_where)} ({neighbour_gap(where):.1e}) |")

if __name__ == "__main__":
    main()

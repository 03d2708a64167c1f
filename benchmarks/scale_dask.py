"""Per-partition cost of the Dask contamination engine (docs/SCALE.md).

    nice -n 19 .venv/bin/python benchmarks/scale_dask.py --rows 1000000 \
        --partition-rows 100000 --items 1000 --workers 2 --out /tmp/scale_dask
    nice -n 19 .venv/bin/python benchmarks/scale_dask.py --rows 10000000 \
        --partition-rows 100000 --items 1000 --workers 2 --out /tmp/scale10m --build-minutes 40

Reference: synthetic English questions (benchmarks/audit_scale.py's generator: 8-25 words
from a 5,000-word Zipf vocabulary); items: 1,000 questions of which 2% are copied from the
reference and 2% copied with one word changed. Steps, on a LocalCluster of `--workers`
single-threaded worker processes:

1. the partitioned build (each task reads its rows from the source, normalises them and
   writes hashes, n-grams, MinHash, tokens), per partition: wall and CPU seconds, source
   bytes read, bytes sent back to the driver, worker peak RSS; with `--build-minutes` the
   build stops then and the rest is measured on the partitions finished (no manifest is
   written for such a subset);
2. the matching filter, per partition: wall and CPU seconds, bytes read (compressed
   parquet column chunks), bytes sent back to the driver (pickled result), candidate rows,
   worker peak RSS;
3. the embedding check per partition, in this process: the top-1 by one exact matrix
   product of the items against synthetic unit vectors (384-d float32; encoding is not
   measured here, see docs/BENCHMARKS.md "Audits"), the IDF pass (document frequencies
   from the stored `tokens` column), and the rare-token pass for `--lexical-items` items
   through the partition's token index (bench_kit/audit/distributed/rare_tokens.py).

A second run with the same arguments resumes the build (nothing rewritten; the resume cost
per partition is printed) and re-measures the rest. Delete `--out` afterwards: 10M rows
take about 7.2 GB of partitions and 0.7 GB of source.

These machines have 2 shared cores: the figures are per partition, not a scaling curve.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))


def write_source(path: Path, rows: int, chunk: int = 200_000) -> None:
    """A parquet source of `rows` synthetic questions (id, question)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from audit_scale import questions

    with pq.ParquetWriter(path, pa.schema([("id", pa.string()), ("question", pa.string())])) \
            as writer:
        for start in range(0, rows, chunk):
            texts = questions(min(chunk, rows - start), seed=start + 1)
            writer.write_table(pa.table({"id": [f"r{start + i}" for i in range(len(texts))],
                                         "question": texts}))


def item_questions(source: Path, count: int) -> list[str]:
    """`count` item questions: 2% copies, 2% one-word edits of reference rows, the rest new."""
    import random

    import pyarrow.parquet as pq
    from audit_scale import questions

    first = pq.ParquetFile(source).read_row_group(0).column("question").to_pylist()
    rng = random.Random(5)
    out = questions(count, seed=999_999)
    for n in range(count // 25):
        words = rng.choice(first).split()
        if n % 2:
            words[len(words) // 2] = "zebra"
        out[n] = " ".join(words)
    return out


def build_until(source: Path, url: str, spec, rows_per_partition: int, client,
                seconds: float) -> tuple[list[dict], list[dict], int]:
    """The library's build tasks for every partition of the layout, stopped after
    `seconds`: (manifest entries, task stats) of the partitions finished, in order, and
    how many were planned."""
    from distributed import wait

    from bench_kit.audit.distributed.partitions import build_partition
    from bench_kit.audit.distributed.source_split import plan_partitions
    from bench_kit.audit.reference import FieldNames

    plan = plan_partitions([str(source)], rows_per_partition, client)
    futures = [client.submit(build_partition, url, number, pieces, spec, FieldNames(),
                             pure=False) for number, pieces in enumerate(plan)]
    try:
        wait(futures, timeout=seconds)
    except TimeoutError:
        pass
    finished = [f.result() for f in futures if f.status == "finished"]
    client.cancel([f for f in futures if f.status != "finished"])
    return [e for e, _ in finished], [s for _, s in finished], len(plan)


def summarise(values: list[float]) -> str:
    return f"{statistics.median(values):,.3g} (max {max(values):,.3g})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--partition-rows", type=int, default=100_000)
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--lexical-items", type=int, default=1000,
                        help="items in the timed rare-token pass (its cost grows with them)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/scale_dask"))
    parser.add_argument("--build-minutes", type=float, default=None,
                        help="stop the build after this long and measure the partitions "
                             "finished by then (a stated subset of the layout)")
    args = parser.parse_args()

    import numpy as np
    from distributed import Client, LocalCluster

    from bench_kit.audit.contamination import ContaminationSettings
    from bench_kit.audit.contamination_rephrase import Idf, text_features
    from bench_kit.audit.distributed.matching import item_side, run_filter
    from bench_kit.audit.distributed.partitions import (
        PartitionedReference,
        build_partitioned,
        open_partitioned,
    )
    from bench_kit.audit.distributed.rare_tokens import indexed_lexical_candidates
    from bench_kit.audit.distributed.rephrase import _read, document_frequencies
    from bench_kit.audit.distributed.signatures import FeatureSpec
    from bench_kit.audit.reference import reference_text
    from bench_kit.audit.vector_index import top1_exact
    from bench_kit.text.normalize import normalize_for_audit

    args.out.mkdir(parents=True, exist_ok=True)
    source = args.out / f"source-{args.rows}.parquet"
    if not source.exists():
        write_source(source, args.rows)
    settings = ContaminationSettings()
    spec = FeatureSpec.from_settings(settings)
    url = str(args.out / f"parts-{args.rows}-{args.partition_rows}")
    result: dict = {"rows": args.rows, "partition_rows": args.partition_rows,
                    "items": args.items, "workers": args.workers}
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                      dashboard_address=None, silence_logs=40) as cluster, \
            Client(cluster) as client:
        started = time.perf_counter()
        if args.build_minutes is None:
            report = build_partitioned([str(source)], url, spec, client=client,
                                       rows_per_partition=args.partition_rows)
            entries, build_stats = report.manifest["partitions"], report.stats
            reference = open_partitioned(url)
        else:
            entries, build_stats, planned = build_until(
                source, url, spec, args.partition_rows, client, args.build_minutes * 60)
            result["planned_partitions"] = planned
            reference = PartitionedReference(url, {"partitions": entries})  # not on disk
        result["build_seconds"] = round(time.perf_counter() - started, 1)
        result["build_partitions"] = build_stats
        result["stored_bytes"] = sum(p["bytes"] for p in entries)
        texts = item_questions(source, args.items)
        side = item_side([reference_text(t, []) for t in texts],
                         [normalize_for_audit(t) for t in texts], settings, spec)
        started = time.perf_counter()
        parts = run_filter(reference, side, client)
        result["match_seconds"] = round(time.perf_counter() - started, 1)
    stats = [p.stats for p in parts]
    result["partitions"] = stats
    result["candidates"] = sum(s["candidates"] for s in stats)
    rng = np.random.default_rng(0)
    queries = rng.standard_normal((args.items, args.dim), dtype=np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    block = rng.standard_normal((args.partition_rows, args.dim), dtype=np.float32)
    block /= np.linalg.norm(block, axis=1, keepdims=True)
    started, cpu = time.perf_counter(), time.process_time()
    top1_exact(queries, block)
    result["embedding_topk_seconds_per_partition"] = round(time.perf_counter() - started, 2)
    result["embedding_topk_cpu_seconds"] = round(time.process_time() - cpu, 2)
    # the embedding check's text passes on the first partition, in this process
    first = reference.partition_urls()[0]
    started, cpu = time.perf_counter(), time.process_time()
    documents, counts = document_frequencies(first)
    result["idf_pass_seconds_per_partition"] = round(time.perf_counter() - started, 2)
    result["idf_pass_cpu_seconds"] = round(time.process_time() - cpu, 2)
    idf = Idf(documents, counts)
    features = [text_features(t) for t in texts[:args.lexical_items]]
    started, cpu = time.perf_counter(), time.process_time()
    indexed_lexical_candidates(
        features, _read(first, ("original", "question", "tokens", "entities")), idf, 2.0)
    result["lexical_pass_seconds_per_partition"] = round(time.perf_counter() - started, 2)
    result["lexical_pass_cpu_seconds"] = round(time.process_time() - cpu, 2)
    (args.out / f"result-{args.rows}.json").write_text(json.dumps(result, indent=1))
    print(f"| rows | partitions | build s (wall, {args.workers} workers) | stored MB "
          "| match s (wall) | per partition: s (CPU s) | MB read | KB to driver | worker peak MB "
          "| candidates | embedding per partition: top-1 s / IDF pass s / rare-token pass s "
          f"({min(args.lexical_items, args.items)} items) |")
    print(f"| {args.rows:,} | {len(stats)} | {result['build_seconds']} | "
          f"{result['stored_bytes'] / 1e6:.0f} | {result['match_seconds']} | "
          f"{summarise([s['seconds'] for s in stats])} "
          f"({summarise([s['cpu_seconds'] for s in stats])}) | "
          f"{summarise([s['bytes_read'] / 1e6 for s in stats])} | "
          f"{summarise([s['bytes_to_driver'] / 1e3 for s in stats])} | "
          f"{summarise([s['peak_rss_mb'] for s in stats])} | {result['candidates']} | "
          f"{result['embedding_topk_seconds_per_partition']} / "
          f"{result['idf_pass_seconds_per_partition']} / "
          f"{result['lexical_pass_seconds_per_partition']} (CPU s "
          f"{result['embedding_topk_cpu_seconds']} / {result['idf_pass_cpu_seconds']} / "
          f"{result['lexical_pass_cpu_seconds']}) |")
    built = [b for b in result["build_partitions"] if b["written"]]
    resumed = [b for b in result["build_partitions"] if not b["written"]]
    if resumed:
        print(f"\nresume, {len(resumed)} partitions already built: s "
              f"{summarise([b['seconds'] for b in resumed])} (CPU s "
              f"{summarise([b['cpu_seconds'] for b in resumed])})")
    if built:
        print("\n| build, per partition written | s (CPU s) | source MB read | KB to driver "
              "| worker peak MB |")
        print(f"| {len(built)} of {result.get('planned_partitions', len(stats))} | "
              f"{summarise([b['seconds'] for b in built])} "
              f"({summarise([b['cpu_seconds'] for b in built])}) | "
              f"{summarise([b['source_bytes'] / 1e6 for b in built])} | "
              f"{summarise([b['bytes_to_driver'] / 1e3 for b in built])} | "
              f"{summarise([b['peak_rss_mb'] for b in built])} |")


if __name__ == "__main__":
    main()

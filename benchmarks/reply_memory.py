"""Peak memory of `bench-kit eval run` with every reply in flight a gzip bomb, per client.

32 items at concurrency 32 against tests/models/hostile_server.py: once with normal
replies, once with `gzipbomb` replies (about 1 MB on the wire, 1 GB inflated; each one is
that row's error at the 8 MiB `max_response_bytes`). Each run is its own process; the
table gives its peak RSS (ru_maxrss) and the bomb run's excess over the normal run per
reply in flight, to hold against the cap.

    .venv/bin/python benchmarks/reply_memory.py [--concurrency 32]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

TESTS = Path(__file__).resolve().parents[1] / "tests"
sys.path[:0] = [str(TESTS), str(TESTS / "models")]
from hostile_server import HostileServer  # noqa: E402

from bench_kit.io import write_jsonl  # noqa: E402

CHILD = """import resource, sys
from bench_kit.cli import cli
sys.argv = ["bench-kit", *sys.argv[1:]]
try:
    cli()
except SystemExit:
    pass
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def peak_mib(root: Path, url: str, client: str, scenario: str, concurrency: int) -> float:
    """Peak RSS (MiB) of one `eval run` of `concurrency` items answered by `scenario`."""
    tag = f"{client}-{scenario}"
    items = root / f"{tag}.jsonl"
    write_jsonl(items, [{"id": f"q{n}", "image": None, "question": f"How many {n}? "
                         f"[hostile:{scenario}]", "task": "numeric", "answers": ["2"],
                         "capability": "perception.count", "layer": "perception",
                         "difficulty": "easy", "created_at": "2026-11-01T00:00:00Z"}
                        for n in range(concurrency)])
    params = root / f"{tag}.yaml"
    params.write_text(yaml.safe_dump({"eval": {"cache": str(root / f"{tag}.sqlite")},
                                      "models": {"vlm": {"adapter": "openai", "model": "m",
                                                         "base_url": url,
                                                         "http_client": client,
                                                         "concurrency": concurrency,
                                                         "max_retries": 0}}}))
    proc = subprocess.run([sys.executable, "-c", CHILD, "eval", "run", "--model", "vlm",
                           "--mode", "no_image", "--items", str(items), "--params",
                           str(params), "--out", str(root / f"{tag}.out.jsonl"),
                           "--allow-errors"], capture_output=True, text=True, check=True)
    return int(proc.stdout.split()[-1]) / 1024  # ru_maxrss is in KiB on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    print("| client | normal replies, peak RSS | gzip-bomb replies, peak RSS | excess per "
          "reply in flight (cap 8 MiB) |\n| --- | --- | --- | --- |")
    with HostileServer() as server, tempfile.TemporaryDirectory() as tmp:
        server.bomb()  # made before measuring
        for client in ("aiohttp", "httpx"):
            normal = peak_mib(Path(tmp), server.url, client, "ok", args.concurrency)
            bomb = peak_mib(Path(tmp), server.url, client, "gzipbomb", args.concurrency)
            print(f"| {client} | {normal:.0f} MiB | {bomb:.0f} MiB | "
                  f"{(bomb - normal) / args.concurrency:.1f} MiB |", flush=True)


if __name__ == "__main__":
    main()

"""Runner benchmarks: throughput against a fixed-latency server, and a cached re-run.

1. Concurrency 32 and 64 against benchmarks/latency_server.py (200 ms per request, in its
   own process), five variants sending the same requests: the runner (`run_eval`) with
   each HTTP client (`http_client: httpx | aiohttp`), bare httpx and bare aiohttp clients
   (the HTTP library's own ceiling, without the runner) and raw asyncio keep-alive sockets
   (the server's and the machine's ceiling). Each runner item carries a small PNG, so image
   loading and base64 encoding are part of the cost. A variant's figure is its achieved
   requests/s as a fraction of the ideal (concurrency / latency), over the whole
   `run_eval` call (items read, keys, cache, predictions written); the runner's client CPU
   per request (process_time / requests) is in brackets.
   On a shared machine the load drifts, so the variants run ALTERNATING: each of `--rounds`
   rounds runs every variant once (the order rotated each round), and the table gives each
   variant's median over the rounds and its median ratio to the raw sockets of the same
   round.
2. Re-run over `--items` items already in the call cache: requests sent (must be 0) and
   wall time of `run_eval` (items read, images probed, keys computed, cache read,
   predictions written). `--items 0` skips it.

    .venv/bin/python benchmarks/runner_throughput.py --rounds 5 [--per-slot 12] [--items 10000]
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import socket
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from latency_server import run_in_process  # noqa: E402

from bench_kit.eval.runner import RunSpec, run_eval  # noqa: E402
from bench_kit.io import write_jsonl  # noqa: E402

LATENCY = 0.2


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(latency: float) -> tuple[multiprocessing.Process, str]:
    port = free_port()
    ready = multiprocessing.Event()
    proc = multiprocessing.Process(target=run_in_process, args=(port, latency, ready),
                                   daemon=True)
    proc.start()
    ready.wait(10)
    return proc, f"http://127.0.0.1:{port}"


def served(url: str) -> int:
    with urllib.request.urlopen(f"{url}/count") as reply:
        return int(reply.read())


def make_bench(root: Path, count: int, url: str, concurrency: int, tag: str,
               http_client: str = "httpx") -> tuple[Path, Path]:
    from PIL import Image

    (root / "img").mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (64, 48), (200, 30, 30)).save(root / "img" / "a.png")
    rows = [{"id": f"{tag}{n}", "image": "img/a.png", "question": f"Which colour, {tag} {n}?",
             "task": "mc", "choices": {"A": "red", "B": "blue"}, "answers": ["A"],
             "capability": "perception.colour", "layer": "perception", "difficulty": "easy",
             "created_at": "2026-01-01T00:00:00Z"} for n in range(count)]
    items = root / f"{tag}.jsonl"
    write_jsonl(items, rows)
    params = root / f"{tag}.yaml"
    params.write_text(yaml.safe_dump({
        "eval": {"cache": str(root / "calls.sqlite")},  # one cache, as in a project
        "models": {"bench": {"adapter": "openai", "model": "bench", "base_url": f"{url}/v1",
                             "concurrency": concurrency, "max_retries": 0,
                             "http_client": http_client}}}))
    return items, params


def throughput(root: Path, url: str, concurrency: int, per_slot: int,
               http_client: str = "httpx", tag: str = "") -> dict[str, float]:
    """One `run_eval` of concurrency * per_slot new items through the runner."""
    count = concurrency * per_slot
    items, params = make_bench(root, count, url, concurrency,
                               f"{http_client}c{concurrency}r{per_slot}{tag}_", http_client)
    before = served(url)
    cpu, wall = time.process_time(), time.perf_counter()
    summary = run_eval(RunSpec(model="bench", items=items, params=params,
                               out=root / f"c{concurrency}.jsonl"))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    assert summary.errors == 0 and served(url) - before == count
    return {"fraction": count / wall / (concurrency / LATENCY), "cpu_ms": 1000 * cpu / count}


def _timed_gather(concurrency: int, per_slot: int, client) -> dict[str, float]:
    """Send concurrency * per_slot requests, at most `concurrency` at once, through
    `client()`: an async context manager (opened and closed outside the timing) giving an
    async `send(n)`."""
    import asyncio

    async def go() -> tuple[float, float]:
        gate = asyncio.Semaphore(concurrency)
        async with client() as send:

            async def gated(n: int) -> None:
                async with gate:
                    await send(n)

            cpu, started = time.process_time(), time.perf_counter()
            await asyncio.gather(*(gated(n) for n in range(concurrency * per_slot)))
            return time.perf_counter() - started, time.process_time() - cpu

    wall, cpu = asyncio.run(go())
    count = concurrency * per_slot
    return {"fraction": count / wall / (concurrency / LATENCY), "cpu_ms": 1000 * cpu / count}


def bare_httpx(url: str, concurrency: int, per_slot: int) -> dict[str, float]:
    """Bare httpx clients of 8 connections each, as the adapter uses."""
    import httpx

    @contextlib.asynccontextmanager
    async def client():
        limits = httpx.Limits(max_connections=8, max_keepalive_connections=8)
        clients = [httpx.AsyncClient(limits=limits) for _ in range(-(-concurrency // 8))]

        async def send(n: int) -> None:
            reply = await clients[n % len(clients)].post(f"{url}/v1/chat/completions",
                                                         json={"n": n})
            reply.json()

        yield send
        for one in clients:
            await one.aclose()

    return _timed_gather(concurrency, per_slot, client)


def bare_aiohttp(url: str, concurrency: int, per_slot: int) -> dict[str, float]:
    """One bare aiohttp session of `concurrency` connections, as the adapter uses."""
    import aiohttp

    @contextlib.asynccontextmanager
    async def client():
        async with aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=concurrency)) as session:

            async def send(n: int) -> None:
                async with session.post(f"{url}/v1/chat/completions", json={"n": n}) as reply:
                    await reply.json()

            yield send

    return _timed_gather(concurrency, per_slot, client)


def raw_sockets(url: str, concurrency: int, per_slot: int) -> dict[str, float]:
    """Raw asyncio keep-alive sockets: the server's and the machine's ceiling."""
    import asyncio

    port = int(url.rsplit(":", 1)[1])
    request = (b"POST /v1/chat/completions HTTP/1.1\r\nHost: bench\r\n"
               b"Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")

    async def worker() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        for _ in range(per_slot):
            writer.write(request)
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length"))
            await reader.readexactly(length)
        writer.close()

    async def go() -> float:
        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - started

    cpu = time.process_time()
    wall = asyncio.run(go())
    count = concurrency * per_slot
    return {"fraction": per_slot * LATENCY / wall,
            "cpu_ms": 1000 * (time.process_time() - cpu) / count}


def cached_rerun(root: Path, url: str, count: int) -> dict[str, float]:
    items, params = make_bench(root, count, url, 64, "cache_")
    run_eval(RunSpec(model="bench", items=items, params=params, out=root / "fill.jsonl"))
    before = served(url)
    wall = time.perf_counter()
    summary = run_eval(RunSpec(model="bench", items=items, params=params,
                               out=root / "rerun.jsonl"))
    wall = time.perf_counter() - wall
    return {"items": count, "from_cache": summary.from_cache,
            "requests_sent": served(url) - before, "wall_s": round(wall, 3)}


VARIANTS = ("runner httpx", "runner aiohttp", "bare httpx", "bare aiohttp", "raw sockets")


def run_variant(name: str, root: Path, url: str, concurrency: int, per_slot: int,
                tag: str) -> dict[str, float]:
    """One measurement of variant `name` (see VARIANTS)."""
    kind, client = name.split(" ", 1)
    if kind == "runner":
        return throughput(root, url, concurrency, per_slot, client, tag)
    return {"bare httpx": bare_httpx, "bare aiohttp": bare_aiohttp,
            "raw sockets": raw_sockets}[name](url, concurrency, per_slot)


def table(results: dict[tuple[int, str], list[dict[str, float]]], rounds: int) -> str:
    """Markdown: per concurrency and variant, the median fraction of ideal, its range, the
    median ratio to the raw sockets of the same round, and the median CPU per request."""
    lines = ["| concurrency | variant | fraction of ideal, median (min-max) | ratio to raw "
             "sockets, same round | client CPU per request |", "| --- | --- | --- | --- | --- |"]
    for concurrency in sorted({c for c, _ in results}):
        raw = [r["fraction"] for r in results[(concurrency, "raw sockets")]]
        for name in (v for v in VARIANTS if (concurrency, v) in results):
            runs = results[(concurrency, name)]
            fractions = [r["fraction"] for r in runs]
            ratios = [f / b for f, b in zip(fractions, raw)]
            lines.append(f"| {concurrency} | {name} | {statistics.median(fractions):.3f} "
                         f"({min(fractions):.3f}-{max(fractions):.3f}) | "
                         f"{statistics.median(ratios):.3f} | "
                         f"{statistics.median(r['cpu_ms'] for r in runs):.2f} ms |")
    return "\n".join(lines) + f"\n\n({rounds} alternating rounds)"


def main() -> None:
    parser = argparse.ArgumentParser(description="runner benchmarks")
    parser.add_argument("--rounds", type=int, default=3,
                        help="alternating rounds: each runs every variant once")
    parser.add_argument("--per-slot", type=int, default=12,
                        help="requests per concurrency slot in one throughput run")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[32, 64])
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=VARIANTS,
                        metavar="VARIANT", help=f"of {', '.join(VARIANTS)} (raw sockets "
                                                f"always run: the ratios need them)")
    parser.add_argument("--items", type=int, default=10_000,
                        help="items of the cached re-run (0: skip it)")
    args = parser.parse_args()
    slow, slow_url = start_server(LATENCY)
    fast, fast_url = start_server(0.0)
    results: dict[tuple[int, str], list[dict[str, float]]] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for client in ("httpx", "aiohttp"):  # warm-up: imports, first connections
                throughput(Path(tmp), slow_url, 8, 2, client)
            for round_ in range(args.rounds):
                for concurrency in args.concurrency:
                    chosen = [v for v in VARIANTS if v in args.variants
                              or v == "raw sockets"]
                    shift = round_ % len(chosen)  # rotate the order each round
                    for name in chosen[shift:] + chosen[:shift]:
                        result = run_variant(name, Path(tmp), slow_url, concurrency,
                                             args.per_slot, f"t{round_}")
                        results.setdefault((concurrency, name), []).append(result)
                        print(f"round {round_ + 1}, c={concurrency}, {name}: "
                              f"{result['fraction']:.3f} ({result['cpu_ms']:.2f} ms)",
                              file=sys.stderr, flush=True)
            print(table(results, args.rounds), flush=True)
            if args.items:
                print(cached_rerun(Path(tmp), fast_url, args.items), flush=True)
    finally:
        slow.terminate()
        fast.terminate()


if __name__ == "__main__":
    main()

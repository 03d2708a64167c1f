"""Runner benchmarks: throughput against a fixed-latency server, and a cached re-run.

1. Concurrency 32 and 64, with each HTTP client (`http_client: httpx | aiohttp`), against benchmarks/latency_server.py (200 ms per request, in its
   own process): achieved requests/s as a fraction of the ideal concurrency / latency, and
   the client's CPU time per request (process_time of this process / requests). Each
   item carries a small PNG, so image loading and base64 encoding are part of the cost.
   Baselines in the same run: bare httpx clients and raw asyncio sockets, same requests.
2. Re-run over 10,000 items already in the call cache: requests sent (must be 0) and
   wall time of `run_eval` (items read, images probed, keys computed, cache read,
   predictions written).

    .venv/bin/python benchmarks/runner_throughput.py [--items 10000] [--rounds 8]
"""

from __future__ import annotations

import argparse
import multiprocessing
import socket
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
        "eval": {"cache": str(root / f"{tag}.sqlite")},
        "models": {"bench": {"adapter": "openai", "model": "bench", "base_url": f"{url}/v1",
                             "concurrency": concurrency, "max_retries": 0,
                             "http_client": http_client}}}))
    return items, params


def throughput(root: Path, url: str, concurrency: int, rounds: int,
               http_client: str = "httpx") -> dict[str, float]:
    count = concurrency * rounds
    items, params = make_bench(root, count, url, concurrency,
                               f"{http_client}c{concurrency}r{rounds}_", http_client)
    before = served(url)
    cpu, wall = time.process_time(), time.perf_counter()
    summary = run_eval(RunSpec(model="bench", items=items, params=params,
                               out=root / f"c{concurrency}.jsonl"))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    assert summary.errors == 0 and served(url) - before == count
    ideal = concurrency / LATENCY
    return {"runner": http_client, "concurrency": concurrency, "requests": count,
            "wall_s": round(wall, 3),
            "req_per_s": round(count / wall, 1), "ideal_req_per_s": ideal,
            "fraction_of_ideal": round(count / wall / ideal, 3),
            "client_cpu_ms_per_request": round(1000 * cpu / count, 3)}


def baseline_httpx(url: str, concurrency: int, rounds: int) -> dict[str, float]:
    """The same request count with bare httpx clients (8 connections each, as the adapter
    uses): the HTTP library's own ceiling, without the runner."""
    import asyncio

    import httpx

    async def go() -> float:
        clients = [httpx.AsyncClient(limits=httpx.Limits(max_connections=8,
                                                         max_keepalive_connections=8))
                   for _ in range(-(-concurrency // 8))]
        gate = asyncio.Semaphore(concurrency)

        async def one(n: int) -> None:
            async with gate:
                await clients[n % len(clients)].post(f"{url}/v1/chat/completions",
                                                     json={"n": n})

        started = time.perf_counter()
        await asyncio.gather(*(one(n) for n in range(concurrency * rounds)))
        elapsed = time.perf_counter() - started
        for client in clients:
            await client.aclose()
        return elapsed

    cpu = time.process_time()
    wall = asyncio.run(go())
    count = concurrency * rounds
    return {"baseline": "bare httpx", "concurrency": concurrency,
            "fraction_of_ideal": round(count / wall / (concurrency / LATENCY), 3),
            "client_cpu_ms_per_request": round(1000 * (time.process_time() - cpu) / count, 3)}


def baseline_sockets(url: str, concurrency: int, rounds: int) -> dict[str, float]:
    """Raw asyncio keep-alive sockets: the server's and the machine's ceiling."""
    import asyncio

    port = int(url.rsplit(":", 1)[1])
    request = (b"POST /v1/chat/completions HTTP/1.1\r\nHost: bench\r\n"
               b"Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")

    async def worker() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        for _ in range(rounds):
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

    wall = asyncio.run(go())
    return {"baseline": "raw sockets", "concurrency": concurrency,
            "fraction_of_ideal": round(rounds * LATENCY / wall, 3)}


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


def main() -> None:
    parser = argparse.ArgumentParser(description="runner benchmarks")
    parser.add_argument("--items", type=int, default=10_000, help="items of the cached re-run")
    parser.add_argument("--rounds", type=int, default=8,
                        help="requests per concurrency slot in the throughput runs")
    args = parser.parse_args()
    slow, slow_url = start_server(LATENCY)
    fast, fast_url = start_server(0.0)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for client in ("httpx", "aiohttp"):  # warm-up: imports, first connections
                throughput(Path(tmp), slow_url, 8, 2, client)
            for concurrency in (32, 64):
                for client in ("httpx", "aiohttp"):
                    print(throughput(Path(tmp), slow_url, concurrency, args.rounds, client),
                          flush=True)
                print(baseline_httpx(slow_url, concurrency, args.rounds), flush=True)
                print(baseline_sockets(slow_url, concurrency, args.rounds), flush=True)
            print(cached_rerun(Path(tmp), fast_url, args.items), flush=True)
    finally:
        slow.terminate()
        fast.terminate()


if __name__ == "__main__":
    main()

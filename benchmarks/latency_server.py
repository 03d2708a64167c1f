"""A minimal OpenAI-compatible HTTP/1.1 server with a fixed latency, for runner benchmarks.

Raw asyncio (no framework, large backlog, keep-alive), so the server is never the
bottleneck: every POST is answered after exactly `latency` seconds with a fixed
chat-completion body; `GET /count` returns how many POSTs it has served.

    python benchmarks/latency_server.py --port 8123 --latency 0.2
"""

from __future__ import annotations

import argparse
import asyncio
import json

BODY = json.dumps({"id": "bench", "object": "chat.completion", "model": "bench",
                   "choices": [{"index": 0, "finish_reason": "stop",
                                "message": {"role": "assistant",
                                            "content": "The answer is B."}}],
                   "usage": {"prompt_tokens": 1000, "completion_tokens": 10}}).encode()


def _reply(status: str, body: bytes) -> bytes:
    head = (f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: keep-alive\r\n\r\n")
    return head.encode() + body


async def serve(port: int, latency: float, ready: "object | None" = None) -> None:
    """Serve until cancelled; `ready` (a multiprocessing Event) is set once listening."""
    served = 0

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal served
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path = lines[0].split(" ")[:2]
                length = 0
                for line in lines[1:]:
                    if line.lower().startswith("content-length:"):
                        length = int(line.split(":", 1)[1])
                if length:
                    await reader.readexactly(length)
                if method == "GET" and path == "/count":
                    writer.write(_reply("200 OK", str(served).encode()))
                else:
                    await asyncio.sleep(latency)
                    served += 1
                    writer.write(_reply("200 OK", BODY))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", port, backlog=4096)
    if ready is not None:
        ready.set()
    async with server:
        await server.serve_forever()


def run_in_process(port: int, latency: float, ready: object) -> None:
    """multiprocessing target."""
    asyncio.run(serve(port, latency, ready))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8123)
    parser.add_argument("--latency", type=float, default=0.2)
    args = parser.parse_args()
    asyncio.run(serve(args.port, args.latency))

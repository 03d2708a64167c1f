"""The HTTP clients an adapter can POST through (`http_client` in the model's settings).

`httpx` (default) and `aiohttp` behave the same to the adapter: `post` returns (status,
headers, body) or raises RetryableError for a timeout or a connection-level failure.
aiohttp spends about a fifth of httpx's client CPU per call, which matters when one
process drives 64+ concurrent calls (docs/BENCHMARKS.md, `## Runner`).
"""

from __future__ import annotations

from typing import Any, Mapping, Protocol

from bench_kit.models.retry import RetryableError

# httpcore's pool scans every connection on each request (cost grows with pool size), so
# high concurrency is spread over several small httpx clients instead of one large pool.
CONNECTIONS_PER_CLIENT = 8


class Transport(Protocol):
    """POST JSON, return (status, lower-cased headers, body bytes)."""

    async def post(self, url: str, body: dict[str, Any]) -> tuple[int, Mapping[str, str],
                                                                   bytes]: ...

    async def aclose(self) -> None: ...


class HttpxTransport:
    """Several small httpx.AsyncClient pools; each call goes to the least busy one."""

    def __init__(self, headers: dict[str, str], concurrency: int, timeout_s: float) -> None:
        self.headers, self.concurrency, self.timeout_s = headers, concurrency, timeout_s
        self._clients: list[Any] = []
        self._load: list[int] = []

    def _open(self) -> None:
        import httpx

        size = CONNECTIONS_PER_CLIENT
        count = -(-self.concurrency // size)
        limits = httpx.Limits(max_connections=size, max_keepalive_connections=size)
        tls = httpx.create_ssl_context()  # one CA bundle load, shared by every client
        self._clients = [httpx.AsyncClient(headers=self.headers, limits=limits, verify=tls,
                                           timeout=httpx.Timeout(self.timeout_s))
                         for _ in range(count)]
        self._load = [0] * count

    async def post(self, url: str, body: dict[str, Any]) -> tuple[int, Mapping[str, str],
                                                                   bytes]:
        """One POST; RetryableError on timeouts and connection errors."""
        import httpx

        if not self._clients:
            self._open()
        # The least busy client never has a full pool while calls stay within concurrency.
        index = min(range(len(self._clients)), key=self._load.__getitem__)
        self._load[index] += 1
        try:
            reply = await self._clients[index].post(url, json=body)
        except httpx.TimeoutException:
            raise RetryableError(f"timeout after {self.timeout_s:g}s") from None
        except httpx.RequestError as exc:  # connection, protocol, decoding errors
            raise RetryableError(f"connection error ({type(exc).__name__})") from None
        finally:
            self._load[index] -= 1
        return reply.status_code, reply.headers, reply.content

    async def aclose(self) -> None:
        """Close the pools."""
        clients, self._clients, self._load = self._clients, [], []
        for client in clients:
            await client.aclose()


class AiohttpTransport:
    """One aiohttp.ClientSession whose connector holds `concurrency` connections."""

    def __init__(self, headers: dict[str, str], concurrency: int, timeout_s: float) -> None:
        self.headers, self.concurrency, self.timeout_s = headers, concurrency, timeout_s
        self._session: Any = None

    async def post(self, url: str, body: dict[str, Any]) -> tuple[int, Mapping[str, str],
                                                                   bytes]:
        """One POST; RetryableError on timeouts and connection errors."""
        import asyncio
        import ssl

        import aiohttp

        if self._session is None:
            connector = aiohttp.TCPConnector(limit=self.concurrency,
                                             ssl=ssl.create_default_context())
            self._session = aiohttp.ClientSession(
                connector=connector, headers=self.headers,
                timeout=aiohttp.ClientTimeout(total=self.timeout_s))
        try:
            async with self._session.post(url, json=body) as reply:
                return reply.status, reply.headers, await reply.read()
        except asyncio.TimeoutError:
            raise RetryableError(f"timeout after {self.timeout_s:g}s") from None
        except aiohttp.ClientError as exc:
            raise RetryableError(f"connection error ({type(exc).__name__})") from None

    async def aclose(self) -> None:
        """Close the session."""
        session, self._session = self._session, None
        if session is not None:
            await session.close()


TRANSPORTS = {"httpx": HttpxTransport, "aiohttp": AiohttpTransport}

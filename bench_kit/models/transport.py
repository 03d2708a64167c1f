"""The HTTP clients an adapter can POST through (`http_client` in the model's settings).

`aiohttp` (default) and `httpx` behave the same to the adapter: `post` returns (status,
headers, body) or raises RetryableError for a timeout or a connection-level failure.
aiohttp is the default because it spends about a fifth of httpx's client CPU per call:
against a 200 ms server at concurrency 64 on a quiet machine the runner reached 0.90-0.92
of the ideal throughput with aiohttp and 0.86-0.89 with httpx (docs/BENCHMARKS.md,
`## Runner`).

Both clients bound and read a call the same way, whatever the server does:
- `timeout_s` is a deadline for the whole attempt (connect, send, every byte of the
  body), not a per-read timeout: a server that drips one byte a second cannot hold a call.
  It is the one clock (`asyncio.timeout` around the attempt): the clients' own timeouts
  are switched off (`timeout=None`, `aiohttp.ClientTimeout()`) rather than left at their
  defaults (httpx's 5 s per read, aiohttp's 300 s in all);
- redirects are never followed (the request carries the prompt and images: a 3xx is
  returned to the adapter, which reports it as an error naming the location);
- the body is read in chunks and abandoned past `max_response_bytes` (`ResponseTooLarge`),
  so a 50 MB reply never sits in memory whole. The cap counts decompressed bytes, and
  a compressed body is inflated at most `CHUNK_BYTES` at a time: both clients hand over
  the raw bytes, `read_decoded` inflates them, and only gzip and deflate are asked for,
  so a gzip bomb that inflates to gigabytes costs no more memory than the cap per reply.
  Repeated Content-Encoding headers are joined on both clients (so `gzip` twice is one
  clear "not supported" error on both). A compressed body must end its stream: a body cut
  short (one byte, two, half) is a decoding error, the same for gzip and deflate, and
  retried like a corrupt one (`connection error (DecodingError)`, as httpx classes its own
  decoding errors: a proxy or a cut connection is the usual cause); an empty body is
  empty. The body is read to its end, so its connection goes back to the pool: a gzip
  body of several members is read whole (a new decompressor per member, the cap on their
  sum); bytes after a deflate stream, or after a gzip member and not a gzip member
  themselves (zero padding too), are the same decoding error;
- both use one TLS context, offering only HTTP/1.1 by ALPN (what both speak), so neither
  client's handshake depends on the other having connected (httpcore sets the ALPN of the
  context it is given at every connect). An unreadable `$SSL_CERT_FILE`, or a
  `$SSL_CERT_DIR` that is no folder, is one ConfigError, which stops the run, not a
  failed row per call;
- proxies: `HTTP_PROXY`, `HTTPS_PROXY`, then `ALL_PROXY`, and `NO_PROXY`, as httpx reads them;
  only http:// and https:// proxies: any other scheme (socks5://) is one ConfigError naming
  the variable, at the first call, on both clients (whatever `NO_PROXY` says).
"""

from __future__ import annotations

import asyncio
import functools
import zlib
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Mapping, Protocol

from bench_kit.errors import ConfigError, ModelCallError
from bench_kit.models.neterrors import connection_failure
from bench_kit.models.retry import RetryableError

if TYPE_CHECKING:
    import ssl

DEFAULT_HTTP_CLIENT = "aiohttp"
# httpcore's pool scans every connection on each request (cost grows with pool size), so
# high concurrency is spread over several small httpx clients instead of one large pool.
CONNECTIONS_PER_CLIENT = 8
DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024
CHUNK_BYTES = 64 * 1024


class ResponseTooLarge(ModelCallError):
    """The reply body passed `max_response_bytes` (not retried: the server would repeat it)."""


async def read_capped(chunks: AsyncIterator[bytes], limit: int) -> bytes:
    """Join `chunks` into one body; raise ResponseTooLarge as soon as it passes `limit`."""
    parts: list[bytes] = []
    size = 0
    async for chunk in chunks:
        size += len(chunk)
        if size > limit:
            raise ResponseTooLarge(f"response body larger than max_response_bytes ({limit:,} "
                                   f"bytes); not read further")
        parts.append(chunk)
    return b"".join(parts)


# What both clients ask for: the encodings `read_decoded` inflates in bounded steps.
ACCEPT_ENCODING = "gzip, deflate"


def _zlib_header(data: bytes) -> bool:
    """Whether `data` starts with a zlib header (RFC 1950: method 8, a window of at most
    32 KiB, check bits)."""
    return data[0] & 0x0F == 8 and data[0] >> 4 <= 7 and ((data[0] << 8) | data[1]) % 31 == 0


def _wbits(gzip: bool, head: bytes) -> int:
    """zlib's wbits for a body: gzip's wrapper, else deflate's kind told by its first two
    bytes (zlib-wrapped by the standard, raw from some servers)."""
    if gzip:
        return 16 + zlib.MAX_WBITS
    return zlib.MAX_WBITS if _zlib_header(head) else -zlib.MAX_WBITS


async def _inflate(chunks: AsyncIterator[bytes], gzip: bool) -> AsyncIterator[bytes]:
    """Inflate a gzip or deflate body at most CHUNK_BYTES of output at a time, reading it to
    its end (so the connection can be reused). gzip may hold several members, each inflated
    by a new decompressor (RFC 1952); zlib.error for bytes after a deflate stream, bytes
    after a gzip member that are not a gzip member, or a body that ends before its stream
    does (an empty body is empty)."""
    inflater = None
    head = b""  # the body's first bytes, until the two that tell deflate's kind have come
    async for data in chunks:
        if inflater is None:
            head += data
            if len(head) < 2:
                continue
            wbits = _wbits(gzip, head)
            inflater, data = zlib.decompressobj(wbits), head
        while data:
            if inflater.eof:
                if not gzip:
                    raise zlib.error("bytes after the end of the deflate stream")
                inflater = zlib.decompressobj(wbits)  # the next gzip member
            yield inflater.decompress(data, CHUNK_BYTES)
            # the input left: past the output bound (tail), or after the stream's end
            data = inflater.unconsumed_tail or inflater.unused_data
    if inflater is not None:
        yield inflater.flush()
    if head and (inflater is None or not inflater.eof):
        raise zlib.error("compressed body ends before its stream does")


async def read_decoded(chunks: AsyncIterator[bytes], encoding: str, limit: int) -> bytes:
    """The body of raw `chunks` sent with Content-Encoding `encoding`, decompressed in
    bounded steps; ResponseTooLarge as soon as the decompressed body passes `limit`.

    Raises:
        RetryableError: the compressed data is corrupt (as httpx's own decoder would).
        ModelCallError: an encoding this client did not ask for.
    """
    codings = [c.strip().lower() for c in encoding.split(",") if c.strip()]
    codings = [c for c in codings if c != "identity"]
    if not codings:
        return await read_capped(chunks, limit)
    if len(codings) > 1 or codings[0] not in ("gzip", "x-gzip", "deflate"):
        raise ModelCallError(f"response Content-Encoding '{encoding}' not supported "
                             f"(asked for {ACCEPT_ENCODING})")
    try:
        return await read_capped(_inflate(chunks, codings[0] != "deflate"), limit)
    except zlib.error as exc:
        raise RetryableError("connection error (DecodingError)") from exc


@functools.cache
def tls_context() -> "ssl.SSLContext":
    """The TLS settings of both clients, made once per process (loading a CA bundle takes
    ~40 ms, a cost each run would otherwise pay again before its first call; an SSLContext
    may be shared by any number of connections). The certificates trusted are httpx's rule
    (what `httpx.create_ssl_context()` builds): $SSL_CERT_FILE alone when set, else
    $SSL_CERT_DIR alone when set, else certifi's bundle, never the system store. ALPN
    offers HTTP/1.1 alone, what httpcore sets on the context at every connect: set here,
    that write changes nothing, so aiohttp's handshake is the same whether or not httpx
    connected first.

    Raises:
        ConfigError: $SSL_CERT_FILE names no readable CA bundle, or $SSL_CERT_DIR no
            folder (it stops the run).
    """
    import os
    import ssl

    cafile = os.environ.get("SSL_CERT_FILE")
    if cafile:
        try:
            context = ssl.create_default_context(cafile=cafile)
        except OSError as exc:  # ssl.SSLError too: a file that holds no certificate
            raise ConfigError(f"SSL_CERT_FILE={cafile}: not a readable CA bundle "
                              f"({exc.strerror or exc})") from exc
    elif os.environ.get("SSL_CERT_DIR"):
        capath = os.environ["SSL_CERT_DIR"]
        if not os.path.isdir(capath):  # OpenSSL would read nothing from it and say nothing
            raise ConfigError(f"SSL_CERT_DIR={capath}: not a readable CA folder "
                              f"(not a directory)")
        context = ssl.create_default_context(capath=capath)
    else:
        import certifi

        context = ssl.create_default_context(cafile=certifi.where())
    context.set_alpn_protocols(["http/1.1"])
    return context


PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy")


def environment_proxies() -> dict[str, str]:
    """The proxies the environment names, by the scheme they serve ("http", "https", "all"),
    read as httpx reads them: `http_proxy` before `HTTP_PROXY` (urllib's rule), a value
    without a scheme is an http:// proxy.

    Raises:
        ConfigError: a proxy URL whose scheme is not http or https (a SOCKS proxy, say):
            neither client would reach it (it stops the run, naming the variable).
    """
    import os
    import urllib.parse

    proxies = {}
    for lower in PROXY_VARIABLES:
        # urllib's rule: a set lower-case name wins, even empty (which means no proxy)
        name = lower if lower in os.environ else lower.upper()
        if not os.environ.get(name):
            continue
        url = os.environ[name] if "://" in os.environ[name] else f"http://{os.environ[name]}"
        scheme = urllib.parse.urlsplit(url).scheme  # lower-cased
        if scheme not in ("http", "https"):
            raise ConfigError(f"{name}={os.environ[name]}: proxy scheme '{scheme}' not "
                              f"supported (only http:// and https:// proxies)")
        proxies[lower.removesuffix("_proxy")] = url
    return proxies


class Transport(Protocol):
    """POST JSON, return (status, lower-cased headers, body bytes)."""

    async def post(self, url: str, body: dict[str, Any]) -> tuple[int, Mapping[str, str],
                                                                   bytes]: ...

    async def aclose(self) -> None: ...


class _Client:
    """What both transports share: the request headers, the deadline, the body cap."""

    def __init__(self, headers: dict[str, str], concurrency: int, timeout_s: float,
                 max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES) -> None:
        # the caller's headers and the encodings `read_decoded` inflates, whatever more the
        # client library could decode (httpx asks for br and zstd when it can)
        self.headers = {**headers, "accept-encoding": ACCEPT_ENCODING}
        self.concurrency, self.timeout_s = concurrency, timeout_s
        self.max_response_bytes = max_response_bytes
        self._forget()

    def _forget(self) -> None:
        """Drop the client library's state (none until the first call)."""

    async def _body(self, chunks: AsyncIterator[bytes], encodings: list[str]) -> bytes:
        """The reply's body from its raw `chunks`, inflated and capped; `encodings`: every
        Content-Encoding header of the reply, repeated ones joined as one list."""
        return await read_decoded(chunks, ", ".join(encodings), self.max_response_bytes)

    def _timed_out(self) -> RetryableError:
        return RetryableError(f"timeout after {self.timeout_s:g}s")


class HttpxTransport(_Client):
    """Several small httpx.AsyncClient pools; each call goes to the least busy one."""

    def _forget(self) -> None:
        self._clients: list[Any] = []  # opened by the first call
        self._load: list[int] = []     # calls in flight per client

    def _open(self) -> None:
        import httpx

        environment_proxies()  # a proxy httpx cannot use stops the run here, not per row
        count = -(-self.concurrency // CONNECTIONS_PER_CLIENT)
        # idle connections kept are at most the pool's (httpx's default cap is 20); redirects
        # are not followed (httpx's default); `timeout=None`: the deadline in `post` is the one
        limits = httpx.Limits(max_connections=CONNECTIONS_PER_CLIENT)
        self._clients = [httpx.AsyncClient(headers=self.headers, limits=limits,
                                           verify=tls_context(), timeout=None)
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
        client = self._clients[index]
        try:
            async with asyncio.timeout(self.timeout_s):
                async with client.stream("POST", url, json=body) as reply:
                    content = await self._body(reply.aiter_raw(CHUNK_BYTES),
                                               reply.headers.get_list("content-encoding"))
                    return reply.status_code, reply.headers, content
        except (httpx.TimeoutException, TimeoutError) as exc:
            raise self._timed_out() from exc
        except httpx.RequestError as exc:  # connection, protocol, decoding errors
            raise connection_failure(exc) from exc
        finally:
            self._load[index] -= 1

    async def aclose(self) -> None:
        """Close the pools."""
        clients = self._clients
        self._forget()
        for client in clients:
            await client.aclose()


class AiohttpTransport(_Client):
    """One aiohttp.ClientSession whose connector holds `concurrency` connections."""

    def _forget(self) -> None:
        self._session: Any = None
        self._proxies: dict[str, str | None] = {}

    def _proxy(self, url: str) -> str | None:
        """The proxy the environment names for `url` (`HTTP(S)_PROXY`, else `ALL_PROXY`,
        unless `NO_PROXY` bypasses it: httpx's rule), read once per URL, as httpx reads it
        once per client: aiohttp's own `trust_env` looks it up again on every request,
        which doubles its CPU per call."""
        if url not in self._proxies:
            import urllib.parse
            import urllib.request

            parts = urllib.parse.urlsplit(url)
            proxies = environment_proxies()
            # in urllib.request since Python 3.x, absent from typeshed's stubs
            bypass_rule = vars(urllib.request)["proxy_bypass_environment"]
            bypass = bypass_rule(parts.netloc)  # it reads NO_PROXY itself
            self._proxies[url] = None if bypass else \
                proxies.get(parts.scheme) or proxies.get("all")
        return self._proxies[url]

    async def post(self, url: str, body: dict[str, Any]) -> tuple[int, Mapping[str, str],
                                                                   bytes]:
        """One POST; RetryableError on timeouts and connection errors."""
        import aiohttp

        if self._session is None:
            connector = aiohttp.TCPConnector(limit=self.concurrency, ssl=tls_context())
            # ClientTimeout(): no timeout of aiohttp's own (the deadline below is the one)
            self._session = aiohttp.ClientSession(
                connector=connector, headers=self.headers, timeout=aiohttp.ClientTimeout(),
                auto_decompress=False)  # read_decoded inflates in bounded steps
        try:
            async with asyncio.timeout(self.timeout_s):
                async with self._session.post(url, json=body, allow_redirects=False,
                                              proxy=self._proxy(url)) as reply:
                    content = await self._body(reply.content.iter_chunked(CHUNK_BYTES),
                                               reply.headers.getall("content-encoding", []))
                    return reply.status, reply.headers, content
        except (asyncio.TimeoutError, TimeoutError) as exc:
            raise self._timed_out() from exc
        except aiohttp.ClientError as exc:
            raise connection_failure(exc) from exc

    async def aclose(self) -> None:
        """Close the session."""
        session = self._session
        self._forget()
        if session is not None:
            await session.close()


TRANSPORTS: dict[str, Callable[..., Transport]] = {"httpx": HttpxTransport, "aiohttp": AiohttpTransport}

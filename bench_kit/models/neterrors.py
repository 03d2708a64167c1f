"""Which connection failures a retry can cure.

A timeout, a reset or a refused connection can pass (the server restarts, the network
recovers): the call is retried with backoff. These cannot, so the call fails at once with
the reason (retrying would only repeat it, `max_retries` times, with waits in between):

- the server's TLS certificate is not trusted (self-signed, expired, wrong host name), or
  the server does not speak TLS at all (`https://` to a plain-HTTP port);
- the host name does not exist (DNS answers "no such name"; a temporary DNS failure,
  EAI_AGAIN, is retried);
- the connection is refused by policy: a proxy answers 403/407 to the tunnel, or the
  operating system forbids the connection (EACCES/EPERM from a firewall or sandbox);
- the URL itself is unusable (no scheme, invalid characters).

The original exception stays attached (`raise ... from exc`), so `bench-kit --debug` shows
the library's own traceback below the one-line reason.
"""

from __future__ import annotations

import errno
import logging
import socket
import ssl
from typing import Iterator

from bench_kit.errors import ModelCallError
from bench_kit.models.retry import RetryableError

log = logging.getLogger(__name__)

# getaddrinfo answers that say the name does not exist (not "try again later")
_NO_SUCH_NAME = {getattr(socket, name) for name in
                 ("EAI_NONAME", "EAI_NODATA", "EAI_ADDRFAMILY", "EAI_SERVICE")
                 if hasattr(socket, name)}
_FORBIDDEN = {errno.EACCES, errno.EPERM}
_NOT_TLS = ("WRONG_VERSION_NUMBER", "UNSUPPORTED_PROTOCOL", "HTTP_REQUEST")


class PermanentConnectionError(ModelCallError):
    """A connection failure that a retry cannot cure (see the module docstring)."""


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """`exc`, its causes and contexts, and the OS/TLS errors aiohttp keeps as attributes."""
    seen: set[int] = set()
    todo = [exc]
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        for attr in ("__cause__", "__context__", "os_error", "certificate_error"):
            found = getattr(current, attr, None)
            if isinstance(found, BaseException):
                todo.append(found)


def permanent_reason(exc: BaseException) -> str | None:
    """Why `exc` cannot succeed on retry, or None when it may.

    >>> permanent_reason(socket.gaierror(socket.EAI_NONAME, "Name or service not known"))
    'host name not found (DNS: Name or service not known)'
    >>> permanent_reason(socket.gaierror(socket.EAI_AGAIN, "Temporary failure")) is None
    True
    """
    for error in _chain(exc):
        if isinstance(error, ssl.SSLCertVerificationError):
            # aiohttp's wrapper subclasses it without the details: an inner error has them
            details = [getattr(e, "verify_message", None) for e in _chain(exc)]
            detail = next((d for d in details if d), "certificate verify failed")
            return f"TLS certificate not trusted ({detail})"
        if isinstance(error, ssl.SSLError) and any(
                tag in str(error.reason or error) for tag in _NOT_TLS):
            return f"TLS handshake failed: the server does not speak TLS ({error.reason})"
        if isinstance(error, socket.gaierror) and error.errno in _NO_SUCH_NAME:
            return f"host name not found (DNS: {error.strerror})"
        if isinstance(error, OSError) and error.errno in _FORBIDDEN:
            return f"connection refused by policy ({error.strerror})"
        name = type(error).__name__
        if name == "ProxyError" or (name == "ClientHttpProxyError"
                                    and getattr(error, "status", None) in (403, 407)):
            return f"connection refused by the proxy ({error})"
        if name in ("UnsupportedProtocol", "InvalidURL", "InvalidUrlClientError",
                    "NonHttpUrlClientError"):
            return f"unusable URL ({error})"
    return None


def connection_failure(exc: BaseException) -> Exception:
    """The error to raise for a transport exception: PermanentConnectionError (not
    retried) or RetryableError."""
    reason = permanent_reason(exc)
    if reason is not None:
        log.info("not retried: %s", reason)
        return PermanentConnectionError(f"{reason}; not retried")
    return RetryableError(f"connection error ({type(exc).__name__})")

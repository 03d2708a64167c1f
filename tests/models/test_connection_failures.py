"""Connection failures a retry cannot cure fail at once (bench_kit.models.neterrors): a
TLS server on 127.0.0.1 with a self-signed certificate counts the connections a verifying
client makes; a server that hangs up counts the retries a curable failure gets."""

from __future__ import annotations

import datetime
import errno
import socket
import ssl
import threading
from pathlib import Path

import pytest
from openai_server import complete_once, make_adapter

from bench_kit.errors import ModelCallError
from bench_kit.models.neterrors import PermanentConnectionError, permanent_reason

RETRIES = 3


def _self_signed(folder: Path) -> tuple[Path, Path]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


class CountingServer:
    """Accepts TCP connections on 127.0.0.1 and counts them; `tls` = a TLS handshake with
    the given certificate, else the connection is closed at once (a hang-up)."""

    def __init__(self, tls: ssl.SSLContext | None) -> None:
        self.tls, self.connections = tls, 0
        self._sock = socket.create_server(("127.0.0.1", 0))
        self._sock.settimeout(0.05)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self._sock.getsockname()[1]}/v1"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except (TimeoutError, OSError):
                continue
            self.connections += 1
            try:
                if self.tls is not None:
                    conn.settimeout(2)
                    with self.tls.wrap_socket(conn, server_side=True):
                        pass
            except (ssl.SSLError, OSError):
                pass  # the client refused the certificate
            finally:
                conn.close()

    def __enter__(self) -> CountingServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sock.close()


@pytest.fixture(scope="module")
def tls_context(tmp_path_factory) -> ssl.SSLContext:
    cert, key = _self_signed(tmp_path_factory.mktemp("tls"))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context


def _failed_call(tls: ssl.SSLContext | None, client: str
                 ) -> tuple[ModelCallError, int, list[float]]:
    """One model call to a CountingServer: (its error, connections made, backoff sleeps)."""
    sleeps: list[float] = []
    with CountingServer(tls) as server:
        adapter = make_adapter("openai", server.url, sleeps=sleeps, max_retries=RETRIES,
                               http_client=client)
        with pytest.raises(ModelCallError) as raised:
            complete_once(adapter)
    return raised.value, server.connections, sleeps


@pytest.mark.parametrize("client", ["httpx", "aiohttp"])
def test_an_untrusted_certificate_is_not_retried(tls_context, client: str) -> None:
    error, connections, sleeps = _failed_call(tls_context, client)
    assert isinstance(error, PermanentConnectionError)
    assert connections == 1 and sleeps == []
    message = str(error)
    assert "TLS certificate not trusted" in message and "not retried" in message
    assert "\n" not in message
    # the cause is kept: the verification error is in the chain
    chain: list[BaseException] = []
    cause: BaseException | None = error
    while cause is not None:
        chain.append(cause)
        cause = cause.__cause__ or cause.__context__
    assert any(isinstance(e, ssl.SSLCertVerificationError) for e in chain), chain


@pytest.mark.parametrize("client", ["httpx", "aiohttp"])
def test_a_hang_up_is_retried(client: str, caplog) -> None:
    """The control: a curable failure on the same server type is retried every time (and
    each retry is a log line of bench_kit.models.retry)."""
    caplog.set_level("INFO", logger="bench_kit.models.retry")
    error, connections, sleeps = _failed_call(None, client)
    assert not isinstance(error, PermanentConnectionError)
    assert connections == RETRIES + 1 and len(sleeps) == RETRIES
    assert f"gave up after {RETRIES + 1} attempts" in str(error)
    retries = [r.getMessage() for r in caplog.records if r.name == "bench_kit.models.retry"]
    assert [m.split(" in ")[0] for m in retries] == [f"retry {n}/{RETRIES}"
                                                   for n in range(1, RETRIES + 1)]


@pytest.mark.parametrize("error, permanent", [
    (socket.gaierror(socket.EAI_NONAME, "Name or service not known"), True),
    (socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution"), False),
    (PermissionError(errno.EACCES, "Permission denied"), True),
    (OSError(errno.EPERM, "Operation not permitted"), True),
    (ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused"), False),
    (ConnectionResetError(errno.ECONNRESET, "Connection reset by peer"), False),
    (TimeoutError("timed out"), False),
])
def test_permanent_reason_by_cause(error: BaseException, permanent: bool) -> None:
    wrapper = RuntimeError("connect failed")
    wrapper.__cause__ = error  # as the HTTP libraries wrap the OS error
    assert (permanent_reason(wrapper) is not None) is permanent

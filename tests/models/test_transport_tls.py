"""Which certificates the transports trust (bench_kit.models.transport.tls_context): httpx's
rule for both clients, $SSL_CERT_FILE alone, else $SSL_CERT_DIR alone, else certifi's
bundle. Two certificate authorities made here (A and B, each signing a certificate for
127.0.0.1) and an HTTPS server on 127.0.0.1 tell the rules apart by a real handshake: a
context that also read the other source, or OpenSSL's default paths, or the system store,
would trust a server the rule does not (or miss one it does)."""

from __future__ import annotations

import datetime
import ipaddress
import shutil
import ssl
import subprocess
from pathlib import Path
from typing import Any

import pytest
from test_transport_boundaries import CLIENTS, Server, _post_once

from bench_kit.errors import ConfigError, ModelCallError
from bench_kit.models import transport as tr
from bench_kit.models.neterrors import PermanentConnectionError

MADE_ONCE = tr.tls_context   # the cached function (one test replaces the module's name)


def _write(path: Path, obj: Any) -> Path:
    from cryptography.hazmat.primitives import serialization

    path.write_bytes(obj.public_bytes(serialization.Encoding.PEM))
    return path


class Authority:
    """A certificate authority (its certificate in `ca`) and a server certificate it signed
    for 127.0.0.1 (`server`: an SSL context for the test server)."""

    def __init__(self, folder: Path, name: str) -> None:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

        now = datetime.datetime.now(datetime.timezone.utc)
        ca_key, leaf_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(
            ec.SECP256R1())
        ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"test authority {name}")])

        def builder(subject: Any, key: Any) -> Any:
            return (x509.CertificateBuilder().subject_name(subject).issuer_name(ca_name)
                    .public_key(key.public_key()).serial_number(x509.random_serial_number())
                    .not_valid_before(now - datetime.timedelta(days=1))
                    .not_valid_after(now + datetime.timedelta(days=1)))
        ca = (builder(ca_name, ca_key)
              .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
              .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False,
                                           False), critical=True)
              .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()),
                             critical=False)
              .sign(ca_key, hashes.SHA256()))
        leaf = (builder(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]),
                        leaf_key)
                .add_extension(x509.SubjectAlternativeName(
                    [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
                .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]),
                               critical=False)
                .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
                    ca_key.public_key()), critical=False)
                .sign(ca_key, hashes.SHA256()))
        self.ca = _write(folder / f"ca-{name}.pem", ca)
        leaf_path = _write(folder / f"server-{name}.pem", leaf)
        key_path = folder / f"server-{name}.key"
        key_path.write_bytes(leaf_key.private_bytes(serialization.Encoding.PEM,
                                                    serialization.PrivateFormat.PKCS8,
                                                    serialization.NoEncryption()))
        self.chain = (leaf_path, key_path)
        self.server = self.server_context()

    def server_context(self, alpn: list[str] | None = None) -> ssl.SSLContext:
        """A fresh server context with the certificate this authority signed."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*self.chain)
        if alpn:
            context.set_alpn_protocols(alpn)
        return context

    def hashed_folder(self, folder: Path) -> Path:
        """A CA folder as OpenSSL reads one (`capath`): the certificate named by the hash of
        its subject, which `openssl x509 -hash` computes (not the code under test)."""
        openssl = shutil.which("openssl")
        if openssl is None:
            pytest.skip("the openssl command is needed to name a CA folder's files")
        digest = subprocess.run([openssl, "x509", "-hash", "-noout", "-in", str(self.ca)],
                                capture_output=True, text=True, check=True).stdout.strip()
        folder.mkdir()
        shutil.copy(self.ca, folder / f"{digest}.0")
        return folder


@pytest.fixture(scope="module")
def authorities(tmp_path_factory) -> tuple[Authority, Authority]:
    folder = tmp_path_factory.mktemp("authorities")
    return Authority(folder, "a"), Authority(folder, "b")


@pytest.fixture(autouse=True)
def _fresh_context(monkeypatch):
    """No certificate variable set, and no context kept from another test (the context is
    made once per process: each case here sets its own environment)."""
    for name in ("SSL_CERT_FILE", "SSL_CERT_DIR", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
                 "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    MADE_ONCE.cache_clear()
    yield
    MADE_ONCE.cache_clear()


def _trusted(client: str, authority: Authority) -> bool:
    """Whether `client` completes a POST to an HTTPS server whose certificate `authority`
    signed (False: refused as untrusted, at once)."""
    try:
        return _post_once(client, Server(tls=authority.server))[0] == 200
    except PermanentConnectionError as exc:
        assert str(exc).startswith("TLS certificate not trusted")
        return False


@pytest.mark.parametrize("client", CLIENTS)
def test_ssl_cert_file_alone_is_trusted(client, authorities, monkeypatch, tmp_path):
    a, b = authorities
    # B in the folder: read when no file is named, so not here (OpenSSL's own default
    # paths, which read both variables, would trust B too)
    monkeypatch.setenv("SSL_CERT_FILE", str(a.ca))
    monkeypatch.setenv("SSL_CERT_DIR", str(b.hashed_folder(tmp_path / "certs")))
    assert (_trusted(client, a), _trusted(client, b)) == (True, False)


@pytest.mark.parametrize("client", CLIENTS)
def test_ssl_cert_dir_is_trusted_without_a_file(client, authorities, monkeypatch, tmp_path):
    a, b = authorities
    monkeypatch.setenv("SSL_CERT_DIR", str(a.hashed_folder(tmp_path / "certs")))
    assert (_trusted(client, a), _trusted(client, b)) == (True, False)


@pytest.mark.parametrize("client", CLIENTS)
def test_certifi_alone_is_trusted_without_either(client, authorities, monkeypatch):
    # certifi's bundle stood in for by A's certificate: the machine's own store (which a
    # default context reads) trusts neither A nor B, certifi's bundle here trusts A
    import certifi

    a, b = authorities
    monkeypatch.setattr(certifi, "where", lambda: str(a.ca))
    assert (_trusted(client, a), _trusted(client, b)) == (True, False)


@pytest.mark.parametrize("client", CLIENTS)
def test_both_clients_take_their_trust_from_tls_context(client, authorities, monkeypatch):
    # the one context: with tls_context trusting B, B's server is trusted, though the
    # environment's rule (certifi's real bundle) would refuse it, as a client building
    # its own context would
    a, b = authorities
    monkeypatch.setattr(tr, "tls_context", lambda: ssl.create_default_context(cafile=b.ca))
    assert (_trusted(client, a), _trusted(client, b)) == (False, True)


def test_the_context_is_made_once():
    assert tr.tls_context() is tr.tls_context()


class AlpnServer(Server):
    """An HTTPS Server that records the protocol each handshake agreed by ALPN (None: the
    client offered none)."""

    def __init__(self, tls: ssl.SSLContext) -> None:
        super().__init__(tls=tls)
        self.alpn: list[str | None] = []

    async def _handle(self, reader: Any, writer: Any) -> None:
        self.alpn.append(writer.get_extra_info("ssl_object").selected_alpn_protocol())
        await super()._handle(reader, writer)


def test_an_aiohttp_handshake_is_the_same_whether_or_not_httpx_connected_first(
        authorities, monkeypatch):
    # the server offers h2 and HTTP/1.1; both clients speak HTTP/1.1 only, so each
    # handshake agrees on "http/1.1". httpcore sets the ALPN of the context it is given at
    # every connect: on a shared context that did not set it, aiohttp offered nothing
    # before httpx connected (None) and "http/1.1" after
    a, _ = authorities
    monkeypatch.setenv("SSL_CERT_FILE", str(a.ca))
    server = AlpnServer(a.server_context(alpn=["h2", "http/1.1"]))
    for client in ("aiohttp", "httpx", "aiohttp"):
        assert _post_once(client, server)[0] == 200
    assert server.alpn == ["http/1.1", "http/1.1", "http/1.1"]


@pytest.mark.parametrize("client", CLIENTS)
def test_an_unreadable_ssl_cert_file_is_one_config_error(client, authorities, monkeypatch,
                                                         tmp_path):
    # a ConfigError stops the run (the batch runner re-raises every BenchKitError but a
    # ModelCallError): not a failed row per call
    a, _ = authorities
    missing = tmp_path / "missing.pem"
    monkeypatch.setenv("SSL_CERT_FILE", str(missing))
    with pytest.raises(ConfigError) as raised:
        _post_once(client, Server(tls=a.server))
    assert not isinstance(raised.value, ModelCallError)
    assert str(raised.value) == (f"SSL_CERT_FILE={missing}: not a readable CA bundle "
                                 f"(No such file or directory)")
    # a file that holds no certificate: OpenSSL's reason in the same line
    MADE_ONCE.cache_clear()
    empty = tmp_path / "empty.pem"
    empty.write_text("not a certificate\n")
    monkeypatch.setenv("SSL_CERT_FILE", str(empty))
    with pytest.raises(ConfigError, match=rf"^SSL_CERT_FILE={empty}: not a readable CA "
                                          rf"bundle \(\[X509: NO_CERTIFICATE_OR_CRL_FOUND\]"):
        _post_once(client, Server(tls=a.server))


@pytest.mark.parametrize("client", CLIENTS)
def test_an_ssl_cert_dir_that_is_no_folder_is_one_config_error(client, authorities,
                                                               monkeypatch, tmp_path):
    # OpenSSL reads nothing from a missing folder and says nothing: every call would fail
    # its handshake as an untrusted certificate
    a, _ = authorities
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    for path in (tmp_path / "missing", a.ca):  # missing, and a file rather than a folder
        MADE_ONCE.cache_clear()
        monkeypatch.setenv("SSL_CERT_DIR", str(path))
        with pytest.raises(ConfigError) as raised:
            _post_once(client, Server(tls=a.server))
        assert str(raised.value) == (f"SSL_CERT_DIR={path}: not a readable CA folder "
                                     f"(not a directory)")

"""Server addresses: ``host:port``, ``http://host:port`` or ``https://host:port``."""

from __future__ import annotations

import os
from dataclasses import dataclass

import grpc

#: Where the server is when neither ``--server`` nor ``$DRUIDS_SERVER`` says.
DEFAULT_SERVER = "http://127.0.0.1:50051"


@dataclass(frozen=True)
class Address:
    """A parsed server address."""

    #: ``host:port`` as gRPC dials it.
    target: str
    #: True for ``https://``: the channel speaks TLS.
    tls: bool

    @property
    def url(self) -> str:
        """The address as a URL (``http://`` or ``https://``)."""
        return ("https://" if self.tls else "http://") + self.target


def parse_server(server: str) -> Address:
    """Parses ``host:port`` (plaintext), ``http://host:port`` (plaintext) or
    ``https://host:port`` (TLS). A trailing ``/`` is ignored.

    Raises ValueError for another scheme or a missing host.
    """
    text = server.strip().rstrip("/")
    tls = False
    if "://" in text:
        scheme, text = text.split("://", 1)
        if scheme not in ("http", "https"):
            raise ValueError(f"unsupported scheme {scheme!r} in {server!r}: use http:// or https://")
        tls = scheme == "https"
    if not text or text.startswith(":"):
        raise ValueError(f"no host in server address {server!r}")
    return Address(target=text, tls=tls)


def default_server() -> str:
    """``$DRUIDS_SERVER``, else :data:`DEFAULT_SERVER`."""
    return os.environ.get("DRUIDS_SERVER") or DEFAULT_SERVER


def open_channel(server: str, ca_cert: str | None = None) -> grpc.Channel:
    """A gRPC channel to ``server``. For ``https://``, ``ca_cert`` (a PEM file)
    is the certificate to trust instead of the system's roots (e.g. self-signed)."""
    address = parse_server(server)
    if not address.tls:
        return grpc.insecure_channel(address.target)
    roots = None
    if ca_cert:
        with open(ca_cert, "rb") as f:
            roots = f.read()
    return grpc.secure_channel(address.target, grpc.ssl_channel_credentials(roots))

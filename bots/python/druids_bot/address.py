"""Server addresses: ``host:port``, ``http://host:port`` or ``https://host:port``;
several, separated by commas, are nodes of one cluster (``a:50051,b:50051``)."""

from __future__ import annotations

import ipaddress
import os
import socket
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


#: Most nodes one ``--server`` may list.
MAX_NODES = 16


def parse_servers(server: str) -> list[Address]:
    """Parses one address or a comma-separated list of nodes of one cluster,
    all ``http`` or all ``https``. Raises ValueError as :func:`parse_server`
    does, and for a mixed or too long list."""
    parts = server.split(",")
    if len(parts) > MAX_NODES:
        raise ValueError(f"--server lists more than {MAX_NODES} nodes")
    addresses = [parse_server(p) for p in parts]
    if len({a.tls for a in addresses}) > 1:
        raise ValueError("--server lists nodes of one cluster: all http:// or all https://")
    return addresses


def _split(target: str) -> tuple[str, int]:
    """``host:port`` (``[v6]:port``) into host and port."""
    host, sep, port = target.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"no port in server address {target!r}")
    return host.strip("[]"), int(port)


def _nodes_target(addresses: list[Address]) -> str:
    """One gRPC target over every node's addresses (names resolved now), in
    order: gRPC's ``pick_first`` connects to the first that answers and, when
    the connection breaks, to the next that answers."""
    v4: list[str] = []
    v6: list[str] = []
    for a in addresses:
        host, port = _split(a.target)
        try:
            found = [ipaddress.ip_address(host)]
        except ValueError:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            found = [ipaddress.ip_address(i[4][0]) for i in infos]
        for ip in found:
            if ip.version == 4:
                v4.append(f"{ip}:{port}")
            else:
                v6.append(f"[{ip}]:{port}")
    if v4:
        return "ipv4:" + ",".join(dict.fromkeys(v4))
    return "ipv6:" + ",".join(dict.fromkeys(v6))


def default_server() -> str:
    """``$DRUIDS_SERVER``, else :data:`DEFAULT_SERVER`."""
    return os.environ.get("DRUIDS_SERVER") or DEFAULT_SERVER


def open_channel(server: str, ca_cert: str | None = None) -> grpc.Channel:
    """A gRPC channel to ``server``. For ``https://``, ``ca_cert`` (a PEM file)
    is the certificate to trust instead of the system's roots (e.g. self-signed).

    For a list of nodes, one channel over all of them: calls go to the first
    node that answers, and after a broken connection (retried, as the contract
    says) to the next that answers. Names are resolved when the channel
    opens; the first node's name is the one the server (and TLS) is told."""
    addresses = parse_servers(server)
    address = addresses[0]
    target, options = address.target, []
    if len(addresses) > 1:
        target = _nodes_target(addresses)
        options = [("grpc.default_authority", address.target)]
    if not address.tls:
        return grpc.insecure_channel(target, options=options)
    roots = None
    if ca_cert:
        with open(ca_cert, "rb") as f:
            roots = f.read()
    return grpc.secure_channel(target, grpc.ssl_channel_credentials(roots), options=options)

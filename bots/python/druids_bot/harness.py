"""Running a druids server for a test, from Python.

    from druids_bot.harness import start_server

    with start_server("path/to/druids-server") as server:
        client = connect(server.grpc)
        ...

``druids-server --listen 127.0.0.1:0 --http-listen 127.0.0.1:0 --in-memory``
picks free ports (gRPC and the HTTP face) and keeps games in memory only; its
first line on stdout is machine-readable JSON naming every address it serves,
``{"grpc": "127.0.0.1:PORT", "http": "127.0.0.1:PORT"}`` (plus ``"metrics"``
with ``--metrics-listen``), which :func:`start_server` reads (logs go to
stderr). See docs/testing-clients.md in the repository.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import IO


@dataclass
class RunningServer:
    """A druids-server subprocess and the addresses it announced."""

    #: ``host:port`` of the gRPC service (pass it to :func:`druids_bot.connect`).
    grpc: str
    #: Every address of the ready line by name (``"grpc"``, ``"metrics"`` ...).
    addresses: dict[str, str]
    process: subprocess.Popen[str]
    #: Everything the server printed (its logs, stderr included).
    output: list[str] = field(default_factory=list)

    @property
    def http(self) -> str | None:
        """``host:port`` of the HTTP/JSON face, when the server serves one."""
        return self.addresses.get("http")

    @property
    def metrics(self) -> str | None:
        """``host:port`` of the Prometheus endpoint, when the server serves one."""
        return self.addresses.get("metrics")

    @property
    def url(self) -> str:
        """The gRPC address as a URL."""
        return f"http://{self.grpc}"

    def stop(self, timeout: float = 10.0) -> None:
        """Stops the server (SIGTERM, then SIGKILL after ``timeout`` s)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self) -> RunningServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def read_addresses(line: str) -> dict[str, str] | None:
    """The addresses of the server's ready line by name (``"grpc"`` always
    among them), or None when ``line`` is not that line."""
    try:
        data = json.loads(line)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("grpc"), str):
        return None
    return {k: v for k, v in data.items() if isinstance(v, str)}


def _drain(pipe: IO[str], sink: list[str]) -> None:
    for line in pipe:
        sink.append(line.rstrip("\n"))


def start_server(
    binary: str | None = None,
    args: Sequence[str] = (),
    *,
    timeout: float = 30.0,
    env: dict[str, str] | None = None,
) -> RunningServer:
    """Starts ``druids-server --listen 127.0.0.1:0 --http-listen 127.0.0.1:0
    --in-memory [args]`` and
    waits (at most ``timeout`` s) for the JSON address line on its stdout.

    ``binary`` defaults to ``$DRUIDS_SERVER_BIN``, else ``druids-server`` on the
    PATH. Raises RuntimeError when the server exits or announces no address.
    """
    command = [binary or os.environ.get("DRUIDS_SERVER_BIN") or "druids-server"]
    command += ["--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--in-memory", *args]
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, **(env or {})},
    )
    assert process.stdout is not None
    found: list[dict[str, str]] = []
    seen: list[str] = []

    def wait_for_line() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            addresses = read_addresses(line)
            if addresses is not None:
                found.append(addresses)
                return
            seen.append(line.rstrip("\n"))

    reader = threading.Thread(target=wait_for_line, daemon=True)
    reader.start()
    reader.join(timeout)
    if not found:
        process.kill()
        process.wait()
        raise RuntimeError(
            f"{command[0]} announced no address within {timeout} s; it printed:\n" + "\n".join(seen)
        )
    server = RunningServer(grpc=found[0]["grpc"], addresses=found[0], process=process, output=seen)
    # Keep reading, so a chatty server never blocks on a full pipe.
    threading.Thread(target=_drain, args=(process.stdout, server.output), daemon=True).start()
    return server

"""Running a druids server for a test, from Python.

    from druids_bot.harness import start_server

    with start_server("path/to/druids-server") as server:
        client = connect(server.grpc)
        ...

``druids-server --listen 127.0.0.1:PORT --http-listen 127.0.0.1:PORT
--in-memory`` keeps games in memory only; its first line on stdout is
machine-readable JSON naming every address it serves, ``{"grpc":
"127.0.0.1:PORT", "http": "127.0.0.1:PORT"}`` (plus ``"metrics"`` with
``--metrics-listen``), which :func:`start_server` reads (logs go to stderr).

With ``durable=True`` the games are kept in a SQLite store in a temporary
folder the harness owns (removed by :meth:`RunningServer.stop`), and
:meth:`RunningServer.restart` stops the process and starts it again on the
same addresses with that store: the games go on where they were. With
``test_faults=True`` the server runs with ``--test-faults`` and
``server.testing`` makes games with fault plans and reads their ledgers.

The ports do not change across a restart, and no other process can take
them meanwhile: the harness picks them by binding a socket of its own to
port 0 of each address (``SO_REUSEADDR``, never listening) and keeps those
sockets bound for the server's whole life. The server binds the same ports
with ``SO_REUSEADDR`` too (which Linux allows as long as no other socket
*listens* there), while the kernel hands out neither port to anyone else,
neither for a ``bind`` to port 0 nor for an outgoing connection. See
docs/testing-clients.md in the repository.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import IO

from .client import Client
from .testing import Testing

HOST = "127.0.0.1"


@dataclass
class RunningServer:
    """A druids-server subprocess and the addresses it announced."""

    #: ``host:port`` of the gRPC service (pass it to :func:`druids_bot.connect`).
    grpc: str
    #: Every address of the ready line by name (``"grpc"``, ``"metrics"`` ...).
    addresses: dict[str, str]
    process: subprocess.Popen[str]
    #: Everything the server printed (its logs, stderr included), across restarts.
    output: list[str] = field(default_factory=list)
    #: The folder of the durable store (None: games in memory only).
    store_dir: str | None = None
    #: The command that started the process (a restart runs it again).
    command: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    # The sockets holding the server's ports between its processes.
    _holders: list[socket.socket] = field(default_factory=list, repr=False)
    _client: Client | None = field(default=None, repr=False)

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

    @property
    def testing(self) -> Testing:
        """The ``TestingService`` (fault plans, ledgers, the test clock) of a
        server started with ``test_faults=True``, over the harness's own
        channel (it reconnects by itself after a restart)."""
        if self._client is None:
            self._client = Client(self.grpc)
        return Testing(self._client)

    def _stop_process(self, timeout: float, kill: bool) -> None:
        if self.process.poll() is None:
            if kill:
                self.process.kill()
            else:
                self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def restart(self, *, kill: bool = False, timeout: float = 30.0) -> None:
        """Stops the server (SIGTERM, waiting for it to exit; SIGKILL with
        ``kill``, as a crash) and starts it again on the same addresses with
        the same store, waiting for its ready line (it listens and has
        rebuilt its games). Needs ``durable=True``: in memory, every game
        would be lost. Raises RuntimeError when it does not come back on the
        same addresses."""
        if self.store_dir is None:
            raise RuntimeError("restart keeps the games only with a durable store: start_server(durable=True)")
        self._stop_process(timeout, kill)
        process, addresses = _launch(self.command, self.env, timeout, self.output)
        self.process = process
        if addresses != self.addresses:
            self._stop_process(timeout, kill=False)
            raise RuntimeError(f"the restarted server announced {addresses}, not {self.addresses}")

    def stop(self, timeout: float = 10.0) -> None:
        """Stops the server (SIGTERM, then SIGKILL after ``timeout`` s), frees
        its ports and removes its store."""
        self._stop_process(timeout, kill=False)
        if self._client is not None:
            self._client.close()
            self._client = None
        for holder in self._holders:
            holder.close()
        self._holders.clear()
        if self.store_dir is not None:
            shutil.rmtree(self.store_dir, ignore_errors=True)

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


def reserve_port(host: str = HOST) -> socket.socket:
    """A socket bound to a free port of ``host`` (``SO_REUSEADDR``, not
    listening): while it is open the kernel gives the port to nobody else,
    yet a server binding it with ``SO_REUSEADDR`` may listen there."""
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    holder.bind((host, 0))
    return holder


def _drain(pipe: IO[str], sink: list[str]) -> None:
    for line in pipe:
        sink.append(line.rstrip("\n"))


def _launch(
    command: list[str], env: dict[str, str], timeout: float, output: list[str]
) -> tuple[subprocess.Popen[str], dict[str, str]]:
    """Starts ``command`` and waits (at most ``timeout`` s) for its ready
    line; everything else it prints goes to ``output``."""
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    found: list[dict[str, str]] = []

    def wait_for_line() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            addresses = read_addresses(line)
            if addresses is not None:
                found.append(addresses)
                return
            output.append(line.rstrip("\n"))

    reader = threading.Thread(target=wait_for_line, daemon=True)
    reader.start()
    reader.join(timeout)
    if not found:
        process.kill()
        process.wait()
        raise RuntimeError(
            f"{command[0]} announced no address within {timeout} s; it printed:\n" + "\n".join(output)
        )
    # Keep reading, so a chatty server never blocks on a full pipe.
    threading.Thread(target=_drain, args=(process.stdout, output), daemon=True).start()
    return process, found[0]


def start_server(
    binary: str | None = None,
    args: Sequence[str] = (),
    *,
    timeout: float = 30.0,
    env: dict[str, str] | None = None,
    durable: bool = False,
    test_faults: bool = False,
) -> RunningServer:
    """Starts ``druids-server --listen 127.0.0.1:PORT --http-listen
    127.0.0.1:PORT --in-memory [args]`` on two free ports the harness holds
    (see the module's doc) and waits (at most ``timeout`` s) for the JSON
    address line on its stdout.

    ``durable``: ``--db`` a SQLite file in a temporary folder instead of
    ``--in-memory``, so that :meth:`RunningServer.restart` keeps the games.
    ``test_faults``: ``--test-faults`` (fault plans, ledgers, the test clock;
    never where people play). ``binary`` defaults to ``$DRUIDS_SERVER_BIN``,
    else ``druids-server`` on the PATH. Raises RuntimeError when the server
    exits or announces no address.
    """
    holders = [reserve_port(), reserve_port()]
    grpc_addr, http_addr = (f"{HOST}:{h.getsockname()[1]}" for h in holders)
    store_dir = tempfile.mkdtemp(prefix="druids-harness-") if durable else None
    command = [binary or os.environ.get("DRUIDS_SERVER_BIN") or "druids-server"]
    command += ["--listen", grpc_addr, "--http-listen", http_addr]
    command += ["--in-memory"] if store_dir is None else ["--db", os.path.join(store_dir, "druids.db")]
    command += ["--test-faults"] if test_faults else []
    command += args
    full_env = {**os.environ, **(env or {})}
    output: list[str] = []
    try:
        process, addresses = _launch(command, full_env, timeout, output)
    except BaseException:
        for holder in holders:
            holder.close()
        if store_dir is not None:
            shutil.rmtree(store_dir, ignore_errors=True)
        raise
    return RunningServer(
        grpc=addresses["grpc"],
        addresses=addresses,
        process=process,
        output=output,
        store_dir=store_dir,
        command=command,
        env=full_env,
        _holders=holders,
    )

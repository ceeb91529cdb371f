/**
 * Running a druids server for a test, from Node:
 *
 *     const server = await startServer("path/to/druids-server");
 *     const client = new DruidsClient(server.grpc);
 *     ...
 *     await server.stop();
 *
 * `druids-server --listen 127.0.0.1:PORT --http-listen 127.0.0.1:PORT
 * --in-memory` keeps games in memory only; its first line on stdout is
 * machine-readable JSON naming every address it serves, `{"grpc":
 * "127.0.0.1:PORT", "http": "127.0.0.1:PORT"}` (plus `"metrics"` with
 * `--metrics-listen`), which {@link startServer} reads (logs go to stderr).
 *
 * With `{ durable: true }` the games are kept in a SQLite store in a
 * temporary folder the harness owns (removed by `stop()`), and `restart()`
 * stops the process and starts it again on the same addresses with that
 * store: the games go on where they were. With `{ testFaults: true }` the
 * server runs with `--test-faults` and `server.testing` makes games with
 * fault plans and reads their ledgers.
 *
 * The ports do not change across a restart, and no other process can take
 * them meanwhile: the harness holds each port for the server's whole life
 * with a socket of its own. Node binds a TCP socket only to listen or to
 * connect, so that socket is a connection from the port (bound with
 * `SO_REUSEADDR`, port 0: the kernel picks it) to a throwaway listener of
 * the harness. The server binds the same port with `SO_REUSEADDR` too, which
 * Linux allows as long as no other socket *listens* there, while the kernel
 * hands the port to nobody else. See docs/testing-clients.md in the
 * repository.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { type Socket, connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

import { DruidsClient } from "./client";
import { Testing } from "./testing";

const HOST = "127.0.0.1";

/** How {@link startServer} runs the server besides its arguments. */
export interface HarnessOptions {
  /** `--db` a SQLite file in a temporary folder instead of `--in-memory`, so that `restart()` keeps the games. */
  durable?: boolean;
  /** `--test-faults`: fault plans, ledgers, the test clock (never where people play). */
  testFaults?: boolean;
}

/** A druids-server subprocess and the addresses it announced. */
export interface RunningServer {
  /** `host:port` of the gRPC service (pass it to `new DruidsClient(...)`). */
  grpc: string;
  /** Every address of the ready line by name (`grpc`, `metrics` ...). */
  addresses: Record<string, string>;
  /** The current process (a restart replaces it). */
  process: ChildProcess;
  /** Lines the server printed on stdout before the ready line. */
  output: string[];
  /** The folder of the durable store (undefined: games in memory only). */
  storeDir?: string;
  /**
   * The `TestingService` (fault plans, ledgers, the test clock) of a server
   * started with `testFaults`, over the harness's own channel (it reconnects
   * by itself after a restart).
   */
  readonly testing: Testing;
  /**
   * Stops the server (SIGTERM, waiting for it to exit; SIGKILL with `kill`,
   * as a crash) and starts it again on the same addresses with the same
   * store, waiting for its ready line (it listens and has rebuilt its
   * games). Needs `durable`: in memory every game would be lost.
   * @throws Error when it does not come back on the same addresses.
   */
  restart(options?: { kill?: boolean; timeoutMs?: number }): Promise<void>;
  /** Stops the server (SIGTERM, then SIGKILL after `timeoutMs`), frees its ports and removes its store. */
  stop(timeoutMs?: number): Promise<void>;
}

/**
 * The addresses of the server's ready line by name (`grpc` always among
 * them), or undefined when `line` is not that line.
 */
export function readAddresses(line: string): (Record<string, string> & { grpc: string }) | undefined {
  try {
    const data: unknown = JSON.parse(line);
    if (typeof data === "object" && data !== null && typeof (data as { grpc?: unknown }).grpc === "string") {
      const entries = Object.entries(data).filter((e): e is [string, string] => typeof e[1] === "string");
      return Object.fromEntries(entries) as Record<string, string> & { grpc: string };
    }
  } catch {
    // not JSON: some other output
  }
  return undefined;
}

/**
 * `count` free ports of 127.0.0.1, each held by an open connection from it
 * (see the module's doc) until `release()`.
 */
export async function reservePorts(count: number): Promise<{ ports: number[]; release(): void }> {
  const accepted: Socket[] = [];
  const listener = createServer((socket) => accepted.push(socket));
  listener.listen(0, HOST);
  await once(listener, "listening");
  const { port } = listener.address() as { port: number };
  const holders: Socket[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const holder = connect({ host: HOST, port, localAddress: HOST, localPort: 0 });
      holders.push(holder);
      await once(holder, "connect");
    }
  } finally {
    listener.close();
  }
  return {
    ports: holders.map((h) => h.localPort ?? 0),
    release: () => [...holders, ...accepted].forEach((s) => s.destroy()),
  };
}

/** Stops `child` (SIGTERM, or SIGKILL with `kill`), SIGKILL after `graceMs`. */
async function stopProcess(child: ChildProcess, graceMs: number, kill = false): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const exited = once(child, "exit");
  child.kill(kill ? "SIGKILL" : "SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Starts `binary args` and waits (at most `timeoutMs`) for its ready line. */
async function launch(
  binary: string,
  args: string[],
  timeoutMs: number,
  output: string[],
): Promise<{ child: ChildProcess; addresses: Record<string, string> & { grpc: string } }> {
  const child = spawn(binary, args, { stdio: ["ignore", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout! });
  const addresses = await new Promise<Record<string, string> & { grpc: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${binary} announced no address within ${timeoutMs} ms:\n${output.join("\n")}`)), timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${binary} exited (${code}) before announcing its address:\n${output.join("\n")}`));
    });
    lines.on("line", (line) => {
      const found = readAddresses(line);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      } else {
        output.push(line);
      }
    });
  }).catch(async (error: unknown) => {
    await stopProcess(child, 1000);
    throw error;
  });
  child.removeAllListeners("exit");
  return { child, addresses };
}

/**
 * Starts `druids-server --listen 127.0.0.1:PORT --http-listen 127.0.0.1:PORT
 * --in-memory [args]` on two free ports the harness holds (see the module's
 * doc) and waits (at most `timeoutMs`) for the JSON address line on its
 * stdout. `options.durable` keeps the games in a SQLite store instead (for
 * `restart()`), `options.testFaults` adds `--test-faults`. `binary` defaults
 * to `$DRUIDS_SERVER_BIN`, else `druids-server` on the PATH.
 * @throws Error when the server exits or announces no address in time.
 */
export async function startServer(
  binary: string = process.env.DRUIDS_SERVER_BIN || "druids-server",
  args: string[] = [],
  timeoutMs = 30_000,
  options: HarnessOptions = {},
): Promise<RunningServer> {
  const held = await reservePorts(2);
  const [grpcPort, httpPort] = held.ports;
  const storeDir = options.durable ? mkdtempSync(join(tmpdir(), "druids-harness-")) : undefined;
  const command = [
    "--listen",
    `${HOST}:${grpcPort}`,
    "--http-listen",
    `${HOST}:${httpPort}`,
    ...(storeDir === undefined ? ["--in-memory"] : ["--db", join(storeDir, "druids.db")]),
    ...(options.testFaults ? ["--test-faults"] : []),
    ...args,
  ];
  const cleanUp = (): void => {
    held.release();
    if (storeDir !== undefined) {
      rmSync(storeDir, { recursive: true, force: true });
    }
  };
  const output: string[] = [];
  const first = await launch(binary, command, timeoutMs, output).catch((error: unknown) => {
    cleanUp();
    throw error;
  });
  let client: DruidsClient | undefined;
  let testing: Testing | undefined;
  const server: RunningServer = {
    grpc: first.addresses.grpc,
    addresses: first.addresses,
    process: first.child,
    output,
    storeDir,
    get testing(): Testing {
      client ??= new DruidsClient(first.addresses.grpc);
      testing ??= new Testing(client);
      return testing;
    },
    async restart({ kill = false, timeoutMs: wait = timeoutMs } = {}): Promise<void> {
      if (storeDir === undefined) {
        throw new Error("restart keeps the games only with a durable store: startServer(..., { durable: true })");
      }
      await stopProcess(server.process, wait, kill);
      const next = await launch(binary, command, wait, output);
      server.process = next.child;
      if (JSON.stringify(next.addresses) !== JSON.stringify(server.addresses)) {
        await stopProcess(next.child, wait);
        throw new Error(`the restarted server announced ${JSON.stringify(next.addresses)}, not ${JSON.stringify(server.addresses)}`);
      }
    },
    async stop(graceMs = 10_000): Promise<void> {
      process.removeListener("exit", onExit);
      await stopProcess(server.process, graceMs);
      testing?.close();
      client?.close();
      cleanUp();
    },
  };
  // A program that dies (an uncaught error) leaves no server behind.
  const onExit = (): void => {
    server.process.kill("SIGKILL");
    cleanUp();
  };
  process.once("exit", onExit);
  return server;
}

/**
 * Running a druids server for a test, from Node:
 *
 *     const server = await startServer("path/to/druids-server");
 *     const client = new DruidsClient(server.grpc);
 *     ...
 *     await server.stop();
 *
 * `druids-server --listen 127.0.0.1:0 --in-memory` picks a free port and keeps
 * games in memory only; its first line on stdout is machine-readable JSON,
 * `{"grpc": "127.0.0.1:PORT", "http": "127.0.0.1:PORT"}`, which
 * {@link startServer} reads. See docs/testing-clients.md in the repository.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";

/** A druids-server subprocess and the addresses it announced. */
export interface RunningServer {
  /** `host:port` of the gRPC service (pass it to `new DruidsClient(...)`). */
  grpc: string;
  /** `host:port` of the HTTP face, when the server announced one. */
  http?: string;
  process: ChildProcess;
  /** Everything the server printed before and after the address line (logs). */
  output: string[];
  /** Stops the server (SIGTERM, then SIGKILL after `timeoutMs`). */
  stop(timeoutMs?: number): Promise<void>;
}

/** `{grpc, http}` from the server's address line, or undefined when `line` is not that line. */
export function readAddresses(line: string): { grpc: string; http?: string } | undefined {
  try {
    const data: unknown = JSON.parse(line);
    if (typeof data === "object" && data !== null && typeof (data as { grpc?: unknown }).grpc === "string") {
      const { grpc, http } = data as { grpc: string; http?: unknown };
      return { grpc, http: typeof http === "string" ? http : undefined };
    }
  } catch {
    // not JSON: a log line
  }
  return undefined;
}

/**
 * Starts `druids-server --listen 127.0.0.1:0 --in-memory [args]` and waits (at
 * most `timeoutMs`) for the JSON address line on its stdout. `binary` defaults
 * to `$DRUIDS_SERVER_BIN`, else `druids-server` on the PATH.
 * @throws Error when the server exits or announces no address in time.
 */
export async function startServer(
  binary: string = process.env.DRUIDS_SERVER_BIN || "druids-server",
  args: string[] = [],
  timeoutMs = 30_000,
): Promise<RunningServer> {
  const child = spawn(binary, ["--listen", "127.0.0.1:0", "--in-memory", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const output: string[] = [];
  const lines = createInterface({ input: child.stdout! });
  const stop = async (graceMs = 10_000): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) {
      return;
    }
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
  };
  const addresses = await new Promise<{ grpc: string; http?: string }>((resolve, reject) => {
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
    await stop(1000);
    throw error;
  });
  child.removeAllListeners("exit");
  return { ...addresses, process: child, output, stop };
}

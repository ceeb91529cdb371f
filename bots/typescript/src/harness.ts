/**
 * Running a druids server for a test, from Node:
 *
 *     const server = await startServer("path/to/druids-server");
 *     const client = new DruidsClient(server.grpc);
 *     ...
 *     await server.stop();
 *
 * `druids-server --listen 127.0.0.1:0 --http-listen 127.0.0.1:0 --in-memory`
 * picks free ports (gRPC and the HTTP face) and keeps games in memory only; its
 * first line on stdout is machine-readable JSON naming every address it
 * serves, `{"grpc": "127.0.0.1:PORT", "http": "127.0.0.1:PORT"}` (plus
 * `"metrics"` with `--metrics-listen`), which {@link startServer} reads (logs
 * go to stderr). See docs/testing-clients.md in the repository.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";

/** A druids-server subprocess and the addresses it announced. */
export interface RunningServer {
  /** `host:port` of the gRPC service (pass it to `new DruidsClient(...)`). */
  grpc: string;
  /** Every address of the ready line by name (`grpc`, `metrics` ...). */
  addresses: Record<string, string>;
  process: ChildProcess;
  /** Lines the server printed on stdout before the ready line. */
  output: string[];
  /** Stops the server (SIGTERM, then SIGKILL after `timeoutMs`). */
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
 * Starts `druids-server --listen 127.0.0.1:0 --http-listen 127.0.0.1:0
 * --in-memory [args]` and waits (at
 * most `timeoutMs`) for the JSON address line on its stdout. `binary` defaults
 * to `$DRUIDS_SERVER_BIN`, else `druids-server` on the PATH.
 * @throws Error when the server exits or announces no address in time.
 */
export async function startServer(
  binary: string = process.env.DRUIDS_SERVER_BIN || "druids-server",
  args: string[] = [],
  timeoutMs = 30_000,
): Promise<RunningServer> {
  const child = spawn(binary, ["--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--in-memory", ...args], {
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
    await stop(1000);
    throw error;
  });
  child.removeAllListeners("exit");
  return { grpc: addresses.grpc, addresses, process: child, output, stop };
}

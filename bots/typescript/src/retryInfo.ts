/**
 * How long the server asks a client to wait before a retry.
 *
 * A refusal that may be retried (UNAVAILABLE, RESOURCE_EXHAUSTED) can carry a
 * `google.rpc.RetryInfo` in the `grpc-status-details-bin` trailer (a
 * `google.rpc.Status`). Retrying sooner only gets the same refusal again, and
 * `druids conformance` counts it against the client. The three messages
 * involved are read by hand: the kit loads only the druids contract.
 */
import type * as grpc from "@grpc/grpc-js";

const RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo";

/**
 * How long, in ms, retries the server asks for (its refusal carries a
 * RetryInfo) go on in a row. A game moving to another node after its owner
 * died waits for the owner's lease to lapse (10 s by default); the server
 * says to retry all along.
 */
export const PATIENCE_MS = 60_000;

/** The shortest pause, in ms, before a retry the server asked for. */
export const MIN_ASKED_MS = 1;

/**
 * Failures in a row of one call or stream, and when to give up on it: a retry
 * the server asked for waits what it asked, for at most `patienceMs` from the
 * first such failure; any other failure counts, at most `limit` in a row.
 */
export class Failures {
  private unasked = 0;
  private askedSince: number | undefined;

  constructor(
    private readonly limit: number,
    private readonly patienceMs: number = PATIENCE_MS,
  ) {}

  /** The call or stream went on: the count starts again. */
  cleared(): void {
    this.unasked = 0;
    this.askedSince = undefined;
  }

  /**
   * One more failure, `askedMs` the delay its RetryInfo asked for: the pause
   * in ms before trying again (`unaskedPause` of the count of unasked
   * failures, for one that asked nothing), or undefined to give up.
   */
  next(askedMs: number | undefined, unaskedPause: (n: number) => number): number | undefined {
    if (askedMs !== undefined) {
      // A zero or negative delay (a proxy's, a scripted fault's) must not
      // turn into a busy loop for the whole patience.
      askedMs = Math.max(askedMs, MIN_ASKED_MS);
      const now = performance.now();
      this.askedSince ??= now;
      return now - this.askedSince + askedMs <= this.patienceMs ? askedMs : undefined;
    }
    if (this.unasked >= this.limit) {
      return undefined;
    }
    this.unasked += 1;
    return unaskedPause(this.unasked);
  }
}

/** The delay of the error's `google.rpc.RetryInfo` in ms, if it has one. */
export function retryDelayMs(error: unknown): number | undefined {
  const metadata = (error as Partial<grpc.ServiceError> | undefined)?.metadata;
  for (const value of metadata?.get("grpc-status-details-bin") ?? []) {
    if (typeof value === "string") {
      continue;
    }
    for (const detail of fields(value, 3)) {
      // google.protobuf.Any: type_url = 1, value = 2.
      const typeUrl = fields(detail, 1)[0]?.toString("utf8");
      if (typeUrl !== RETRY_INFO) {
        continue;
      }
      for (const info of fields(detail, 2)) {
        // RetryInfo.retry_delay = 1: a Duration (seconds = 1, nanos = 2).
        for (const duration of fields(info, 1)) {
          const [seconds, nanos] = [varintField(duration, 1), varintField(duration, 2)];
          return seconds * 1000 + nanos / 1e6;
        }
      }
    }
  }
  return undefined;
}

function varint(data: Buffer, at: number): [number, number] {
  let value = 0;
  let scale = 1;
  for (;;) {
    const byte = data[at++] ?? 0;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80 || at >= data.length) {
      return [value, at];
    }
    scale *= 128;
  }
}

/** Walks an encoded message; calls `visit` with each field's number, wire type and value. */
function walk(data: Buffer, visit: (field: number, wire: number, value: Buffer | number) => void): void {
  let at = 0;
  while (at < data.length) {
    const [key, next] = varint(data, at);
    at = next;
    const [field, wire] = [Math.floor(key / 8), key % 8];
    if (wire === 0) {
      const [value, after] = varint(data, at);
      visit(field, wire, value);
      at = after;
    } else if (wire === 2) {
      const [size, after] = varint(data, at);
      visit(field, wire, data.subarray(after, after + size));
      at = after + size;
    } else if (wire === 1) {
      at += 8;
    } else if (wire === 5) {
      at += 4;
    } else {
      return;
    }
  }
}

/** The values of a length-delimited field. */
function fields(data: Buffer, field: number): Buffer[] {
  const out: Buffer[] = [];
  walk(data, (f, wire, value) => {
    if (f === field && wire === 2 && typeof value !== "number") {
      out.push(value);
    }
  });
  return out;
}

/** The value of a varint field (0 when absent). */
function varintField(data: Buffer, field: number): number {
  let out = 0;
  walk(data, (f, wire, value) => {
    if (f === field && wire === 0 && typeof value === "number") {
      out = value;
    }
  });
  return out;
}

/**
 * Server addresses: `host:port`, `http://host:port` or `https://host:port`.
 */
import { readFileSync } from "node:fs";

import * as grpc from "@grpc/grpc-js";

/** Where the server is when neither `--server` nor `$DRUIDS_SERVER` says. */
export const DEFAULT_SERVER = "http://127.0.0.1:50051";

/** A parsed server address. */
export interface Address {
  /** `host:port` as gRPC dials it. */
  target: string;
  /** True for `https://`: the channel speaks TLS. */
  tls: boolean;
}

/**
 * Parses `host:port` (plaintext), `http://host:port` (plaintext) or
 * `https://host:port` (TLS); a trailing `/` is ignored.
 * @throws Error for another scheme or a missing host.
 */
export function parseServer(server: string): Address {
  let text = server.trim().replace(/\/+$/, "");
  let tls = false;
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(text);
  if (scheme) {
    if (scheme[1] !== "http" && scheme[1] !== "https") {
      throw new Error(`unsupported scheme ${scheme[1]} in ${JSON.stringify(server)}: use http:// or https://`);
    }
    tls = scheme[1] === "https";
    text = text.slice(scheme[0].length);
  }
  if (text === "" || text.startsWith(":")) {
    throw new Error(`no host in server address ${JSON.stringify(server)}`);
  }
  return { target: text, tls };
}

/** `$DRUIDS_SERVER`, else {@link DEFAULT_SERVER}. */
export function defaultServer(): string {
  return process.env.DRUIDS_SERVER || DEFAULT_SERVER;
}

/**
 * Channel credentials for `address`: plaintext, or TLS trusting `caCert` (a
 * PEM file) instead of the system's roots when given.
 */
export function channelCredentials(address: Address, caCert?: string): grpc.ChannelCredentials {
  if (!address.tls) {
    return grpc.credentials.createInsecure();
  }
  return grpc.credentials.createSsl(caCert ? readFileSync(caCert) : null);
}

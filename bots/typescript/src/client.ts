/**
 * A client of one druids server: the unary calls, with retries that are safe.
 *
 * Every call that may be retried is made retry-safe first: CreateGame and
 * JoinGame carry a `requestId`, SubmitAction an `idempotencyKey`, and the same
 * id or key is sent again on every retry, so nothing is ever applied twice.
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";

import * as grpc from "@grpc/grpc-js";

import { channelCredentials, defaultServer, parseServer } from "./address";
import {
  type Action,
  type CreateGameResponse,
  type DruidsServiceClient,
  type GameEvent,
  type GameKind__Output,
  type GameOptions,
  type GetLegalActionsResponse,
  type GetStateResponse,
  type JoinGameResponse,
  type LegalAction,
  type Replay,
  type StateView,
  type SubmitActionRequest,
  type SubmitActionResponse,
  newServiceClient,
} from "./contract";
import { Failures, PATIENCE_MS, retryDelayMs } from "./retryInfo";

/** Status codes after which the same request may simply be sent again. */
export const RETRYABLE: ReadonlySet<grpc.status> = new Set([
  grpc.status.UNAVAILABLE,
  grpc.status.DEADLINE_EXCEEDED,
  grpc.status.RESOURCE_EXHAUSTED,
]);

/** A game's `GameKind` enum name, e.g. `"GAME_KIND_MEDURIS"` (from the generated contract). */
export type GameKindName = Exclude<GameKind__Output, "GAME_KIND_UNSPECIFIED">;

/**
 * The game to play: its short name (`"meduris"`, what `ListGameTypes` calls
 * `name`) or its `GameKind` enum name, both derived from the generated
 * `GameKind`, so a new game of the contract needs no edit here.
 */
export type GameName = GameKindName | (GameKindName extends `GAME_KIND_${infer N}` ? Lowercase<N> : never);

/** The game cannot be played on (abandoned, a token of no seat, retries exhausted ...). */
export class BotError extends Error {
  override name = "BotError";
}

/** True when `error` is a gRPC error with status `code`. */
export function hasCode(error: unknown, code: grpc.status): boolean {
  return typeof error === "object" && error !== null && (error as grpc.ServiceError).code === code;
}

/** A fresh idempotency key / request id (well under the 128-byte limit). */
export function newKey(prefix = "ts"): string {
  return `${prefix}-${randomUUID()}`;
}

/** How a {@link DruidsClient} connects and retries. */
export interface ClientOptions {
  /** PEM file of the certificate to trust for an `https://` server (e.g. self-signed). */
  caCert?: string;
  /** How often a call is sent again after a retryable error (default 5). */
  retries?: number;
  /** First pause before a retry, doubled each time (default 200 ms). */
  backoffMs?: number;
  /** Longest wait for one unary call (default 30 s). */
  timeoutMs?: number;
  /**
   * How long retries the server asks for (RetryInfo) go on in a row, beside
   * `retries` (default 60 s: a game moving to another node takes about a lease).
   */
  patienceMs?: number;
}

/** What {@link DruidsClient.createGame} may set besides the game and the number of players. */
export interface CreateOptions {
  /** Makes the game reproducible, but every seat sees that the creator chose it (dice not secret). */
  seed?: number | bigint | string;
  seatNames?: string[];
  openSeats?: number[];
  options?: GameOptions;
  /** Makes the call retry-safe (a fresh one by default). */
  requestId?: string;
}

/** A pending unary call: `(metadata, options, callback) => call`. */
type Invoke<Res> = (
  metadata: grpc.Metadata,
  options: grpc.CallOptions,
  callback: grpc.requestCallback<Res>,
) => grpc.ClientUnaryCall;

/**
 * One channel to a druids server. `server` is `host:port`, `http://host:port`
 * or `https://host:port` (default `$DRUIDS_SERVER`, else
 * `http://127.0.0.1:50051`). Unary calls failing with UNAVAILABLE,
 * DEADLINE_EXCEEDED or RESOURCE_EXHAUSTED are sent again with backoff.
 */
export class DruidsClient {
  /** The raw generated stub, for calls the kit does not wrap. */
  readonly stub: DruidsServiceClient;
  readonly server: string;
  readonly retries: number;
  readonly backoffMs: number;
  readonly timeoutMs: number;
  readonly patienceMs: number;

  constructor(server?: string, options: ClientOptions = {}) {
    this.server = server || defaultServer();
    const address = parseServer(this.server);
    this.stub = newServiceClient(address.target, channelCredentials(address, options.caCert));
    this.retries = options.retries ?? 5;
    this.backoffMs = options.backoffMs ?? 200;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.patienceMs = options.patienceMs ?? PATIENCE_MS;
  }

  /** Closes the channel. */
  close(): void {
    this.stub.close();
  }

  /** Call metadata carrying `token` (none for a spectator). */
  static metadata(token?: string): grpc.Metadata {
    const metadata = new grpc.Metadata();
    if (token) {
      metadata.set("authorization", `Bearer ${token}`);
    }
    return metadata;
  }

  /** Makes a unary call, sending the same request again on retryable errors. */
  async call<Res>(invoke: Invoke<Res>, token?: string): Promise<Res> {
    const failures = new Failures(this.retries, this.patienceMs);
    for (;;) {
      try {
        return await new Promise<Res>((resolve, reject) => {
          invoke(DruidsClient.metadata(token), { deadline: Date.now() + this.timeoutMs }, (error, reply) =>
            error || reply === undefined ? reject(error ?? new Error("empty reply")) : resolve(reply),
          );
        });
      } catch (error) {
        const code = (error as grpc.ServiceError).code;
        if (!RETRYABLE.has(code)) {
          throw error;
        }
        // As long as the server asks (RetryInfo), else backing off.
        const pause = failures.next(retryDelayMs(error), (n) => this.backoffMs * 2 ** (n - 1));
        if (pause === undefined) {
          throw error;
        }
        await sleep(pause);
      }
    }
  }

  /** Creates a game; returns its id and the tokens of the claimed seats by seat. */
  async createGame(
    game: GameName,
    players: number,
    options: CreateOptions = {},
  ): Promise<{ gameId: string; tokens: Map<number, string>; reply: CreateGameResponse }> {
    const kind = game.startsWith("GAME_KIND_") ? game : `GAME_KIND_${game.toUpperCase()}`;
    const request = {
      kind: kind as GameKindName,
      players,
      seed: options.seed === undefined ? undefined : String(options.seed),
      seatNames: options.seatNames ?? [],
      openSeats: options.openSeats ?? [],
      options: options.options,
      requestId: options.requestId ?? newKey("create"),
    };
    const reply = await this.call<CreateGameResponse>((m, o, cb) => this.stub.createGame(request, m, o, cb));
    return { gameId: reply.gameId, tokens: new Map(reply.seats.map((s) => [s.seat, s.token])), reply };
  }

  /**
   * Creates a game at a position: set up as `replay`'s was (kind, players,
   * seed, options) with its first `actions` actions applied
   * (`CreateGameRequest.startFrom`). `options.options` replace the replay's
   * when given. Every seat is claimed.
   */
  async createGameFrom(
    replay: Replay,
    actions: number,
    options: Pick<CreateOptions, "options" | "seatNames" | "requestId"> = {},
  ): Promise<{ gameId: string; tokens: Map<number, string>; reply: CreateGameResponse }> {
    const request = {
      startFrom: { replay, actions },
      options: options.options,
      seatNames: options.seatNames ?? [],
      requestId: options.requestId ?? newKey("create"),
    };
    const reply = await this.call<CreateGameResponse>((m, o, cb) => this.stub.createGame(request, m, o, cb));
    return { gameId: reply.gameId, tokens: new Map(reply.seats.map((s) => [s.seat, s.token])), reply };
  }

  /** Claims an open seat (the lowest unless `seat` is given); returns the seat and its token. */
  async joinGame(
    gameId: string,
    options: { seat?: number; name?: string; requestId?: string } = {},
  ): Promise<{ seat: number; token: string }> {
    const request = {
      gameId,
      seat: options.seat,
      name: options.name ?? "",
      requestId: options.requestId ?? newKey("join"),
    };
    const reply = await this.call<JoinGameResponse>((m, o, cb) => this.stub.joinGame(request, m, o, cb));
    return { seat: reply.seat?.seat ?? 0, token: reply.seat?.token ?? "" };
  }

  /** The game as the token's seat (or, without a token, a spectator) sees it. */
  async state(gameId: string, token?: string): Promise<StateView> {
    const reply = await this.call<GetStateResponse>((m, o, cb) => this.stub.getState({ gameId }, m, o, cb), token);
    if (!reply.state) {
      throw new BotError("GetState answered without a state");
    }
    return reply.state;
  }

  /**
   * Every legal action of the token's seat, all pages joined into one
   * response. With `allPayments` every distinct payment is listed; entries
   * found only in that full list have no `id` (submit their `action`). When
   * the game moves on while the pages are read (ABORTED), the listing starts again.
   */
  async legalActions(gameId: string, token: string, allPayments = false): Promise<GetLegalActionsResponse> {
    for (;;) {
      try {
        const first = await this.call<GetLegalActionsResponse>(
          (m, o, cb) => this.stub.getLegalActions({ gameId, allPayments }, m, o, cb),
          token,
        );
        let page = first;
        while (page.nextPageToken) {
          const pageToken = page.nextPageToken;
          page = await this.call<GetLegalActionsResponse>(
            (m, o, cb) => this.stub.getLegalActions({ gameId, allPayments, pageToken }, m, o, cb),
            token,
          );
          first.actions.push(...page.actions);
        }
        first.nextPageToken = "";
        return first;
      } catch (error) {
        if (!hasCode(error, grpc.status.ABORTED)) {
          throw error;
        }
      }
    }
  }

  /**
   * Submits one decision: a LegalAction (by its `id` when it has one, else its
   * `action`), an Action, or a legal-action id. Retries send the same
   * `idempotencyKey` (a fresh one by default), so it is applied at most once.
   */
  async submit(
    gameId: string,
    token: string,
    choice: LegalAction | Action | number,
    expectedVersion: string | number,
    idempotencyKey: string = newKey("act"),
  ): Promise<SubmitActionResponse> {
    const request: SubmitActionRequest = { gameId, expectedVersion: String(expectedVersion), idempotencyKey };
    if (typeof choice === "number") {
      request.legalActionId = choice;
    } else if ("description" in choice) {
      if (choice.id !== undefined) {
        request.legalActionId = choice.id;
      } else {
        request.action = choice.action;
      }
    } else {
      request.action = choice;
    }
    return this.call((m, o, cb) => this.stub.submitAction(request, m, o, cb), token);
  }

  /**
   * The game's event stream from `fromSeq` (0: a snapshot of now, then live
   * events; N: every event numbered N and later); an async iterable of
   * GameEvent. Not retried: {@link playSeat} resumes it.
   */
  events(gameId: string, token?: string, fromSeq: number | string = 0): grpc.ClientReadableStream<GameEvent> {
    return this.stub.streamEvents({ gameId, fromSeq: String(fromSeq) }, DruidsClient.metadata(token));
  }

  /** The replay of a finished (or abandoned) game: set-up, seed, every action. */
  async exportReplay(gameId: string): Promise<Replay> {
    return this.call((m, o, cb) => this.stub.exportReplay({ gameId }, m, o, cb));
  }
}

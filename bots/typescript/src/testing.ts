/**
 * Faults on cue and the ledger, from Node: the `TestingService` calls of a
 * server started with `--test-faults` (docs/testing-clients.md, section 5).
 *
 *     const testing = new Testing(client);
 *     const game = await testing.createTestGame("meduris", 2, { faults: [...] }, { seed: 7 });
 *     // ... play game.tokens.get(0) ...
 *     for (const entry of await testing.ledger(game)) { ... }
 *
 * A {@link TestGame} carries the game's test key, which these calls send as
 * the bearer token. `startServer(..., { testFaults: true })` of
 * `druids-bot/harness` gives a server that answers them (`server.testing`).
 */
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";

import { channelCredentials, parseServer } from "./address";
import { type CreateOptions, type DruidsClient, type GameKindName, type GameName, newKey } from "./client";
import { LOADER_OPTIONS, protoRoot } from "./contract";
import type { ProtoGrpcType } from "./gen/testing";
import type { AdvanceClockResponse__Output as AdvanceClockResponse } from "./gen/druids/v1/AdvanceClockResponse";
import type { AttachFaultPlanResponse__Output as AttachFaultPlanResponse } from "./gen/druids/v1/AttachFaultPlanResponse";
import type { CreateTestGameResponse__Output as CreateTestGameResponse } from "./gen/druids/v1/CreateTestGameResponse";
import type { FaultPlan } from "./gen/druids/v1/FaultPlan";
import type { GetLedgerResponse__Output as GetLedgerResponse } from "./gen/druids/v1/GetLedgerResponse";
import type { LedgerEntry__Output as LedgerEntry } from "./gen/druids/v1/LedgerEntry";
import type { TestingServiceClient } from "./gen/druids/v1/TestingService";

export type { AdvanceClockResponse, FaultPlan, LedgerEntry };
export type { Fault } from "./gen/druids/v1/Fault";

let loaded: ProtoGrpcType | undefined;

/** The testing contract (`druids/v1/testing.proto`), loaded once. */
export function testingContract(): ProtoGrpcType["druids"]["v1"] {
  if (!loaded) {
    const definition = protoLoader.loadSync("druids/v1/testing.proto", {
      ...LOADER_OPTIONS,
      includeDirs: [protoRoot()],
    });
    loaded = grpc.loadPackageDefinition(definition) as unknown as ProtoGrpcType;
  }
  return loaded.druids.v1;
}

/**
 * A game made by `CreateTestGame`: its id, the tokens of its seats and its
 * test key (for `AttachFaultPlan`, `GetLedger`, `AdvanceClock`).
 */
export interface TestGame {
  gameId: string;
  tokens: Map<number, string>;
  testKey: string;
}

/** The `TestingService` of `client`'s server, with the client's retries. */
export class Testing {
  /** The raw generated stub. */
  readonly stub: TestingServiceClient;

  constructor(readonly client: DruidsClient) {
    const address = parseServer(client.server);
    this.stub = new (testingContract().TestingService)(address.target, channelCredentials(address));
  }

  /** Closes the stub's channel. */
  close(): void {
    this.stub.close();
  }

  /** Creates a game with every seat claimed and `plan` attached. Retry-safe (`requestId`). */
  async createTestGame(
    game: GameName,
    players: number,
    plan: FaultPlan = {},
    options: Pick<CreateOptions, "seed" | "options" | "requestId"> = {},
  ): Promise<TestGame> {
    const kind = game.startsWith("GAME_KIND_") ? game : `GAME_KIND_${game.toUpperCase()}`;
    const request = {
      game: {
        kind: kind as GameKindName,
        players,
        seed: options.seed === undefined ? undefined : String(options.seed),
        options: options.options,
        requestId: options.requestId ?? newKey("create-test"),
      },
      plan,
    };
    const reply = await this.client.call<CreateTestGameResponse>((m, o, cb) =>
      this.stub.createTestGame(request, m, o, cb),
    );
    const seats = reply.game?.seats ?? [];
    return {
      gameId: reply.game?.gameId ?? "",
      tokens: new Map(seats.map((s) => [s.seat, s.token])),
      testKey: reply.testKey,
    };
  }

  /** Replaces the game's plan (its ledger starts again); returns the game's last event seq then. */
  async attachFaultPlan(game: TestGame, plan: FaultPlan): Promise<bigint> {
    const reply = await this.client.call<AttachFaultPlanResponse>(
      (m, o, cb) => this.stub.attachFaultPlan({ gameId: game.gameId, plan }, m, o, cb),
      game.testKey,
    );
    return BigInt(reply.lastSeq);
  }

  /** The whole ledger of the game's plan, every page read. */
  async ledger(game: TestGame): Promise<LedgerEntry[]> {
    const entries: LedgerEntry[] = [];
    for (let from = "0"; ; ) {
      const page = await this.client.call<GetLedgerResponse>(
        (m, o, cb) => this.stub.getLedger({ gameId: game.gameId, fromIndex: from }, m, o, cb),
        game.testKey,
      );
      entries.push(...page.entries);
      if (page.nextIndex === from) {
        return entries;
      }
      from = page.nextIndex;
    }
  }

  /** Moves the pending decision's deadline `byMs` earlier; its default is applied at once when that puts it in the past. */
  async advanceClock(game: TestGame, byMs: number): Promise<AdvanceClockResponse> {
    return this.client.call<AdvanceClockResponse>(
      (m, o, cb) => this.stub.advanceClock({ gameId: game.gameId, byMs: String(byMs) }, m, o, cb),
      game.testKey,
    );
  }
}

/**
 * The druids contract, loaded from its .proto files at run time (no protoc).
 *
 * Messages are plain objects with lowerCamelCase fields; 64-bit integers are
 * decimal strings, enums their names (e.g. `"GAME_STATUS_FINISHED"`), a oneof's
 * name holds the name of its field that is set (e.g. `event.body ===
 * "decisionNeeded"`), and unset proto3 `optional` fields are `undefined`. The
 * types (`src/gen/`) are generated from the same files by `npm run build`.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";

import type { ProtoGrpcType } from "./gen/druids";
import type { DruidsServiceClient } from "./gen/druids/v1/DruidsService";

export type { DruidsServiceClient } from "./gen/druids/v1/DruidsService";
export type { Action } from "./gen/druids/v1/Action";
export type { CreateGameResponse__Output as CreateGameResponse } from "./gen/druids/v1/CreateGameResponse";
export type { GameEvent__Output as GameEvent } from "./gen/druids/v1/GameEvent";
export type { GameKind__Output } from "./gen/druids/v1/GameKind";
export type { GameOptions } from "./gen/druids/v1/GameOptions";
export type { GetLegalActionsResponse__Output as GetLegalActionsResponse } from "./gen/druids/v1/GetLegalActionsResponse";
export type { GetStateResponse__Output as GetStateResponse } from "./gen/druids/v1/GetStateResponse";
export type { JoinGameResponse__Output as JoinGameResponse } from "./gen/druids/v1/JoinGameResponse";
export type { LegalAction__Output as LegalAction } from "./gen/druids/v1/LegalAction";
export type { Outcome__Output as Outcome } from "./gen/druids/v1/Outcome";
export type { Replay__Output as Replay } from "./gen/druids/v1/Replay";
export type { StateView__Output as StateView } from "./gen/druids/v1/StateView";
export type { SubmitActionRequest } from "./gen/druids/v1/SubmitActionRequest";
export type { SubmitActionResponse__Output as SubmitActionResponse } from "./gen/druids/v1/SubmitActionResponse";

/** How the .proto files are turned into JavaScript objects (the same options generate the types). */
export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: false,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
};

/**
 * The folder holding `druids/v1/druids.proto`: `$DRUIDS_PROTO_DIR`, else the
 * kit's `proto/` (a packed kit), else the repository's `proto/`.
 * @throws Error when none holds the contract.
 */
export function protoRoot(): string {
  const kit = resolve(__dirname, "..", "..");
  const candidates = [process.env.DRUIDS_PROTO_DIR, join(kit, "proto"), join(kit, "..", "..", "proto")];
  for (const dir of candidates) {
    if (dir && existsSync(join(dir, "druids", "v1", "druids.proto"))) {
      return dir;
    }
  }
  throw new Error(`druids-bot: no druids/v1/druids.proto in ${candidates.filter(Boolean).join(", ")} (set DRUIDS_PROTO_DIR)`);
}

let loaded: ProtoGrpcType | undefined;

/** The contract's package `druids.v1`, loaded once. */
export function contract(): ProtoGrpcType["druids"]["v1"] {
  if (!loaded) {
    const definition = protoLoader.loadSync("druids/v1/druids.proto", {
      ...LOADER_OPTIONS,
      includeDirs: [protoRoot()],
    });
    loaded = grpc.loadPackageDefinition(definition) as unknown as ProtoGrpcType;
  }
  return loaded.druids.v1;
}

/** A raw `DruidsService` stub (the kit's {@link DruidsClient} wraps it). */
export function newServiceClient(
  target: string,
  credentials: grpc.ChannelCredentials,
  options?: grpc.ChannelOptions,
): DruidsServiceClient {
  return new (contract().DruidsService)(target, credentials, options);
}

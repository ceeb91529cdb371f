/**
 * The druids bot kit for TypeScript / Node: a typed client of the contract
 * (loaded from the .proto files at run time) and a loop that plays a seat.
 *
 *     import { DruidsClient, playSeat } from "druids-bot";
 *
 *     const client = new DruidsClient("127.0.0.1:50051"); // or http://..., https://..., $DRUIDS_SERVER
 *     const { gameId, tokens } = await client.createGame("meduris", 2, { openSeats: [1] });
 *     const { outcome } = await playSeat(client, gameId, tokens.get(0)!, (actions) => actions[0]);
 */
export { type Address, DEFAULT_SERVER, defaultServer, parseServer } from "./address";
export {
  BotError,
  type ClientOptions,
  type CreateOptions,
  DruidsClient,
  type GameName,
  hasCode,
  newKey,
  RETRYABLE,
} from "./client";
export * from "./contract";
export { runCli } from "./cli";
export { outcomeJson, resultLine } from "./result";
export { type Choice, type Chooser, type PlayOptions, SeatPlayer, playSeat, secondsLeft } from "./seat";
export { type Fault, type FaultPlan, type LedgerEntry, type TestGame, Testing, testingContract } from "./testing";
export { BUILTIN, chooseFirst, chooseRandom, loadStrategy, rng, seededRandom } from "./strategies";

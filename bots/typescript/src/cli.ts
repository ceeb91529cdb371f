#!/usr/bin/env node
/**
 * The `druids-bot` command, and {@link runCli} for bot scripts.
 *
 *     druids-bot --game-id ID --token T [--strategy random|first|FILE.js[:function]]
 *
 * `--server` (default `$DRUIDS_SERVER`, else `http://127.0.0.1:50051`) takes
 * `host:port`, `http://host:port` or `https://host:port`; `--token` defaults to
 * `$DRUIDS_TOKEN`, like the Rust `druids` client. When the game is over the bot
 * prints one JSON line (the same in both kits and `druids bot`):
 * `{"game_id": "<id>", "seat": <n>, "outcome": {<Outcome in proto3 JSON>}, "actions": <n>, "restarts": 0}`.
 */
import { parseArgs } from "node:util";

import { defaultServer, parseServer } from "./address";
import { DruidsClient } from "./client";
import { resultLine } from "./result";
import { type Chooser, SeatPlayer } from "./seat";
import { BUILTIN, loadStrategy, rng, seededRandom } from "./strategies";

const OPTIONS = {
  server: { type: "string" },
  "ca-cert": { type: "string" },
  "game-id": { type: "string" },
  token: { type: "string" },
  seed: { type: "string" },
  "all-payments": { type: "boolean" },
  strategy: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

function usage(description: string, withStrategy: boolean): string {
  return `${description.trim()}

Options:
  --server URL       host:port, http://host:port or https://host:port
                     (env DRUIDS_SERVER; default ${defaultServer()})
  --ca-cert PEM      certificate to trust for an https:// server
  --game-id ID       the game to play (required)
  --token TOKEN      the seat's secret token (env DRUIDS_TOKEN)
  --seed N           seed of the bot's own random choices
  --all-payments     choose among every distinct payment (Meduris)
${withStrategy ? `  --strategy S       ${Object.keys(BUILTIN).join(" or ")} (built in), or FILE.js[:function] (default: random)\n` : ""}`;
}

/** Exit code 2 with a message: the command line is wrong. */
class UsageError extends Error {}

async function play(argv: string[], description: string, fixed?: Chooser): Promise<number> {
  const { values } = parseArgs({ args: argv, options: OPTIONS, strict: true });
  if (values.help) {
    console.log(usage(description, !fixed));
    return 0;
  }
  const server = values.server ?? defaultServer();
  const token = values.token ?? process.env.DRUIDS_TOKEN;
  const gameId = values["game-id"];
  if (!gameId) {
    throw new UsageError("--game-id is required");
  }
  if (!token) {
    throw new UsageError("a seat token is needed: --token or DRUIDS_TOKEN");
  }
  try {
    parseServer(server);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  let choose = fixed;
  if (!choose) {
    try {
      choose = loadStrategy(values.strategy ?? "random");
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  if (values.seed !== undefined) {
    rng.next = seededRandom(Number(values.seed));
  }
  const client = new DruidsClient(server, { caCert: values["ca-cert"] });
  try {
    const player = new SeatPlayer(client, gameId, token, choose, { allPayments: values["all-payments"] });
    const outcome = await player.play();
    console.log(resultLine(gameId, player.seatNumber, outcome, player.decisions));
    return 0;
  } finally {
    client.close();
  }
}

function report(error: unknown): number {
  if (error instanceof UsageError || (error as { code?: string }).code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    console.error(`druids-bot: ${(error as Error).message}`);
    return 2;
  }
  const grpcError = error as { code?: number; details?: string };
  console.error(`druids-bot: ${grpcError.details ?? (error as Error).message ?? String(error)}`);
  return 1;
}

/**
 * The command line of a bot script: `--server`, `--game-id`, `--token`,
 * `--seed`, `--ca-cert`, `--all-payments`; plays the seat with `choose`,
 * prints the result line and exits.
 */
export function runCli(choose: Chooser, description: string, argv: string[] = process.argv.slice(2)): void {
  play(argv, description, choose).then(
    (code) => process.exit(code),
    (error: unknown) => process.exit(report(error)),
  );
}

/** Entry point of the `druids-bot` command. */
export function main(argv: string[] = process.argv.slice(2)): void {
  play(argv, "druids-bot: plays one seat of a druids game with a named strategy.").then(
    (code) => process.exit(code),
    (error: unknown) => process.exit(report(error)),
  );
}

if (require.main === module) {
  main();
}

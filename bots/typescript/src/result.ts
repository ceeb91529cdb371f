/**
 * The JSON line a bot prints when its game is over: the same in both kits
 * and in `druids bot` (`--strategy` or `--exec`), byte for byte.
 */
import type { Outcome } from "./contract";

/** An Outcome's result fields in the canonical proto3 JSON mapping, keys sorted (its tie-break keys are in the game's state and replay). */
export function outcomeJson(outcome: Outcome): { bySafeguard: boolean; ranking: number[]; scores: number[]; winners: number[] } {
  return {
    bySafeguard: outcome.bySafeguard,
    ranking: [...outcome.ranking],
    scores: [...outcome.scores],
    winners: [...outcome.winners],
  };
}

/** `value` as JSON with Python's default separators (`", "` and `": "`). */
function pythonJson(value: unknown): string {
  if (Array.isArray(value)) {
    return `[${value.map(pythonJson).join(", ")}]`;
  }
  if (value !== null && typeof value === "object") {
    const members = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v)}`);
    return `{${members.join(", ")}}`;
  }
  return JSON.stringify(value);
}

/**
 * `{"game_id": "<id>", "seat": <n>, "outcome": <Outcome in proto3 JSON>, "actions": <n>, "restarts": 0}`:
 * `actions` the seat's actions the server applied, `restarts` the times the
 * bot's program was restarted (never, here); `outcome` null if the game was abandoned.
 */
export function resultLine(gameId: string, seat: number, outcome: Outcome | undefined, actions = 0, restarts = 0): string {
  return pythonJson({
    game_id: gameId,
    seat,
    outcome: outcome === undefined ? null : outcomeJson(outcome),
    actions,
    restarts,
  });
}

/** The JSON line a bot prints when its game is over (the same in the Python kit). */
import type { Outcome } from "./contract";

/** An Outcome in the canonical proto3 JSON mapping, every field included. */
export function outcomeJson(outcome: Outcome): { scores: number[]; winners: number[]; ranking: number[]; bySafeguard: boolean } {
  return {
    scores: [...outcome.scores],
    winners: [...outcome.winners],
    ranking: [...outcome.ranking],
    bySafeguard: outcome.bySafeguard,
  };
}

/** `{"game_id": "<id>", "seat": <n>, "outcome": <Outcome in proto3 JSON>}`. */
export function resultLine(gameId: string, seat: number, outcome: Outcome): string {
  return JSON.stringify({ game_id: gameId, seat, outcome: outcomeJson(outcome) });
}

#!/usr/bin/env node
/**
 * A bot that picks uniformly among the legal actions, for any game (Meduris,
 * Die Dolmengoetter).
 *
 *     node dist/examples/random_bot.js --server 127.0.0.1:50051 --game-id ID --token T
 */
import { type Choice, type LegalAction, rng, runCli, type StateView } from "../src/index";

/** Called whenever this seat must decide; returns one of `legalActions`. */
export function choose(legalActions: LegalAction[], _state: StateView): Choice {
  return legalActions[Math.floor(rng.next() * legalActions.length)];
}

if (require.main === module) {
  runCli(choose, "A bot that picks uniformly among the legal actions (any game).");
}

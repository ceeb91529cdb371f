#!/usr/bin/env node
/**
 * A bot that builds whenever it can and plays at random otherwise: it shows
 * how to read each game's actions (`action.meduris.kind`, `action.dolmen.kind`:
 * the name of the oneof field that is set) and the state.
 *
 * Meduris: a temple, else the cheapest hut, else at random.
 * Die Dolmengoetter: always leave a stone; put the highest dolmen on top of a
 * stack and the lowest under it; otherwise at random.
 *
 *     node dist/examples/builder_bot.js --server 127.0.0.1:50051 --game-id ID --token T
 *     druids-bot --strategy dist/examples/builder_bot.js --game-id ID --token T
 */
import { type Choice, type LegalAction, rng, runCli, type StateView } from "../src/index";

/** Higher is better; unlisted actions score 0. */
function score(legal: LegalAction, state: StateView): number {
  const meduris = legal.action?.meduris;
  if (meduris) {
    switch (meduris.kind) {
      case "buildTemple":
        return 100;
      case "buildHut": {
        const payment = meduris.buildHut?.payment;
        const cost = payment ? payment.wood + payment.wool + payment.copper + payment.stone : 0;
        return 80 - cost;
      }
      default:
        return 0;
    }
  }
  const dolmen = legal.action?.dolmen;
  if (dolmen) {
    switch (dolmen.kind) {
      case "placeStone":
        return 100;
      case "placeDolmen": {
        const value = dolmen.placeDolmen?.value ?? 0;
        return 50 + (state.decision?.dolmen?.onTop ? value : -value);
      }
      default:
        return 0;
    }
  }
  return 0;
}

/** The best-scoring legal action, ties broken at random. */
export function choose(legalActions: LegalAction[], state: StateView): Choice {
  let best: LegalAction[] = [];
  let bestScore = -Infinity;
  for (const legal of legalActions) {
    const s = score(legal, state);
    if (s > bestScore) {
      [best, bestScore] = [[legal], s];
    } else if (s === bestScore) {
      best.push(legal);
    }
  }
  return best[Math.floor(rng.next() * best.length)];
}

if (require.main === module) {
  runCli(choose, "A bot that builds whenever it can, at random otherwise (any game).");
}

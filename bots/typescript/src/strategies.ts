/**
 * Strategies by name, for the `druids-bot` command.
 *
 * Built in: `random` (uniform among the legal actions) and `first` (the first
 * legal action: deterministic). Any other name is loaded from a JavaScript
 * file, `path/to/bot.js` or `path/to/bot.js:function` (the function defaults
 * to `choose`), e.g. the compiled examples: `--strategy dist/examples/builder_bot.js`.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";

import type { Chooser } from "./seat";

/** A seeded pseudo-random number generator (mulberry32): numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The random source of the built-in strategies; replace it with {@link seededRandom} for reproducible bots. */
export const rng = { next: Math.random as () => number };

/** Uniformly among the legal actions. */
export const chooseRandom: Chooser = (legalActions) => legalActions[Math.floor(rng.next() * legalActions.length)];

/** The first legal action. */
export const chooseFirst: Chooser = (legalActions) => legalActions[0];

/** The built-in strategies. */
export const BUILTIN: Readonly<Record<string, Chooser>> = { random: chooseRandom, first: chooseFirst };

/**
 * The strategy named `spec` (see the module's comment).
 * @throws Error when it cannot be found.
 */
export function loadStrategy(spec: string): Chooser {
  const builtin = BUILTIN[spec];
  if (builtin) {
    return builtin;
  }
  const colon = spec.lastIndexOf(":");
  const [file, name] = colon > 0 ? [spec.slice(0, colon), spec.slice(colon + 1)] : [spec, "choose"];
  const path = resolve(file);
  if (!existsSync(path)) {
    throw new Error(`unknown strategy ${JSON.stringify(spec)}: ${Object.keys(BUILTIN).join(", ")} or FILE.js[:function]`);
  }
  // A CommonJS module (what tsc makes of the examples and of this kit).
  const module = require(path) as Record<string, unknown>;
  const chooser = module[name];
  if (typeof chooser !== "function") {
    throw new Error(`${file} exports no function ${name}()`);
  }
  return chooser as Chooser;
}

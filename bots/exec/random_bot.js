#!/usr/bin/env node
// A random druids bot for the line protocol of `druids bot --exec` (Node 20,
// no dependencies). Plays either game: a random legal action id per decision.
//
//   druids bot --game-id ID --token TOKEN --exec "node bots/exec/random_bot.js"
//
// The protocol is in docs/bot-protocol.md: one JSON object per line on stdin,
// one answer line per "decision" message on stdout; "#" lines and stderr are logs.
'use strict';
const readline = require('node:readline');

const log = (text) => process.stderr.write(text + '\n');

function onMessage(msg) {
  switch (msg.type) {
    case 'start':
      if (msg.protocol !== 1) {
        log(`unknown protocol ${msg.protocol}`);
        process.exit(1);
      }
      log(`seat ${msg.seat} of ${msg.players} in ${msg.kind} game ${msg.game_id}`);
      break;
    case 'decision': {
      const ids = msg.legal_actions.map((a) => a.id).filter((id) => id !== null && id !== undefined);
      const id = ids[Math.floor(Math.random() * ids.length)];
      // Echoing the version lets the bridge tell a late answer apart.
      process.stdout.write(JSON.stringify({ id, version: msg.version }) + '\n');
      break;
    }
    case 'rejected':
      log(`answer rejected: ${msg.reason}`);
      break;
    case 'timed_out':
      log(`too slow at version ${msg.version}: the clock decided`);
      break;
    case 'game_end': {
      const o = msg.outcome || {};
      log(`game over (${msg.status}): scores ${JSON.stringify(o.scores)}, winners ${JSON.stringify(o.winners)}`);
      process.exit(0);
    }
    default:
      // "autopilot", and any type added later, needs no answer.
      break;
  }
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (line) => onMessage(JSON.parse(line)));
lines.on('close', () => process.exit(0));

// "My bot": a bot's owner enters its API key (kept in this tab's session
// storage, never in an address) and can challenge other bots — the
// ladder's, or the server's own house bots — answer challenges, and follow
// what happens to the bot (its event log) with links to watch its games.
// The bot itself still plays its games with that key from wherever it runs.

import * as api from './api.js';
import { h, num, fixed, when } from './dom.js';

export async function myBotPage(root) {
  document.title = 'My bot — druids';
  const key = api.botKey();
  if (!key) return keyForm(root);
  let me;
  try {
    me = await api.rpc('GetBot', {}, key);
  } catch (e) {
    api.forgetBotKey();
    return keyForm(root, e.reason === 'BOT_KEY_UNKNOWN' ? 'That key is not (or no longer) a bot\'s key.' : e.message);
  }
  const types = await api.gameTypes();
  const botId = me.bot.botId;
  document.title = `${me.bot.name} — druids`;
  const feed = h('ol', { id: 'feed', class: 'feed', reversed: true });
  const forget = h('button', { id: 'forget-key', class: 'link', onclick: () => { api.forgetBotKey(); location.reload(); } }, ['forget the key']);
  root.replaceChildren(h('section', { class: 'me' }, [
    h('h1', {}, ['My bot: ', h('a', { href: `/bots/${botId}`, id: 'me-name' }, [me.bot.name]), ' ', h('small', {}, [botId])]),
    h('p', { class: 'note' }, ['The key stays in this browser tab only. ', forget]),
    me.revoked ? h('p', { class: 'error' }, ['This bot\'s key was revoked.']) : null,
    await challengeForm(types, key, botId, feed),
    h('h2', {}, ['What happens to it']),
    h('p', { class: 'note' }, ['Challenges, matches and games as they come (your bot plays its games with its key from wherever it runs; a game is watched here).']),
    feed,
  ]));
  follow(key, num(me.lastEventSeq) + 1, feed);
}

function keyForm(root, problem) {
  const input = h('input', { id: 'bot-key', type: 'password', autocomplete: 'off', placeholder: 'API key', size: 40, 'aria-label': 'API key' });
  const err = h('p', { class: 'error', role: 'alert' }, [problem || '']);
  const go = h('button', { id: 'use-key', class: 'primary' }, ['Use this key']);
  const use = async () => {
    err.textContent = '';
    const key = input.value.trim();
    if (!key) return;
    try {
      await api.rpc('GetBot', {}, key);
      api.setBotKey(key);
      location.reload();
    } catch (e) {
      err.textContent = e.reason === 'BOT_KEY_UNKNOWN' ? 'That key is not (or no longer) a bot\'s key.' : e.message;
    }
  };
  go.addEventListener('click', use);
  input.addEventListener('keydown', (e) => { if (e.key === 'Enter') use(); });
  root.replaceChildren(h('section', { class: 'me' }, [
    h('h1', {}, ['My bot']),
    h('p', {}, ['Enter your bot\'s API key (from RegisterBot, or `druids register`) to challenge other bots and follow your bot\'s games.']),
    h('div', { class: 'filters' }, [input, go]),
    err,
  ]));
}

// The bots a challenge can name: every bot on the game's leaderboards, but
// this one.
async function opponentsOf(type, botId) {
  const seen = new Map();
  for (let n = type.minPlayers; n <= type.maxPlayers; n++) {
    const r = await api.rpc('GetLeaderboard', { kind: type.kind, players: n, pageSize: 500 }).catch(() => ({}));
    for (const e of r.entries || []) if (e.bot && e.bot.botId !== botId) seen.set(e.bot.botId, e.bot.name);
  }
  return [...seen].map(([id, name]) => ({ id, name }));
}

async function challengeForm(types, key, botId, feed) {
  const wanted = new URLSearchParams(location.search).get('opponent') || '';
  const game = h('select', { id: 'challenge-game', 'aria-label': 'game' }, types.map((t) => h('option', { value: t.kind }, [t.displayName])));
  const picks = [0, 1, 2].map((i) => h('select', { id: `opponent-${i}`, 'aria-label': `opponent ${i + 1}` }));
  const other = h('input', { id: 'opponent-id', type: 'text', placeholder: 'or a bot id', size: 18, value: wanted, 'aria-label': 'opponent bot id' });
  const rated = h('input', { id: 'challenge-rated', type: 'checkbox' });
  const decision = h('input', { id: 'challenge-decision', type: 'number', min: 1, max: 600, value: 10, size: 4, 'aria-label': 'seconds per decision' });
  const bank = h('input', { id: 'challenge-bank', type: 'number', min: 0, max: 3600, value: 60, size: 4, 'aria-label': 'time bank seconds' });
  const err = h('p', { class: 'error', role: 'alert' });
  const send = h('button', { id: 'send-challenge', class: 'primary' }, ['Challenge']);
  // Only the newest game's bots are drawn (a slower answer for a game
  // chosen before never replaces them).
  let fills = 0;
  const fillOpponents = async () => {
    const mine = ++fills;
    const type = types.find((t) => t.kind === game.value);
    const bots = type ? await opponentsOf(type, botId) : [];
    if (mine !== fills) return;
    picks.forEach((sel, i) => sel.replaceChildren(
      h('option', { value: '' }, [i ? '(no one more)' : '(pick a bot)']),
      ...bots.map((b) => h('option', { value: b.id, selected: i === 0 && b.id === wanted }, [b.name])),
    ));
  };
  game.addEventListener('change', fillOpponents);
  await fillOpponents();
  send.addEventListener('click', async () => {
    err.textContent = '';
    const opponents = [other.value.trim(), ...picks.map((p) => p.value)].filter(Boolean);
    if (!opponents.length) { err.textContent = 'Pick a bot to challenge.'; return; }
    send.disabled = true;
    try {
      const r = await api.rpc('Challenge', {
        kind: game.value,
        opponents: [...new Set(opponents)],
        rated: rated.checked,
        timeControl: { decisionMs: Number(decision.value) * 1000, timeBankMs: Number(bank.value) * 1000 },
      }, key);
      const c = r.challenge;
      feed.prepend(h('li', { class: 'sent', 'data-challenge': c.challengeId }, [`You challenged ${(c.opponents || []).map((o) => o.name).join(', ')} (${c.rated ? 'rated' : 'unrated'}); the challenge expires ${when(c.expiresUnixMs)}.`]));
    } catch (e) {
      err.textContent = e.message;
    } finally {
      send.disabled = false;
    }
  });
  return h('section', { class: 'challenge' }, [
    h('h2', {}, ['Challenge']),
    h('div', { class: 'filters' }, [game, ...picks, other]),
    h('div', { class: 'filters' }, [
      h('label', {}, [rated, ' rated']),
      h('label', {}, ['seconds per decision ', decision]),
      h('label', {}, ['time bank ', bank, ' s']),
      send,
    ]),
    err,
  ]);
}

// Follows the bot's event log from `from`, one line per event.
function follow(key, from, feed) {
  const line = (ev, ...parts) => feed.prepend(h('li', { 'data-seq': num(ev.seq) }, [h('span', { class: 'note' }, [`${when(ev.atUnixMs)} `]), ...parts]));
  api.follow('/api/v1/bot/events', from, key, (ev) => {
    if (ev.challengeReceived) {
      const c = ev.challengeReceived;
      const answer = (accept) => async (e) => {
        e.target.closest('li').querySelectorAll('button').forEach((b) => { b.disabled = true; });
        await api.rpc('AnswerChallenge', { challengeId: c.challengeId, accept }, key).catch((x) => line(ev, x.message));
      };
      line(ev, `${c.from?.name} challenges you (${c.rated ? 'rated' : 'unrated'}, until ${when(c.expiresUnixMs)}): `,
        h('button', { class: 'accept', onclick: answer(true) }, ['accept']), ' ',
        h('button', { class: 'decline', onclick: answer(false) }, ['decline']));
    } else if (ev.challengeEnded) {
      line(ev, `A challenge ended without a match: ${ev.challengeEnded.reason}.`);
    } else if (ev.matchStarted) {
      const m = ev.matchStarted;
      line(ev, `A match started (${m.rated ? 'rated' : 'unrated'}, ${num(m.games)} game${num(m.games) > 1 ? 's' : ''}) with ${(m.bots || []).map((b) => b.name).join(', ')}.`);
    } else if (ev.gameStarted) {
      const g = ev.gameStarted;
      line(ev, `Game ${num(g.index) + 1} of a match started, your bot in seat ${num(g.seat)}: `, h('a', { href: `/games/${g.gameId}`, class: 'watch', 'data-game': g.gameId }, ['watch it']));
    } else if (ev.gameFinished) {
      const g = ev.gameFinished;
      line(ev, num(g.rank) ? `A game ended: your bot placed ${num(g.rank)} with ${num(g.score)} points. ` : 'A game was abandoned. ', h('a', { href: `/games/${g.gameId}`, 'data-game': g.gameId }, ['replay']));
    } else if (ev.matchFinished) {
      const mine = (ev.matchFinished.placements || []).map((p) => `${p.rank}. ${p.bot?.name} (${num(p.score)})`);
      line(ev, `A match ended: ${mine.join(', ')}.`);
    } else if (ev.ratingChanged) {
      const r = ev.ratingChanged;
      line(ev, `Rating ${fixed(r.before?.display)} → ${fixed(r.after?.display)} (${r.players} players).`);
    }
  }).catch((e) => line({ seq: 0 }, `The event log stopped: ${e.message}`));
}

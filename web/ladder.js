// The ladder's leaderboards, one per pool (a game and a player count): each
// bot's live rating (mu - 3 sigma), its maximum-likelihood strength with a
// 95 % interval, its rated matches, and a mark while its rating is
// provisional. Pools come from the server's descriptions of its games.

import * as api from './api.js';
import { h, num, fixed, when } from './dom.js';

// Fewer rated matches than this: the rating is provisional.
export const PROVISIONAL = 5;

export async function ladderPage(root, game, players) {
  const types = await api.gameTypes();
  const type = game === undefined ? types[0] : types.find((t) => t.name === game);
  if (!types.length) throw new Error('this server hosts no game');
  const n = players === undefined ? type.minPlayers : Number(players);
  // A game this server does not host, or a player count it is not played
  // with, has no leaderboard: no such page, rather than another pool's.
  if (!type || n < type.minPlayers || n > type.maxPlayers) throw Object.assign(new Error(''), { notFound: true });
  document.title = `${type.displayName}, ${n} players: leaderboard — druids`;
  const pools = types.flatMap((t) => Array.from({ length: t.maxPlayers - t.minPlayers + 1 }, (_, i) => [t, t.minPlayers + i]));
  const nav = h('nav', { class: 'pools', 'aria-label': 'pools' }, pools.map(([t, k]) => h('a', {
    href: `/ladder/${t.name}/${k}`,
    class: t === type && k === n ? 'current' : '',
    'aria-current': t === type && k === n ? 'page' : null,
  }, [`${t.displayName} · ${k}`])));
  const err = h('p', { class: 'error', role: 'alert' });
  const tbody = h('tbody');
  const fitted = h('p', { class: 'note', id: 'fitted' });
  root.replaceChildren(h('section', { class: 'ladder' }, [
    h('h1', {}, ['Leaderboard ', h('small', {}, [`${type.displayName}, ${n} players`])]),
    nav,
    h('p', { class: 'note' }, [`Rating: the live Weng-Lin rating, mu − 3 sigma (a skill the bot almost surely has). Strength: the periodic maximum-likelihood fit over all rated matches of the pool, 1500 the pool's average, with its 95 % interval. A "provisional" rating has fewer than ${PROVISIONAL} matches behind it.`]),
    err,
    h('div', { class: 'table-wrap' }, [h('table', { id: 'leaderboard' }, [
      h('thead', {}, [h('tr', {}, ['#', 'bot', 'rating', 'mu ± sigma', 'strength (95 %)', 'matches'].map((t) => h('th', {}, [t])))]),
      tbody,
    ])]),
    fitted,
  ]));
  try {
    const rows = [];
    let pageToken = '';
    for (let restarts = 0; ;) {
      let r;
      try {
        r = await api.rpc('GetLeaderboard', { kind: type.kind, players: n, pageSize: 500, pageToken });
      } catch (e) {
        // The board changed between two pages (a result was rated): read it again.
        if (e.reason !== 'STALE_PAGE_TOKEN' || restarts === 3) throw e;
        restarts += 1;
        rows.length = 0;
        pageToken = '';
        continue;
      }
      rows.push(...(r.entries || []));
      fitted.textContent = num(r.fittedUnixMs) ? `Strengths fitted ${when(r.fittedUnixMs)}.` : 'No fit yet: strengths appear after the first periodic fit.';
      pageToken = r.nextPageToken || '';
      if (!pageToken || rows.length >= 2000) break;
    }
    tbody.replaceChildren(...rows.map((e) => leaderboardRow(e)));
    if (!rows.length) tbody.append(h('tr', {}, [h('td', { colspan: 6 }, ['no rated matches in this pool yet'])]));
  } catch (e) {
    if (e.reason === 'ARENA_UNAVAILABLE') throw e;
    err.textContent = e.message;
  }
}

function leaderboardRow(e) {
  const provisional = num(e.matches) < PROVISIONAL;
  return h('tr', { 'data-bot': e.bot?.botId }, [
    h('td', {}, [String(e.rank)]),
    h('td', {}, [h('a', { href: `/bots/${e.bot?.botId}` }, [e.bot?.name || e.bot?.botId])]),
    h('td', { class: 'rating' }, [fixed(e.rating?.display), provisional ? h('span', { class: 'provisional', title: `fewer than ${PROVISIONAL} rated matches` }, [' provisional']) : null]),
    h('td', {}, [`${fixed(e.rating?.mu)} ± ${fixed(e.rating?.sigma)}`]),
    h('td', {}, [e.fit ? `${fixed(e.fit.strength, 0)} [${fixed(e.fit.low, 0)}, ${fixed(e.fit.high, 0)}]` : '—']),
    h('td', {}, [String(num(e.matches))]),
  ]);
}

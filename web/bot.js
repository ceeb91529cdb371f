// A bot's profile: who it is, its rating in every pool it played (with a
// chart of how the rating moved, match by match), its latest matches, and
// its games with their results and links to their replays.

import * as api from './api.js';
import { h, s, label, num, fixed, when } from './dom.js';
import { resultCells, gamesByMatch } from './list.js';
import { PROVISIONAL } from './ladder.js';

// Points of a rating chart read at most.
const MAX_POINTS = 2000;

export async function botPage(root, botId) {
  const bot = await api.rpc('GetBot', { botId });
  const types = await api.gameTypes();
  const name = bot.bot?.name || botId;
  document.title = `${name} — druids`;
  const typeOf = (kind) => types.find((t) => t.kind === kind);
  const pools = h('div', { class: 'pools-ratings' });
  const games = h('tbody');
  const matchesEl = h('div', {}, [matchesTable(bot, botId, new Map())]);
  root.replaceChildren(h('section', { class: 'bot' }, [
    h('h1', {}, [name, ' ', h('small', {}, [`bot ${botId}`])]),
    bot.revoked ? h('p', { class: 'error' }, ['This bot\'s key was revoked: it no longer plays, and is left off the leaderboards.']) : null,
    bot.description ? h('p', { class: 'description' }, [bot.description]) : null,
    h('p', { class: 'note' }, [`Registered ${when(bot.registeredUnixMs)}. `, h('a', { href: `/me?opponent=${encodeURIComponent(botId)}` }, ['Challenge it with your bot'])]),
    h('h2', {}, ['Ratings']),
    pools,
    h('h2', {}, ['Latest matches']),
    matchesEl,
    h('h2', {}, ['Games']),
    h('div', { class: 'table-wrap' }, [h('table', { id: 'bot-games' }, [
      h('thead', {}, [h('tr', {}, ['game', 'players', 'status', 'winner', 'scores'].map((t) => h('th', {}, [t])))]),
      games,
    ])]),
  ]));
  if (!bot.ratings?.length) pools.append(h('p', {}, ['No rated matches yet.']));
  for (const r of bot.ratings || []) {
    const type = typeOf(r.kind);
    const chart = h('div', { class: 'chart' }, ['loading…']);
    pools.append(h('section', { class: 'pool-rating', 'data-pool': `${r.kind}:${r.players}` }, [
      h('h3', {}, [h('a', { href: `/ladder/${type?.name}/${r.players}` }, [`${type?.displayName || r.kind}, ${r.players} players`])]),
      h('p', {}, [
        `rating ${fixed(r.rating?.display)} (mu ${fixed(r.rating?.mu)} ± ${fixed(r.rating?.sigma)})`,
        num(r.matches) < PROVISIONAL ? h('span', { class: 'provisional' }, [' provisional']) : null,
        r.fit ? ` · strength ${fixed(r.fit.strength, 0)} [${fixed(r.fit.low, 0)}, ${fixed(r.fit.high, 0)}]` : '',
        ` · ${num(r.matches)} rated matches`,
      ]),
      chart,
    ]));
    history(botId, r).then((points) => chart.replaceChildren(ratingChart(points)), (e) => { chart.textContent = e.message; });
  }
  const listed = await api.rpc('ListGames', { botId, pageSize: 20 });
  matchesEl.replaceChildren(matchesTable(bot, botId, gamesByMatch(listed.games)));
  games.replaceChildren(...(listed.games || []).map((g) => {
    const [winner, scores] = resultCells(g);
    return h('tr', { 'data-game': g.gameId }, [
      h('td', {}, [h('a', { href: `/games/${g.gameId}` }, [`${typeOf(g.kind)?.displayName || g.kind}${g.rated ? ', rated' : ''}`]), h('br'), h('small', { class: 'note' }, [when(g.createdUnixMs)])]),
      h('td', {}, [(g.seats || []).map((st) => st.name).join(', ')]),
      h('td', {}, [g.status === 'GAME_STATUS_RUNNING' ? 'live' : g.status.replace('GAME_STATUS_', '').toLowerCase()]),
      h('td', {}, [winner]),
      h('td', {}, [scores]),
    ]);
  }));
  if (!listed.games?.length) games.append(h('tr', {}, [h('td', { colspan: 5 }, ['no games yet'])]));
}

// Every point of the bot's rating history in one pool, page by page.
async function history(botId, pool) {
  const points = [];
  let pageToken = '';
  do {
    const r = await api.rpc('GetRatingHistory', { botId, kind: pool.kind, players: pool.players, pageSize: 500, pageToken });
    points.push(...(r.points || []));
    pageToken = r.nextPageToken || '';
  } while (pageToken && points.length < MAX_POINTS);
  return points;
}

// The live rating after each rated match: mu with its band of ± 3 sigma,
// and the rating shown (mu - 3 sigma), from the first match on.
export function ratingChart(points) {
  const W = 600;
  const H = 220;
  const pad = { l: 44, r: 12, t: 12, b: 28 };
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'rating-chart', role: 'img', 'aria-label': `rating over ${points.length} rated matches` });
  if (!points.length) return h('p', {}, ['no rated match yet']);
  const series = [points[0].before, ...points.map((p) => p.after)];
  const lo = Math.min(...series.map((r) => r.mu - 3 * r.sigma));
  const hi = Math.max(...series.map((r) => r.mu + 3 * r.sigma));
  const x = (i) => pad.l + ((W - pad.l - pad.r) * i) / Math.max(1, series.length - 1);
  const y = (v) => pad.t + ((H - pad.t - pad.b) * (hi - v)) / Math.max(1e-9, hi - lo);
  const line = (f) => series.map((r, i) => `${i ? 'L' : 'M'} ${x(i).toFixed(1)} ${y(f(r)).toFixed(1)}`).join(' ');
  const band = `${line((r) => r.mu + 3 * r.sigma)} ${series.map((r, i) => `L ${x(series.length - 1 - i).toFixed(1)} ${y(series[series.length - 1 - i].mu - 3 * series[series.length - 1 - i].sigma).toFixed(1)}`).join(' ')} Z`;
  svg.append(s('path', { d: band, fill: '#2b6cb0', opacity: 0.15 }));
  svg.append(s('path', { d: line((r) => r.mu), stroke: '#2b6cb0', 'stroke-width': 2, fill: 'none' }, [s('title', {}, ['mu'])]));
  svg.append(s('path', { d: line((r) => r.display), stroke: '#b0402b', 'stroke-width': 2.5, fill: 'none' }, [s('title', {}, ['rating (mu − 3 sigma)'])]));
  for (const v of [lo, (lo + hi) / 2, hi]) svg.append(label(pad.l - 6, y(v), fixed(v), { 'text-anchor': 'end', 'font-size': 12 }));
  svg.append(label(pad.l, H - 10, 'start', { 'text-anchor': 'start', 'font-size': 12 }));
  svg.append(label(W - pad.r, H - 10, `after ${points.length} matches, ${when(points[points.length - 1].atUnixMs)}`, { 'text-anchor': 'end', 'font-size': 12 }));
  return h('div', {}, [svg, h('p', { class: 'note' }, ['Red: the rating shown (mu − 3 sigma); blue: mu, with its band of ± 3 sigma.'])]);
}

// The bot's latest matches: its place and score in each, and the replays
// of their games among `replays` (match id -> game ids).
function matchesTable(bot, botId, replays) {
  const rows = (bot.recentMatches || []).map((m) => {
    const mine = (m.placements || []).find((p) => p.bot?.botId === botId);
    const others = (m.placements || []).filter((p) => p !== mine).map((p) => h('a', { href: `/bots/${p.bot?.botId}` }, [p.bot?.name]));
    const games = (replays.get(m.matchId) || []).map((id, i, all) => h('a', { href: `/games/${id}`, class: 'replay' }, [all.length > 1 ? `replay ${i + 1}` : 'replay']));
    return h('tr', { 'data-match': m.matchId }, [
      h('td', {}, [mine ? `${ordinal(mine.rank)} of ${m.placements.length}` : '']),
      h('td', {}, [mine ? String(num(mine.score)) : '']),
      h('td', {}, others.flatMap((a, i) => (i ? [', ', a] : [a]))),
      h('td', {}, games.flatMap((a, i) => (i ? [', ', a] : [a]))),
    ]);
  });
  if (!rows.length) return h('p', {}, ['No match yet.']);
  return h('div', { class: 'table-wrap' }, [h('table', { id: 'bot-matches' }, [
    h('thead', {}, [h('tr', {}, ['place', 'score', 'against', 'games'].map((t) => h('th', {}, [t])))]),
    h('tbody', {}, rows),
  ])]);
}

const ordinal = (n) => `${n}${['th', 'st', 'nd', 'rd'][n % 100 > 10 && n % 100 < 14 ? 0 : Math.min(n % 10, 4) % 4] || 'th'}`;

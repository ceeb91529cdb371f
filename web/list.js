// The games list: live and finished games with their winners and scores,
// filtered by game, status, who plays (the ladder's bots or others) and
// rating, paged with ListGames' page_size/page_token; and the form that
// starts a game against the built-in bots. Games, player counts and
// strategies come from the server's descriptions (ListGameTypes).

import * as api from './api.js';
import { h, num, enumWords, when, seatName } from './dom.js';

// Games per page; `?page_size=N` in the address asks for another size.
const PAGE = Math.min(1000, Math.max(1, Number(new URLSearchParams(location.search).get('page_size')) || 20));
const STATUSES = { '': 'any status', GAME_STATUS_RUNNING: 'live', GAME_STATUS_FINISHED: 'finished', GAME_STATUS_WAITING_FOR_PLAYERS: 'waiting for players', GAME_STATUS_ABANDONED: 'abandoned' };
const WHO = { '': 'everyone', arena: 'bots on the ladder', other: 'other games' };
const RATED = { '': 'rated or not', rated: 'rated only', unrated: 'unrated only' };

const select = (id, label, options, value) => h('label', { class: 'field' }, [
  h('span', { class: 'sr' }, [label]),
  h('select', { id, 'aria-label': label }, Object.entries(options).map(([v, t]) => h('option', { value: v, selected: v === value }, [t]))),
]);
const valueOf = (wrap) => wrap.querySelector('select').value;

// The result of a finished game in words: winners, then every score.
export function resultCells(g) {
  if (g.status === 'GAME_STATUS_ABANDONED') return ['abandoned', ''];
  const o = g.outcome;
  if (!o) return [g.status === 'GAME_STATUS_FINISHED' ? 'finished' : '', ''];
  const name = (seat) => seatName(g, seat);
  const winners = (o.winners || []).map((w) => name(num(w)));
  const resigned = (o.resigned || []).map((s) => name(num(s)));
  return [
    h('strong', { class: 'winner' }, [winners.join(' and ') || '—']),
    [(o.scores || []).map((sc, i) => `${name(i)} ${sc}`).join(' · '), resigned.length ? ` (${resigned.join(' and ')} resigned)` : ''].join(''),
  ];
}

// The ids of `games` by the arena match they belong to, oldest first.
export function gamesByMatch(games) {
  const out = new Map();
  for (const g of [...(games || [])].sort((a, b) => num(a.createdUnixMs) - num(b.createdUnixMs))) {
    if (g.matchId) out.set(g.matchId, [...(out.get(g.matchId) || []), g.gameId]);
  }
  return out;
}

export async function listPage(root) {
  document.title = 'Games — druids';
  const types = await api.gameTypes();
  const byKind = Object.fromEntries(types.map((t) => [t.kind, t]));
  const params = new URLSearchParams(location.search);
  const kind = select('kind', 'game', { '': 'all games', ...Object.fromEntries(types.map((t) => [t.kind, t.displayName])) }, params.get('kind') || '');
  const status = select('status', 'status', STATUSES, params.get('status') || '');
  const who = select('who', 'players', WHO, params.get('who') || '');
  const rated = select('rated', 'rated', RATED, params.get('rated') || '');
  const tbody = h('tbody');
  const more = h('button', { id: 'next-page', hidden: true }, ['next page']);
  const first = h('button', { id: 'first-page', hidden: true }, ['first page']);
  const err = h('p', { class: 'error', role: 'alert' });
  let token = '';
  // Loads started so far: only the newest one's answer is drawn, so a slow
  // answer to filters changed since never replaces the rows of the new ones.
  // `answers` counts the answers that arrived, drawn or not.
  let loads = 0;
  let answers = 0;
  // The filters set, as the page's query string says them.
  const query = () => {
    const q = new URLSearchParams();
    if (PAGE !== 20) q.set('page_size', PAGE);
    for (const [name, wrap] of [['kind', kind], ['status', status], ['who', who], ['rated', rated]]) if (valueOf(wrap)) q.set(name, valueOf(wrap));
    return q.toString();
  };
  const load = async (pageToken) => {
    err.textContent = '';
    const asked = query();
    const mine = ++loads;
    try {
      // A game the contract has no enum value for is named by its number.
      const k = valueOf(kind);
      const body = { kind: /^\d+$/.test(k) ? Number(k) : k || 'GAME_KIND_UNSPECIFIED', status: valueOf(status) || 'GAME_STATUS_UNSPECIFIED', pageSize: PAGE, pageToken };
      if (valueOf(who)) body.arena = valueOf(who) === 'arena';
      if (valueOf(rated)) body.rated = valueOf(rated) === 'rated';
      const r = await api.rpc('ListGames', body);
      if (mine === loads) {
        token = r.nextPageToken || '';
        tbody.replaceChildren(...(r.games || []).map((g) => gameRow(g, byKind)));
        if (!r.games?.length) tbody.append(h('tr', {}, [h('td', { colspan: 5 }, ['no games'])]));
        more.hidden = !token;
        first.hidden = !pageToken;
        // Which filters the rows shown answer.
        document.body.dataset.listQuery = asked;
      }
    } catch (e) { if (mine === loads) err.textContent = e.message; }
    document.body.dataset.listAnswers = String(++answers);
  };
  const reload = () => {
    const q = query();
    history.replaceState(null, '', `/${q ? `?${q}` : ''}`);
    load('');
  };
  for (const f of [kind, status, who, rated]) f.addEventListener('change', reload);
  more.addEventListener('click', () => load(token));
  first.addEventListener('click', () => load(''));
  root.replaceChildren(
    practiceForm(types),
    h('section', { class: 'list' }, [
      h('h2', {}, ['Games']),
      h('div', { class: 'filters' }, [kind, status, who, rated, h('button', { onclick: () => load('') }, ['refresh'])]),
      err,
      h('div', { class: 'table-wrap' }, [h('table', { id: 'games' }, [
        h('thead', {}, [h('tr', {}, ['game', 'players', 'status', 'winner', 'scores'].map((t) => h('th', {}, [t])))]),
        tbody,
      ])]),
      h('p', {}, [first, ' ', more]),
    ]),
  );
  await load('');
}

function gameRow(g, byKind) {
  const title = byKind[g.kind]?.displayName || enumWords(g.kind, 'GAME_KIND_');
  const over = g.status === 'GAME_STATUS_FINISHED' || g.status === 'GAME_STATUS_ABANDONED';
  const [winner, scores] = resultCells(g);
  return h('tr', { 'data-game': g.gameId }, [
    h('td', {}, [
      h('a', { href: `/games/${g.gameId}`, title: `game ${g.gameId}` }, [`${title}, ${g.players} players`]),
      h('br'),
      h('small', { class: 'note' }, [over ? 'replay' : 'watch', ' · ', when(g.createdUnixMs), g.rated ? ' · rated' : '']),
    ]),
    h('td', {}, [(g.seats || []).map((_, i) => seatName(g, i)).join(', ')]),
    h('td', { class: 'status-cell' }, [STATUSES[g.status] || enumWords(g.status, 'GAME_STATUS_')]),
    h('td', {}, [winner]),
    h('td', { class: 'scores' }, [scores]),
  ]);
}

// "Play against bots": POST /web/v1/practice, then the game page with the
// seat's token in the fragment (never in a query string).
function practiceForm(types) {
  const kindSel = h('select', { id: 'practice-kind', 'aria-label': 'game' }, types.map((t) => h('option', { value: t.name }, [t.displayName])));
  const players = h('select', { id: 'practice-players', 'aria-label': 'players' });
  const strategy = h('select', { id: 'practice-strategy', 'aria-label': 'bots' });
  const fillFor = () => {
    const t = types.find((x) => x.name === kindSel.value) || types[0];
    if (!t) return;
    const was = players.value;
    players.replaceChildren(...Array.from({ length: t.maxPlayers - t.minPlayers + 1 }, (_, i) => t.minPlayers + i)
      .map((n) => h('option', { value: n, selected: String(n) === was }, [`${n} players`])));
    const wasS = strategy.value || 'greedy';
    strategy.replaceChildren(...(t.strategies || []).map((st) => h('option', { value: st.name, title: st.description, selected: st.name === wasS }, [`${st.name} bots`])));
  };
  kindSel.addEventListener('change', fillFor);
  fillFor();
  const delay = h('select', { id: 'practice-delay', 'aria-label': 'bot speed' }, [[600, 'slow bots'], [250, 'bots at a glance'], [0, 'instant bots']].map(([v, t]) => h('option', { value: v, selected: v === 250 }, [t])));
  const seed = h('input', { id: 'practice-seed', type: 'text', inputmode: 'numeric', placeholder: 'seed (optional)', size: 12, 'aria-label': 'seed' });
  const err = h('p', { class: 'error', role: 'alert' });
  const go = h('button', { id: 'practice', class: 'primary' }, ['Play against bots']);
  go.addEventListener('click', async () => {
    err.textContent = '';
    go.disabled = true;
    try {
      const body = { kind: kindSel.value, players: Number(players.value), strategy: strategy.value, botDelayMs: Number(delay.value) };
      if (seed.value.trim()) body.seed = seed.value.trim();
      const r = await api.practice(body);
      location.assign(`/games/${r.gameId}#token=${r.token}`);
    } catch (e) {
      err.textContent = e.message;
      go.disabled = false;
    }
  });
  return h('section', { class: 'practice' }, [
    h('h2', {}, ['Play']),
    h('div', { class: 'filters' }, [kindSel, players, strategy, delay, seed, go]),
    err,
  ]);
}

// The games list: live and finished games with filters by kind and status,
// paged with ListGames' page_size/page_token, and the form that starts a game
// against the built-in bots.

import * as api from './api.js';
import { h, num } from './svg.js';

// Games per page; `?page_size=N` in the address asks for another size.
const PAGE = Math.min(1000, Math.max(1, Number(new URLSearchParams(location.search).get('page_size')) || 20));
const KINDS = { '': 'all games', GAME_KIND_MEDURIS: 'Meduris', GAME_KIND_DOLMEN: 'Die Dolmengötter' };
const STATUSES = { '': 'any status', GAME_STATUS_WAITING_FOR_PLAYERS: 'waiting', GAME_STATUS_RUNNING: 'live', GAME_STATUS_FINISHED: 'finished', GAME_STATUS_ABANDONED: 'abandoned' };

const select = (id, options, value) => h('select', { id, 'aria-label': id }, Object.entries(options).map(([v, t]) => h('option', { value: v, selected: v === value }, [t])));

export async function listPage(root) {
  const params = new URLSearchParams(location.search);
  const kind = select('kind', KINDS, params.get('kind') || '');
  const status = select('status', STATUSES, params.get('status') || '');
  const tbody = h('tbody');
  const more = h('button', { id: 'next-page', hidden: true }, ['next page']);
  const first = h('button', { id: 'first-page', hidden: true }, ['first page']);
  const err = h('p', { class: 'error', role: 'alert' });
  let token = '';
  const load = async (pageToken) => {
    err.textContent = '';
    try {
      const r = await api.rpc('ListGames', { kind: kind.value || 'GAME_KIND_UNSPECIFIED', status: status.value || 'GAME_STATUS_UNSPECIFIED', pageSize: PAGE, pageToken });
      token = r.nextPageToken || '';
      tbody.replaceChildren(...(r.games || []).map((g) => h('tr', { 'data-game': g.gameId }, [
        h('td', {}, [h('a', { href: `/games/${g.gameId}` }, [g.gameId])]),
        h('td', {}, [KINDS[g.kind] || g.kind]),
        h('td', {}, [STATUSES[g.status] || g.status]),
        h('td', {}, [(g.seats || []).map((st) => st.name || `seat ${st.seat}`).join(', ')]),
        h('td', {}, [String(num(g.version))]),
        h('td', {}, [new Date(num(g.createdUnixMs)).toLocaleString()]),
      ])));
      if (!r.games?.length) tbody.append(h('tr', {}, [h('td', { colspan: 6 }, ['no games'])]));
      more.hidden = !token;
      first.hidden = !pageToken;
    } catch (e) { err.textContent = e.message; }
  };
  const reload = () => {
    const q = new URLSearchParams();
    if (PAGE !== 20) q.set('page_size', PAGE);
    if (kind.value) q.set('kind', kind.value);
    if (status.value) q.set('status', status.value);
    history.replaceState(null, '', `/${q.toString() ? `?${q}` : ''}`);
    load('');
  };
  kind.addEventListener('change', reload);
  status.addEventListener('change', reload);
  more.addEventListener('click', () => load(token));
  first.addEventListener('click', () => load(''));
  root.replaceChildren(
    practiceForm(),
    h('section', { class: 'list' }, [
      h('h2', {}, ['Games']),
      h('div', { class: 'filters' }, [kind, ' ', status, ' ', h('button', { onclick: () => load('') }, ['refresh'])]),
      err,
      h('div', { class: 'table-wrap' }, [h('table', { id: 'games' }, [
        h('thead', {}, [h('tr', {}, ['game', 'kind', 'status', 'seats', 'version', 'created'].map((t) => h('th', {}, [t])))]),
        tbody,
      ])]),
      h('p', {}, [first, ' ', more]),
    ]),
  );
  await load('');
}

// "Play against bots": POST /web/v1/practice, then the game page with the
// seat's token in the fragment (never in a query string).
function practiceForm() {
  const kind = select('practice-kind', { meduris: 'Meduris', dolmen: 'Die Dolmengötter' }, 'meduris');
  const players = h('select', { id: 'practice-players', 'aria-label': 'players' }, [2, 3, 4, 5].map((n) => h('option', { value: n }, [`${n} players`])));
  const strategy = select('practice-strategy', { random: 'random bots', greedy: 'greedy bots', mcts: 'MCTS bots' }, 'greedy');
  const delay = h('select', { id: 'practice-delay', 'aria-label': 'bot speed' }, [[600, 'slow bots'], [250, 'bots at a glance'], [0, 'instant bots']].map(([v, t]) => h('option', { value: v, selected: v === 250 }, [t])));
  const seed = h('input', { id: 'practice-seed', type: 'text', inputmode: 'numeric', placeholder: 'seed (optional)', size: 12 });
  const err = h('p', { class: 'error', role: 'alert' });
  const go = h('button', { id: 'practice', class: 'primary' }, ['Play against bots']);
  go.addEventListener('click', async () => {
    err.textContent = '';
    go.disabled = true;
    try {
      const body = { kind: kind.value, players: Number(players.value), strategy: strategy.value, botDelayMs: Number(delay.value) };
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
    h('div', { class: 'filters' }, [kind, ' ', players, ' ', strategy, ' ', delay, ' ', seed, ' ', go]),
    err,
  ]);
}

// The tournaments the server runs: a list, newest first, and one
// tournament's page — its standings with 95 % intervals, its rounds' results
// and the games being played now — kept current by following its event log.

import * as api from './api.js';
import { h, num, fixed, when, enumWords } from './dom.js';
import { resultCells, gamesByMatch } from './list.js';

const name = (ref) => (ref ? h('a', { href: `/bots/${ref.botId}` }, [ref.name || ref.botId]) : '—');

export async function tournamentsPage(root) {
  document.title = 'Tournaments — druids';
  const types = await api.gameTypes();
  const typeName = (kind) => types.find((t) => t.kind === kind)?.displayName || enumWords(kind, 'GAME_KIND_');
  const r = await api.rpc('ListTournaments', { pageSize: 100 });
  const rows = (r.tournaments || []).map((t) => h('tr', { 'data-tournament': t.tournamentId }, [
    h('td', {}, [h('a', { href: `/tournaments/${t.tournamentId}` }, [t.name])]),
    h('td', {}, [`${typeName(t.kind)}, ${t.players} players`]),
    h('td', {}, [enumWords(t.status, 'TOURNAMENT_STATUS_')]),
    h('td', {}, [num(t.roundsTotal) ? `${num(t.roundsStarted)} of ${num(t.roundsTotal)}` : '—']),
    h('td', {}, [String(num(t.entrants))]),
    h('td', {}, [name(t.leader)]),
  ]));
  root.replaceChildren(h('section', {}, [
    h('h1', {}, ['Tournaments']),
    rows.length ? h('div', { class: 'table-wrap' }, [h('table', { id: 'tournaments' }, [
      h('thead', {}, [h('tr', {}, ['name', 'game', 'status', 'rounds', 'entrants', 'leading'].map((x) => h('th', {}, [x])))]),
      h('tbody', {}, rows),
    ])]) : h('p', {}, ['No tournament on this server yet (bots create them with CreateTournament, or `druids arena-tournament create`).']),
  ]));
}

export async function tournamentPage(root, tournamentId) {
  const types = await api.gameTypes();
  const standingsBody = h('tbody');
  const head = h('div');
  const live = h('tbody');
  const results = h('ul', { class: 'results' });
  root.replaceChildren(h('section', { class: 'tournament' }, [
    head,
    h('h2', {}, ['Standings']),
    h('div', { class: 'table-wrap' }, [h('table', { id: 'standings' }, [
      h('thead', {}, [h('tr', {}, ['#', 'bot', 'points', 'matches', 'strength (95 %)'].map((x) => h('th', {}, [x])))]),
      standingsBody,
    ])]),
    h('h2', {}, ['Games being played']),
    h('div', { class: 'table-wrap' }, [h('table', { id: 'live-games' }, [
      h('thead', {}, [h('tr', {}, ['game', 'players', 'status', 'winner', 'scores'].map((x) => h('th', {}, [x])))]),
      live,
    ])]),
    h('h2', {}, ['Results']),
    results,
  ]));
  const refresh = async () => {
    const t = (await api.rpc('GetTournament', { tournamentId })).tournament;
    const type = types.find((x) => x.kind === t.kind);
    document.title = `${t.name} — druids`;
    const format = Object.keys(t.settings || {}).find((k) => ['roundRobin', 'swiss', 'gauntlet'].includes(k));
    head.replaceChildren(
      h('h1', {}, [t.name, ' ', h('small', {}, [`${type?.displayName || t.kind}, ${t.players} players`])]),
      h('p', { id: 'tournament-status' }, [
        `${enumWords(t.status, 'TOURNAMENT_STATUS_')}`,
        num(t.roundsTotal) ? ` · round ${num(t.roundsStarted)} of ${num(t.roundsTotal)}` : '',
        format ? ` · ${enumWords(format.replace(/([A-Z])/g, '_$1'), '')}` : '',
        t.settings?.rated ? ' · rated' : '',
        num(t.entryClosesUnixMs) && t.status === 'TOURNAMENT_STATUS_OPEN' ? ` · entry closes ${when(t.entryClosesUnixMs)}` : '',
        ` · created ${when(t.createdUnixMs)}`,
      ]),
      h('p', { class: 'note' }, ['Entrants: ', ...(t.entrants || []).flatMap((b, i) => (i ? [', ', name(b)] : [name(b)]))]),
    );
    standingsBody.replaceChildren(...(t.standings || []).map((st) => h('tr', { 'data-bot': st.bot?.botId }, [
      h('td', {}, [String(st.rank)]),
      h('td', {}, [name(st.bot)]),
      h('td', {}, [fixed(st.points, 1)]),
      h('td', {}, [String(num(st.matches))]),
      h('td', {}, [st.strength ? `${fixed(st.strength.strength, 0)} [${fixed(st.strength.low, 0)}, ${fixed(st.strength.high, 0)}]` : '—']),
    ])));
    // Each result with its games' replays (a match may have several games).
    const done = t.results?.length ? await api.rpc('ListGames', { tournamentId, status: 'GAME_STATUS_FINISHED', pageSize: 100 }) : {};
    const replays = gamesByMatch(done.games);
    results.replaceChildren(...[...(t.results || [])].reverse().map((m) => h('li', { 'data-match': m.matchId }, [
      ...(m.placements || []).flatMap((p, i) => [i ? ' · ' : '', `${p.rank}. `, name(p.bot), ` ${num(p.score)}`]),
      ...(replays.get(m.matchId) || []).flatMap((id, i, all) => [i ? ', ' : ' — ', h('a', { href: `/games/${id}`, class: 'replay' }, [all.length > 1 ? `replay ${i + 1}` : 'replay'])]),
    ])));
    if (!t.results?.length) results.append(h('li', {}, ['no result yet']));
    const games = await api.rpc('ListGames', { tournamentId, status: 'GAME_STATUS_RUNNING', pageSize: 50 });
    live.replaceChildren(...(games.games || []).map((g) => {
      const [winner, scores] = resultCells(g);
      return h('tr', { 'data-game': g.gameId }, [
        h('td', {}, [h('a', { href: `/games/${g.gameId}` }, ['watch'])]),
        h('td', {}, [(g.seats || []).map((st) => st.name).join(', ')]),
        h('td', {}, ['live']),
        h('td', {}, [winner]),
        h('td', {}, [scores]),
      ]);
    }));
    if (!games.games?.length) live.append(h('tr', {}, [h('td', { colspan: 5 }, ['none right now'])]));
    return t;
  };
  const t = await refresh();
  if (['TOURNAMENT_STATUS_FINISHED', 'TOURNAMENT_STATUS_CANCELLED'].includes(t.status)) return;
  // Each event of the tournament (a join, a round, a result) refreshes the page.
  let busy = null;
  let again = false;
  const later = () => {
    if (busy) { again = true; return; }
    busy = refresh().catch(() => {}).finally(() => { busy = null; if (again) { again = false; later(); } });
  };
  await api.follow(`/api/v1/tournaments/${encodeURIComponent(tournamentId)}/events`, 1, null, later, {
    isLast: (e) => Boolean(e.finished || e.cancelled),
  });
  later();
}

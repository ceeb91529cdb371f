// The game page: the board, the seats, the events in words, and either
//  - live play: the state follows the event stream (SSE) event by event, and a
//    seat (token in the fragment) gets its legal actions as clickable targets
//    on the board and as a list; or
//  - a replay, for finished games: every event from seq 1 is fetched once,
//    and each step shows the state after that event. The states are computed
//    in the page, not fetched: the final state (GetState) tells the board's
//    geometry and final counts, the game module rebuilds the start from it and
//    the events (`initial`), and each event is applied in turn (`apply`), the
//    same code that keeps the live view current.
//
// Nothing here reads a game-specific field: that is meduris.js and dolmen.js.

import * as api from './api.js';
import * as meduris from './meduris.js';
import * as dolmen from './dolmen.js';
import { h, num, oneof, words } from './svg.js';

const GAMES = { GAME_KIND_MEDURIS: meduris, GAME_KIND_DOLMEN: dolmen };
const BODIES = ['snapshot', 'seatJoined', 'gameStarted', 'decisionNeeded', 'gameFinished', 'timedOut', 'autopilotChanged', 'gameAbandoned', 'meduris', 'dolmen'];
const OVER = ['GAME_STATUS_FINISHED', 'GAME_STATUS_ABANDONED'];
const LOG_LINES = 300;
// Events before the current state shown in a live page's log.
const HISTORY = 30;

// Applies any event to a state (in place), or replaces it for a snapshot.
function applyEvent(game, state, ev) {
  const [kind, body] = oneof(ev, BODIES);
  switch (kind) {
    case 'snapshot': return body.state;
    case 'seatJoined': state.seats[num(body.seat)] = { seat: num(body.seat), name: body.name, claimed: true }; break;
    case 'gameStarted': state.status = 'GAME_STATUS_RUNNING'; break;
    case 'decisionNeeded':
      state.toAct = num(body.seat); state.decision = body.decision;
      if (body.deadlineUnixMs !== undefined) state.deadlineUnixMs = body.deadlineUnixMs; else delete state.deadlineUnixMs;
      break;
    case 'gameFinished':
      state.status = 'GAME_STATUS_FINISHED'; state.outcome = body.outcome;
      delete state.toAct; delete state.decision;
      break;
    case 'gameAbandoned': state.status = 'GAME_STATUS_ABANDONED'; delete state.toAct; break;
    case 'autopilotChanged': {
      const seats = new Set(state.autopilotSeats || []);
      if (body.on) seats.add(num(body.seat)); else seats.delete(num(body.seat));
      state.autopilotSeats = [...seats];
      break;
    }
    default: game.apply(state, ev);
  }
  state.version = ev.version;
  state.lastSeq = ev.seq;
  return state;
}

// An event in words: the server's description, else the type and fields.
function eventText(game, ev) {
  if (ev.description) return ev.description;
  const [kind, body] = oneof(ev, BODIES);
  if (kind === 'meduris' || kind === 'dolmen') return game.describe(ev) || words(kind);
  if (kind === 'decisionNeeded') return `seat ${num(body.seat)} to decide: ${game.decisionText(body.decision)}`;
  if (kind === 'gameFinished') return `game over: scores ${(body.outcome?.scores || []).join(', ')}; winners ${(body.outcome?.winners || []).map((w) => `seat ${w}`).join(', ')}`;
  return kind ? words(kind) : 'event';
}

function outcomeText(outcome) {
  if (!outcome) return '';
  const winners = (outcome.winners || []).map((w) => `seat ${w}`).join(' and ');
  return `Game over. Final scores: ${(outcome.scores || []).map((sc, i) => `seat ${i} ${sc}`).join(', ')}. Winner: ${winners || '—'}${outcome.bySafeguard ? ' (safeguard)' : ''}.`;
}

// Renders the page's moving parts from `ui`.
function render(ui) {
  const { game, state, legal } = ui;
  document.body.dataset.status = state.status;
  document.body.dataset.version = String(num(state.version));
  // Clickable targets: one per distinct target of the legal actions.
  const byTarget = new Map();
  for (const a of legal?.actions || []) {
    const t = game.targetOf(a.action, legal.decision);
    if (t) byTarget.set(t, [...(byTarget.get(t) || []), a]);
  }
  const svg = game.draw(state, new Set(byTarget.keys()));
  svg.addEventListener('click', (e) => {
    const node = e.target.closest('[data-target]');
    if (!node) return;
    const actions = byTarget.get(node.dataset.target) || [];
    if (actions.length === 1) ui.submit(actions[0]);
    else { ui.filter = node.dataset.target; render(ui); }
  });
  svg.addEventListener('keydown', (e) => { if (e.key === 'Enter') e.target.dispatchEvent(new MouseEvent('click', { bubbles: true })); });
  ui.boardEl.replaceChildren(svg);
  ui.statusEl.textContent = OVER.includes(state.status)
    ? (state.status === 'GAME_STATUS_ABANDONED' ? 'abandoned' : 'finished')
    : `${state.status === 'GAME_STATUS_RUNNING' ? game.status(state) : 'waiting for players'}${state.toAct !== undefined ? `; seat ${state.toAct} to decide: ${game.decisionText(state.decision)}` : ''}`;
  const names = state.seats || [];
  ui.clockEl.textContent = clockText(state);
  ui.seatsEl.replaceChildren(...game.seatRows(state).map((r) => h('tr', { 'data-seat': r.seat, class: state.toAct === r.seat ? 'to-act' : '' }, [
    h('td', {}, [h('span', { class: 'pill', css: { background: game.colour(r.seat) } }, [String(r.seat)])]),
    h('td', { class: 'name' }, [names[r.seat]?.name || `seat ${r.seat}`, r.seat === state.viewerSeat ? ' (you)' : '', (state.autopilotSeats || []).includes(r.seat) ? ' (autopilot)' : '']),
    h('td', { class: 'score' }, [String(r.score)]),
    h('td', { class: 'details' }, r.details.flatMap((d, i) => (i ? [' · ', d] : [d]))),
  ])));
  ui.outcomeEl.textContent = ui.outcome ? outcomeText(ui.outcome) : '';
  // The legal actions as a list too (some have no place on the board).
  if (legal?.actions?.length) {
    const shown = ui.filter ? byTarget.get(ui.filter) || [] : legal.actions;
    ui.actionsEl.replaceChildren(
      h('p', {}, [`Your decision: ${game.decisionText(legal.decision)}`, ui.filter ? ' — ' : '', ui.filter ? h('button', { class: 'link', onclick: () => { ui.filter = null; render(ui); } }, ['show all']) : '']),
      h('ol', { class: ui.filter ? 'filtered' : '' }, shown.map((a) => h('li', {}, [h('button', { class: 'action', 'data-id': a.id, onclick: () => ui.submit(a) }, [a.description || JSON.stringify(a.action)])]))),
    );
    ui.actionsEl.hidden = false;
  } else {
    ui.actionsEl.replaceChildren();
    ui.actionsEl.hidden = true;
  }
  ui.errorEl.textContent = ui.error || '';
}

// The turn clock of the pending decision, if the game has one.
function clockText(state) {
  if (state.deadlineUnixMs === undefined || state.toAct === undefined || OVER.includes(state.status)) return '';
  const left = Math.max(0, Math.ceil((num(state.deadlineUnixMs) - Date.now()) / 1000));
  return `seat ${state.toAct}'s clock: ${left} s left`;
}

function logLine(ui, ev) {
  const li = h('li', { 'data-seq': num(ev.seq) }, [h('span', { class: 'seq' }, [`#${num(ev.seq)}`]), ' ', eventText(ui.game, ev)]);
  ui.logEl.prepend(li);
  while (ui.logEl.childElementCount > LOG_LINES) ui.logEl.lastElementChild.remove();
}

function skeleton(root, game, gameId, token, state) {
  const you = token ? `you play seat ${state.viewerSeat ?? '?'}` : 'spectator';
  const ui = {
    boardEl: h('div', { class: 'board-wrap' }),
    statusEl: h('p', { id: 'status', class: 'status' }),
    clockEl: h('p', { id: 'clock', class: 'clock' }),
    seatsEl: h('tbody'),
    actionsEl: h('section', { id: 'actions', class: 'actions', hidden: true }),
    errorEl: h('p', { id: 'error', class: 'error', role: 'alert' }),
    outcomeEl: h('p', { id: 'outcome', class: 'outcome' }),
    controlsEl: h('section', { id: 'replay', class: 'replay', hidden: true }),
    logEl: h('ul', { id: 'log', class: 'log' }),
  };
  root.replaceChildren(h('article', { class: 'game' }, [
    h('header', { class: 'game-head' }, [
      h('h1', {}, [game.title, ' ', h('small', {}, [`game ${gameId}`])]),
      h('p', { class: 'role' }, [you, state.seedChosenByCreator ? ' · seed chosen by the creator (dice not secret)' : '']),
      ui.statusEl,
      ui.clockEl,
      ui.outcomeEl,
    ]),
    h('div', { class: 'game-body' }, [
      h('div', {}, [ui.boardEl, h('p', { class: 'note legend' }, [game.legend])]),
      h('aside', {}, [
        h('table', { id: 'seats', class: 'seats' }, [h('thead', {}, [h('tr', {}, [h('th', {}, ['seat']), h('th', {}, ['name']), h('th', {}, ['score']), h('th', {}, [''])])]), ui.seatsEl]),
        ui.errorEl,
        ui.actionsEl,
        ui.controlsEl,
        h('h2', {}, ['Events']),
        ui.logEl,
      ]),
    ]),
  ]));
  return ui;
}

export async function gamePage(root, gameId) {
  const token = api.pageToken();
  const state = (await api.rpc('GetState', { gameId }, token)).state;
  const game = GAMES[state.kind];
  if (!game) throw new Error(`unknown game kind ${state.kind}`);
  document.title = `${game.title} ${gameId} — druids`;
  const ui = skeleton(root, game, gameId, token, state);
  Object.assign(ui, { game, state, legal: null, filter: null, error: null });
  // For tests and the curious (browser console): the public essentials of the
  // state shown, or of any state.
  window.druids = { essentials: (st) => game.essentials(st ?? ui.state) };
  if (OVER.includes(state.status)) return replay(ui, gameId, token);
  return live(ui, gameId, token);
}

async function live(ui, gameId, token) {
  let pending = false;
  const later = () => { if (!pending) { pending = true; setTimeout(() => { pending = false; render(ui); }, 20); } };
  const mySeat = () => ui.state.viewerSeat;
  let asking = 0;
  const refreshLegal = async () => {
    const ask = ++asking;
    if (!token || ui.state.toAct === undefined || ui.state.toAct !== mySeat()) { ui.legal = null; later(); return; }
    try {
      const legal = await api.rpc('GetLegalActions', { gameId }, token);
      if (ask === asking) { ui.legal = legal.actions?.length ? legal : null; ui.filter = null; later(); }
    } catch (e) { ui.error = e.message; later(); }
  };
  ui.submit = async (a) => {
    const legal = ui.legal;
    if (!legal) return;
    ui.legal = null; ui.filter = null; ui.error = null;
    render(ui);
    try {
      await api.rpc('SubmitAction', { gameId, legalActionId: a.id, expectedVersion: legal.version, idempotencyKey: key() }, token);
    } catch (e) {
      ui.error = `${e.message}${e.reason ? ` (${e.reason})` : ''}`;
      refreshLegal();
    }
  };
  render(ui);
  refreshLegal();
  const tick = setInterval(() => { ui.clockEl.textContent = clockText(ui.state); }, 1000);
  // The state from GetState covers every event up to its lastSeq: the stream
  // starts a few events earlier so that the log shows some history, and only
  // later events are applied.
  const known = num(ui.state.lastSeq);
  await api.streamEvents(gameId, Math.max(1, known - HISTORY), token, (ev) => {
    logLine(ui, ev);
    if (num(ev.seq) <= known) return;
    ui.state = applyEvent(ui.game, ui.state, ev);
    if (ev.decisionNeeded) refreshLegal();
    if (ev.gameFinished) { ui.outcome = ev.gameFinished.outcome; ui.legal = null; }
    later();
  });
  clearInterval(tick);
  ui.legal = null;
  render(ui);
  if (OVER.includes(ui.state.status)) {
    // The fragment (a seat token) is left behind: the replay is public.
    ui.controlsEl.replaceChildren(
      h('a', { href: location.pathname, class: 'button' }, ['watch the replay']), ' ',
      h('a', { href: '/', class: 'button' }, [token ? 'play again' : 'all games']),
    );
    ui.controlsEl.hidden = false;
  }
}

function key() {
  const b = new Uint8Array(12);
  crypto.getRandomValues(b);
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
}

async function replay(ui, gameId, token) {
  const { game } = ui;
  const final = ui.state;
  const record = await api.rpc('ExportReplay', { gameId });
  const events = [];
  ui.statusEl.textContent = 'loading the events…';
  await api.streamEvents(gameId, 1, token, (ev) => events.push(ev));
  // states[i]: after the first i events.
  const states = [game.initial(final, events)];
  Object.assign(states[0], { status: 'GAME_STATUS_RUNNING', version: '0', lastSeq: '0' });
  delete states[0].outcome; delete states[0].toAct; delete states[0].decision;
  for (const ev of events) states.push(applyEvent(game, structuredClone(states.at(-1)), ev));
  let pos = 0;
  let timer = null;
  const range = h('input', { type: 'range', min: 0, max: events.length, value: 0, id: 'seek', 'aria-label': 'seek' });
  const where = h('span', { id: 'position' });
  const speed = h('select', { id: 'speed', 'aria-label': 'speed' }, [1, 2, 5, 10, 50, 500].map((n) => h('option', { value: n, selected: n === 5 }, [`${n} events/s`])));
  const playBtn = h('button', { id: 'play' }, ['▶ play']);
  let shown = -1;
  const show = (target) => {
    const p = Math.max(0, Math.min(events.length, target));
    pos = p;
    ui.state = states[pos];
    ui.outcome = pos === events.length ? record.outcome || final.outcome : null;
    range.value = pos;
    where.textContent = `event ${pos} of ${events.length}, version ${num(ui.state.version)}`;
    document.body.dataset.replayPos = String(pos);
    document.body.dataset.replayEnd = String(pos === events.length);
    // A few steps forward add to the log; any other move rebuilds it.
    if (p > shown && shown >= 0 && p - shown <= 50) for (const ev of events.slice(shown, p)) logLine(ui, ev);
    else {
      ui.logEl.replaceChildren();
      for (const ev of events.slice(Math.max(0, pos - LOG_LINES), pos)) logLine(ui, ev);
    }
    shown = pos;
    render(ui);
    if (pos === events.length) stop();
  };
  const stop = () => { clearInterval(timer); timer = null; playBtn.textContent = '▶ play'; };
  const play = () => {
    if (timer) return stop();
    if (pos === events.length) show(0);
    playBtn.textContent = '❚❚ pause';
    // Browsers run timers at most every few ms, and a frame every ~16 ms is
    // all anyone sees: fast speeds take several events per tick.
    const every = Math.max(20, 1000 / Number(speed.value));
    const step = Math.max(1, Math.round((Number(speed.value) * every) / 1000));
    timer = setInterval(() => show(pos + step), every);
  };
  playBtn.addEventListener('click', play);
  speed.addEventListener('change', () => { if (timer) { stop(); play(); } });
  range.addEventListener('input', () => { stop(); show(Number(range.value)); });
  const nextScore = () => {
    stop();
    let p = pos;
    while (p < events.length && !game.changesScore(events[p])) p++;
    show(p + 1);
  };
  ui.controlsEl.replaceChildren(
    h('h2', {}, ['Replay']),
    h('div', { class: 'buttons' }, [
      h('button', { id: 'first', onclick: () => { stop(); show(0); } }, ['|◀ start']),
      h('button', { id: 'back', onclick: () => { stop(); show(pos - 1); } }, ['◀ step']),
      playBtn,
      h('button', { id: 'step', onclick: () => { stop(); show(pos + 1); } }, ['step ▶']),
      h('button', { id: 'last', onclick: () => { stop(); show(events.length); } }, ['end ▶|']),
      h('button', { id: 'next-score', onclick: nextScore }, ['next score change']),
    ]),
    range, h('div', {}, [where, ' ', speed]),
    h('p', { class: 'note' }, [`seed ${record.seed}, ${record.actions?.length || 0} actions`]),
  );
  ui.controlsEl.hidden = false;
  show(0);
}

// What a game page shows of one state (a live view or a replay's step):
// the board with the page seat's choices on it, the seats, the status line
// in words with the seats' names, the result, and the events log. Every
// state it draws is a view the server computed with the engine.

import { groups, panel, picked } from './decide.js';
import { h, num, named, seatName, enumWords } from './dom.js';

const OVER = ['GAME_STATUS_FINISHED', 'GAME_STATUS_ABANDONED'];
const LOG_LINES = 300;

export const isOver = (state) => OVER.includes(state.status);

// The result in words, with the seats' names.
export function outcomeText(state) {
  const o = state.outcome;
  if (state.status === 'GAME_STATUS_ABANDONED') return 'The server gave this game up before its end.';
  if (!o) return '';
  const name = (seat) => seatName(state, num(seat));
  const winners = (o.winners || []).map(name);
  const scores = (o.ranking?.length ? o.ranking : (o.scores || []).map((_, i) => i))
    .map((seat) => `${name(seat)} ${o.scores?.[num(seat)] ?? 0}`);
  const resigned = (o.resigned || []).map(name);
  return `Game over: ${winners.join(' and ') || 'nobody'} won${winners.length > 1 ? ' (a tie)' : ''}${resigned.length ? `: ${resigned.join(' and ')} resigned` : ''}. Scores: ${scores.join(', ')}.${o.bySafeguard ? ' (Ended by the turn safeguard.)' : ''}`;
}

// The status line: whose decision it is and what it means.
function statusText(ui) {
  const { state, board } = ui;
  if (state.status === 'GAME_STATUS_FINISHED') return 'finished';
  if (state.status === 'GAME_STATUS_ABANDONED') return 'abandoned';
  if (state.status === 'GAME_STATUS_WAITING_FOR_PLAYERS') return 'waiting for players to join';
  // A duplicate match's game: its next die waits for the match's other games.
  if (state.waitingForMatch) return [board.status(state), 'waiting for the other games of its match to reach the next die'].filter(Boolean).join(' — ');
  if (!ui.replaying && state.toAct !== undefined && state.toAct === state.viewerSeat) return [board.status(state), 'your decision (see below)'].filter(Boolean).join(' — ');
  const who = state.toAct === undefined ? '' : `${seatName(state, num(state.toAct))} to decide`;
  const what = state.decisionDescription ? `: ${named(state.decisionDescription, state.seats)}` : '';
  return [board.status(state), who + what].filter(Boolean).join(' — ');
}

// The turn clock of the pending decision, if the game has one.
export function clockText(state) {
  if (state.deadlineUnixMs === undefined || state.toAct === undefined || isOver(state)) return '';
  const left = Math.max(0, Math.ceil((num(state.deadlineUnixMs) - Date.now()) / 1000));
  return `${seatName(state, num(state.toAct))}'s clock: ${left} s left`;
}

// The mark after a seat's name: the page's own seat (its token's) is "you";
// the seat a replay is seen as, when another, is marked so.
function seatMark(ui, seat) {
  if (ui.token && seat === ui.ownSeat) return ' (you)';
  return ui.replaying && seat === ui.state.viewerSeat ? ' (seen as)' : '';
}

// Renders the page's moving parts from `ui`.
export function render(ui) {
  const { board, state, legal } = ui;
  // The same view as drawn already (another event of the same version, a
  // refresh that found nothing new): the board and the choices are kept,
  // so that a click on them in flight still lands on what it was aimed at.
  const drawn = JSON.stringify([state, legal, ui.picked, ui.error, ui.trouble]);
  if (drawn === ui.drawn) return;
  ui.drawn = drawn;
  document.body.dataset.status = state.status;
  document.body.dataset.version = String(num(state.version));
  const grouped = groups(board, legal);
  const svg = board.draw(state, new Set(grouped.targets.keys()));
  svg.addEventListener('click', (e) => {
    const node = e.target.closest('[data-target]');
    const actions = node && grouped.targets.get(node.dataset.target);
    if (!actions) return;
    if (actions.length === 1) ui.submit(actions[0]);
    else { ui.picked = `target:${node.dataset.target}`; render(ui); }
  });
  svg.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter' && e.key !== ' ') return;
    e.preventDefault();
    e.target.closest('[data-target]')?.dispatchEvent(new MouseEvent('click', { bubbles: true }));
  });
  ui.boardEl.replaceChildren(svg);
  ui.statusEl.textContent = statusText(ui);
  ui.clockEl.textContent = clockText(state);
  ui.seatsEl.replaceChildren(...board.seatRows(state).map((r) => h('tr', { 'data-seat': r.seat, class: num(state.toAct) === r.seat && state.toAct !== undefined ? 'to-act' : '' }, [
    h('td', {}, [h('span', { class: 'pill', css: { background: board.colour(r.seat) } }, [String(r.seat)])]),
    h('td', { class: 'name' }, [seatName(state, r.seat), seatMark(ui, r.seat), (state.autopilotSeats || []).map(num).includes(r.seat) ? ' (autopilot)' : '']),
    h('td', { class: 'score' }, [String(r.score)]),
    h('td', { class: 'details' }, r.details.flatMap((d, i) => (i ? [' · ', d] : [d]))),
  ])));
  ui.outcomeEl.textContent = isOver(state) ? outcomeText(state) : '';
  if (grouped.total) {
    const open = picked(grouped, ui.picked, board, state);
    ui.actionsEl.replaceChildren(...panel(legal, grouped, open, state, {
      submit: (a) => ui.submit(a),
      pick: (key) => { ui.picked = key; render(ui); },
    }));
    ui.actionsEl.hidden = false;
  } else {
    ui.actionsEl.replaceChildren();
    ui.actionsEl.hidden = true;
  }
  ui.errorEl.textContent = ui.error || '';
  if (ui.troubleEl) ui.troubleEl.textContent = ui.trouble || '';
}

// One line of the events log (newest on top).
export function logLine(ui, ev) {
  const text = named(ev.description || enumWords(Object.keys(ev).find((k) => !['seq', 'version', 'description'].includes(k)) || 'event', ''), ui.state.seats);
  const li = h('li', { 'data-seq': num(ev.seq) }, [h('span', { class: 'seq' }, [`#${num(ev.seq)}`]), ' ', text]);
  ui.logEl.prepend(li);
  while (ui.logEl.childElementCount > LOG_LINES) ui.logEl.lastElementChild.remove();
}


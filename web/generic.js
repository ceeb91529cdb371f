// Any game the server hosts without a board of its own here: its seats in a
// ring and its view's fields as a list, as the server computed them. Every
// choice is made from the decision panel's list (no board places).

import { s, h, disc, num } from './dom.js';

export const title = 'Game';

const COLOURS = ['#d62728', '#1f5fbf', '#2ca02c', '#f2c700', '#7b3fa0', '#222222', '#ff7f0e', '#17becf'];
export const colour = (seat) => COLOURS[seat % COLOURS.length];

// The fields every StateView has; the rest is the game's own part.
const COMMON = new Set(['gameId', 'kind', 'status', 'version', 'lastSeq', 'seats', 'viewerSeat', 'toAct', 'decision', 'outcome', 'deadlineUnixMs', 'autopilotSeats', 'seedChosenByCreator', 'decisionDescription']);
const own = (state) => {
  const key = Object.keys(state).find((k) => !COMMON.has(k));
  return key ? state[key] : {};
};

export const targetOf = () => null;
export const targetName = (key) => key;

// The seats round a table, and the view's fields beside it.
export function draw(state) {
  const seats = state.seats || [];
  const svg = s('svg', { viewBox: '0 0 400 400', class: 'board generic', role: 'img', 'aria-label': 'the table' });
  svg.append(s('circle', { cx: 200, cy: 200, r: 150, fill: '#e9e2cf', stroke: '#6b5535', 'stroke-width': 3 }));
  seats.forEach((st, i) => {
    const a = -Math.PI / 2 + (2 * Math.PI * i) / Math.max(1, seats.length);
    const seat = num(st.seat);
    svg.append(disc(200 + 150 * Math.cos(a), 200 + 150 * Math.sin(a), 26, seat, colour(seat), {}, st.name || `seat ${seat}`));
  });
  return h('div', { class: 'generic-board' }, [svg, h('dl', { class: 'view-fields' }, fields(own(state), ''))]);
}

// The view's fields as `path: value` lines (long lists cut short).
function fields(value, path) {
  if (Array.isArray(value)) {
    return value.slice(0, 40).flatMap((v, i) => fields(v, `${path}[${i}]`));
  }
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => fields(v, path ? `${path}.${k}` : k));
  }
  return [h('dt', {}, [path]), h('dd', {}, [String(value)])];
}

// A score per seat, if the game's view has one.
export function seatRows(state) {
  const mine = own(state);
  return (state.seats || []).map((st) => {
    const seat = num(st.seat);
    const row = Array.isArray(mine.seats) ? mine.seats[seat] || {} : {};
    return { seat, score: num(row.score), details: [] };
  });
}

export const legend = '';

export function status(state) {
  const turn = own(state).turn;
  return turn === undefined ? '' : `turn ${num(turn)}`;
}

export const changesScore = (event) => Object.values(event).some((body) => body && typeof body === 'object' && body.scored);

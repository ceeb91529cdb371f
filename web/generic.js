// Any game the server hosts without a board of its own here, drawn from its
// view as the server computed it (the contract's generic messages: a name and
// fields): the seats round a table, each with its own fields beside it when
// the view has a list `seats` of one object per seat; then every field of
// the view, seat by seat in a table and the rest as a list. A field the
// server left out (another seat's secret) is shown as nothing. Every choice
// is made from the decision panel's list (no board places). It knows no
// game.

import { s, h, disc, label, num } from './dom.js';

export const title = 'Game';

const COLOURS = ['#d62728', '#1f5fbf', '#2ca02c', '#f2c700', '#7b3fa0', '#222222', '#ff7f0e', '#17becf'];
export const colour = (seat) => COLOURS[seat % COLOURS.length];

// The view's own fields: a generic view is `{name, fields}`.
const fieldsOf = (state) => state.generic?.fields || {};

// The per-seat objects of a view (`seats`, one object per seat), or none.
function perSeat(state) {
  const list = fieldsOf(state).seats;
  const n = state.seats?.length || 0;
  return Array.isArray(list) && list.length === n && list.every((v) => v && typeof v === 'object' && !Array.isArray(v)) ? list : null;
}

// A value as text (numbers and booleans as JSON writes them).
const text = (v) => (v && typeof v === 'object' ? JSON.stringify(v) : String(v));

export const targetOf = () => null;
export const targetName = (key) => key;

// Fields per seat drawn on the table, at most.
const ON_TABLE = 4;

// The table with its seats, then the view's fields.
export function draw(state) {
  const seats = state.seats || [];
  const mine = perSeat(state);
  const svg = s('svg', { viewBox: '0 0 400 400', class: 'board generic', role: 'img', 'aria-label': 'the table' });
  svg.append(s('circle', { cx: 200, cy: 200, r: 150, fill: '#e9e2cf', stroke: '#6b5535', 'stroke-width': 3 }));
  seats.forEach((st, i) => {
    const a = -Math.PI / 2 + (2 * Math.PI * i) / Math.max(1, seats.length);
    const [cos, sin] = [Math.cos(a), Math.sin(a)];
    const seat = num(st.seat);
    const to = num(state.toAct) === seat && state.toAct !== undefined;
    svg.append(s('g', { 'data-seat': seat, class: to ? 'seat to-act' : 'seat' }, [
      to ? s('circle', { cx: 200 + 150 * cos, cy: 200 + 150 * sin, r: 33, fill: 'none', stroke: '#ff7a00', 'stroke-width': 5 }) : null,
      disc(200 + 150 * cos, 200 + 150 * sin, 26, seat, colour(seat), {}, st.name || `seat ${seat}`),
      // Its fields, one a line, towards the middle of the table.
      ...Object.entries(mine?.[i] || {}).slice(0, ON_TABLE).map(([k, v], line, all) => label(
        200 + 88 * cos,
        200 + 88 * sin + 15 * (line - (all.length - 1) / 2),
        `${k} ${text(v)}`,
        { 'font-size': 13, class: 'label seat-field' },
      )),
    ]));
  });
  return h('div', { class: 'generic-board' }, [svg, seatTable(state, mine), h('dl', { class: 'view-fields' }, rest(state, mine))]);
}

// The per-seat fields as a table (one row a seat, one column a field).
function seatTable(state, mine) {
  if (!mine) return null;
  const keys = [...new Set(mine.flatMap((o) => Object.keys(o)))];
  return h('div', { class: 'table-wrap' }, [h('table', { class: 'view-seats' }, [
    h('thead', {}, [h('tr', {}, [h('th', {}, ['']), ...keys.map((k) => h('th', {}, [k]))])]),
    h('tbody', {}, mine.map((o, i) => h('tr', { 'data-seat': i }, [
      h('th', {}, [state.seats[i]?.name || `seat ${i}`]),
      ...keys.map((k) => h('td', { 'data-key': k }, [k in o ? text(o[k]) : ''])),
    ]))),
  ])]);
}

// The other fields as `path: value` lines (long lists cut short).
function rest(state, mine) {
  const fields = { ...fieldsOf(state) };
  if (mine) delete fields.seats;
  return flat(fields, '').map(([path, v]) => [h('dt', {}, [path]), h('dd', {}, [v])]).flat();
}

function flat(value, path) {
  if (Array.isArray(value)) return value.slice(0, 40).flatMap((v, i) => flat(v, `${path}[${i}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => flat(v, path ? `${path}.${k}` : k));
  return [[path, text(value)]];
}

// A seat's row: its score once the game has a result (or a `score` field
// of its own), and its fields.
export function seatRows(state) {
  const mine = perSeat(state);
  const scores = state.outcome?.scores;
  return (state.seats || []).map((st) => {
    const seat = num(st.seat);
    const row = mine?.[seat] || {};
    const score = scores ? num(scores[seat]) : row.score !== undefined ? num(row.score) : '';
    return { seat, score, details: Object.entries(row).filter(([k]) => k !== 'score').map(([k, v]) => `${k} ${text(v)}`) };
  });
}

export const legend = 'A game without a board of its own in this viewer: the seats round a table with their fields, and every field of the game\'s view below, as the server sent it. Choices are made from the list.';

export function status(state) {
  const turn = fieldsOf(state).turn;
  return turn === undefined ? '' : `turn ${num(turn)}`;
}

// A generic event has no score of its own to say it changed one.
export const changesScore = () => false;

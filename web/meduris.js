// Meduris on the page: the board drawn from a MedurisView, the clickable
// target of each legal action, and how each MedurisEvent changes the view.
//
// Every read of a Meduris-specific JSON field of the contract is in this file
// (dolmen.js is its twin), so a renamed field is fixed here and nowhere else.

import { s, h, label, disc, ink, num, oneof, words, summary } from './svg.js';

export const title = 'Meduris';

// Seat colours of the game (0 purple, 1 blue, 2 light green, 3 red).
const COLOURS = ['#7b3fa0', '#1f5fbf', '#8fd14f', '#d62728'];
export const colour = (seat) => COLOURS[seat % COLOURS.length];

const GOODS = ['wood', 'wool', 'copper', 'stone'];
const GOOD_STYLE = {
  wood: ['#8b5a2b', 'W'],
  wool: ['#f3efe0', 'L'],
  copper: ['#d9822b', 'C'],
  stone: ['#9e9e9e', 'S'],
};
// Enum values by their last words: "MEDURIS_GOOD_WOOD" -> "wood".
const goodOf = (e) => (e || '').replace(/^.*GOOD_/, '').toLowerCase();
const areaOf = (e) => (e || '').replace(/^.*AREA_/, '');
const chipOf = (e) => (e || '').replace(/^.*CHIP_/, '').replace(/^UNSPECIFIED$/, '');

const AREAS = {
  SERPENT: ['#cfe8c7', 'serpent'],
  STAR: ['#f6e7a8', 'star'],
  SPLASH: ['#c9e2f5', 'splash'],
  SCALES: ['#f3cfc0', 'scales'],
  SPIRAL: ['#e2d3f0', 'spiral'],
  WAVE: ['#bfe3df', 'wave'],
  FIRE: ['#f7c6a3', 'fire'],
  MOON: ['#dcdce8', 'moon'],
  ARROW: ['#e8dcc0', 'arrow'],
};
const CHIPS = {
  PLUS_TWO: ['+2', '"+2 points" chip'],
  FREE_HUT: ['F', '"free hut" chip'],
  DRUID_OFFERING: ['D', '"druid offering" chip'],
};

const view = (state) => state.meduris;

// The prefixes of the Meduris enums' value names, dropped when shown in words.
const ENUM_PREFIXES = ['MEDURIS_SCORE_REASON_', 'MEDURIS_OFFERING_KIND_', 'MEDURIS_GOOD_', 'MEDURIS_CHIP_', 'MEDURIS_AREA_', 'MEDURIS_COLOUR_'];

// `from` and `to` (reserved words in several languages) are named after what
// they hold (`fromPlateau`, `toSeat`); read either form.
const fromOf = (x) => x.from ?? x[Object.keys(x).find((k) => /^from[A-Z]/.test(k))];
const toOf = (x) => x.to ?? x[Object.keys(x).find((k) => /^to[A-Z]/.test(k))];

// A good as a small square in its colour with its letter.
function goodIcon(x, y, size, good, attrs) {
  const [fillc, letter] = GOOD_STYLE[good];
  return s('g', attrs, [
    s('rect', { x: x - size / 2, y: y - size / 2, width: size, height: size, rx: 2, fill: fillc, stroke: '#333' }),
    label(x, y, letter, { 'font-size': size * 0.7, fill: ink(fillc) }),
  ]);
}

// The printed board's layout: the druid's temple in the top left corner,
// his three stone fields leading down from it, and the great river crossing
// the ring on the left; the fields run clockwise from just above the river.
const RIVER_ANGLE = (195 * Math.PI) / 180;

// Where field `i` of `n` lies on the ring.
function fieldPos(i, n) {
  const a = RIVER_ANGLE + ((i + 0.5) * 2 * Math.PI) / n;
  return [500 + 400 * Math.cos(a), 400 + 330 * Math.sin(a)];
}

const STONE_FIELDS = { 1: [52, 128], 2: [58, 190], 3: [74, 250] };
const TEMPLE = [52, 56];

// The clickable target of a legal action: "field:N", "plateau:wood", "good:wool".
export function targetOf(action, decision) {
  const [kind, a] = oneof(action.meduris, Object.keys(action.meduris || {}));
  switch (kind) {
    case 'placeWorker': return `plateau:${goodOf(a.plateau)}`;
    case 'takeGood':
    case 'returnGood': return `good:${goodOf(a.good)}`;
    case 'bigYield': return `plateau:${goodOf(toOf(a))}`;
    case 'buildHut':
    case 'buildTemple': return `field:${num(a.field)}`;
    case 'offer':
    case 'offerChip': return `field:${num(decision?.meduris?.field)}`;
    default: return null;
  }
}

// The board as SVG. `targets` is a Set of target keys that can be clicked.
export function draw(state, targets) {
  const v = view(state);
  const n = v.fields.length;
  const tgt = (key) => (targets.has(key) ? { 'data-target': key, class: 'target', tabindex: 0, role: 'button' } : { 'data-key': key });
  const svg = s('svg', { viewBox: '0 0 1000 800', class: 'board meduris', role: 'img', 'aria-label': 'Meduris board' });
  svg.append(s('rect', { x: 0, y: 0, width: 1000, height: 800, rx: 24, fill: '#dfe9cf' }));
  svg.append(s('ellipse', { cx: 500, cy: 400, rx: 340, ry: 270, fill: '#eef3e4' }));
  // The great river crosses the ring on the left, between the last field and field 0.
  svg.append(s('path', { d: 'M 0 350 C 50 345, 85 322, 112 316 S 170 300, 215 306', stroke: '#3d8fd1', 'stroke-width': 16, fill: 'none', opacity: 0.8, 'stroke-linecap': 'round' }));
  svg.append(label(4, 372, 'great river', { 'font-size': 12, fill: '#1d5f99', 'font-style': 'italic', 'text-anchor': 'start' }));
  const size = n > 32 ? 54 : 62;
  for (const f of v.fields) {
    const i = num(f.field);
    const [x, y] = fieldPos(i, n);
    const [bg, area] = AREAS[areaOf(f.area)] || ['#eee', '?'];
    const g = s('g', { ...tgt(`field:${i}`), 'data-field': i });
    g.append(s('title', {}, [`field ${i}, ${area}: ${goodOf(f.firstGood)} + ${goodOf(f.secondGood)}`]));
    g.append(s('rect', { x: x - size / 2, y: y - size / 2, width: size, height: size, rx: 6, fill: bg, stroke: '#555', class: 'field' }));
    g.append(label(x, y - size / 2 + 9, `${i} ${area}`, { 'font-size': 10, fill: '#333' }));
    g.append(goodIcon(x - 12, y + size / 2 - 12, 16, goodOf(f.firstGood)));
    g.append(goodIcon(x + 12, y + size / 2 - 12, 16, goodOf(f.secondGood)));
    const chip = CHIPS[chipOf(f.chip)];
    if (chip) {
      g.append(s('circle', { cx: x + size / 2 - 9, cy: y - 4, r: 9, fill: '#fff8d0', stroke: '#a08000' }, [s('title', {}, [chip[1]])]));
      g.append(label(x + size / 2 - 9, y - 4, chip[0], { 'font-size': 9, 'font-weight': 'bold' }));
    }
    if (f.building) {
      const owner = num(f.building.owner);
      const c = colour(owner);
      const shape = f.building.temple
        ? s('path', { d: `M ${x - 16} ${y + 8} L ${x - 16} ${y - 4} L ${x} ${y - 16} L ${x + 16} ${y - 4} L ${x + 16} ${y + 8} Z`, fill: c, stroke: '#111', 'stroke-width': 2.5 })
        : s('path', { d: `M ${x - 11} ${y + 8} L ${x - 11} ${y - 3} L ${x} ${y - 13} L ${x + 11} ${y - 3} L ${x + 11} ${y + 8} Z`, fill: c, stroke: '#111', 'stroke-width': 1.5 });
      g.append(s('g', { class: `piece seat-${owner} ${f.building.temple ? 'temple' : 'hut'}` }, [
        shape,
        label(x, y + 1, f.building.temple ? `T${owner}` : owner, { 'font-size': 11, 'font-weight': 'bold', fill: ink(c) }),
      ]));
    }
    svg.append(g);
  }
  // The druid's temple and the three stone fields.
  svg.append(s('circle', { cx: TEMPLE[0], cy: TEMPLE[1], r: 30, fill: '#f4f1e8', stroke: '#777' }));
  svg.append(label(TEMPLE[0] + 70, TEMPLE[1] - 20, 'druid temple', { 'font-size': 12 }));
  for (const [k, [x, y]] of Object.entries(STONE_FIELDS)) {
    svg.append(s('circle', { cx: x, cy: y, r: 20, fill: '#d6d6d6', stroke: '#777' }, [s('title', {}, [`stone field ${k}`])]));
    svg.append(label(x - 30, y, k, { 'font-size': 12, fill: '#555' }));
  }
  svg.append(druid(v.druid, n));
  // The four plateaus with their stacks of workers (height 1 at the bottom).
  v.plateaus.forEach((p, i) => {
    const good = goodOf(p.good);
    const x = 290 + i * 140;
    const g = s('g', tgt(`plateau:${good}`));
    g.append(s('rect', { x: x - 55, y: 300, width: 110, height: 150, rx: 10, fill: '#f7f4ea', stroke: '#777', class: 'plateau' }));
    g.append(goodIcon(x, 318, 22, good));
    g.append(label(x, 440, `${good} plateau`, { 'font-size': 12 }));
    (p.workers || []).forEach((w, h) => {
      g.append(disc(x, 408 - h * 32, 14, num(w), colour(num(w)), { class: `piece seat-${num(w)} worker` }));
    });
    svg.append(g);
  });
  // The supply, and the rune stones with their holders.
  svg.append(label(500, 480, 'supply', { 'font-size': 13 }));
  GOODS.forEach((good, i) => {
    const x = 395 + i * 70;
    const g = s('g', tgt(`good:${good}`));
    // One hit area for the icon and its count, so a click anywhere on either counts.
    g.append(s('rect', { x: x - 28, y: 494, width: 60, height: 32, rx: 6, fill: '#fff', 'fill-opacity': targets.has(`good:${good}`) ? 0.9 : 0, class: 'supply-good' }));
    g.append(goodIcon(x - 12, 510, 22, good));
    g.append(label(x + 16, 510, num(v.supply?.[good]), { 'font-size': 16 }));
    svg.append(g);
  });
  svg.append(label(500, 555, 'rune stones', { 'font-size': 13 }));
  (v.runes || []).forEach((r, i) => {
    const x = 260 + i * 60;
    const [bg, area] = AREAS[areaOf(r.area)] || ['#eee', '?'];
    svg.append(s('rect', { x: x - 27, y: 570, width: 54, height: 50, rx: 6, fill: bg, stroke: '#777' }));
    svg.append(label(x, 582, area, { 'font-size': 10 }));
    if (r.seat !== undefined) svg.append(disc(x, 603, 10, num(r.seat), colour(num(r.seat))));
    else svg.append(label(x, 603, '—', { 'font-size': 12, fill: '#777' }));
  });
  return svg;
}

// The druid as a dark figure, wherever he stands.
function druid(pos, n) {
  let x;
  let y;
  if (pos?.field !== undefined) {
    const [fx, fy] = fieldPos(num(pos.field), n);
    // Beside the field, towards the middle of the ring.
    [x, y] = [fx + (500 - fx) * 0.17, fy + (400 - fy) * 0.17];
  } else if (pos?.stoneField !== undefined) {
    [x, y] = STONE_FIELDS[num(pos.stoneField)] || TEMPLE;
  } else {
    [x, y] = TEMPLE;
  }
  return s('g', { class: 'druid' }, [
    s('title', {}, ['the druid']),
    s('path', { d: `M ${x} ${y - 18} L ${x + 11} ${y + 12} L ${x - 11} ${y + 12} Z`, fill: '#fff', stroke: '#111', 'stroke-width': 2 }),
    s('circle', { cx: x, cy: y - 18, r: 7, fill: '#fff', stroke: '#111', 'stroke-width': 2 }),
  ]);
}

// The seats' numbers beside the board: score, pieces left, runes; goods only
// where the view has them (the viewer's own seat, or every seat once over).
export function seatRows(state) {
  return view(state).seats.map((st) => ({
    seat: num(st.seat),
    score: num(st.score),
    details: [
      `huts ${num(st.hutsLeft)}`,
      `temples ${num(st.templesLeft)}`,
      `runes ${num(st.runes)}`,
      num(st.workersToPlace) ? `workers to place ${num(st.workersToPlace)}` : null,
      st.goods ? h('span', { class: 'goods' }, ['goods: ', GOODS.map((g) => `${g} ${num(st.goods[g])}`).join(', ')]) : null,
    ].filter(Boolean),
  }));
}

// What the board's symbols mean.
export const legend = 'Goods: W wood, L wool, C copper, S stone (each field shows the two it asks for). Houses: huts, marked with the owner\'s seat; larger ones marked T: temples. Chips: +2 points, F free hut, D druid offering. The white figure is the druid. Discs on the plateaus: workers, bottom first.';

// Turn and whose turn it is, for the status line.
export function status(state) {
  const v = view(state);
  return `turn ${num(v.turn)}, seat ${num(v.active)} active`;
}

// The pending decision in words.
export function decisionText(decision) {
  const d = decision?.meduris;
  if (!d) return '';
  const k = (d.kind || '').replace('KIND_', '').toLowerCase().replace(/_/g, ' ');
  return d.kind === 'KIND_OFFERING' ? `offering at field ${num(d.field)}${d.lastRound ? ' (last round)' : ''}` : k;
}

// The type name of an event's Meduris body, and the body.
export function eventBody(event) {
  const m = event.meduris;
  if (!m) return null;
  const [k, body] = oneof(m, Object.keys(m));
  return k ? [words(k), body] : null;
}

// A fallback description of a Meduris event.
export function describe(event) {
  const b = eventBody(event);
  return b ? `${b[0]}: ${summary(b[1], ENUM_PREFIXES)}` : null;
}

const add = (goods, paid, sign) => {
  if (!goods || !paid) return;
  for (const g of GOODS) goods[g] = num(goods[g]) + sign * num(paid[g]);
};

// Applies one Meduris event to the state (in place). Events are public, so a
// seat's goods change only where the view shows them.
export function apply(state, event) {
  const v = view(state);
  const b = event.meduris;
  if (!v || !b) return;
  const seat = (x) => v.seats[num(x.seat)];
  const [kind, e] = oneof(b, Object.keys(b));
  switch (kind) {
    case 'chipPlaced': v.fields[num(e.field)].chip = e.chip; break;
    case 'workerPlaced':
      v.plateaus.find((p) => goodOf(p.good) === goodOf(e.plateau)).workers.push(num(e.seat));
      seat(e).workersToPlace = num(seat(e).workersToPlace) - 1;
      break;
    case 'turnStarted': v.active = num(e.seat); v.turn = num(e.turn); break;
    case 'goodsGained': {
      const g = goodOf(e.good);
      v.supply[g] = num(v.supply[g]) - num(e.count);
      if (seat(e).goods) seat(e).goods[g] = num(seat(e).goods[g]) + num(e.count);
      break;
    }
    case 'goodReturned': {
      const g = goodOf(e.good);
      v.supply[g] = num(v.supply[g]) + 1;
      if (seat(e).goods) seat(e).goods[g] = num(seat(e).goods[g]) - 1;
      break;
    }
    case 'workerMoved': {
      const from = v.plateaus.find((p) => goodOf(p.good) === goodOf(fromOf(e)));
      from.workers.splice(num(e.height) - 1, 1);
      v.plateaus.find((p) => goodOf(p.good) === goodOf(toOf(e))).workers.push(num(e.seat));
      break;
    }
    case 'hutBuilt':
    case 'templeBuilt': {
      const temple = kind === 'templeBuilt';
      v.fields[num(e.field)].building = { owner: num(e.seat), temple };
      const st = seat(e);
      if (temple) st.templesLeft = num(st.templesLeft) - 1;
      else st.hutsLeft = num(st.hutsLeft) - 1;
      st.buildingsPlaced = num(st.buildingsPlaced) + 1;
      add(v.supply, e.paid, 1);
      add(st.goods, e.paid, -1);
      break;
    }
    case 'chipUsed': delete v.fields[num(e.field)].chip; break;
    case 'runeTaken': {
      const r = v.runes.find((x) => x.area === e.area);
      const prev = fromOf(e);
      if (prev !== undefined) v.seats[num(prev)].runes = num(v.seats[num(prev)].runes) - 1;
      const next = num(toOf(e));
      v.seats[next].runes = num(v.seats[next].runes) + 1;
      r.seat = next;
      break;
    }
    case 'druidMoved': v.druid = e.to; break;
    case 'offering':
      add(v.supply, e.paid, 1);
      add(seat(e).goods, e.paid, -1);
      break;
    case 'scored': seat(e).score = num(e.total); break;
    case 'endTriggered': v.endTriggeredBy = num(e.seat); break;
    case 'gameOver': (e.scores || []).forEach((sc, i) => { v.seats[i].score = num(sc); }); break;
    default: break;
  }
}

// The state before the first event, from the final state and every event of
// the game: pieces start off the board, and each count starts where the final
// count minus the events' net change puts it (so the start needs no copy of
// the game's set-up rules).
export function initial(final, events) {
  const fresh = (st) => {
    const v = view(st);
    for (const f of v.fields) { delete f.building; delete f.chip; }
    for (const p of v.plateaus) p.workers = [];
    for (const r of v.runes) delete r.seat;
    v.druid = { temple: true };
    v.turn = 0; v.active = 0; v.lastTurnsLeft = 0;
    delete v.endTriggeredBy; delete v.ritualStart; delete v.lastRoundEnd;
    return v;
  };
  const start = structuredClone(final);
  const zero = structuredClone(final);
  fresh(start);
  const z = fresh(zero);
  for (const g of GOODS) z.supply[g] = 0;
  for (const st of z.seats) {
    st.hutsLeft = 0; st.templesLeft = 0; st.workersToPlace = 0; st.runes = 0; st.buildingsPlaced = 0;
    if (st.goods) for (const g of GOODS) st.goods[g] = 0;
  }
  for (const e of events) apply(zero, e);
  const v = view(start);
  for (const g of GOODS) v.supply[g] = num(view(final).supply[g]) - z.supply[g];
  v.seats.forEach((st, i) => {
    const fz = z.seats[i];
    st.hutsLeft = num(st.hutsLeft) - fz.hutsLeft;
    st.templesLeft = num(st.templesLeft) - fz.templesLeft;
    st.workersToPlace = num(st.workersToPlace) - fz.workersToPlace;
    st.runes = 0;
    st.buildingsPlaced = 0;
    if (st.goods) for (const g of GOODS) st.goods[g] = num(st.goods[g]) - fz.goods[g];
    const first = events.map((e) => e.meduris?.scored).find((x) => x && num(x.seat) === i);
    if (first) st.score = num(first.total) - num(first.delta);
  });
  return start;
}

// True when the event changes a score (for "next score change").
export function changesScore(event) {
  return Boolean(event.meduris?.scored);
}

// What a state shows that every viewer may see, in a canonical form: the
// tests compare the state the page computed from events with the server's.
export function essentials(state) {
  const v = view(state);
  return {
    fields: v.fields.map((f) => [f.building ? [num(f.building.owner), Boolean(f.building.temple)] : null, chipOf(f.chip)]),
    plateaus: v.plateaus.map((p) => (p.workers || []).map(num)),
    supply: GOODS.map((g) => num(v.supply?.[g])),
    seats: v.seats.map((st) => [num(st.score), num(st.hutsLeft), num(st.templesLeft), num(st.buildingsPlaced), num(st.runes), num(st.workersToPlace)]),
    runes: v.runes.map((r) => (r.seat === undefined ? null : num(r.seat))),
    druid: JSON.stringify(v.druid || {}),
    turn: num(v.turn),
    active: num(v.active),
  };
}

// Meduris drawn like the printed board: the score track round the edge, the
// ring of building fields split into its nine rune areas (each with its rune
// stone and who holds it), the druid's temple and stone fields in the top
// left corner with the great river crossing the ring there, and the four
// plateaus round the supply in the middle. It draws a MedurisView as the
// server computed it; it knows no rule. Every read of a Meduris field of the
// contract is in this file.

import { s, h, label, disc, ink, num, oneof, placeAttrs, turnStatus } from './dom.js';

export const title = 'Meduris';

// Seat colours of the game (purple, blue, light green, red).
const COLOURS = ['#7b3fa0', '#1f5fbf', '#7cc242', '#d62728'];
export const colour = (seat) => COLOURS[seat % COLOURS.length];

const GOODS = ['wood', 'wool', 'copper', 'stone'];
const goodOf = (g) => String(g || '').replace('MEDURIS_GOOD_', '').toLowerCase();
const areaOf = (a) => String(a || '').replace('MEDURIS_AREA_', '').toLowerCase();
const view = (state) => state.meduris;
const cap = (w) => w.charAt(0).toUpperCase() + w.slice(1);

// A soft colour per rune area, in ring order, so that the areas read apart.
const AREA_FILL = {
  serpent: '#e9d8a6', star: '#f2e3b3', splash: '#dcd3a0', scales: '#ecd9b8', spiral: '#e3d29a',
  wave: '#f0dcae', fire: '#e8c9a0', moon: '#e6dcb8', arrow: '#eed7a2',
};

// Each good as a shape of its own and a colour, its name on hover.
const GOOD_LOOK = {
  wood: { fill: '#4f8a2b', shape: (x, y, r) => s('rect', { x: x - r, y: y - r * 0.7, width: 2 * r, height: 1.4 * r, rx: r * 0.5 }) },
  wool: { fill: '#f7f6f0', shape: (x, y, r) => s('circle', { cx: x, cy: y, r }) },
  copper: { fill: '#d9822b', shape: (x, y, r) => s('path', { d: `M ${x} ${y - r} L ${x + r} ${y} L ${x} ${y + r} L ${x - r} ${y} Z` }) },
  stone: { fill: '#8d949c', shape: (x, y, r) => s('path', { d: hexagon(x, y, r) }) },
};

function hexagon(x, y, r) {
  const pts = [0, 1, 2, 3, 4, 5].map((i) => [x + r * Math.cos((Math.PI / 3) * i + Math.PI / 6), y + r * Math.sin((Math.PI / 3) * i + Math.PI / 6)]);
  return `M ${pts.map((p) => p.join(' ')).join(' L ')} Z`;
}

// A good's icon, with its name as a tooltip.
export function goodIcon(x, y, r, good, attrs) {
  const look = GOOD_LOOK[good];
  if (!look) return s('g');
  const shape = look.shape(x, y, r);
  shape.setAttribute('fill', look.fill);
  shape.setAttribute('stroke', '#333');
  shape.setAttribute('stroke-width', Math.max(1, r / 6));
  return s('g', { class: `good good-${good}`, ...attrs }, [s('title', {}, [good]), shape]);
}

// The board's frame: 1000 x 1000, the ring round its middle.
const SIZE = 1000;
const MID = 500;
// The score track: 100 cells, 25 a side, 0 in the top right corner.
const CELL = 38;
const STEP = (SIZE - CELL) / 25;
// The great river crosses the ring in the top left, between the last field
// and field 0; fields run clockwise from it.
const RIVER = (210 * Math.PI) / 180;

function trackPos(n) {
  const k = n % 25;
  const half = CELL / 2;
  switch (Math.floor((n % 100) / 25)) {
    case 0: return [SIZE - half, half + k * STEP];
    case 1: return [SIZE - half - k * STEP, SIZE - half];
    case 2: return [half, SIZE - half - k * STEP];
    default: return [half + k * STEP, half];
  }
}

// The ring's geometry for `n` fields.
function ring(n) {
  const radius = n > 32 ? 318 : 310;
  const field = n > 32 ? 22 : 26;
  const angle = (i) => RIVER + ((i + 0.5) * 2 * Math.PI) / n;
  const at = (i, r) => [MID + r * Math.cos(angle(i)), MID + r * Math.sin(angle(i))];
  return { radius, field, angle, at };
}

// Where the druid's temple and stone fields are.
const TEMPLE = [118, 112];
const STONE_FIELDS = { 1: [96, 196], 2: [118, 262], 3: [166, 316] };

// The plateaus round the supply, as on the board: wood above, wool to the
// right, copper below, stone to the left.
const PLATEAU_AT = { wood: [MID, 362], wool: [638, MID], copper: [MID, 638], stone: [362, MID] };
const PLATEAU = 124;

// The clickable target of a legal action: "field:N", "plateau:wood", "good:wool".
export function targetOf(action, decision) {
  const [kind, a] = oneof(action.meduris);
  switch (kind) {
    case 'placeWorker': return `plateau:${goodOf(a.plateau)}`;
    case 'takeGood':
    case 'returnGood': return `good:${goodOf(a.good)}`;
    case 'bigYield': return `plateau:${goodOf(a.toPlateau)}`;
    case 'buildHut':
    case 'buildTemple': return `field:${num(a.field)}`;
    case 'offer':
    case 'offerChip': return `field:${num(decision?.meduris?.field)}`;
    default: return null;
  }
}

// A target in words, as the engine names the places.
export function targetName(key, state) {
  const [what, which] = key.split(':');
  if (what === 'field') {
    const f = view(state)?.fields?.[Number(which)];
    return `field ${which}${f ? ` (${areaOf(f.area)})` : ''}`;
  }
  if (what === 'plateau') return `the ${which} plateau`;
  return which;
}

const CHIP_LOOK = {
  MEDURIS_CHIP_PLUS_TWO: ['+2 points chip', '#e0b000', (x, y) => s('path', { d: star(x, y, 7, 3) })],
  MEDURIS_CHIP_FREE_HUT: ['free hut chip', '#ffffff', (x, y) => s('path', { d: `M ${x - 6} ${y + 5} V ${y - 1} L ${x} ${y - 7} L ${x + 6} ${y - 1} V ${y + 5} Z` })],
  MEDURIS_CHIP_DRUID_OFFERING: ['druid-offering chip', '#9b59b6', (x, y) => s('path', { d: `M ${x} ${y - 7} C ${x + 7} ${y}, ${x + 5} ${y + 6}, ${x} ${y + 6} C ${x - 5} ${y + 6}, ${x - 7} ${y}, ${x} ${y - 7} Z` })],
};

function star(x, y, r, r2) {
  const pts = [];
  for (let i = 0; i < 10; i++) {
    const a = -Math.PI / 2 + (i * Math.PI) / 5;
    const d = i % 2 ? r2 : r;
    pts.push([x + d * Math.cos(a), y + d * Math.sin(a)]);
  }
  return `M ${pts.map((p) => p.join(' ')).join(' L ')} Z`;
}

// A hut or a temple of `seat` at (x, y), with the seat number on it.
function building(x, y, seat, temple, size, name) {
  const c = colour(seat);
  const w = temple ? size * 0.8 : size * 0.55;
  const body = temple
    ? `M ${x - w} ${y + w * 0.55} V ${y - w * 0.2} L ${x} ${y - w * 0.85} L ${x + w} ${y - w * 0.2} V ${y + w * 0.55} Z`
    : `M ${x - w} ${y + w * 0.7} V ${y - w * 0.15} L ${x} ${y - w} L ${x + w} ${y - w * 0.15} V ${y + w * 0.7} Z`;
  return s('g', { class: `piece seat-${seat} ${temple ? 'temple' : 'hut'}` }, [
    s('title', {}, [`${name}'s ${temple ? 'temple' : 'hut'}`]),
    s('path', { d: body, fill: c, stroke: '#111', 'stroke-width': temple ? 3 : 1.5 }),
    temple ? s('path', { d: `M ${x - w} ${y - w * 0.2} H ${x + w}`, stroke: '#111', 'stroke-width': 2 }) : null,
    label(x, y + w * 0.2, seat, { 'font-size': size * 0.42, 'font-weight': 'bold', fill: ink(c) }),
  ]);
}

// The board as SVG. `targets` is a Set of target keys that can be clicked.
export function draw(state, targets) {
  const v = view(state);
  const names = (seat) => state.seats?.[seat]?.name || `seat ${seat}`;
  const tgt = (key) => placeAttrs(targets, key, targetName(key, state));
  const svg = s('svg', { viewBox: `0 0 ${SIZE} ${SIZE}`, class: 'board meduris', role: 'img', 'aria-label': 'Meduris board' });
  svg.append(s('rect', { x: 0, y: 0, width: SIZE, height: SIZE, rx: 18, fill: '#2f6b5a' }));
  svg.append(s('rect', { x: CELL, y: CELL, width: SIZE - 2 * CELL, height: SIZE - 2 * CELL, rx: 12, fill: '#6f9a4a' }));
  svg.append(s('circle', { cx: MID, cy: MID, r: 250, fill: '#8fb65e' }));
  svg.append(scoreTrack(v, names));
  const n = v.fields.length;
  const geo = ring(n);
  // The great river, from the hills in the corner through the gap in the ring.
  const [rx, ry] = [MID + (geo.radius + 90) * Math.cos(RIVER), MID + (geo.radius + 90) * Math.sin(RIVER)];
  const [ix, iy] = [MID + 180 * Math.cos(RIVER), MID + 180 * Math.sin(RIVER)];
  svg.append(s('path', { d: `M ${CELL + 4} ${ry + 40} Q ${rx} ${ry + 10}, ${MID + geo.radius * Math.cos(RIVER)} ${MID + geo.radius * Math.sin(RIVER)} T ${ix} ${iy}`, stroke: '#3d8fd1', 'stroke-width': 18, fill: 'none', 'stroke-linecap': 'round', opacity: 0.85 }, [s('title', {}, ['the great river: the druid crossing it scores the rune stones'])]));
  svg.append(areas(v, geo));
  for (const f of v.fields) svg.append(field(f, geo, tgt, names));
  svg.append(templeAndStones());
  svg.append(druid(v.druid, geo));
  for (const p of v.plateaus) svg.append(plateau(p, tgt, names));
  svg.append(supply(v.supply, tgt));
  return svg;
}

// The score track; each seat's marker on its score (mod 100), a cell's
// number hidden under its markers.
function scoreTrack(v, names) {
  const g = s('g', { class: 'track' });
  const on = new Map();
  for (const st of v.seats) {
    const at = ((num(st.score) % 100) + 100) % 100;
    on.set(at, [...(on.get(at) || []), st]);
  }
  for (let i = 0; i < 100; i++) {
    const [x, y] = trackPos(i);
    g.append(s('rect', { x: x - CELL / 2 + 2, y: y - CELL / 2 + 2, width: CELL - 4, height: CELL - 4, rx: 8, fill: i % 5 ? '#cfd6d4' : '#9fb0b8', stroke: '#4b5a5e' }));
    const here = on.get(i);
    if (!here) {
      g.append(label(x, y, i, { 'font-size': 13, fill: '#2b3436' }));
      continue;
    }
    const r = here.length === 1 ? 14 : 8.5;
    here.forEach((st, k) => {
      const seat = num(st.seat);
      const [dx, dy] = here.length === 1 ? [0, 0] : [(k % 2 ? 1 : -1) * 9, (k < 2 ? -1 : 1) * 9];
      g.append(disc(x + dx, y + dy, r, seat, colour(seat), { class: `piece seat-${seat} score-marker`, 'data-track': i }, `${names(seat)}: ${num(st.score)} points`));
    });
  }
  return g;
}

// The rune areas: a border between two areas, each area's name outside the
// ring and its rune stone below the name (in its holder's colour).
function areas(v, geo) {
  const g = s('g', { class: 'areas' });
  const n = v.fields.length;
  const byArea = new Map();
  v.fields.forEach((f, i) => byArea.set(areaOf(f.area), [...(byArea.get(areaOf(f.area)) || []), i]));
  for (let i = 0; i < n; i++) {
    const next = (i + 1) % n;
    if (areaOf(v.fields[i].area) === areaOf(v.fields[next].area)) continue;
    const a = geo.angle(i) + Math.PI / n;
    const [x1, y1] = [MID + (geo.radius - geo.field - 6) * Math.cos(a), MID + (geo.radius - geo.field - 6) * Math.sin(a)];
    const [x2, y2] = [MID + (geo.radius + geo.field + 6) * Math.cos(a), MID + (geo.radius + geo.field + 6) * Math.sin(a)];
    g.append(s('line', { x1, y1, x2, y2, stroke: '#3b2f1e', 'stroke-width': 3 }));
  }
  for (const rune of v.runes) {
    const area = areaOf(rune.area);
    const fields = byArea.get(area) || [];
    if (!fields.length) continue;
    const mid = geo.angle(fields[0]) + ((fields.length - 1) * Math.PI) / n;
    const [x, y] = [MID + (geo.radius + geo.field + 52) * Math.cos(mid), MID + (geo.radius + geo.field + 52) * Math.sin(mid)];
    g.append(label(x, y, cap(area), { 'font-size': 15, fill: '#fdf6e3', 'font-style': 'italic', class: 'label area-name' }));
    // The stone beside its name, away from the ring (above it on the top
    // half, below on the bottom half).
    const ry = y + (Math.sin(mid) < 0 ? -26 : 26);
    const holder = rune.seat === undefined ? null : num(rune.seat);
    g.append(holder === null
      ? s('g', { class: 'rune free' }, [s('title', {}, [`the ${area} rune stone, in the supply`]), s('rect', { x: x - 9, y: ry - 9, width: 18, height: 18, rx: 5, fill: '#d8d8d8', stroke: '#333' })])
      : s('g', { class: `rune seat-${holder}` }, [s('title', {}, [`the ${area} rune stone`]), s('rect', { x: x - 11, y: ry - 11, width: 22, height: 22, rx: 5, fill: colour(holder), stroke: '#111', 'stroke-width': 2 }), label(x, ry, holder, { 'font-size': 13, 'font-weight': 'bold', fill: ink(colour(holder)) })]));
  }
  return g;
}

// A building field: its goods, a chip, a hut or temple; its number outside.
function field(f, geo, tgt, names) {
  const i = num(f.field);
  const [x, y] = geo.at(i, geo.radius);
  const r = geo.field;
  const area = areaOf(f.area);
  const [g1, g2] = [goodOf(f.firstGood), goodOf(f.secondGood)];
  const g = s('g', { ...tgt(`field:${i}`), 'data-field': i });
  g.append(s('title', {}, [`field ${i} (${area}): ${g1} and ${g2}`]));
  g.append(s('circle', { cx: x, cy: y, r, fill: AREA_FILL[area] || '#eee', stroke: '#6b5535', 'stroke-width': 2, class: 'field' }));
  g.append(goodIcon(x - r * 0.36, y + r * 0.5, r * 0.26, g1));
  g.append(goodIcon(x + r * 0.36, y + r * 0.5, r * 0.26, g2));
  const chip = CHIP_LOOK[f.chip];
  if (chip) {
    const [name, fillc, shape] = chip;
    const mark = shape(x - r * 0.55, y - r * 0.45);
    mark.setAttribute('fill', fillc);
    mark.setAttribute('stroke', '#333');
    g.append(s('g', { class: 'chip' }, [s('title', {}, [name]), mark]));
  }
  if (f.building) {
    const owner = num(f.building.owner);
    g.append(building(x + (chip ? r * 0.12 : 0), y - r * 0.12, owner, Boolean(f.building.temple), r * 1.05, names(owner)));
  }
  const [nx, ny] = geo.at(i, geo.radius + r + 15);
  g.append(label(nx, ny, i, { 'font-size': 14, fill: '#fff', 'font-weight': 'bold', class: 'label field-number' }));
  return g;
}

// The druid's temple and his three stone fields, leading to the ring.
function templeAndStones() {
  const g = s('g', { class: 'temple-path' });
  const pts = [TEMPLE, STONE_FIELDS[1], STONE_FIELDS[2], STONE_FIELDS[3]];
  g.append(s('path', { d: `M ${pts.map((p) => p.join(' ')).join(' L ')}`, stroke: '#c9b48a', 'stroke-width': 10, fill: 'none', 'stroke-dasharray': '2 8', 'stroke-linecap': 'round' }));
  g.append(s('g', {}, [
    s('title', {}, ["the druid's temple, where he starts"]),
    s('path', { d: `M ${TEMPLE[0] - 34} ${TEMPLE[1] + 24} V ${TEMPLE[1] - 8} L ${TEMPLE[0]} ${TEMPLE[1] - 36} L ${TEMPLE[0] + 34} ${TEMPLE[1] - 8} V ${TEMPLE[1] + 24} Z`, fill: '#d9d4c7', stroke: '#555', 'stroke-width': 2 }),
  ]));
  for (const [k, [x, y]] of Object.entries(STONE_FIELDS)) {
    g.append(s('g', {}, [
      s('title', {}, [`stone field ${k}`]),
      s('ellipse', { cx: x, cy: y, rx: 22, ry: 17, fill: '#b9b9b9', stroke: '#555', 'stroke-width': 2 }),
    ]));
  }
  return g;
}

// The druid as a white figure: beside his field (towards the middle), on a
// stone field, or on his temple.
function druid(pos, geo) {
  const [where, at] = oneof(pos);
  let x;
  let y;
  if (where === 'field') [x, y] = geo.at(num(at), geo.radius - geo.field - 20);
  else if (where === 'stoneField') [x, y] = STONE_FIELDS[num(at)] || TEMPLE;
  else [x, y] = TEMPLE;
  const title = where === 'field' ? `the druid, beside field ${num(at)}` : where === 'stoneField' ? `the druid, on stone field ${num(at)}` : 'the druid, on his temple';
  return s('g', { class: 'druid' }, [
    s('title', {}, [title]),
    s('path', { d: `M ${x} ${y - 14} L ${x + 10} ${y + 14} L ${x - 10} ${y + 14} Z`, fill: '#fff', stroke: '#111', 'stroke-width': 2 }),
    s('circle', { cx: x, cy: y - 17, r: 6.5, fill: '#fff', stroke: '#111', 'stroke-width': 2 }),
  ]);
}

// A plateau and its stack of workers, height 1 at the bottom.
function plateau(p, tgt, names) {
  const good = goodOf(p.good);
  const [x, y] = PLATEAU_AT[good] || [MID, MID];
  const g = s('g', { ...tgt(`plateau:${good}`), 'data-plateau': good });
  g.append(s('title', {}, [`the ${good} plateau`]));
  g.append(s('rect', { x: x - PLATEAU / 2, y: y - PLATEAU / 2, width: PLATEAU, height: PLATEAU, rx: 18, fill: '#e9e2cf', stroke: '#6b5535', 'stroke-width': 2, class: 'plateau' }));
  g.append(goodIcon(x - 34, y - PLATEAU / 2 + 17, 10, good));
  g.append(label(x + 8, y - PLATEAU / 2 + 17, good, { 'font-size': 15, fill: '#3b2f1e' }));
  (p.workers || []).forEach((w, k) => {
    const seat = num(w);
    g.append(disc(x, y + PLATEAU / 2 - 20 - k * 29, 13, seat, colour(seat), { class: `piece seat-${seat} worker` }, `${names(seat)}'s worker, height ${k + 1}`));
  });
  return g;
}

// The general supply in the middle: each good and how many are left.
function supply(goods, tgt) {
  const g = s('g', { class: 'supply' });
  g.append(s('rect', { x: MID - 64, y: MID - 64, width: 128, height: 128, rx: 16, fill: '#5b4a33', opacity: 0.85 }));
  g.append(s('title', {}, ['the supply']));
  GOODS.forEach((good, i) => {
    const [x, y] = [MID - 30 + (i % 2) * 60, MID - 30 + Math.floor(i / 2) * 60];
    const cell = s('g', tgt(`good:${good}`));
    cell.append(s('rect', { x: x - 28, y: y - 26, width: 56, height: 52, rx: 10, fill: '#fff', 'fill-opacity': 0.15, class: 'supply-good' }));
    cell.append(goodIcon(x - 10, y, 10, good));
    cell.append(label(x + 13, y, num(goods?.[good]), { 'font-size': 17, fill: '#fff', 'font-weight': 'bold' }));
    g.append(cell);
  });
  return g;
}

// The seats' numbers beside the board: score, pieces left, runes; goods
// only where the view has them (the viewer's own seat).
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
export const legend = 'Round the edge: the score track, each player\'s marker on its score. Each field shows the two goods it asks for (green bar: wood, white disc: wool, orange diamond: copper, grey hexagon: stone); a gold star is a +2 points chip, a white house a free hut chip, a purple drop a druid-offering chip. Houses are huts, wide ones with a bar are temples, with their owner\'s seat number. Beside each area\'s name, its rune stone (grey: in the supply). The white figure is the druid; discs on the plateaus are workers, bottom first.';

// Turn and end, for the status line.
export const status = (state) => turnStatus(view(state));

// True when the event changes a score (the replay's "score" steps).
export function changesScore(event) {
  return Boolean(event.meduris?.scored);
}

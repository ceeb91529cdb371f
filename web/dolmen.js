// Die Dolmengötter drawn as its landscape: 28 stone circles (meadows of
// three shapes, each with its letter, multiplier and dolmen stack) between
// the paths the druids walk, stones and druids standing at the paths'
// crossings (the sites), and the grid's coordinates round the edge, so that
// "site 12 (3,4)" can be found. It draws a DolmenView as the server
// computed it (the view carries the geometry); it knows no rule. Every read
// of a Die Dolmengötter field of the contract is in this file.

import { s, h, label, disc, ink, num, oneof, placeAttrs, turnStatus } from './dom.js';

export const title = 'Die Dolmengötter';

// Seat colours of the game (red, yellow, blue, green, black).
const COLOURS = ['#d62728', '#f2c700', '#1f5fbf', '#2ca02c', '#222222'];
export const colour = (seat) => COLOURS[seat % COLOURS.length];

const VALUES = ['ones', 'twos', 'threes', 'fours'];
const SHAPES = {
  DOLMEN_SHAPE_SQUARE: ['square', '#cfe3a8', 3],
  DOLMEN_SHAPE_HEXAGON: ['hexagon', '#b9d98f', 4],
  DOLMEN_SHAPE_OCTAGON: ['octagon', '#a3cc78', 5],
};
// 100 units a grid step, a margin of 50 for the coordinates.
const STEP = 100;
const MARGIN = 50;
const px = (c) => MARGIN + num(c) * STEP;
const view = (state) => state.dolmen;

// `from` and `to` (reserved words in several languages) are named after what
// they hold (`fromSite`, `toSite`); read either form.
const fromOf = (x) => x.from ?? x.fromSite;
const toOf = (x) => x.to ?? x.toSite;

// The clickable target of a legal action: "site:N" or "circle:N".
export function targetOf(action, decision) {
  const [kind, a] = oneof(action.dolmen);
  switch (kind) {
    case 'placeDruid':
    case 'collectHerbs': return `site:${num(a.site)}`;
    case 'walk': return `site:${num(fromOf(a))}`;
    case 'fly': return `site:${num(toOf(a))}`;
    case 'placeStone':
    case 'declineStone': return `site:${num(decision?.dolmen?.site)}`;
    case 'placeDolmen':
    case 'passDolmen': return `circle:${num(decision?.dolmen?.circle)}`;
    default: return null;
  }
}

// A target in words, as the engine names the places ("site 12 (3,4)",
// "circle C").
export function targetName(key, state) {
  const [what, which] = key.split(':');
  const v = view(state);
  if (what === 'site') {
    const st = v.sites[Number(which)];
    return st ? `site ${which} (${num(st.x)},${num(st.y)})` : `site ${which}`;
  }
  return `circle ${v.circles[Number(which)]?.letter ?? which}`;
}

// A circle's block of the grid: the bounding box of its sites.
function block(v, c) {
  const pts = c.sites.map((i) => v.sites[num(i)]);
  const xs = pts.map((p) => num(p.x));
  const ys = pts.map((p) => num(p.y));
  return { x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) };
}

// The board as SVG. `targets` is a Set of target keys that can be clicked.
export function draw(state, targets) {
  const v = view(state);
  const names = (seat) => state.seats?.[seat]?.name || `seat ${seat}`;
  const tgt = (key) => placeAttrs(targets, key, targetName(key, state));
  const size = 2 * MARGIN + 8 * STEP;
  const svg = s('svg', { viewBox: `0 0 ${size} ${size}`, class: 'board dolmen', role: 'img', 'aria-label': 'Die Dolmengötter board' });
  svg.append(s('rect', { x: 0, y: 0, width: size, height: size, rx: 16, fill: '#5f8f45' }));
  // The grid's coordinates, as in "site 12 (3,4)".
  for (let i = 0; i <= 8; i++) {
    svg.append(label(px(i), MARGIN / 2 - 4, i, { 'font-size': 16, fill: '#eef5e0', class: 'label axis' }));
    svg.append(label(MARGIN / 2 - 4, px(i), i, { 'font-size': 16, fill: '#eef5e0', class: 'label axis' }));
  }
  const paths = s('g', { class: 'paths', 'pointer-events': 'none' });
  const leaders = s('g', { class: 'leaders', 'pointer-events': 'none' });
  for (const c of v.circles) {
    const b = block(v, c);
    paths.append(s('rect', { x: px(b.x0), y: px(b.y0), width: (b.x1 - b.x0) * STEP, height: (b.y1 - b.y0) * STEP, fill: 'none', stroke: '#c9a66b', 'stroke-width': 7 }));
    svg.append(circle(v, c, b, tgt, names, leaders));
  }
  svg.append(paths);
  svg.append(leaders);
  for (const st of v.sites) svg.append(site(st, tgt, targets, names));
  return svg;
}

// A stone circle: a meadow inside its block, its letter and multiplier, its
// leader's banner and its dolmen stack (top first; another seat's values
// hidden until they score).
function circle(v, c, b, tgt, names, leaders) {
  const [shape, meadow, top] = SHAPES[c.shape] || ['circle', '#ccc', 1];
  const inset = 14;
  const [x, y, w, hgt] = [px(b.x0) + inset, px(b.y0) + inset, (b.x1 - b.x0) * STEP - 2 * inset, (b.y1 - b.y0) * STEP - 2 * inset];
  const leader = c.leader === undefined ? null : num(c.leader);
  const g = s('g', { ...tgt(`circle:${num(c.circle)}`), 'data-circle': num(c.circle) });
  const stones = (c.stones || []).map((n, seat) => (num(n) ? `${names(seat)} ${num(n)}` : null)).filter(Boolean);
  g.append(s('title', {}, [`circle ${c.letter}, a ${shape} (its top dolmen scores x${top})${leader !== null ? `, led by ${names(leader)}` : ''}${c.complete ? ', complete' : ''}${stones.length ? `; stones: ${stones.join(', ')}` : ''}`]));
  g.append(s('rect', { x, y, width: w, height: hgt, rx: 22, fill: c.complete ? '#b8b8a8' : meadow, stroke: '#7a8f55', 'stroke-width': 1.5, class: 'circle-shape' }));
  // Its ring of standing stones.
  g.append(s('rect', { x: x + 6, y: y + 6, width: w - 12, height: hgt - 12, rx: 17, fill: 'none', stroke: '#8c8a7e', 'stroke-width': 6, 'stroke-dasharray': '0.1 15', 'stroke-linecap': 'round', 'pointer-events': 'none' }));
  if (leader !== null) {
    leaders.append(s('rect', { x: x + 3, y: y + 3, width: w - 6, height: hgt - 6, rx: 20, fill: 'none', stroke: colour(leader), 'stroke-width': 6, 'stroke-dasharray': '14 6', class: `leader-outline seat-${leader}` }));
  }
  const cx = x + w / 2;
  g.append(label(cx, y + 15, `${c.letter} ×${top}`, { 'font-size': 17, 'font-weight': 'bold', fill: '#2d3b1e', class: 'label circle-letter' }));
  const stack = c.stack || [];
  const rows = Math.max(1, Math.floor((hgt - 34) / 16));
  const cols = Math.ceil(stack.length / rows) || 1;
  stack.forEach((d, i) => {
    const seat = num(d.seat);
    const known = d.value !== undefined;
    const col = Math.floor(i / rows);
    const dx = (col - (cols - 1) / 2) * 50;
    const dy = y + 40 + (i % rows) * 16;
    g.append(s('g', { class: `piece dolmen seat-${seat}${known ? '' : ' back'}` }, [
      s('title', {}, [`${names(seat)}'s dolmen${known ? ` of value ${num(d.value)}` : ' (its value is hidden)'}, ${i === 0 ? 'on top' : `${i + 1}. from the top`}`]),
      s('rect', { x: cx + dx - 22, y: dy - 7, width: 44, height: 14, rx: 3, fill: colour(seat), stroke: '#111', 'stroke-dasharray': known ? null : '3 2' }),
      label(cx + dx, dy, known ? `${seat}:${num(d.value)}` : `${seat}:?`, { 'font-size': 11, fill: ink(colour(seat)), 'font-weight': 'bold' }),
    ]));
  });
  return g;
}

// A site at a crossing of paths: a stone, a druid (standing or lying), or
// nothing; a target is ringed.
function site(st, tgt, targets, names) {
  const [x, y] = [px(st.x), px(st.y)];
  const key = `site:${num(st.site)}`;
  const g = s('g', { ...tgt(key), 'data-site': num(st.site) });
  g.append(s('title', {}, [`site ${num(st.site)} (${num(st.x)},${num(st.y)})`]));
  g.append(s('circle', { cx: x, cy: y, r: targets.has(key) ? 17 : 6, fill: targets.has(key) ? '#fff3e0' : '#6b5a3e', stroke: '#3b2f1e', 'stroke-width': 1.5, class: 'site' }));
  const [what, who] = oneof({ stone: st.stone, druid: st.druid });
  if (what === 'stone') {
    const seat = num(who);
    g.append(s('g', { class: `piece stone seat-${seat}` }, [
      s('title', {}, [`${names(seat)}'s stone`]),
      s('rect', { x: x - 13, y: y - 13, width: 26, height: 26, rx: 6, fill: colour(seat), stroke: '#111', 'stroke-width': 2 }),
      label(x, y, seat, { 'font-size': 14, fill: ink(colour(seat)), 'font-weight': 'bold' }),
    ]));
  } else if (what === 'druid') {
    const seat = num(who.seat);
    if (who.lying) {
      g.append(s('g', { class: `piece druid lying seat-${seat}` }, [
        s('title', {}, [`${names(seat)}'s druid, lying (collecting herbs): it can only fly`]),
        s('ellipse', { cx: x, cy: y, rx: 22, ry: 11, fill: colour(seat), stroke: '#111', 'stroke-width': 2 }),
        label(x, y, `${seat}z`, { 'font-size': 12, fill: ink(colour(seat)), 'font-weight': 'bold' }),
      ]));
    } else {
      g.append(disc(x, y, 16, seat, colour(seat), { class: `piece druid standing seat-${seat}` }, `${names(seat)}'s druid, standing`));
    }
  }
  return g;
}

// The seats' numbers beside the board; hand values only in the seat's own view.
export function seatRows(state) {
  return view(state).seats.map((st) => ({
    seat: num(st.seat),
    score: num(st.score),
    details: [
      `stones ${num(st.stonesLeft)}`,
      `dolmens ${num(st.dolmensLeft)} (placed ${num(st.dolmensPlaced)})`,
      num(st.druidsToPlace) ? `druids to place ${num(st.druidsToPlace)}` : null,
      st.hand ? h('span', { class: 'hand' }, [`hand: ${VALUES.map((k, i) => `${num(st.hand[k])}×${i + 1}`).join(' ')}`]) : null,
    ].filter(Boolean),
  }));
}

// What the board's symbols mean.
export const legend = 'Meadows are stone circles: squares (top dolmen scores its value ×3), hexagons (×4) and octagons (×5), each with its letter; a dashed coloured border marks its leader. Brown lines are paths; druids and stones stand where they cross (the sites; numbers round the edge give their coordinates). Round pieces: standing druids; flat ones marked "z": lying druids (collecting herbs). Squares: stones. "2:3": a dolmen of seat 2 worth 3, top of the stack first; "2:?": its value is hidden until it scores. Complete circles are grey.';

// Turn and end, for the status line.
export const status = (state) => turnStatus(view(state));

export function changesScore(event) {
  return Boolean(event.dolmen?.scored);
}

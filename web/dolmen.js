// Die Dolmengötter on the page: the 8 x 8 board drawn from a DolmenView (the
// view carries the geometry: sites with x/y, circles with their sites), the
// clickable target of each legal action, and how each DolmenEvent changes the
// view.
//
// Every read of a Die Dolmengötter-specific JSON field of the contract is in
// this file (meduris.js is its twin), so a renamed field is fixed here only.

import { s, h, label, disc, ink, num, oneof, words, summary } from './svg.js';

export const title = 'Die Dolmengötter';

// Seat colours of the game (0 red, 1 yellow, 2 blue, 3 green, 4 black).
const COLOURS = ['#d62728', '#f2c700', '#1f5fbf', '#2ca02c', '#222222'];
export const colour = (seat) => COLOURS[seat % COLOURS.length];

const VALUES = ['ones', 'twos', 'threes', 'fours'];
const SHAPE_FILL = {
  DOLMEN_SHAPE_SQUARE: '#efe3c4',
  DOLMEN_SHAPE_HEXAGON: '#dbe8cc',
  DOLMEN_SHAPE_OCTAGON: '#d3e1ee',
};
const SCALE = 80;
const px = (c) => 40 + num(c) * SCALE;

const view = (state) => state.dolmen;

// The prefixes of the Die Dolmengötter enums' value names, dropped when shown in words.
const ENUM_PREFIXES = ['DOLMEN_SCORE_REASON_', 'DOLMEN_DIRECTION_', 'DOLMEN_END_REASON_', 'DOLMEN_SHAPE_', 'DOLMEN_COLOUR_'];

// `from` and `to` (reserved words in several languages) are named after what
// they hold (`fromSite`, `toSite`); read either form.
const fromOf = (x) => x.from ?? x[Object.keys(x).find((k) => /^from[A-Z]/.test(k))];
const toOf = (x) => x.to ?? x[Object.keys(x).find((k) => /^to[A-Z]/.test(k))];

// The clickable target of a legal action: "site:N" or "circle:N".
export function targetOf(action, decision) {
  const [kind, a] = oneof(action.dolmen, Object.keys(action.dolmen || {}));
  switch (kind) {
    case 'placeDruid': return `site:${num(a.site)}`;
    case 'walk': return `site:${num(fromOf(a))}`;
    case 'collectHerbs': return `site:${num(a.site)}`;
    case 'fly': return `site:${num(toOf(a))}`;
    case 'placeStone': return `site:${num(decision?.dolmen?.site)}`;
    case 'placeDolmen': return `circle:${num(decision?.dolmen?.circle)}`;
    default: return null;
  }
}

// The corners of a circle, in order round its middle.
function outline(v, c) {
  const pts = c.sites.map((i) => v.sites[num(i)]).map((st) => [px(st.x), px(st.y)]);
  const cx = pts.reduce((a, p) => a + p[0], 0) / pts.length;
  const cy = pts.reduce((a, p) => a + p[1], 0) / pts.length;
  pts.sort((p, q) => Math.atan2(p[1] - cy, p[0] - cx) - Math.atan2(q[1] - cy, q[0] - cx));
  return { pts, cx, cy };
}

// The board as SVG. `targets` is a Set of target keys that can be clicked.
export function draw(state, targets) {
  const v = view(state);
  const tgt = (key) => (targets.has(key) ? { 'data-target': key, class: 'target', tabindex: 0, role: 'button' } : { 'data-key': key });
  const svg = s('svg', { viewBox: '0 0 720 720', class: 'board dolmen', role: 'img', 'aria-label': 'Die Dolmengötter board' });
  svg.append(s('rect', { x: 0, y: 0, width: 720, height: 720, rx: 12, fill: '#eef2e6' }));
  const outlines = s('g', { class: 'leaders', 'pointer-events': 'none' });
  for (const c of v.circles) {
    const { pts, cx, cy } = outline(v, c);
    const leader = c.leader !== undefined ? num(c.leader) : null;
    const g = s('g', { ...tgt(`circle:${num(c.circle)}`), 'data-circle': num(c.circle) });
    g.append(s('title', {}, [`circle ${c.letter}${leader !== null ? `, led by seat ${leader}` : ''}${c.complete ? ', complete' : ''}`]));
    g.append(s('polygon', {
      points: pts.map((p) => p.join(',')).join(' '),
      fill: c.complete ? '#c8c8c8' : SHAPE_FILL[c.shape] || '#eee',
      stroke: '#9a9a9a',
      'stroke-width': 1.5,
      class: 'circle-shape',
    }));
    // The leader's outline goes on top of every circle, drawn afterwards.
    if (leader !== null) {
      outlines.append(s('polygon', { points: pts.map((p) => p.join(',')).join(' '), fill: 'none', stroke: colour(leader), 'stroke-width': 5, 'stroke-dasharray': '10 4', class: `leader-outline seat-${leader}` }));
    }
    g.append(label(cx, cy - 16, c.letter, { 'font-size': 18, 'font-weight': 'bold', fill: '#555' }));
    if (leader !== null) g.append(disc(cx + 16, cy - 16, 8, leader, colour(leader), { class: `leader seat-${leader}` }));
    // The dolmen stack, top first; another seat's values stay hidden (backs).
    (c.stack || []).forEach((d, i) => {
      const seat = num(d.seat);
      const y = cy + 2 + i * 15;
      const known = d.value !== undefined;
      g.append(s('g', { class: `piece dolmen seat-${seat}${known ? '' : ' back'}` }, [
        s('rect', { x: cx - 17, y: y - 7, width: 34, height: 14, rx: 3, fill: colour(seat), stroke: '#111', 'stroke-dasharray': known ? null : '3 2' }),
        label(cx, y, known ? `${seat}:${num(d.value)}` : `${seat}:?`, { 'font-size': 10, fill: ink(colour(seat)), 'font-weight': 'bold' }),
      ]));
    });
    svg.append(g);
  }
  svg.append(outlines);
  for (const st of v.sites) {
    const [x, y] = [px(st.x), px(st.y)];
    const g = s('g', { ...tgt(`site:${num(st.site)}`), 'data-site': num(st.site) });
    g.append(s('circle', { cx: x, cy: y, r: targets.has(`site:${num(st.site)}`) ? 13 : 6, fill: '#fff', stroke: '#777', class: 'site' }));
    if (st.stone !== undefined) {
      const seat = num(st.stone);
      g.append(s('g', { class: `piece stone seat-${seat}` }, [
        s('rect', { x: x - 11, y: y - 11, width: 22, height: 22, rx: 4, fill: colour(seat), stroke: '#111' }),
        label(x, y, seat, { 'font-size': 12, fill: ink(colour(seat)), 'font-weight': 'bold' }),
      ]));
    } else if (st.druid) {
      const seat = num(st.druid.seat);
      if (st.druid.lying) {
        g.append(s('g', { class: `piece druid lying seat-${seat}` }, [
          s('title', {}, [`seat ${seat}'s druid, lying (collecting herbs)`]),
          s('ellipse', { cx: x, cy: y, rx: 20, ry: 10, fill: colour(seat), stroke: '#111', 'stroke-width': 2 }),
          label(x, y, `${seat}z`, { 'font-size': 11, fill: ink(colour(seat)), 'font-weight': 'bold' }),
        ]));
      } else {
        const d = disc(x, y, 15, seat, colour(seat), { class: `piece druid standing seat-${seat}` });
        d.prepend(s('title', {}, [`seat ${seat}'s druid, standing`]));
        g.append(d);
      }
    }
    svg.append(g);
  }
  return svg;
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
export const legend = 'Small circles: sites. Round pieces: standing druids; flat ones marked "z": lying druids (collecting herbs). Squares: stones. Dashed coloured outline and badge: the circle\'s leader. "2:3": a dolmen of seat 2 worth 3; "2:?": its value is hidden until it scores. Square, hexagonal and octagonal circles are shaded apart; completed ones are grey.';

export function status(state) {
  const v = view(state);
  return `turn ${num(v.turn)}, seat ${num(v.active)} active`;
}

export function decisionText(decision) {
  const d = decision?.dolmen;
  if (!d) return '';
  switch (d.kind) {
    case 'KIND_PLACE_DRUID': return 'place a druid';
    case 'KIND_TURN': return 'walk, collect herbs or fly';
    case 'KIND_STONE': return `leave a stone on site ${num(d.site)}${d.mayDecline ? ' or decline (-1)' : ''}`;
    case 'KIND_DOLMEN': return `a dolmen ${d.onTop ? 'on top of' : 'under'} the stack of circle ${num(d.circle)}`;
    default: return '';
  }
}

export function eventBody(event) {
  const m = event.dolmen;
  if (!m) return null;
  const [k, body] = oneof(m, Object.keys(m));
  return k ? [words(k), body] : null;
}

export function describe(event) {
  const b = eventBody(event);
  return b ? `${b[0]}: ${summary(b[1], ENUM_PREFIXES)}` : null;
}

// Applies one Die Dolmengötter event to the state (in place).
export function apply(state, event) {
  const v = view(state);
  const b = event.dolmen;
  if (!v || !b) return;
  const seat = (x) => v.seats[num(x.seat)];
  const [kind, e] = oneof(b, Object.keys(b));
  const site = (i) => v.sites[num(i)];
  switch (kind) {
    case 'druidPlaced':
      site(e.site).druid = { seat: num(e.seat), lying: false };
      seat(e).druidsToPlace = num(seat(e).druidsToPlace) - 1;
      break;
    case 'turnStarted': v.active = num(e.seat); v.turn = num(e.turn); break;
    case 'walked':
    case 'flew': {
      const d = site(fromOf(e)).druid || { seat: num(e.seat) };
      delete site(fromOf(e)).druid;
      site(toOf(e)).druid = { seat: num(d.seat), lying: false };
      break;
    }
    case 'herbsCollected':
      if (site(e.site).druid) site(e.site).druid.lying = true;
      break;
    case 'stonePlaced': {
      const st = site(e.site);
      st.stone = num(e.seat);
      for (const c of st.circles || []) {
        const stones = v.circles[num(c)].stones;
        stones[num(e.seat)] = num(stones[num(e.seat)]) + 1;
      }
      seat(e).stonesLeft = num(seat(e).stonesLeft) - 1;
      break;
    }
    case 'leaderChanged': v.circles[num(e.circle)].leader = num(e.leader); break;
    case 'dolmenPlaced': {
      const piece = { seat: num(e.seat) };
      if (e.value !== undefined) piece.value = num(e.value);
      const stack = v.circles[num(e.circle)].stack;
      if (e.onTop) stack.unshift(piece); else stack.push(piece);
      const st = seat(e);
      st.dolmensLeft = num(st.dolmensLeft) - 1;
      st.dolmensPlaced = num(st.dolmensPlaced) + 1;
      if (st.hand && e.value !== undefined) {
        const k = VALUES[num(e.value) - 1];
        st.hand[k] = num(st.hand[k]) - 1;
      }
      break;
    }
    case 'circleCompleted': v.circles[num(e.circle)].complete = true; break;
    case 'dolmenScored': {
      const stack = v.circles[num(e.circle)].stack;
      const i = stack.findIndex((d) => num(d.seat) === num(e.seat));
      if (i >= 0) stack.splice(i, 1);
      const k = VALUES[num(e.value) - 1];
      seat(e).scored[k] = num(seat(e).scored[k]) + 1;
      break;
    }
    case 'scored': seat(e).score = num(e.total); break;
    case 'lastTurnsBegin': v.endTriggeredBy = num(e.seat); break;
    case 'gameOver': (e.scores || []).forEach((sc, i) => { v.seats[i].score = num(sc); }); break;
    default: break;
  }
}

// The state before the first event, from the final state and every event:
// pieces start off the board, counts at the final count minus the events' net
// change (see meduris.js).
export function initial(final, events) {
  const fresh = (st) => {
    const v = view(st);
    for (const x of v.sites) { delete x.druid; delete x.stone; }
    for (const c of v.circles) {
      delete c.leader; c.stack = []; c.complete = false; c.stones = c.stones.map(() => 0);
    }
    v.turn = 0; v.active = 0; v.lastTurnsLeft = 0; v.queuedDolmens = [];
    delete v.endTriggeredBy;
    return v;
  };
  const start = structuredClone(final);
  const zero = structuredClone(final);
  fresh(start);
  const z = fresh(zero);
  for (const st of z.seats) {
    st.stonesLeft = 0; st.dolmensLeft = 0; st.dolmensPlaced = 0; st.druidsToPlace = 0;
    if (st.hand) for (const k of VALUES) st.hand[k] = 0;
  }
  for (const e of events) apply(zero, e);
  view(start).seats.forEach((st, i) => {
    const fz = z.seats[i];
    st.stonesLeft = num(st.stonesLeft) - fz.stonesLeft;
    st.dolmensLeft = num(st.dolmensLeft) - fz.dolmensLeft;
    st.druidsToPlace = num(st.druidsToPlace) - fz.druidsToPlace;
    st.dolmensPlaced = 0;
    if (st.hand) for (const k of VALUES) st.hand[k] = num(st.hand[k]) - fz.hand[k];
    for (const k of VALUES) st.scored[k] = 0;
    const first = events.map((e) => e.dolmen?.scored).find((x) => x && num(x.seat) === i);
    if (first) st.score = num(first.total) - num(first.delta);
  });
  return start;
}

export function changesScore(event) {
  return Boolean(event.dolmen?.scored);
}

// What a state shows that every viewer may see, in a canonical form: the
// tests compare the state the page computed from events with the server's.
export function essentials(state) {
  const v = view(state);
  return {
    sites: v.sites.map((x) => (x.stone !== undefined ? `stone ${num(x.stone)}` : x.druid ? `druid ${num(x.druid.seat)}${x.druid.lying ? ' lying' : ''}` : '')),
    circles: v.circles.map((c) => [c.leader === undefined ? null : num(c.leader), (c.stones || []).map(num), (c.stack || []).map((d) => num(d.seat)), Boolean(c.complete)]),
    seats: v.seats.map((st) => [num(st.score), num(st.stonesLeft), num(st.dolmensLeft), num(st.dolmensPlaced), num(st.druidsToPlace), VALUES.map((k) => num(st.scored?.[k]))]),
    turn: num(v.turn),
    active: num(v.active),
  };
}

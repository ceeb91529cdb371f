// Small DOM helpers shared by every page: building HTML and SVG elements
// without a framework (the viewer is plain ES modules, no build step), the
// pieces the boards draw, and the wording helpers every page shares. Pieces
// carry their seat number as well as their colour, so that colour-blind
// players can tell them apart.

const SVG_NS = 'http://www.w3.org/2000/svg';

// Sets attributes (`class`, `data-*`, ...) and appends children (nodes or text).
function fill(node, attrs, children) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'onclick') node.addEventListener('click', v);
    else if (k === 'onchange') node.addEventListener('change', v);
    else if (k === 'text') node.textContent = v;
    // Through the CSSOM: the page's Content-Security-Policy forbids style attributes.
    else if (k === 'css') Object.assign(node.style, v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of [].concat(children ?? [])) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

// An HTML element.
export function h(tag, attrs, children) {
  return fill(document.createElement(tag), attrs, children);
}

// An SVG element.
export function s(tag, attrs, children) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children);
}

// An SVG text label, centred on (x, y).
export function label(x, y, text, attrs) {
  return s('text', { x, y, 'text-anchor': 'middle', 'dominant-baseline': 'central', class: 'label', ...attrs }, [text]);
}

// Text that is dark on light colours and light on dark ones.
export function ink(colour) {
  const hex = colour.replace('#', '');
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? '#111' : '#fff';
}

// A round piece of seat `seat` in `colour` with the seat number on it.
export function disc(x, y, r, seat, colour, attrs, title) {
  return s('g', { class: `piece seat-${seat}`, ...attrs }, [
    title ? s('title', {}, [title]) : null,
    s('circle', { cx: x, cy: y, r, fill: colour, stroke: '#111', 'stroke-width': Math.max(1, r / 8) }),
    label(x, y, seat, { fill: ink(colour), 'font-size': r * 1.15, 'font-weight': 'bold' }),
  ]);
}

// The canonical proto3 JSON of a 64-bit integer is a string.
export function num(v) {
  return v === undefined || v === null ? 0 : Number(v);
}

// The one key of a JSON oneof that is present, and its value.
export function oneof(obj) {
  if (!obj) return [undefined, undefined];
  for (const [k, v] of Object.entries(obj)) if (v !== undefined && v !== null) return [k, v];
  return [undefined, undefined];
}

// `camelCase` as words ("placeDolmen" -> "place dolmen").
export function words(name) {
  return String(name).replace(/([A-Z])/g, ' $1').toLowerCase();
}

// A seat's name ("seat 2" while it has none, "open seat 2" while unclaimed).
export function seatName(state, seat) {
  const info = state?.seats?.[seat];
  if (info?.name) return info.name;
  // Unclaimed (a game waiting for players): said so, as the games list does.
  return info && !info.claimed ? `open seat ${seat}` : `seat ${seat}`;
}

// The server's wording ("seat 1 placed a stone ...") with the seats' names;
// not in "seat 2 joined as late", which names it already.
export function named(text, seats) {
  if (!text || !seats?.length) return text || '';
  return text.replace(/\bseat (\d+)\b(?! joined as )/g, (m, n) => seats[Number(n)]?.name || m);
}

// The enum value `GAME_STATUS_RUNNING` of `prefix` `GAME_STATUS_` as words.
export function enumWords(value, prefix) {
  return String(value || '').replace(prefix, '').toLowerCase().replace(/_/g, ' ');
}

// A time (ms since the Unix epoch, as a proto3 JSON string) for people.
export function when(ms) {
  const t = num(ms);
  return t ? new Date(t).toLocaleString() : '';
}

// "turn 12", and how many last turns are left once the end is triggered:
// the status line of a game view with these common fields.
export function turnStatus(v) {
  const end = v.endTriggeredBy !== undefined ? `, last turns (${num(v.lastTurnsLeft)} left)` : '';
  return `turn ${num(v.turn)}${end}`;
}

// The attributes of a board place `key`: a clickable, focusable target
// named `name` when `targets` has it, else just its key.
export function placeAttrs(targets, key, name) {
  return targets.has(key)
    ? { 'data-target': key, class: 'target', tabindex: 0, role: 'button', 'aria-label': name }
    : { 'data-key': key };
}

// A number with one decimal.
export const fixed = (x, d = 1) => Number(x || 0).toFixed(d);

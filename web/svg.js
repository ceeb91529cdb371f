// Small DOM helpers shared by every page: building HTML and SVG elements
// without a framework (the viewer is plain ES modules, no build step), and the
// seat pieces both boards draw. Pieces always carry their seat number as well
// as their colour, so that colour-blind players can tell them apart.

const SVG_NS = 'http://www.w3.org/2000/svg';

// Sets attributes (`class`, `data-*`, ...) and appends children (nodes or text).
function fill(node, attrs, children) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'onclick') node.addEventListener('click', v);
    else if (k === 'text') node.textContent = v;
    // Through the CSSOM: the page's Content-Security-Policy forbids style attributes.
    else if (k === 'css') Object.assign(node.style, v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of [].concat(children || [])) {
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
  return s('text', { x, y, 'text-anchor': 'middle', 'dominant-baseline': 'central', ...attrs }, [text]);
}

// Text that is dark on light colours and light on dark ones.
export function ink(colour) {
  const hex = colour.replace('#', '');
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? '#111' : '#fff';
}

// A round piece of seat `seat` in `colour` with the seat number on it.
export function disc(x, y, r, seat, colour, attrs) {
  return s('g', { class: `piece seat-${seat}`, ...attrs }, [
    s('circle', { cx: x, cy: y, r, fill: colour, stroke: '#111', 'stroke-width': 1.5 }),
    label(x, y, seat, { fill: ink(colour), 'font-size': r * 1.2, 'font-weight': 'bold' }),
  ]);
}

// The canonical proto3 JSON of a 64-bit integer is a string.
export function num(v) {
  return v === undefined || v === null ? 0 : Number(v);
}

// The one key of a JSON oneof among `keys` that is present.
export function oneof(obj, keys) {
  if (!obj) return [undefined, undefined];
  for (const k of keys) if (obj[k] !== undefined && obj[k] !== null) return [k, obj[k]];
  return [undefined, undefined];
}

// `camelCase` as words ("hutBuilt" -> "hut built").
export function words(name) {
  return String(name).replace(/([A-Z])/g, ' $1').toLowerCase();
}

// A short summary of a message's fields, for events without a description:
// the seat first, enum values as words without the type's prefix (one of
// `prefixes`, which the game modules know), goods and the like as counts.
export function summary(obj, prefixes = []) {
  if (!obj || typeof obj !== 'object') return '';
  const value = (v) => {
    if (typeof v === 'string' && /^[A-Z][A-Z0-9_]+$/.test(v)) {
      const p = prefixes.find((x) => v.startsWith(x));
      return (p ? v.slice(p.length) : v).toLowerCase().replace(/_/g, ' ');
    }
    if (Array.isArray(v)) return v.length ? v.map(value).join(', ') : 'none';
    if (v && typeof v === 'object') {
      // One field (e.g. where the druid stands): "field 20"; several (goods): counts.
      const only = Object.entries(v);
      if (only.length === 1) return only[0][1] === true ? words(only[0][0]) : `${words(only[0][0])} ${value(only[0][1])}`;
      const parts = Object.entries(v)
        .filter(([, x]) => x !== 0 && x !== false && x !== '' && !String(x).endsWith('_UNSPECIFIED'))
        .map(([k, x]) => (typeof x === 'number' ? `${x} ${words(k)}` : x === true ? words(k) : `${words(k)} ${value(x)}`));
      return parts.length ? parts.join(' + ') : 'nothing';
    }
    return String(v);
  };
  // Unset enums and false flags say nothing (e.g. the faces a die did not show).
  const entries = Object.entries(obj).filter(([, v]) => v !== false && !String(v).endsWith('_UNSPECIFIED'));
  entries.sort(([a], [b]) => (a === 'seat' ? -1 : b === 'seat' ? 1 : 0));
  return entries.map(([k, v]) => (v === true ? words(k) : `${words(k)} ${value(v)}`)).join(', ');
}

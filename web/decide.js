// The pending decision of the page's seat, for a person: what it means (the
// engine's words) and its choices two clicks away at most. On the board,
// each place with choices is highlighted: one click plays its only choice,
// or lists its choices (a second click picks one). In the list, choices are
// grouped by what they do (walk, fly, build a hut, ...): one click opens a
// group, one more plays a choice; a short decision lists its choices whole.
// Which board place an action belongs to is the board module's call
// (`targetOf`): drawing, not rules. Nothing here knows a game.

import { h, named, oneof, words } from './dom.js';

// Decisions with this few choices list them whole: one click each.
const SHORT = 6;

// The legal actions by board place (`targets`: target key -> actions) and
// by kind (`kinds`: `{key, label, actions}` in the order of first actions).
export function groups(board, legal) {
  const targets = new Map();
  const kinds = new Map();
  for (const a of legal?.actions || []) {
    const target = board.targetOf(a.action, legal.decision);
    if (target) targets.set(target, [...(targets.get(target) || []), a]);
    // A game's own action is a oneof of kinds; a generic one has a name.
    const [game, inner] = oneof(a.action);
    const kind = game === 'generic' ? inner?.name : oneof(inner)[0];
    const key = `kind:${kind}`;
    if (!kinds.has(key)) kinds.set(key, { key, label: words(kind || 'choice'), actions: [] });
    kinds.get(key).actions.push(a);
  }
  return { targets, kinds: [...kinds.values()], total: legal?.actions?.length || 0 };
}

// The actions a pick opens: `target:<key>` (a board place) or `kind:<kind>`.
export function picked(grouped, pick, board, state) {
  if (!pick) return null;
  if (pick.startsWith('target:')) {
    const target = pick.slice('target:'.length);
    const actions = grouped.targets.get(target);
    return actions ? { label: board.targetName(target, state), actions } : null;
  }
  return grouped.kinds.find((k) => k.key === pick) || null;
}

// The decision panel: the decision's meaning, then the choices of the open
// pick, every choice (a short list), or the groups. `submit(action)` plays
// a choice; `pick(key)` opens a group (null: back to all).
export function panel(legal, grouped, open, state, { submit, pick }) {
  const seats = state.seats || [];
  const choice = (a) => h('li', {}, [h('button', { class: 'choice action', 'data-id': a.id, onclick: () => submit(a) }, [named(a.description || 'choose', seats)])]);
  let body;
  if (open) {
    body = [
      h('p', { class: 'picked' }, [h('strong', {}, [open.label]), `: ${open.actions.length} choices — `, h('button', { class: 'link', onclick: () => pick(null) }, ['back to all'])]),
      h('ol', { class: 'choices filtered' }, open.actions.map(choice)),
    ];
  } else if (grouped.total <= SHORT) {
    body = [h('ol', { class: 'choices' }, grouped.kinds.flatMap((k) => k.actions).map(choice))];
  } else {
    body = [
      h('p', { class: 'note' }, [grouped.targets.size ? 'Pick a highlighted place on the board, or what to do here:' : 'What to do:']),
      h('ul', { class: 'groups' }, grouped.kinds.map((k) => h('li', {}, [
        k.actions.length === 1
          ? h('button', { class: 'choice action', 'data-id': k.actions[0].id, onclick: () => submit(k.actions[0]) }, [named(k.actions[0].description, seats)])
          : h('button', { class: 'choice group', 'data-group': k.key, onclick: () => pick(k.key) }, [`${k.label} (${k.actions.length} choices)`]),
      ]))),
    ];
  }
  return [
    h('h2', {}, ['Your decision']),
    h('p', { class: 'meaning' }, [named(legal.decisionDescription || '', seats)]),
    ...body,
  ];
}

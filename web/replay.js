// A game that is over, step by step: the server's view after each action
// (GetReplayViews, a page at a time, as a spectator or as any seat saw it),
// opened at the result, with a timeline to scrub, step, play and jump
// between score changes. The events (one stream from the first) give the
// log and the score changes' places; the views give everything drawn.

import * as api from './api.js';
import { render, logLine } from './view.js';
import { h, num, seatName } from './dom.js';

// Views per request.
const PAGE = 20;

export async function replay(ui) {
  const { gameId, board } = ui;
  ui.replaying = true;
  const last = num(ui.state.version);
  const final = ui.state;
  let seat = ui.token ? ui.state.viewerSeat : undefined;
  const cache = new Map();
  const fetching = new Map();
  // The page of views holding version `v`, once.
  const page = (v) => {
    const from = Math.floor(v / PAGE) * PAGE;
    // The seat asked for, kept: the views are filed under it even if the
    // reader picks another seat while they load.
    const who = seat ?? 's';
    const key = `${who}:${from}`;
    if (!fetching.has(key)) {
      const body = { gameId, fromVersion: from, pageSize: PAGE };
      if (seat !== undefined) body.seat = seat;
      fetching.set(key, api.rpc('GetReplayViews', body).then((r) => {
        for (const view of r.views || []) cache.set(`${who}:${num(view.version)}`, view);
      }, (e) => {
        // Asked again next time.
        fetching.delete(key);
        throw e;
      }));
    }
    return fetching.get(key);
  };
  const view = (v) => cache.get(`${seat ?? 's'}:${v}`);

  const events = [];
  await api.gameEvents(gameId, 1, ui.token, (ev) => events.push(ev));
  // The versions where a score changed (an event's version: the view after
  // the action that caused it).
  const scoreSteps = [...new Set(events.filter(board.changesScore).map((e) => num(e.version)))].sort((a, b) => a - b);

  let pos = last;
  let timer = null;
  let wanted = last;
  const range = h('input', { type: 'range', min: 0, max: last, value: last, id: 'seek', 'aria-label': 'timeline' });
  const where = h('span', { id: 'position', class: 'note' });
  const speed = h('select', { id: 'speed', 'aria-label': 'speed' }, [1, 2, 5, 10, 50].map((n) => h('option', { value: n, selected: n === 5 }, [`${n} actions/s`])));
  const playBtn = h('button', { id: 'play' }, ['▶ play']);
  const asSeat = h('select', { id: 'as-seat', 'aria-label': 'seen by' }, [
    h('option', { value: '' }, ['as a spectator saw it']),
    ...(final.seats || []).map((st, i) => h('option', { value: i, selected: seat === i }, [`as ${seatName(final, i)} saw it`])),
  ]);
  const show = async (target) => {
    const v = Math.max(0, Math.min(last, target));
    wanted = v;
    range.value = v;
    if (!view(v)) {
      where.textContent = `loading action ${v}…`;
      try {
        await page(v);
      } catch (e) {
        if (wanted === v) where.textContent = `action ${v} could not be loaded: ${e.message}`;
        return;
      }
      // Another step, or another seat, was asked for meanwhile.
      if (wanted !== v || !view(v)) return;
    }
    pos = v;
    ui.state = view(v);
    where.textContent = v === last ? `the end: all ${last} actions` : v === 0 ? 'the set-up, before any action' : `after action ${v} of ${last}`;
    document.body.dataset.replayPos = String(v);
    document.body.dataset.replayEnd = String(v === last);
    ui.logEl.replaceChildren();
    for (const ev of events.filter((e) => num(e.version) <= v).slice(-300)) logLine(ui, ev);
    render(ui);
    // The next page before it is needed.
    // (A failure is shown when that step is.)
    if (v + PAGE / 2 <= last) page(v + PAGE / 2).catch(() => {});
    if (v === last) stop();
  };
  const stop = () => { clearInterval(timer); timer = null; playBtn.textContent = '▶ play'; };
  const play = () => {
    if (timer) return stop();
    if (pos === last) show(0);
    playBtn.textContent = '❚❚ pause';
    timer = setInterval(() => { if (view(pos + 1) || pos >= last) show(pos + 1); else page(pos + 1).catch(() => {}); }, 1000 / Number(speed.value));
  };
  const jump = (dir) => {
    stop();
    const next = dir > 0 ? scoreSteps.find((v) => v > pos) : [...scoreSteps].reverse().find((v) => v < pos);
    show(next ?? (dir > 0 ? last : 0));
  };
  playBtn.addEventListener('click', play);
  speed.addEventListener('change', () => { if (timer) { stop(); play(); } });
  range.addEventListener('input', () => { stop(); show(Number(range.value)); });
  asSeat.addEventListener('change', () => { seat = asSeat.value === '' ? undefined : Number(asSeat.value); show(pos); });
  ui.controlsEl.replaceChildren(
    h('h2', {}, ['Replay']),
    h('div', { class: 'timeline' }, [range, h('div', { class: 'marks', 'aria-hidden': 'true' }, scoreSteps.map((v) => h('span', { class: 'mark', css: { left: `${(100 * v) / Math.max(1, last)}%` } })))]),
    where,
    h('div', { class: 'buttons' }, [
      h('button', { id: 'first', onclick: () => { stop(); show(0); } }, ['|◀ set-up']),
      h('button', { id: 'prev-score', onclick: () => jump(-1) }, ['◀ score']),
      h('button', { id: 'back', onclick: () => { stop(); show(pos - 1); } }, ['◀ step']),
      playBtn,
      h('button', { id: 'step', onclick: () => { stop(); show(pos + 1); } }, ['step ▶']),
      h('button', { id: 'next-score', onclick: () => jump(1) }, ['score ▶']),
      h('button', { id: 'last', onclick: () => { stop(); show(last); } }, ['end ▶|']),
    ]),
    h('div', { class: 'buttons' }, [speed, asSeat]),
  );
  ui.controlsEl.hidden = false;
  await show(last);
}

// The game page: the board, the seats, the pending decision in words, the
// events, a rules panel, and either
//  - live play: every event on the stream makes the page ask the server for
//    its view again (GetState), and a seat (token in the fragment) gets its
//    choices on the board and in a list; or
//  - a replay, for games that are over ([`replay.js`]): the server's views
//    after each action, page by page.
// The page applies no rule: every state it draws is a view the server
// computed with the engine.

import * as api from './api.js';
import { boardFor } from './boards.js';
import { replay } from './replay.js';
import { isOver, render, logLine, clockText } from './view.js';
import { h, num, seatName } from './dom.js';

// Events before the current state shown in a live page's log.
const HISTORY = 30;

// The rules panel: the server's description of the game and its rules' link.
function rulesPanel(type, board) {
  if (!type) return null;
  // A web address is linked; a path names the file of the druids repository.
  const rules = !type.rules ? null : /^https?:\/\//.test(type.rules)
    ? h('a', { href: type.rules, rel: 'noopener' }, ['the full rules'])
    : h('span', {}, ['the full rules are in the druids repository: ', h('code', {}, [type.rules])]);
  return h('details', { class: 'rules', id: 'rules' }, [
    h('summary', {}, [`How ${type.displayName} is played`]),
    h('p', {}, [type.summary]),
    board.legend ? h('p', { class: 'note legend' }, [board.legend]) : null,
    rules ? h('p', { class: 'note' }, ['With the decisions taken where the rulebook is silent, ', rules, '.']) : null,
  ]);
}

function skeleton(root, board, type, gameId, token, state) {
  const seat = num(state.viewerSeat);
  const named = seatName(state, seat);
  const you = token ? `you play ${named}${named === `seat ${seat}` ? '' : ` (seat ${seat})`}` : 'watching as a spectator';
  const title = type?.displayName || board.title;
  const ui = {
    boardEl: h('div', { class: 'board-wrap' }),
    statusEl: h('p', { id: 'status', class: 'status' }),
    clockEl: h('p', { id: 'clock', class: 'clock' }),
    seatsEl: h('tbody'),
    actionsEl: h('section', { id: 'actions', class: 'actions', hidden: true, 'aria-live': 'polite' }),
    errorEl: h('p', { id: 'error', class: 'error', role: 'alert' }),
    troubleEl: h('p', { id: 'trouble', class: 'trouble', role: 'status' }),
    outcomeEl: h('p', { id: 'outcome', class: 'outcome' }),
    controlsEl: h('section', { id: 'replay', class: 'replay', hidden: true }),
    resignEl: h('p', { class: 'resign', hidden: true }),
    logEl: h('ul', { id: 'log', class: 'log' }),
  };
  document.title = `${title} — druids`;
  root.replaceChildren(h('article', { class: 'game' }, [
    h('header', { class: 'game-head' }, [
      h('h1', {}, [title, ' ', h('small', {}, [`${state.seats?.length || 0} players · game ${gameId}`])]),
      h('p', { class: 'role' }, [you, state.seedChosenByCreator && type?.diceDriven ? ' · the creator chose the seed (the dice are not secret)' : '']),
      ui.statusEl,
      ui.clockEl,
      ui.troubleEl,
      ui.outcomeEl,
    ]),
    h('div', { class: 'game-body' }, [
      h('div', { class: 'board-col' }, [ui.boardEl]),
      h('aside', {}, [
        ui.controlsEl,
        h('table', { id: 'seats', class: 'seats' }, [h('thead', {}, [h('tr', {}, [h('th', {}, ['']), h('th', {}, ['player']), h('th', {}, ['score']), h('th', {}, [''])])]), ui.seatsEl]),
        ui.errorEl,
        ui.actionsEl,
        ui.resignEl,
        rulesPanel(type, board),
        h('h2', {}, ['Events']),
        ui.logEl,
      ]),
    ]),
  ]));
  return ui;
}

export async function gamePage(root, gameId) {
  const token = api.pageToken();
  const state = (await api.rpc('GetState', { gameId }, token)).state;
  const board = boardFor(state.kind);
  const type = await api.gameType(state.kind).catch(() => undefined);
  const ui = skeleton(root, board, type, gameId, token, state);
  // The seat of the page's token (the server says which), for the page's life.
  const ownSeat = token ? state.viewerSeat : undefined;
  Object.assign(ui, { board, state, legal: null, picked: null, error: null, trouble: null, gameId, token, ownSeat });
  if (isOver(state)) return replay(ui);
  return live(ui);
}

async function live(ui) {
  const { gameId, token } = ui;
  let pending = false;
  const later = () => { if (!pending) { pending = true; requestAnimationFrame(() => { pending = false; render(ui); }); } };
  // The server's view, asked again after events: one request at a time,
  // and one more if events came meanwhile. While the server cannot be
  // reached, the page says so and asks again (backing off), so that the
  // seat's choices come back by themselves once it is up: a game waiting
  // on this seat sends no event that would ask for them.
  let asking = null;
  let again = false;
  let retry = null;
  let backoff = 500;
  const refresh = async () => {
    if (asking) { again = true; return asking; }
    clearTimeout(retry);
    asking = (async () => {
      do {
        again = false;
        try {
          ui.state = (await api.rpc('GetState', { gameId }, token)).state;
          const mine = token && ui.state.toAct !== undefined && num(ui.state.toAct) === num(ui.state.viewerSeat);
          const legal = mine ? await api.rpc('GetLegalActions', { gameId }, token) : null;
          const fresh = legal?.actions?.length && num(legal.version) === num(ui.state.version) ? legal : null;
          if (num(fresh?.version) !== num(ui.legal?.version)) ui.picked = null;
          ui.legal = fresh;
          ui.trouble = null;
          backoff = 500;
          // A refused choice is news only until the game moves on.
          if (ui.error && ui.errorVersion !== num(ui.state.version)) ui.error = null;
        } catch (e) {
          if (api.transient(e)) {
            ui.trouble = `The server cannot be reached (${e.message}): trying again…`;
            clearTimeout(retry);
            retry = setTimeout(refresh, backoff);
            backoff = Math.min(backoff * 2, 8000);
          } else {
            ui.error = e.message;
            ui.errorVersion = num(ui.state.version);
          }
        }
        later();
      } while (again);
      asking = null;
    })();
    return asking;
  };
  ui.submit = async (a) => {
    const legal = ui.legal;
    if (!legal) return;
    ui.legal = null; ui.picked = null; ui.error = null;
    render(ui);
    try {
      await api.rpc('SubmitAction', { gameId, legalActionId: a.id, expectedVersion: legal.version, idempotencyKey: key() }, token);
    } catch (e) {
      ui.error = `Your choice was not played: ${e.message}${e.reason ? ` (${e.reason})` : ''}${api.transient(e) ? '. Choose again once the server is back.' : ''}`;
      ui.errorVersion = num(legal.version);
    }
    refresh();
  };
  // The event stream's link: lost (the page says so) and back (the page
  // catches up on what it missed meanwhile).
  const onLink = (up) => {
    if (up && ui.trouble) refresh();
    if (!up && !ui.trouble) { ui.trouble = 'The connection to the server was lost: reconnecting…'; later(); }
  };
  if (token) {
    // Giving up ends the game at once (the seat ranks last): asked twice.
    ui.resignEl.replaceChildren(h('button', {
      type: 'button', id: 'resign',
      onclick: async () => {
        if (!confirm('Resign this game? It ends at once, and you are ranked last.')) return;
        try {
          await api.rpc('Resign', { gameId, idempotencyKey: key() }, token);
        } catch (e) {
          ui.error = `${e.message}${e.reason ? ` (${e.reason})` : ''}`;
          ui.errorVersion = num(ui.state.version);
          render(ui);
        }
      },
    }, ['resign']));
    ui.resignEl.hidden = false;
  }
  render(ui);
  await refresh();
  const tick = setInterval(() => { ui.clockEl.textContent = clockText(ui.state); }, 1000);
  // The stream starts a few events before the state's last one, so that the
  // log shows some history; each later event asks for the view again.
  const known = num(ui.state.lastSeq);
  await api.gameEvents(gameId, Math.max(1, known - HISTORY), token, (ev) => {
    logLine(ui, ev);
    if (num(ev.seq) > known) refresh();
  }, { onLink });
  clearTimeout(retry);
  clearInterval(tick);
  ui.resignEl.hidden = true;
  await refresh();
  ui.legal = null;
  render(ui);
  // The fragment (a seat token) is left behind: the replay is public.
  ui.controlsEl.replaceChildren(
    h('a', { href: location.pathname, class: 'button', id: 'to-replay' }, ['watch the replay']), ' ',
    h('a', { href: '/', class: 'button' }, [token ? 'play again' : 'all games']),
  );
  ui.controlsEl.hidden = false;
}

function key() {
  const b = new Uint8Array(12);
  crypto.getRandomValues(b);
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
}

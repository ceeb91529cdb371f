// The HTTP/JSON face of the contract, from the browser: one function per use,
// and the event logs read with fetch() rather than EventSource, because a
// seat's stream needs its token (a bot's log its key) in the `authorization`
// header, and secrets must never appear in a URL (EventSource can only send
// URLs and cookies).

// The seat token of this page: kept in the URL fragment (`#token=...`), which
// browsers never send to a server and servers therefore never log.
export function pageToken() {
  const m = /(?:^#|&)token=([0-9A-Za-z_-]+)/.exec(location.hash);
  return m ? m[1] : null;
}

// A bot's API key for the "my bot" page: kept in this tab's session storage
// only (gone when the tab closes), never in a URL.
const KEY = 'druids.botKey';
export const botKey = () => sessionStorage.getItem(KEY);
export const setBotKey = (key) => sessionStorage.setItem(KEY, key);
export const forgetBotKey = () => sessionStorage.removeItem(KEY);

// An error of the HTTP face: `{code, message, reason}` and the HTTP status.
export class ApiError extends Error {
  constructor(status, body) {
    super(body.message || `HTTP ${status}`);
    this.status = status;
    this.code = body.code || '';
    this.reason = body.reason || '';
  }
}

// Whether trying again later may succeed: the server is down or busy (5xx,
// 429: UNAVAILABLE and RESOURCE_EXHAUSTED, as the contract's retry rules
// say), or it could not be reached at all (fetch's own TypeError).
export const transient = (e) => !(e instanceof ApiError) || e.status >= 500 || e.status === 429;

function headers(token, extra) {
  const h = { 'content-type': 'application/json', ...extra };
  if (token) h.authorization = `Bearer ${token}`;
  return h;
}

async function post(path, body, token) {
  const r = await fetch(path, { method: 'POST', headers: headers(token), body: JSON.stringify(body) });
  const json = await r.json().catch(() => ({ message: `HTTP ${r.status}` }));
  if (!r.ok) throw new ApiError(r.status, json);
  return json;
}

// Calls the RPC `method` of the contract (e.g. "GetState", "GetLeaderboard")
// with the request message `body`.
export function rpc(method, body, token) {
  return post(`/api/v1/${method}`, body, token);
}

// Starts a game against built-in bots: `{gameId, seat, token}`.
export function practice(body) {
  return post('/web/v1/practice', body);
}

// The games this server hosts (ListGameTypes), asked once per page.
let types = null;
export function gameTypes() {
  types ??= rpc('ListGameTypes', {}).then((r) => r.gameTypes || []);
  return types;
}

// The description of game kind `kind` (e.g. "GAME_KIND_MEDURIS").
export async function gameType(kind) {
  return (await gameTypes()).find((t) => t.kind === kind);
}

// Follows an event log (`path`: a game's, a bot's or a tournament's events)
// from `fromSeq` as Server-Sent Events, calling `onEvent(event)` for each
// (proto3 JSON). A dropped connection is resumed after the last seq seen, as
// `Last-Event-ID` would; the promise resolves when the server ends the
// stream after a last event (`isLast(event)`), or `signal` aborts it. A
// stream that ends before any event is over if `ended()` says so (without
// it: always; a game's log can be ended by a restart or a test fault too).
// `onLink(up)` hears when the stream is open (true) and when it was lost
// and is about to be tried again (false), so that a page can say so and
// catch up once it is back.
export async function follow(path, fromSeq, token, onEvent, { signal, isLast = () => false, ended, onLink = () => {} } = {}) {
  let next = fromSeq;
  for (let attempt = 0; !signal?.aborted; attempt++) {
    try {
      const r = await fetch(`${path}?from_seq=${next}`, {
        headers: headers(token, { accept: 'text/event-stream' }),
        signal,
      });
      if (!r.ok) throw new ApiError(r.status, await r.json().catch(() => ({})));
      onLink(true);
      const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = '';
      let seen = 0;
      let over = false;
      for (;;) {
        const { value, done } = await reader.read();
        // The server ends a stream only after the log's last event; a
        // connection cut before that (a proxy, a restart) is resumed.
        if (done && (over || (seen === 0 && (!ended || (await ended()))))) return;
        if (done) throw new Error('the stream was cut');
        buf += value;
        let cut;
        while ((cut = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          const ev = parseSse(block);
          if (!ev) continue;
          if (ev.event === 'druids-error') throw new ApiError(503, JSON.parse(ev.data));
          const event = JSON.parse(ev.data);
          next = Math.max(next, Number(event.seq) + 1);
          attempt = 0;
          // A game stream's heartbeat: the server is alive, nothing happened.
          if (event.heartbeat) continue;
          seen++;
          over = isLast(event);
          onEvent(event);
        }
      }
    } catch (e) {
      if (signal?.aborted) return;
      // Errors of the request itself (unknown game, bad token) do not heal.
      if (!transient(e)) throw e;
      onLink(false);
      await new Promise((ok) => setTimeout(ok, Math.min(500 * 2 ** attempt, 8000)));
    }
  }
}

// A game's events (StreamEvents), ending with the game.
export function gameEvents(gameId, fromSeq, token, onEvent, { signal, onLink } = {}) {
  const isLast = (e) => Boolean(e.gameFinished || e.gameAbandoned);
  const ended = async () => {
    const { state } = await rpc('GetState', { gameId }, token);
    return ['GAME_STATUS_FINISHED', 'GAME_STATUS_ABANDONED'].includes(state?.status);
  };
  return follow(`/api/v1/games/${encodeURIComponent(gameId)}/events`, fromSeq, token, onEvent, { signal, isLast, ended, onLink });
}

// One SSE block as `{event, data}`; comments (keep-alives) give null.
function parseSse(block) {
  let event = 'message';
  const data = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':') || line === '') continue;
    const i = line.indexOf(':');
    const field = i < 0 ? line : line.slice(0, i);
    const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return data.length ? { event, data: data.join('\n') } : null;
}

// Drives the web viewer in headless Chromium with playwright-core, for
// tests/tests/suite/browser/: that test sets the server up, runs this script
// once (one browser for every page) and checks what it prints against the
// server's own answers. Usage: node run.mjs PLAN.json; prints one JSON line.
//
// Every click is a real click (Playwright's locator.click waits until its
// element is visible, stable, enabled and the one the pointer would hit);
// waits are on conditions, never on time. What a page shows is read from
// the page (its board and tables) and returned raw: web.rs compares it with
// GetState, GetReplayViews, GetLeaderboard and friends.
//
// PLAN: { base, chromium, screenshots, userDataDir, widths,
//         spectate: {gameId}, replays: [{name, gameId, step}], human: [{kind, seed}],
//         secrets: [{name, gameId, token, seat}], boards: [{name, path}],
//         ladder: {game, players, botId}, challenge: {key, opponentId},
//         errors: [{name, path}], list: bool, generic: {kind, seed},
//         faults: {restart: {gameId, token}, cleanEnds: {gameId, token, other, decisions}} }
// (every part but `base`, `chromium`, `screenshots`, `userDataDir` and
// `widths` may be left out).

import { readFileSync, mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const WIDTHS = plan.widths; // e.g. [360, 768, 1280]
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 360, height: 740 };
// A generous guard against a hang, never a budget for a step that should be quick.
const HANG = 120_000;
mkdirSync(plan.screenshots, { recursive: true });

const context = await chromium.launchPersistentContext(plan.userDataDir, {
  executablePath: plan.chromium,
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  viewport: DESKTOP,
});
context.setDefaultTimeout(HANG);
const page = context.pages()[0] || (await context.newPage());
const problems = [];
page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
// The requests an error page is about fail on purpose; any other error is a problem.
let expectingErrors = false;
let expectingOutage = false;
page.on('console', (m) => {
  if (m.type() !== 'error') return;
  if (expectingErrors && /Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())) return;
  // So do the calls a server that is down (a restart fault) refuses.
  if (expectingOutage && /Failed to load resource: the server responded with a status of 503/.test(m.text())) return;
  problems.push(`console: ${m.text()} (${page.url()})`);
});
// The page must load nothing from anywhere but the server under test.
page.on('request', (r) => { if (!r.url().startsWith(plan.base)) problems.push(`request off the server: ${r.url()}`); });

// The page's layout at every width: nothing wider than the window, and no
// two labels of the board overlapping (bounding boxes).
async function layout(name) {
  const out = {};
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: width < 600 ? 740 : 900 });
    await page.waitForFunction((w) => window.innerWidth === w, width);
    out[width] = await page.evaluate(() => {
      const w = document.documentElement.clientWidth;
      const outside = [...document.querySelectorAll('body *')]
        .filter((el) => el.getClientRects().length && !el.closest('details:not([open]) > :not(summary)'))
        .map((el) => [el, el.getBoundingClientRect()])
        .filter(([, r]) => r.width > 0 && (r.right > w + 1 || r.left < -1))
        .map(([el, r]) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${el.getAttribute('class') || ''} ${Math.round(r.left)}..${Math.round(r.right)}`);
      const labels = [...document.querySelectorAll('svg.board text')]
        .map((t) => [t, t.getBoundingClientRect()])
        .filter(([, r]) => r.width > 0);
      const overlaps = [];
      for (let i = 0; i < labels.length; i++) {
        for (let j = i + 1; j < labels.length; j++) {
          const [a, ra] = labels[i];
          const [b, rb] = labels[j];
          if (ra.left < rb.right - 0.5 && rb.left < ra.right - 0.5 && ra.top < rb.bottom - 0.5 && rb.top < ra.bottom - 0.5) overlaps.push(`"${a.textContent}" / "${b.textContent}"`);
        }
      }
      return { scrollWidth: document.documentElement.scrollWidth, width: w, outside: outside.slice(0, 20), labels: labels.length, overlaps: overlaps.slice(0, 20) };
    });
  }
  await page.setViewportSize(DESKTOP);
  return { name, ...out };
}
const layouts = [];

async function shots(name) {
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: `${plan.screenshots}/${name}-desktop.png` });
  await page.setViewportSize(PHONE);
  await page.waitForFunction((w) => window.innerWidth === w, PHONE.width);
  await page.screenshot({ path: `${plan.screenshots}/${name}-phone.png`, fullPage: true });
  await page.setViewportSize(DESKTOP);
}

// What the game page shows, read from the DOM: the seats' rows, and every
// place of the board with the pieces on it (their classes), plus the text
// of each dolmen.
const shown = () => page.evaluate(() => ({
  status: document.body.dataset.status,
  version: Number(document.body.dataset.version),
  seats: [...document.querySelectorAll('#seats tbody tr')].map((r) => ({ seat: Number(r.dataset.seat), name: r.querySelector('.name').textContent, score: Number(r.querySelector('.score').textContent), secret: r.querySelector('.goods, .hand')?.textContent || null })),
  places: Object.fromEntries([...document.querySelectorAll('svg.board [data-field], svg.board [data-site], svg.board [data-circle]')].map((g) => {
    const key = g.dataset.field !== undefined ? `field:${g.dataset.field}` : g.dataset.site !== undefined ? `site:${g.dataset.site}` : `circle:${g.dataset.circle}`;
    return [key, [...g.querySelectorAll('.piece')].map((p) => `${p.getAttribute('class')}${p.classList.contains('dolmen') ? ` ${p.querySelector('text').textContent}` : ''}`)];
  })),
  workers: Object.fromEntries([...document.querySelectorAll('svg.board [data-plateau]')].map((g) => [g.dataset.plateau, [...g.querySelectorAll('.worker')].map((w) => w.getAttribute('class'))])),
  // The score track's markers: [seat, cell].
  track: [...document.querySelectorAll('svg.board .score-marker')].map((m) => [Number(/seat-(\d+)/.exec(m.getAttribute('class'))[1]), Number(m.dataset.track)]),
  outcome: document.querySelector('#outcome')?.textContent || '',
  status_line: document.querySelector('#status')?.textContent || '',
}));

// What a generic board shows: its version, status and result, every field
// of the view as `path -> text` (seat rows as `seats[i].key`, empty cells
// left out), the labels on the table by seat, the choices offered, the
// log's lines and the seats' scores.
const genericShown = () => page.evaluate(() => {
  const fields = {};
  for (const td of document.querySelectorAll('.generic-board .view-seats tbody tr td')) {
    if (td.textContent !== '') fields[`seats[${td.closest('tr').dataset.seat}].${td.dataset.key}`] = td.textContent;
  }
  const dts = [...document.querySelectorAll('.generic-board dl.view-fields dt')];
  for (const dt of dts) fields[dt.textContent] = dt.nextElementSibling.textContent;
  return {
    version: Number(document.body.dataset.version),
    status: document.body.dataset.status,
    fields,
    tableLabels: Object.fromEntries([...document.querySelectorAll('svg.board [data-seat]')].map((g) => [g.dataset.seat, [...g.querySelectorAll('text.seat-field')].map((t) => t.textContent)])),
    choices: [...document.querySelectorAll('#actions:not([hidden]) button.choice')].map((b) => b.textContent),
    meaning: document.querySelector('#actions:not([hidden]) .meaning')?.textContent ?? null,
    log: [...document.querySelectorAll('#log li')].map((li) => li.textContent),
    scores: [...document.querySelectorAll('#seats tbody tr')].map((r) => r.querySelector('.score').textContent),
    details: [...document.querySelectorAll('#seats tbody tr')].map((r) => r.querySelector('.details').textContent),
    outcome: document.querySelector('#outcome')?.textContent || '',
  };
});

const results = { problems, layouts };

try {
  // 1. A spectator watches a live game to its end (web.rs starts playing once
  // this page's stream is open).
  if (plan.spectate) {
    await page.goto(`${plan.base}/games/${plan.spectate.gameId}`);
    await page.waitForSelector('svg.board');
    await page.waitForFunction(() => document.body.dataset.status === 'GAME_STATUS_FINISHED');
    await page.waitForSelector('#outcome:not(:empty)');
    await page.waitForSelector('#to-replay');
    results.spectate = { shown: await shown(), events: await page.$$eval('#log li', (l) => l.length) };
    layouts.push(await layout('spectator'));
    await shots('spectator');
  }

  // 2. The games list: filtered, unfiltered, paged.
  if (plan.list) {
    await page.goto(`${plan.base}/`);
    await page.waitForSelector('#games tbody tr[data-game]');
    results.list = { rows: await page.$$eval('#games tbody tr[data-game]', (rows) => rows.map((r) => ({ id: r.dataset.game, cells: [...r.querySelectorAll('td')].map((td) => td.textContent) }))) };
    layouts.push(await layout('games list'));
    await shots('games-list');
    await page.selectOption('#status', 'GAME_STATUS_FINISHED');
    await page.waitForFunction(() => { const cells = [...document.querySelectorAll('#games tbody tr[data-game] .status-cell')]; return cells.length && cells.every((td) => td.textContent === 'finished'); });
    results.list.finished = await page.$$eval('#games tbody tr[data-game]', (r) => r.map((x) => x.dataset.game));
    // Each filter: the rows once the page says they answer it.
    const filtered = async (query) => {
      await page.waitForFunction((q) => document.body.dataset.listQuery === q, query);
      return page.$$eval('#games tbody tr[data-game]', (r) => r.map((x) => x.dataset.game));
    };
    await page.selectOption('#status', '');
    await page.selectOption('#who', 'arena');
    results.list.arena = await filtered('who=arena');
    // The answer for the filters left behind ("everyone") is held until the
    // one for the filters chosen next ("rated only") is drawn: the late
    // answer must not replace those rows.
    const late = await holdAnswers('ListGames', (body) => body.arena === undefined && body.rated === undefined);
    await page.selectOption('#who', '');
    await page.selectOption('#rated', 'rated');
    results.list.rated = await filtered('rated=rated');
    const answered = Number(await page.getAttribute('body', 'data-list-answers'));
    late.release();
    // Until the page took the late answer in (drawn or not), or its rows changed.
    await page.waitForFunction(([n, rows]) => Number(document.body.dataset.listAnswers) > n
      || JSON.stringify([...document.querySelectorAll('#games tbody tr[data-game]')].map((x) => x.dataset.game)) !== JSON.stringify(rows), [answered, results.list.rated]);
    const afterLate = await page.$$eval('#games tbody tr[data-game]', (r) => r.map((x) => x.dataset.game));
    if (JSON.stringify(afterLate) !== JSON.stringify(results.list.rated)) problems.push(`a late answer to filters left behind replaced the rows of "rated only": ${JSON.stringify(afterLate)}`);
    await late.done();
    await page.selectOption('#rated', '');
    await page.selectOption('#kind', 'GAME_KIND_MEDURIS');
    results.list.meduris = await filtered('kind=GAME_KIND_MEDURIS');
    await page.goto(`${plan.base}/?page_size=2`);
    await page.waitForSelector('#games tbody tr[data-game]');
    const firstPage = await page.$$eval('#games tbody tr[data-game]', (r) => r.map((x) => x.dataset.game));
    await page.locator('#next-page').click();
    await page.waitForFunction((ids) => { const now = [...document.querySelectorAll('#games tbody tr[data-game]')].map((x) => x.dataset.game); return now.length && !now.includes(ids[0]); }, firstPage);
    results.list.pages = [firstPage, await page.$$eval('#games tbody tr[data-game]', (r) => r.map((x) => x.dataset.game))];
  }

  // 3. Replays open at the result; one steps back to a chosen version.
  results.replays = [];
  for (const replay of plan.replays || []) {
    await page.goto(`${plan.base}/games/${replay.gameId}`);
    await page.waitForSelector('#replay:not([hidden]) #play');
    await page.waitForFunction(() => document.body.dataset.replayEnd === 'true');
    const atEnd = await shown();
    layouts.push(await layout(`replay ${replay.name}`));
    await shots(`replay-${replay.name}`);
    // The timeline by keyboard (a real key press): one action back.
    await page.locator('#seek').press('ArrowLeft');
    await page.waitForFunction((end) => document.body.dataset.replayPos === String(end - 1), atEnd.version);
    const scrubbed = Number(await page.getAttribute('body', 'data-replay-pos'));
    // Scrub to a version with the timeline's buttons (real clicks): the
    // set-up, then step by step.
    await page.locator('#first').click();
    await page.waitForFunction(() => document.body.dataset.replayPos === '0');
    for (let v = 1; v <= replay.step; v++) {
      await page.locator('#step').click();
      await page.waitForFunction((want) => document.body.dataset.replayPos === String(want), v);
    }
    const atStep = await shown();
    // The same version as seat 0 saw it.
    await page.selectOption('#as-seat', '0');
    await page.waitForFunction(() => document.querySelector('#seats tr[data-seat="0"] .goods, #seats tr[data-seat="0"] .hand'));
    const asSeat = await shown();
    if (replay === plan.replays[0]) await seatSwitchedWhileLoading();
    await page.locator('#next-score').click();
    await page.waitForFunction((from) => Number(document.body.dataset.replayPos) > from, replay.step);
    const scoreStep = Number(await page.getAttribute('body', 'data-replay-pos'));
    results.replays.push({ gameId: replay.gameId, atEnd, scrubbed, atStep, asSeat, step: replay.step, scoreStep });
  }

  // Holds the answers to the RPC `method` whose request body `which` picks
  // (fetched, not yet given to the page) until `release()`; `done()` stops
  // watching the method's requests.
  async function holdAnswers(method, which) {
    const path = `**/api/v1/${method}`;
    let release;
    const held = new Promise((r) => { release = r; });
    await page.route(path, async (route) => {
      if (!which(route.request().postDataJSON())) return route.continue();
      const response = await route.fetch();
      await held;
      await route.fulfill({ response });
    });
    return { release, done: () => page.unroute(path) };
  }

  // A replay's views for a seat picked and left again while they load are
  // filed under that seat: back as a spectator, the page shows no seat's
  // hand or goods.
  async function seatSwitchedWhileLoading() {
    const secret = '#seats tr[data-seat="1"] .goods, #seats tr[data-seat="1"] .hand';
    await page.selectOption('#as-seat', '');
    await page.waitForFunction((s) => !document.querySelector(s), secret);
    const views = await holdAnswers('GetReplayViews', (body) => body.seat === 1);
    const answered = page.waitForResponse((r) => r.url().endsWith('/GetReplayViews') && r.request().postDataJSON().seat === 1);
    await page.selectOption('#as-seat', '1');
    await page.selectOption('#as-seat', '');
    views.release();
    await answered;
    const at = await page.getAttribute('body', 'data-replay-pos');
    await page.locator('#back').click();
    await page.waitForFunction((p) => document.body.dataset.replayPos !== p, at);
    await page.locator('#step').click();
    await page.waitForFunction((p) => document.body.dataset.replayPos === p, at);
    if (await page.locator(secret).count()) problems.push('a seat\'s views that arrived after the reader went back to the spectator\'s were shown as the spectator\'s');
    await views.done();
  }

  // 4. A person plays complete games against the built-in bots, by clicks.
  results.human = [];
  for (const game of plan.human || []) {
    await page.goto(`${plan.base}/`);
    await page.selectOption('#practice-kind', game.kind);
    await page.selectOption('#practice-players', '2');
    await page.selectOption('#practice-strategy', 'random');
    await page.selectOption('#practice-delay', '0');
    await page.locator('#practice-seed').fill(String(game.seed));
    await page.locator('#practice').click();
    await page.waitForURL(/\/games\/[0-9a-f]+#token=/);
    if (new URL(page.url()).search) problems.push('the token page has a query string');
    await page.waitForSelector('svg.board');
    let clicks = 0;
    let decisions = 0;
    let boardClicks = 0;
    let most = 0;
    let widest = 0;
    // A wait of the game loop that, on a hang, says what the page showed
    // then (its status, version, error line and decision panel).
    const awaiting = async (what, fn, arg) => {
      try {
        await page.waitForFunction(fn, arg);
      } catch (e) {
        const shown = await page.evaluate(() => ({
          status: document.body.dataset.status,
          version: document.body.dataset.version,
          error: document.querySelector('#error')?.textContent || '',
          actions: document.querySelector('#actions:not([hidden])')?.textContent?.slice(0, 300) ?? '(hidden)',
        })).catch(() => ({}));
        throw new Error(`${game.kind}, decision ${decisions + 1}: ${what}: ${e.message}; the page showed ${JSON.stringify(shown)}`);
      }
    };
    for (;;) {
      // Wait for this seat's decision, or the end.
      await page.waitForFunction(() => document.body.dataset.status === 'GAME_STATUS_FINISHED' || document.querySelector('#actions:not([hidden]) button.choice'));
      if ((await page.getAttribute('body', 'data-status')) === 'GAME_STATUS_FINISHED') break;
      const version = await page.getAttribute('body', 'data-version');
      widest = Math.max(widest, await page.locator('#actions button.choice').count());
      let these = 0;
      // A place on the board when there is one, else the list: the first
      // choice or group; a group's (or a place's) list then gets one more.
      const target = page.locator('svg.board [data-target]').first();
      if (await target.count()) { await target.click(); boardClicks++; } else await page.locator('#actions button.choice').first().click();
      these++;
      const second = page.locator('#actions ol.filtered button.choice').first();
      await awaiting('the first click played or opened a list', (v) => document.body.dataset.version !== v || document.body.dataset.status === 'GAME_STATUS_FINISHED' || document.querySelector('#actions ol.filtered button.choice') || !document.querySelector('#actions:not([hidden])'), version);
      if (await second.count()) { await second.click(); these++; }
      await awaiting('the decision was played', (v) => document.body.dataset.version !== v || document.body.dataset.status === 'GAME_STATUS_FINISHED', version);
      clicks += these;
      most = Math.max(most, these);
      decisions++;
      if (decisions === 8) { layouts.push(await layout(`playing ${game.kind}`)); await shots(`play-${game.kind}`); }
      if (decisions > 3000) throw new Error(`${game.kind}: no end after ${decisions} decisions`);
    }
    await page.waitForSelector('#outcome:not(:empty)');
    const gameId = page.url().split('/games/')[1].split('#')[0];
    results.human.push({ kind: game.kind, gameId, clicks, decisions, boardClicks, most, widest, shown: await shown(), role: await page.textContent('.role') });
  }

  // 4b. A person resigns a practice game from its page: asked to confirm,
  // the game ends at once and the page says who resigned.
  if (plan.resign) {
    await page.goto(`${plan.base}/`);
    await page.selectOption('#practice-kind', plan.resign.kind);
    await page.selectOption('#practice-players', '2');
    await page.selectOption('#practice-strategy', 'random');
    await page.selectOption('#practice-delay', '0');
    await page.locator('#practice-seed').fill(String(plan.resign.seed));
    await page.locator('#practice').click();
    await page.waitForURL(/\/games\/[0-9a-f]+#token=/);
    await page.waitForSelector('#resign');
    const asked = [];
    // The first confirmation is declined (nothing happens), the second accepted.
    page.once('dialog', (d) => { asked.push(d.message()); d.dismiss(); });
    await page.locator('#resign').click();
    const afterDecline = await page.getAttribute('body', 'data-status');
    page.once('dialog', (d) => { asked.push(d.message()); d.accept(); });
    await page.locator('#resign').click();
    await page.waitForFunction(() => document.body.dataset.status === 'GAME_STATUS_FINISHED');
    await page.waitForSelector('#outcome:not(:empty)');
    // The stream has ended once the replay's link is there.
    await page.waitForSelector('#to-replay');
    results.resign = {
      gameId: page.url().split('/games/')[1].split('#')[0],
      asked,
      afterDecline,
      outcome: await page.textContent('#outcome'),
      buttonLeft: await page.locator('#resign:visible').count(),
    };
    // The games list says so too.
    await page.goto(`${plan.base}/`);
    const row = page.locator(`#games tr[data-game="${results.resign.gameId}"] td.scores`);
    await row.waitFor();
    results.resign.listed = await row.textContent();
  }

  // 5. Boards of several sizes (a four-player Meduris): layout at every width.
  for (const board of plan.boards || []) {
    await page.goto(`${plan.base}${board.path}`);
    await page.waitForSelector('svg.board');
    await page.waitForFunction(() => document.querySelector('#seats tbody tr'));
    layouts.push(await layout(board.name));
  }

  // 6. A seat's page shows its own secrets and nobody else's.
  results.secrets = [];
  for (const sec of plan.secrets || []) {
    await page.goto('about:blank');
    await page.goto(`${plan.base}/games/${sec.gameId}#token=${sec.token}`);
    await page.waitForSelector('svg.board');
    await page.waitForFunction(() => document.querySelector('#seats tbody tr .goods, #seats tbody tr .hand'));
    results.secrets.push({ ...sec, shown: await shown(), text: await page.evaluate(() => document.body.innerText), svg: await page.evaluate(() => document.querySelector('svg.board').outerHTML) });
    await shots(`seat-${sec.name}`);
  }

  // 7. The ladder: a leaderboard and a bot's profile.
  if (plan.ladder) {
    const { game, players, botId } = plan.ladder;
    await page.goto(`${plan.base}/ladder`);
    await page.locator(`nav.pools a[href="/ladder/${game}/${players}"]`).click();
    await page.waitForSelector('#leaderboard tbody tr[data-bot]');
    results.leaderboard = await page.$$eval('#leaderboard tbody tr[data-bot]', (rows) => rows.map((r) => ({ bot: r.dataset.bot, cells: [...r.querySelectorAll('td')].map((td) => td.textContent) })));
    layouts.push(await layout('leaderboard'));
    await shots('leaderboard');
    await page.locator(`#leaderboard tr[data-bot="${botId}"] a`).click();
    await page.waitForSelector('.rating-chart');
    await page.waitForSelector('#bot-games tbody tr[data-game]');
    results.profile = await page.evaluate(() => ({
      name: document.querySelector('h1').firstChild.textContent,
      chartMatches: Number(/over (\d+) rated/.exec(document.querySelector('.rating-chart').getAttribute('aria-label'))?.[1]),
      games: [...document.querySelectorAll('#bot-games tbody tr[data-game]')].map((r) => r.dataset.game),
      matches: [...document.querySelectorAll('#bot-matches tbody tr')].map((r) => ({ match: r.dataset.match, replays: [...r.querySelectorAll('a.replay')].map((a) => a.getAttribute('href')) })),
    }));
    layouts.push(await layout('bot profile'));
    await shots('bot-profile');
    await page.goto(`${plan.base}/tournaments`);
    await page.waitForSelector('#tournaments tbody tr[data-tournament] a');
    await page.locator('#tournaments tbody tr[data-tournament] a', { hasText: plan.ladder.tournament }).click();
    await page.waitForSelector('#standings tbody tr[data-bot]');
    await page.waitForSelector('ul.results li[data-match]');
    results.tournament = {
      standings: await page.$$eval('#standings tbody tr[data-bot]', (rows) => rows.map((r) => r.dataset.bot)),
      results: await page.$$eval('ul.results li[data-match]', (li) => li.map((r) => ({ match: r.dataset.match, replays: [...r.querySelectorAll('a.replay')].map((a) => a.getAttribute('href')) }))),
    };
    layouts.push(await layout('tournament'));
    await shots('tournament');
  }

  // 7b. A tournament with a game in play lists it among the games being played.
  if (plan.runningTournament) {
    await page.goto(`${plan.base}/tournaments/${plan.runningTournament}`);
    await page.waitForSelector('#live-games tbody tr[data-game]');
    results.runningTournament = await page.$$eval('#live-games tbody tr[data-game]', (rows) => rows.map((r) => ({
      game: r.dataset.game,
      watch: r.querySelector('a')?.getAttribute('href'),
      players: r.children[1]?.textContent,
    })));
    layouts.push(await layout('tournament in play'));
  }

  // 8. A bot's owner challenges another bot from the browser and watches the game.
  if (plan.challenge) {
    await page.goto(`${plan.base}/me`);
    await page.locator('#bot-key').fill(plan.challenge.key);
    await page.locator('#use-key').click();
    await page.waitForSelector('#send-challenge');
    await page.selectOption('#challenge-game', plan.challenge.kind);
    await page.waitForSelector(`#opponent-0 option[value="${plan.challenge.opponentId}"]`, { state: 'attached' });
    await page.selectOption('#opponent-0', plan.challenge.opponentId);
    await page.locator('#send-challenge').click();
    await page.waitForSelector('#feed li.sent');
    await page.waitForSelector('#feed a.watch');
    layouts.push(await layout('my bot'));
    await shots('my-bot');
    await page.locator('#feed a.watch').first().click();
    await page.waitForURL(/\/games\/[0-9a-f]+$/);
    const gameId = page.url().split('/games/')[1];
    await page.waitForFunction(() => document.body.dataset.status === 'GAME_STATUS_FINISHED' || document.body.dataset.replayEnd === 'true');
    await page.waitForSelector('#outcome:not(:empty)');
    results.challenge = { gameId, shown: await shown() };
    await shots('challenge-game');
  }

  // 9. Error pages say what happened and link back.
  results.errors = [];
  expectingErrors = true;
  for (const err of plan.errors || []) {
    await page.goto('about:blank');
    await page.goto(`${plan.base}${err.path}`);
    await page.waitForSelector('.error-page h1');
    results.errors.push({ ...err, title: await page.textContent('.error-page h1'), links: await page.$$eval('.error-page a', (l) => l.map((a) => a.getAttribute('href'))) });
    if (err.name === 'unknown game') { layouts.push(await layout('error page')); await shots('error'); }
  }
  // 10. A game without a board of its own here (the test tree's Cairn),
  // started from the practice form and played to its end by clicks: what
  // the page showed at each of the person's decisions and at the end (its
  // fields, the other seats' labels, the log), then its replay at the result.
  if (plan.generic) {
    const { kind, seed } = plan.generic;
    await page.goto(`${plan.base}/`);
    await page.selectOption('#practice-kind', kind);
    // The player counts the form offers for this game.
    const offered = await page.$$eval('#practice-players option', (o) => o.map((x) => x.value));
    await page.selectOption('#practice-players', '2');
    await page.selectOption('#practice-strategy', 'random');
    await page.selectOption('#practice-delay', '0');
    await page.locator('#practice-seed').fill(String(seed));
    await page.locator('#practice').click();
    await page.waitForURL(/\/games\/[0-9a-f]+#token=/);
    await page.waitForSelector('.generic-board svg.board');
    const rules = await page.$$eval('#rules p', (ps) => ps.map((p) => p.textContent));
    const gameId = page.url().split('/games/')[1].split('#')[0];
    const steps = [];
    let clicks = 0;
    for (;;) {
      await page.waitForFunction(() => document.body.dataset.status === 'GAME_STATUS_FINISHED' || document.querySelector('#actions:not([hidden]) button.choice'));
      const finished = (await page.getAttribute('body', 'data-status')) === 'GAME_STATUS_FINISHED';
      if (finished) await page.waitForSelector('#outcome:not(:empty)');
      steps.push(await genericShown());
      if (finished) break;
      if (steps.length === 1) layouts.push(await layout('generic board'));
      const version = await page.getAttribute('body', 'data-version');
      // The choices in turn (a hide of each value, rolls and stops), so
      // that the person's seat does everything the game offers.
      const choices = page.locator('#actions button.choice');
      await choices.nth(clicks % (await choices.count())).click();
      clicks++;
      await page.waitForFunction((v) => document.body.dataset.version !== v || document.body.dataset.status === 'GAME_STATUS_FINISHED', version);
      if (clicks > 2000) throw new Error(`${kind}: no end after ${clicks} clicks`);
    }
    await shots('generic-board');
    await page.locator('#to-replay').click();
    await page.waitForFunction(() => document.body.dataset.replayEnd === 'true');
    results.generic = { gameId, offered, rules, clicks, steps, replay: await genericShown() };
  }

  // 11. A seat's page rides out faults on cue (browser/outages.rs): a
  // restart of the server while the seat's choices are shown, clicked
  // while it is down; and a stream ended cleanly twice before the seat's
  // second decision, while the other seat is played here over HTTP.
  if (plan.faults) {
    const call = async (method, body, token) => {
      const r = await fetch(`${plan.base}/api/v1/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
      return { status: r.status, body: await r.json().catch(() => ({})) };
    };
    const text = (sel) => page.evaluate((s) => document.querySelector(s)?.textContent ?? null, sel);
    // The first choice (and the first of its list, if it opens one).
    const choose = async () => {
      const version = await page.getAttribute('body', 'data-version');
      await page.locator('#actions button.choice').first().click();
      await page.waitForFunction((v) => document.body.dataset.version !== v || document.querySelector('#actions ol.filtered button.choice') || !document.querySelector('#actions:not([hidden])'), version);
      const second = page.locator('#actions ol.filtered button.choice').first();
      if (await second.count()) await second.click();
    };
    const choicesShown = '#actions:not([hidden]) button.choice';
    results.faults = {};
    expectingOutage = true;

    const { restart } = plan.faults;
    await page.goto(`${plan.base}/games/${restart.gameId}#token=${restart.token}`);
    await page.waitForSelector(choicesShown);
    // The restart fires once the page's stream has sent the game's last
    // event, and ends that stream: the page says so, and the game is down.
    await page.waitForSelector('#trouble:not(:empty)');
    const before = await page.getAttribute('body', 'data-version');
    await choose();
    await page.waitForSelector('#error:not(:empty)');
    results.faults.restart = { refused: await text('#error'), troubleWhileDown: await text('#trouble') };
    // Back by itself: the choices again, and nothing said of trouble.
    await page.waitForFunction((s) => document.querySelector(s) && document.querySelector('#trouble').textContent === '', choicesShown);
    await choose();
    await page.waitForFunction((v) => document.body.dataset.version !== v, before);
    Object.assign(results.faults.restart, {
      versionAfter: await page.getAttribute('body', 'data-version'),
      troubleAfter: await text('#trouble'),
      errorAfter: await text('#error'),
    });

    const ends = plan.faults.cleanEnds;
    await page.goto(`${plan.base}/games/${ends.gameId}#token=${ends.token}`);
    let played = 0;
    while (played < ends.decisions) {
      // The other seat plays until this page's seat is to decide.
      let st;
      for (let moves = 0; ; moves++) {
        st = (await call('GetState', { gameId: ends.gameId }, ends.other)).body.state;
        if (st.status !== 'GAME_STATUS_RUNNING' || Number(st.toAct ?? -1) === 0) break;
        if (moves > 1000) throw new Error('seat 1 never let seat 0 decide');
        const legal = (await call('GetLegalActions', { gameId: ends.gameId }, ends.other)).body;
        const done = await call('SubmitAction', { gameId: ends.gameId, legalActionId: legal.actions[0].id, expectedVersion: legal.version, idempotencyKey: `other-${legal.version}` }, ends.other);
        if (done.status !== 200) throw new Error(`seat 1's move was refused: ${JSON.stringify(done.body)}`);
      }
      if (st.status !== 'GAME_STATUS_RUNNING') throw new Error(`the game ended: ${st.status}`);
      await page.waitForFunction(([s, v]) => document.body.dataset.version === v && document.querySelector(s), [choicesShown, String(st.version)]);
      await choose();
      await page.waitForFunction((v) => document.body.dataset.version !== v, String(st.version));
      played++;
    }
    results.faults.cleanEnds = { played, replayLink: await page.locator('#to-replay').count() };
    expectingOutage = false;
  }
} catch (e) {
  results.error = `${e.stack || e}`;
  await page.screenshot({ path: `${plan.screenshots}/failure.png` }).catch(() => {});
}
await context.close();
console.log(JSON.stringify(results));

// Drives the web viewer in headless Chromium (Debian's /usr/bin/chromium) with
// playwright-core, for tests/tests/suite/web.rs: that test sets up the games,
// runs this script once (one browser launch for every page), and checks what
// it prints. Usage: node run.mjs PLAN.json; prints one JSON line of results.
//
// PLAN: { base, screenshots, userDataDir, spectate: {gameId}, replays: [{name, gameId}],
//         human: [{kind, seed}], secrets: [{name, gameId, token, seat}] }

import { readFileSync, mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
mkdirSync(plan.screenshots, { recursive: true });

const context = await chromium.launchPersistentContext(plan.userDataDir, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  viewport: DESKTOP,
});
const page = context.pages()[0] || (await context.newPage());
const problems = [];
page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
// The page must load nothing from anywhere but the server under test.
page.on('request', (r) => { if (!r.url().startsWith(plan.base)) problems.push(`request off the server: ${r.url()}`); });

async function shots(name) {
  await page.screenshot({ path: `${plan.screenshots}/${name}-desktop.png`, fullPage: false });
  await page.setViewportSize(PHONE);
  await page.waitForTimeout(100);
  await page.screenshot({ path: `${plan.screenshots}/${name}-phone.png`, fullPage: true });
  await page.setViewportSize(DESKTOP);
}

// How the state the page computed from events differs from the server's
// (GetState), in everything a spectator may see: [] when it is the same.
const diffsFromServer = (gameId) => page.evaluate(async (id) => {
  const r = await fetch('/api/v1/GetState', { method: 'POST', body: JSON.stringify({ gameId: id }) }).then((x) => x.json());
  const mine = window.druids.essentials();
  const theirs = window.druids.essentials(r.state);
  return Object.keys(theirs)
    .filter((k) => JSON.stringify(mine[k]) !== JSON.stringify(theirs[k]))
    .map((k) => `${k}: page ${JSON.stringify(mine[k])} server ${JSON.stringify(theirs[k])}`.slice(0, 800));
}, gameId);

const seatScores = () => page.$$eval('#seats tbody tr', (rows) => rows.map((r) => Number(r.querySelector('.score').textContent)));
const results = { problems };

try {
  // 1. A spectator watches a live game to its end (web.rs starts playing once
  // this page's stream is open).
  if (plan.spectate) {
  await page.goto(`${plan.base}/games/${plan.spectate.gameId}`);
  await page.waitForSelector('svg.board');
  await page.waitForFunction(() => document.body.dataset.status === 'GAME_STATUS_FINISHED', null, { timeout: 90_000 });
  await page.waitForSelector('#outcome:not(:empty)');
  results.spectate = { diffs: await diffsFromServer(plan.spectate.gameId), scores: await seatScores(), outcome: await page.textContent('#outcome'), events: await page.$$eval('#log li', (l) => l.length) };
  await shots('spectator');
  }

  // 2. The games list, filtered and unfiltered.
  if (plan.list !== false) {
  await page.goto(`${plan.base}/`);
  await page.waitForSelector('#games tbody tr[data-game]');
  results.list = { games: await page.$$eval('#games tbody tr[data-game]', (r) => r.length) };
  await page.selectOption('#status', 'GAME_STATUS_FINISHED');
  await page.waitForFunction(() => [...document.querySelectorAll('#games tbody tr[data-game] td:nth-child(3)')].every((td) => td.textContent === 'finished'));
  results.list.finished = await page.$$eval('#games tbody tr[data-game]', (r) => r.length);
  await page.selectOption('#status', '');
  await page.waitForSelector('#games tbody tr[data-game]');
  await shots('games-list');
  // Paging: two games a page, then the next page.
  await page.goto(`${plan.base}/?page_size=2`);
  await page.waitForSelector('#games tbody tr[data-game]');
  const firstPage = await page.$$eval('#games tbody tr[data-game]', (r) => r.map((x) => x.dataset.game));
  await page.click('#next-page');
  await page.waitForFunction((ids) => { const now = [...document.querySelectorAll('#games tbody tr[data-game]')].map((x) => x.dataset.game); return now.length && !now.includes(ids[0]); }, firstPage);
  const secondPage = await page.$$eval('#games tbody tr[data-game]', (r) => r.map((x) => x.dataset.game));
  results.list.pages = [firstPage, secondPage];
  }

  // 3. Replays stepped, then played at top speed to their end.
  results.replays = [];
  for (const replay of plan.replays || []) {
    await page.goto(`${plan.base}/games/${replay.gameId}`);
    await page.waitForSelector('#replay:not([hidden]) #play');
    await page.click('#step');
    await page.click('#step');
    const afterSteps = await page.getAttribute('body', 'data-replay-pos');
    await page.click('#next-score');
    const afterScore = await page.getAttribute('body', 'data-replay-pos');
    await page.selectOption('#speed', '500');
    await page.click('#play');
    await page.waitForFunction(() => document.body.dataset.replayEnd === 'true', null, { timeout: 60_000 });
    results.replays.push({ gameId: replay.gameId, diffs: await diffsFromServer(replay.gameId), afterSteps: Number(afterSteps), afterScore: Number(afterScore), scores: await seatScores(), outcome: await page.textContent('#outcome') });
    await page.click('#back');
    await page.click('#last');
    await shots(`replay-${replay.name}`);
  }

  // 4. A person plays complete games against the built-in bots, by clicks.
  results.human = [];
  for (const game of plan.human) {
    await page.goto(`${plan.base}/`);
    await page.selectOption('#practice-kind', game.kind);
    await page.selectOption('#practice-players', '2');
    await page.selectOption('#practice-strategy', 'random');
    await page.selectOption('#practice-delay', '0');
    await page.fill('#practice-seed', String(game.seed));
    await page.click('#practice');
    await page.waitForURL(/\/games\/[0-9a-f]+#token=/);
    if (new URL(page.url()).search) problems.push('the token page has a query string');
    await page.waitForSelector('svg.board');
    let clicks = 0;
    let boardClicks = 0;
    let fallbacks = 0;
    const t0 = Date.now();
    for (;;) {
      await page.waitForFunction(() => document.body.dataset.status === 'GAME_STATUS_FINISHED' || document.querySelector('#actions:not([hidden]) button.action'), null, { timeout: 30_000 });
      if ((await page.getAttribute('body', 'data-status')) === 'GAME_STATUS_FINISHED') break;
      const target = page.locator('svg.board [data-target]').first();
      if (await target.count()) {
        await target.click({ timeout: 2_000 }).catch(() => { fallbacks++; return target.dispatchEvent('click'); });
        boardClicks++;
        if (await page.locator('#actions ol.filtered button.action').count()) {
          await page.locator('#actions ol.filtered button.action').first().click();
        }
      } else {
        await page.locator('#actions button.action').first().click();
      }
      clicks++;
      if (clicks === 6) await shots(`play-${game.kind}`);
      if (clicks > 3000) throw new Error(`${game.kind}: no end after ${clicks} clicks`);
    }
    await page.waitForSelector('#outcome:not(:empty)');
    const gameId = page.url().split('/games/')[1].split('#')[0];
    results.human.push({ diffs: await diffsFromServer(gameId), kind: game.kind, clicks, boardClicks, fallbacks, ms: Date.now() - t0, scores: await seatScores(), outcome: await page.textContent('#outcome'), gameId });
  }

  // 5. A seat's page shows its own secrets and nobody else's.
  results.secrets = [];
  for (const sec of plan.secrets) {
    await page.goto('about:blank');
    await page.goto(`${plan.base}/games/${sec.gameId}#token=${sec.token}`);
    await page.waitForSelector('svg.board');
    await page.waitForFunction(() => document.querySelector('#seats tbody tr'));
    await page.waitForTimeout(300);
    results.secrets.push(await page.evaluate((seat) => {
      const rows = [...document.querySelectorAll('#seats tbody tr')];
      const secretRows = rows.filter((r) => r.querySelector('.goods, .hand')).map((r) => Number(r.dataset.seat));
      const dolmens = [...document.querySelectorAll('svg .piece.dolmen')].map((d) => ({ cls: d.getAttribute('class'), text: d.textContent }));
      return {
        seat,
        secretRows,
        ownSecret: rows.find((r) => Number(r.dataset.seat) === seat)?.querySelector('.goods, .hand')?.textContent || '',
        dolmens,
        text: document.body.innerText,
        svg: document.querySelector('svg.board').outerHTML,
      };
    }, sec.seat));
    await shots(`seat-${sec.name}`);
  }
} catch (e) {
  results.error = `${e.stack || e}`;
  await page.screenshot({ path: `${plan.screenshots}/failure.png` }).catch(() => {});
}
await context.close();
console.log(JSON.stringify(results));

// The viewer's entry point: every page is the same document, and the path
// says which page it is. Errors of any page end on one error page that says
// what happened and links back.

import { h } from './dom.js';
import { listPage } from './list.js';
import { gamePage } from './game.js';
import { ladderPage } from './ladder.js';
import { botPage } from './bot.js';
import { tournamentsPage, tournamentPage } from './tournaments.js';
import { myBotPage } from './me.js';

// Path patterns and their pages (each `(root, ...captures)`).
const ROUTES = [
  [/^\/$/, listPage],
  [/^\/games\/([^/]+)$/, gamePage],
  [/^\/ladder$/, ladderPage],
  [/^\/ladder\/([a-z0-9_-]+)\/(\d+)$/, ladderPage],
  [/^\/bots\/([^/]+)$/, botPage],
  [/^\/tournaments$/, tournamentsPage],
  [/^\/tournaments\/([^/]+)$/, tournamentPage],
  [/^\/me$/, myBotPage],
];

// What an error means for a person, by the reason the server gave.
const WHAT = {
  GAME_NOT_FOUND: ['No such game', 'There is no game with this id on this server: the link may be mistyped, or the game was deleted after its retention period.'],
  TOKEN_UNKNOWN: ['This seat link is not valid', 'The token in this link belongs to no seat of this game. You can still watch the game as a spectator.'],
  TOKEN_OF_OTHER_GAME: ['This seat link is for another game', 'The token in this link is a seat of a different game. You can still watch this one as a spectator.'],
  BOT_NOT_FOUND: ['No such bot', 'No bot with this id is registered on this server.'],
  BOT_KEY_UNKNOWN: ['This key is not a bot\'s key', 'The key you entered belongs to no bot (or was revoked or replaced).'],
  TOURNAMENT_NOT_FOUND: ['No such tournament', 'There is no tournament with this id on this server.'],
  ARENA_UNAVAILABLE: ['No ladder here', 'This server is one node of several, where the arena does not run.'],
  INVALID_ARGUMENT: ['This address is not valid', ''],
};

// The error page: what happened, the server's own words, the way back.
export function errorPage(root, error) {
  const [title, explain] = WHAT[error.reason] || (error.notFound
    ? ['No such page', 'This address is not a page of the viewer.']
    : unreachable(error)
      ? ['The server cannot be reached', 'The viewer could not talk to the server: it may be stopped or restarting. Try again in a moment.']
      : ['Something went wrong', '']);
  document.title = `${title} — druids`;
  const links = [h('a', { href: '/', class: 'button' }, ['all games']), ' ', h('a', { href: '/ladder', class: 'button' }, ['the ladder'])];
  if (/^TOKEN_/.test(error.reason)) links.unshift(h('a', { href: location.pathname, class: 'button primary-link' }, ['watch as a spectator']), ' ');
  root.replaceChildren(h('section', { class: 'error-page', role: 'alert' }, [
    h('h1', {}, [title]),
    explain ? h('p', {}, [explain]) : null,
    error.message ? h('p', { class: 'note' }, ['The server said: ', h('q', {}, [error.message])]) : null,
    h('p', { class: 'links' }, links),
  ]));
}

// A path segment, percent-decoded; a malformed one (`%E0%A4%A`) names no page.
function decoded(segment) {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw Object.assign(new Error(''), { notFound: true });
  }
}

// Whether `error` is fetch() failing to reach the server at all (no answer),
// rather than an answer or a fault of the page.
const unreachable = (error) => error instanceof TypeError && /fetch|network/i.test(error.message);

async function main() {
  const root = document.getElementById('main');
  for (const a of document.querySelectorAll('header.top nav a')) {
    if (a.getAttribute('href') === location.pathname || (a.getAttribute('href') !== '/' && location.pathname.startsWith(a.getAttribute('href')))) a.setAttribute('aria-current', 'page');
  }
  try {
    const route = ROUTES.map(([re, page]) => [re.exec(location.pathname), page]).find(([m]) => m);
    if (!route) throw Object.assign(new Error(''), { notFound: true });
    const [m, page] = route;
    await page(root, ...m.slice(1).map(decoded));
  } catch (e) {
    console.warn(e);
    errorPage(root, e);
  }
}

// A new token in the fragment (another seat of the same game) is a new page.
addEventListener('hashchange', () => location.reload());
main();

// The viewer's entry point: every page is the same document, and the path
// says which page it is (`/`: the games list, `/games/<id>`: one game).

import { listPage } from './list.js';
import { gamePage } from './game.js';
import { h } from './svg.js';

async function main() {
  const root = document.getElementById('main');
  const m = /^\/games\/([^/]+)$/.exec(location.pathname);
  try {
    if (m) await gamePage(root, decodeURIComponent(m[1]));
    else await listPage(root);
  } catch (e) {
    root.replaceChildren(h('p', { class: 'error', role: 'alert' }, [e.message]));
  }
}

// A new token in the fragment (another seat of the same game) is a new page.
addEventListener('hashchange', () => location.reload());
main();

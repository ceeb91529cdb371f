// Which board draws which game: the games with a board of their own, and a
// generic one for any other game the server hosts (it lists the view's
// fields and leaves every choice to the list).

import * as meduris from './meduris.js';
import * as dolmen from './dolmen.js';
import * as generic from './generic.js';

const BOARDS = { GAME_KIND_MEDURIS: meduris, GAME_KIND_DOLMEN: dolmen };

export function boardFor(kind) {
  return BOARDS[kind] || generic;
}

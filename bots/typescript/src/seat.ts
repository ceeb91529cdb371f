/**
 * Playing one seat to the end: the event-stream loop every bot needs.
 *
 * The loop handles what the raw protocol makes easy to get wrong:
 * - a decision already pending when the stream opens (the snapshot's
 *   `StateView.toAct`), and the same decision announced again by the
 *   DecisionNeeded the server sends right after the snapshot: decisions are
 *   de-duplicated by state `version`;
 * - a broken stream: resumed with StreamEvents from the last seq seen + 1;
 * - heartbeats (GameEvent.heartbeat, sent while the game is quiet): they repeat
 *   the last seq, so they change nothing here and are ignored;
 * - a stale version (ABORTED): the legal actions are read again and the seat
 *   decides again only if it still has a decision;
 * - the turn clock: `state.deadlineUnixMs` tells the strategy when the decision
 *   times out (see {@link secondsLeft}); an answer that comes after the server
 *   applied the default action is refused (ABORTED): the game is read again as
 *   above, and a decision that is no longer this seat's (FAILED_PRECONDITION)
 *   is let go; an action the rules refuse (FAILED_PRECONDITION while the
 *   decision is still pending) ends the bot with a BotError rather than a game
 *   stuck on this seat;
 * - retries of SubmitAction (UNAVAILABLE ...) with the same idempotency key;
 * - `LegalAction.id` is optional: entries without one are submitted as their `action`.
 */
import { setTimeout as sleep } from "node:timers/promises";

import * as grpc from "@grpc/grpc-js";

import { BotError, type DruidsClient, hasCode, newKey, RETRYABLE } from "./client";
import { Failures, retryDelayMs } from "./retryInfo";
import type { Action, GameEvent, GetLegalActionsResponse, LegalAction, Outcome, StateView } from "./contract";

/** What a strategy returns: one of the legal actions it was given, its id, or an Action of its own. */
export type Choice = LegalAction | Action | number;

/**
 * A strategy: given the legal actions and the seat's view of the state (its
 * secrets included; `state.decision` says what is decided,
 * `state.deadlineUnixMs` until when), returns the action to take.
 */
export type Chooser = (legalActions: LegalAction[], state: StateView) => Choice | Promise<Choice>;

/** How {@link SeatPlayer} plays. */
export interface PlayOptions {
  /** Choose among every distinct payment (Meduris), not one default payment per target. */
  allPayments?: boolean;
  /**
   * How often a broken stream is resumed in a row before giving up (default 5),
   * besides the resumptions the server asks for (the client's `patienceMs`).
   */
  maxReconnects?: number;
}

/** How often one decision is tried again when the game moves on under it. */
const MAX_STALE = 10;

/**
 * Seconds until the pending decision's clock runs out (negative once it has);
 * undefined in a game without a clock.
 */
export function secondsLeft(view: Pick<StateView | GetLegalActionsResponse, "deadlineUnixMs">): number | undefined {
  return view.deadlineUnixMs === undefined ? undefined : Number(view.deadlineUnixMs) / 1000 - Date.now() / 1000;
}

/** Plays the seat of `token` in `gameId` with `choose` (see the module's comment). */
export class SeatPlayer {
  /** Actions this player submitted. */
  decisions = 0;
  /** The newest state version whose decision was taken (or found not to be this seat's). */
  handledVersion = -1;
  private seat = -1;

  constructor(
    readonly client: DruidsClient,
    readonly gameId: string,
    readonly token: string,
    readonly choose: Chooser,
    readonly options: PlayOptions = {},
  ) {}

  /** This player's seat (known once {@link play} has started). */
  get seatNumber(): number {
    return this.seat;
  }

  /**
   * Follows the event stream and decides whenever this seat must, until the
   * game is over; resolves to its Outcome.
   * @throws BotError when the game is abandoned or the stream cannot be kept open.
   */
  async play(): Promise<Outcome> {
    const own = await this.client.state(this.gameId, this.token);
    if (own.viewerSeat === undefined) {
      throw new BotError("the token is no seat token of this game");
    }
    this.seat = own.viewerSeat;
    let nextSeq = 0; // 0: start with a snapshot
    // Breaks the server asks to wait out (a game moving to another node) go on
    // for the client's patience; others count.
    const failures = new Failures(this.options.maxReconnects ?? 5, this.client.patienceMs);
    for (;;) {
      let asked: number | undefined;
      try {
        if (nextSeq > 0) {
          await this.decideIfPending(-1); // a decision announced before the break may be pending
        }
        const stream = this.client.events(this.gameId, this.token, nextSeq);
        try {
          for await (const event of stream as AsyncIterable<GameEvent>) {
            nextSeq = Number(event.seq) + 1;
            failures.cleared();
            const outcome = await this.onEvent(event);
            if (outcome) {
              return outcome;
            }
          }
        } finally {
          stream.on("error", () => undefined); // the CANCELLED status of a stream left early
          stream.cancel();
        }
        const state = await this.client.state(this.gameId, this.token);
        if (state.status === "GAME_STATUS_FINISHED" && state.outcome) {
          return state.outcome;
        }
        if (state.status === "GAME_STATUS_ABANDONED") {
          throw new BotError(`game ${this.gameId} was abandoned`);
        }
        // The stream ended early (e.g. the server is shutting down): resume it.
      } catch (error) {
        if (!RETRYABLE.has((error as grpc.ServiceError).code)) {
          throw error;
        }
        asked = retryDelayMs(error);
      }
      // As long as the server asks (RetryInfo), else backing off.
      const pause = failures.next(asked, (n) => this.client.backoffMs * 2 ** n);
      if (pause === undefined) {
        throw new BotError("the event stream keeps breaking before the game is over");
      }
      await sleep(pause);
    }
  }

  /** Reacts to one event; resolves to the Outcome once the game is over. */
  async onEvent(event: GameEvent): Promise<Outcome | undefined> {
    switch (event.body) {
      case "snapshot": {
        const state = event.snapshot?.state;
        if (!state) {
          return undefined;
        }
        if (state.status === "GAME_STATUS_FINISHED" && state.outcome) {
          return state.outcome;
        }
        if (state.status === "GAME_STATUS_ABANDONED") {
          throw new BotError(`game ${this.gameId} was abandoned`);
        }
        if (state.toAct === this.seat) {
          await this.decideIfPending(Number(state.version));
        }
        return undefined;
      }
      case "decisionNeeded":
        if (event.decisionNeeded?.seat === this.seat) {
          await this.decideIfPending(Number(event.version));
        }
        return undefined;
      case "gameFinished":
        return event.gameFinished?.outcome ?? undefined;
      case "gameAbandoned":
        throw new BotError(`game ${this.gameId} was abandoned: ${event.gameAbandoned?.reason ?? ""}`);
      default:
        return undefined;
    }
  }

  /**
   * Takes this seat's decision announced at `version` (-1: whatever is pending
   * now), unless a decision at that version was handled already.
   */
  async decideIfPending(version: number): Promise<void> {
    if (version !== -1 && version <= this.handledVersion) {
      return; // the same decision, announced again (snapshot + DecisionNeeded)
    }
    for (let attempt = 0; attempt < MAX_STALE; attempt++) {
      const legal = await this.client.legalActions(this.gameId, this.token, this.options.allPayments);
      const legalVersion = Number(legal.version);
      if (legalVersion <= this.handledVersion) {
        return;
      }
      if (legal.actions.length === 0) {
        this.handledVersion = legalVersion; // not (or no longer) this seat's decision
        return;
      }
      const state = await this.client.state(this.gameId, this.token);
      if (state.version !== legal.version) {
        continue; // the game moved on between the two calls
      }
      let choice = await this.choose([...legal.actions], state);
      if (this.options.allPayments && typeof choice === "object" && "description" in choice && choice.action) {
        // An entry of the full list is submitted as the action itself: exact
        // whether or not the entry carries an id.
        choice = choice.action;
      }
      const left = secondsLeft(legal);
      if (left !== undefined && left < 0) {
        console.error(`druids-bot: seat ${this.seat} decided ${(-left).toFixed(3)} s after its deadline`);
      }
      try {
        // One key for this decision: the client's retries resend it.
        await this.client.submit(this.gameId, this.token, choice, legal.version, newKey(`s${this.seat}-v${legal.version}`));
      } catch (error) {
        if (hasCode(error, grpc.status.ABORTED)) {
          continue; // stale version: read again, decide again if still ours
        }
        if (hasCode(error, grpc.status.FAILED_PRECONDITION)) {
          const now = await this.client.legalActions(this.gameId, this.token);
          if (now.version === legal.version && now.actions.length > 0) {
            // Still ours at the same version: the choice itself was refused.
            throw new BotError(`the server refused the action chosen: ${(error as grpc.ServiceError).details}`);
          }
          this.handledVersion = legalVersion; // no longer this seat's decision
          return;
        }
        throw error;
      }
      this.decisions += 1;
      this.handledVersion = legalVersion;
      return;
    }
    throw new BotError("the game kept moving on under this seat's decision");
  }
}

/**
 * Plays the seat of `token` with `choose` until the game is over; resolves to
 * the seat and the Outcome. See {@link SeatPlayer}.
 */
export async function playSeat(
  client: DruidsClient,
  gameId: string,
  token: string,
  choose: Chooser,
  options: PlayOptions = {},
): Promise<{ seat: number; outcome: Outcome }> {
  const player = new SeatPlayer(client, gameId, token, choose, options);
  const outcome = await player.play();
  return { seat: player.seatNumber, outcome };
}

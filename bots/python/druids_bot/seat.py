"""Playing one seat to the end: the event-stream loop every bot needs.

The loop handles what the raw protocol makes easy to get wrong:

* a decision already pending when the stream opens (the snapshot's
  ``StateView.to_act``), and the same decision announced again by the
  ``DecisionNeeded`` the server sends right after the snapshot: decisions are
  de-duplicated by state ``version``;
* a broken stream: resumed with ``StreamEvents`` from the last seq seen + 1;
* heartbeats (``GameEvent.heartbeat``, sent while the game is quiet): they
  repeat the last seq, so they change nothing here and are ignored;
* a stale version (ABORTED): the legal actions are read again and the seat
  decides again only if it still has a decision;
* the turn clock: ``state.deadline_unix_ms`` tells the strategy when the
  decision times out (see :func:`seconds_left`); an answer that comes after
  the server applied the default action is refused (ABORTED): the game is read
  again as above, and a decision that is no longer this seat's
  (FAILED_PRECONDITION) is let go; an action the rules refuse (FAILED_PRECONDITION
  while the decision is still pending) ends the bot with a BotError rather
  than a game stuck on this seat;
* retries of SubmitAction (UNAVAILABLE ...) with the same idempotency key;
* ``LegalAction.id`` is optional: entries without one are submitted as
  their ``action``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Union

import grpc

from ._pb import druids_pb2 as pb
from .client import RETRYABLE, BotError, Client, new_key
from .retry_info import Failures, retry_delay

#: What a strategy returns: one of the LegalAction entries it was given, its
#: id, or an Action of its own.
Choice = Union[pb.LegalAction, pb.Action, int]

#: A strategy: given the legal actions and the seat's view of the state (its
#: secrets included; ``state.decision`` says what is decided,
#: ``state.deadline_unix_ms`` until when), returns the action to take.
Chooser = Callable[[list[pb.LegalAction], pb.StateView], Choice]

#: How often one decision is tried again when the game moves on under it.
MAX_STALE = 10


def seconds_left(view: pb.StateView | pb.GetLegalActionsResponse) -> float | None:
    """Seconds until the pending decision's clock runs out (negative once it
    has); None in a game without a clock."""
    if not view.HasField("deadline_unix_ms"):
        return None
    return view.deadline_unix_ms / 1000.0 - time.time()


class SeatPlayer:
    """Plays the seat of ``token`` in ``game_id`` with ``choose``.

    ``decisions`` counts the actions it submitted; ``handled_version`` is the
    newest state version whose decision it has taken (or found not to be its).
    """

    def __init__(
        self,
        client: Client,
        game_id: str,
        token: str,
        choose: Chooser,
        *,
        all_payments: bool = False,
        max_reconnects: int = 5,
    ) -> None:
        self.client = client
        self.game_id = game_id
        self.token = token
        self.choose = choose
        self.all_payments = all_payments
        self.max_reconnects = max_reconnects
        self.decisions = 0
        self.handled_version = -1
        self.seat = self._own_seat()

    def _own_seat(self) -> int:
        state = self.client.state(self.game_id, self.token)
        if not state.HasField("viewer_seat"):
            raise BotError("the token is no seat token of this game")
        return state.viewer_seat

    def play(self) -> pb.Outcome:
        """Follows the event stream and decides whenever this seat must, until
        the game is over; returns its Outcome. Raises BotError when the game is
        abandoned or the stream cannot be kept open."""
        next_seq = 0  # 0: start with a snapshot
        # Breaks the server asks to wait out (a game moving to another node)
        # go on for the client's patience; others count.
        failures = Failures(self.max_reconnects, self.client.patience)
        while True:
            asked: float | None = None
            try:
                if next_seq > 0:
                    # Resuming: a decision announced before the break may be pending.
                    self.decide_if_pending(-1)
                for event in self.client.events(self.game_id, self.token, next_seq):
                    next_seq = event.seq + 1
                    failures.cleared()
                    outcome = self.on_event(event)
                    if outcome is not None:
                        return outcome
                state = self.client.state(self.game_id, self.token)
                if state.status == pb.GAME_STATUS_FINISHED:
                    return state.outcome
                if state.status == pb.GAME_STATUS_ABANDONED:
                    raise BotError(f"game {self.game_id} was abandoned")
                # The stream ended early (e.g. the server is shutting down): resume it.
            except grpc.RpcError as e:
                if e.code() not in RETRYABLE:
                    raise
                asked = retry_delay(e)
            # As long as the server asks (RetryInfo), else backing off.
            pause = failures.next(asked, lambda n: self.client.backoff * 2**n)
            if pause is None:
                raise BotError("the event stream keeps breaking before the game is over")
            time.sleep(pause)

    def on_event(self, event: pb.GameEvent) -> pb.Outcome | None:
        """Reacts to one event; returns the Outcome once the game is over."""
        body = event.WhichOneof("body")
        if body == "snapshot":
            state = event.snapshot.state
            if state.status == pb.GAME_STATUS_FINISHED:
                return state.outcome
            if state.status == pb.GAME_STATUS_ABANDONED:
                raise BotError(f"game {self.game_id} was abandoned")
            if state.HasField("to_act") and state.to_act == self.seat:
                self.decide_if_pending(state.version)
        elif body == "decision_needed" and event.decision_needed.seat == self.seat:
            self.decide_if_pending(event.version)
        elif body == "game_finished":
            return event.game_finished.outcome
        elif body == "game_abandoned":
            raise BotError(f"game {self.game_id} was abandoned: {event.game_abandoned.reason}")
        return None

    def decide_if_pending(self, version: int) -> None:
        """Takes this seat's decision announced at ``version`` (-1: whatever is
        pending now), unless a decision at that version was handled already."""
        if version != -1 and version <= self.handled_version:
            return  # the same decision, announced again (snapshot + DecisionNeeded)
        for _ in range(MAX_STALE):
            legal = self.client.legal_actions(self.game_id, self.token, all_payments=self.all_payments)
            if legal.version <= self.handled_version:
                return
            if not legal.actions:  # not (or no longer) this seat's decision
                self.handled_version = max(self.handled_version, legal.version)
                return
            state = self.client.state(self.game_id, self.token)
            if state.version != legal.version:
                continue  # the game moved on between the two calls
            choice = self.choose(list(legal.actions), state)
            if self.all_payments and isinstance(choice, pb.LegalAction):
                # An entry of the full list is submitted as the action itself:
                # exact whether or not the entry carries an id.
                choice = choice.action
            late = seconds_left(legal)
            if late is not None and late < 0:
                print(f"druids-bot: seat {self.seat} decided {-late:.3f} s after its deadline", file=sys.stderr)
            try:
                # One key for this decision: the client's retries resend it.
                self.client.submit(
                    self.game_id, self.token, choice, legal.version, new_key(f"s{self.seat}-v{legal.version}")
                )
            except grpc.RpcError as e:
                if e.code() == grpc.StatusCode.ABORTED:
                    continue  # stale version: read again, decide again if still ours
                if e.code() == grpc.StatusCode.FAILED_PRECONDITION:
                    now = self.client.legal_actions(self.game_id, self.token)
                    if now.version == legal.version and now.actions:
                        # Still ours at the same version: the choice itself was refused.
                        raise BotError(f"the server refused the action chosen: {e.details()}") from e
                    self.handled_version = legal.version  # no longer this seat's decision
                    return
                raise
            self.decisions += 1
            self.handled_version = legal.version
            return
        raise BotError("the game kept moving on under this seat's decision")


def play_seat(
    client: Client,
    game_id: str,
    token: str,
    choose: Chooser,
    *,
    all_payments: bool = False,
) -> pb.Outcome:
    """Plays the seat of ``token`` with ``choose`` until the game is over;
    returns the Outcome. See :class:`SeatPlayer`."""
    return SeatPlayer(client, game_id, token, choose, all_payments=all_payments).play()

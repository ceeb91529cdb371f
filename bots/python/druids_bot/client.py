"""Client helpers: connect, create/join a game, and play one seat to the end."""

import argparse
import json
import random
import sys
import time
import uuid

import grpc
from druids.v1 import druids_pb2 as pb
from druids.v1 import druids_pb2_grpc

KINDS = {"meduris": pb.GAME_KIND_MEDURIS, "dolmen": pb.GAME_KIND_DOLMEN}


class BotError(Exception):
    """The game cannot be played on (abandoned, retries exhausted, ...)."""


def outcome_dict(outcome):
    """An Outcome as plain JSON-friendly data."""
    return {
        "scores": list(outcome.scores),
        "winners": list(outcome.winners),
        "ranking": list(outcome.ranking),
        "by_safeguard": outcome.by_safeguard,
    }


def connect(url="127.0.0.1:50051", **kwargs):
    """A Client for `host:port`, `http://host:port` (plaintext) or `https://host:port`
    (TLS; pass `ca_cert="cert.pem"` to trust a certificate the system does not)."""
    return Client(url, **kwargs)


class Client:
    """One channel to a druids server.

    Unary calls are retried on UNAVAILABLE (up to `retries` times, with
    exponential backoff from `backoff` seconds); each waits at most `timeout` s.
    """

    def __init__(self, url, retries=5, backoff=0.2, timeout=30.0, ca_cert=None):
        if url.startswith("https://"):
            roots = open(ca_cert, "rb").read() if ca_cert else None
            self.channel = grpc.secure_channel(url[8:], grpc.ssl_channel_credentials(roots))
        else:
            self.channel = grpc.insecure_channel(url.removeprefix("http://"))
        self.stub = druids_pb2_grpc.DruidsServiceStub(self.channel)
        self.retries, self.backoff, self.timeout = retries, backoff, timeout
        self.decisions = 0  # actions submitted by play()

    def close(self):
        self.channel.close()

    @staticmethod
    def _auth(token):
        return [("authorization", f"Bearer {token}")] if token else None

    def _call(self, method, request, token=None):
        for attempt in range(self.retries + 1):
            try:
                return method(request, metadata=self._auth(token), timeout=self.timeout)
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.UNAVAILABLE or attempt == self.retries:
                    raise
                time.sleep(self.backoff * 2**attempt)

    # --- games ---------------------------------------------------------------

    def create_game(self, kind, players, seed=None, seat_names=(), open_seats=(), options=None):
        """Creates a game; returns (game_id, {seat: token}) for the claimed seats.
        `kind` is a pb.GameKind value or "meduris" / "dolmen"."""
        reply = self._call(
            self.stub.CreateGame,
            pb.CreateGameRequest(
                kind=KINDS.get(kind, kind),
                players=players,
                seed=seed,
                seat_names=list(seat_names),
                open_seats=list(open_seats),
                options=options,
            ),
        )
        return reply.game_id, {s.seat: s.token for s in reply.seats}

    def join_game(self, game_id, seat=None, name=""):
        """Claims an open seat (the lowest when `seat` is None); returns (seat, token)."""
        reply = self._call(self.stub.JoinGame, pb.JoinGameRequest(game_id=game_id, seat=seat, name=name))
        return reply.seat.seat, reply.seat.token

    def state(self, game_id, token=None):
        """The StateView as the token's seat (or a spectator, without token) sees it."""
        return self._call(self.stub.GetState, pb.GetStateRequest(game_id=game_id), token).state

    def legal_actions(self, game_id, token, all_payments=False):
        """GetLegalActionsResponse: version, seat, decision, actions."""
        req = pb.GetLegalActionsRequest(game_id=game_id, all_payments=all_payments)
        return self._call(self.stub.GetLegalActions, req, token)

    # --- playing -------------------------------------------------------------

    def play(self, game_id, token, choose, max_reconnects=5):
        """Plays the token's seat until the game ends; returns the Outcome.

        Follows StreamEvents; whenever this seat must decide, calls
        `choose(legal_actions, state)` (a list of LegalAction and this seat's
        StateView) and submits the LegalAction (or id) it returns. A broken
        stream (UNAVAILABLE) is resumed from the last seq seen + 1.
        """
        seat = self.state(game_id, token).viewer_seat
        resume, failures, outcome = None, 0, None
        while True:
            try:
                if resume is not None:  # our decision may have been announced already
                    self._decide(game_id, token, seat, choose)
                req = pb.StreamEventsRequest(game_id=game_id, from_seq=resume or 0)
                for ev in self.stub.StreamEvents(req, metadata=self._auth(token)):
                    failures, resume = 0, ev.seq + 1
                    body = ev.WhichOneof("body")
                    if body == "snapshot":
                        st = ev.snapshot.state
                        if st.status == pb.GAME_STATUS_FINISHED:
                            outcome = st.outcome
                        elif st.HasField("to_act") and st.to_act == seat:
                            self._decide(game_id, token, seat, choose)
                    elif body == "decision_needed" and ev.decision_needed.seat == seat:
                        self._decide(game_id, token, seat, choose)
                    elif body == "game_finished":
                        outcome = ev.game_finished.outcome
                if outcome is not None:
                    return outcome
                st = self.state(game_id, token)
                if st.status == pb.GAME_STATUS_FINISHED:
                    return st.outcome
                if st.status == pb.GAME_STATUS_ABANDONED:
                    raise BotError(f"game {game_id} was abandoned")
                # The stream ended early (e.g. the server is shutting down): resume it.
                if failures >= max_reconnects:
                    raise BotError("the event stream keeps ending before the game does")
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.UNAVAILABLE or failures >= max_reconnects:
                    raise
            failures += 1
            time.sleep(self.backoff * 2**failures)

    def _decide(self, game_id, token, seat, choose):
        """Takes this seat's pending decision, if it has one."""
        for _ in range(10):
            legal = self.legal_actions(game_id, token)
            if not legal.actions:
                return
            state = self.state(game_id, token)
            if state.version != legal.version:
                continue  # the game moved on between the two calls
            picked = choose(list(legal.actions), state)
            req = pb.SubmitActionRequest(
                game_id=game_id,
                legal_action_id=picked if isinstance(picked, int) else picked.id,
                expected_version=legal.version,
                idempotency_key=f"s{seat}-v{legal.version}-{uuid.uuid4().hex[:12]}",
            )
            try:
                self._call(self.stub.SubmitAction, req, token)  # same key on retries
                self.decisions += 1
                return
            except grpc.RpcError as e:
                if e.code() == grpc.StatusCode.ABORTED:
                    continue  # stale version: fetch and decide again
                if e.code() == grpc.StatusCode.FAILED_PRECONDITION:
                    return  # no longer ours (e.g. the clock ran out): wait for events
                raise
        raise BotError("the game kept moving on under this seat's decision")


def run_cli(choose, description):
    """Command line of a bot: parses --server/--game-id/--token/--seed, plays the
    seat, and prints one JSON line with the outcome it saw."""
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server", default="127.0.0.1:50051", help="host:port, http://... or https://...")
    ap.add_argument("--ca-cert", help="PEM certificate to trust for an https:// server")
    ap.add_argument("--game-id", required=True)
    ap.add_argument("--token", required=True, help="the seat's secret token")
    ap.add_argument("--seed", type=int, help="seed of the bot's random choices")
    args = ap.parse_args()
    if args.seed is not None:
        random.seed(args.seed)
    client = connect(args.server, ca_cert=args.ca_cert)
    try:
        outcome = client.play(args.game_id, args.token, choose)
        seat = client.state(args.game_id, args.token).viewer_seat
    except (grpc.RpcError, BotError) as e:
        detail = f"{e.code().name}: {e.details()}" if isinstance(e, grpc.RpcError) else str(e)
        print(f"bot failed: {detail}", file=sys.stderr)
        sys.exit(1)
    finally:
        client.close()
    print(json.dumps({
        "game_id": args.game_id,
        "seat": seat,
        "decisions": client.decisions,
        "outcome": outcome_dict(outcome),
    }), flush=True)

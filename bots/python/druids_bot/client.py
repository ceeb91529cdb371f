"""A client of one druids server: the unary calls, with retries that are safe.

Every call that may be retried is made retry-safe first: CreateGame and
JoinGame carry a ``request_id``, SubmitAction an ``idempotency_key``, and the
same id or key is sent again on every retry, so nothing is ever applied twice.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TypeVar

import grpc

from ._pb import arena_pb2, arena_pb2_grpc, druids_pb2_grpc
from ._pb import druids_pb2 as pb
from .address import default_server, open_channel
from .retry_info import PATIENCE, Failures, retry_delay

#: Status codes after which the same request may simply be sent again.
RETRYABLE = frozenset(
    {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.RESOURCE_EXHAUSTED}
)

#: Game names accepted where a ``pb.GameKind`` is expected.
# Every game of the contract, by the short name the Rust CLI uses: derived
# from the generated GameKind, so a new game needs no edit here.
KINDS: Mapping[str, int] = {
    name.removeprefix("GAME_KIND_").lower(): value
    for name, value in pb.GameKind.items()
    if value != pb.GAME_KIND_UNSPECIFIED
}

Reply = TypeVar("Reply")


class BotError(Exception):
    """The game cannot be played on (abandoned, a token of no seat, retries exhausted ...)."""


def kind_of(kind: str | int) -> int:
    """A ``pb.GameKind`` value from ``"meduris"``, ``"dolmen"`` or a GameKind value."""
    if isinstance(kind, str):
        try:
            return KINDS[kind.lower()]
        except KeyError:
            raise ValueError(f"unknown game {kind!r}: one of {', '.join(KINDS)}") from None
    return kind


def new_key(prefix: str = "py") -> str:
    """A fresh idempotency key / request id (well under the 128-byte limit)."""
    return f"{prefix}-{uuid.uuid4().hex}"


class Client:
    """One channel to a druids server.

    ``server`` is ``host:port``, ``http://host:port`` or ``https://host:port``
    (default: ``$DRUIDS_SERVER``, else ``http://127.0.0.1:50051``). Calls that
    fail with UNAVAILABLE, DEADLINE_EXCEEDED or RESOURCE_EXHAUSTED are sent
    again: after the delay the server asks for (a RetryInfo), for at most
    ``patience`` seconds in a row (a game moving to another node takes about
    a lease); else up to ``retries`` times, backing off exponentially from
    ``backoff`` seconds. Each call waits at most ``timeout`` seconds.
    """

    def __init__(
        self,
        server: str | None = None,
        *,
        ca_cert: str | None = None,
        retries: int = 5,
        backoff: float = 0.2,
        timeout: float = 30.0,
        patience: float = PATIENCE,
    ) -> None:
        self.server = server or default_server()
        self.channel = open_channel(self.server, ca_cert)
        self.stub = druids_pb2_grpc.DruidsServiceStub(self.channel)  # type: ignore[no-untyped-call]
        #: The arena's stub (``ArenaServiceStub``); see the arena methods below.
        self.arena = arena_pb2_grpc.ArenaServiceStub(self.channel)  # type: ignore[no-untyped-call]
        self.retries = retries
        self.backoff = backoff
        self.timeout = timeout
        self.patience = patience

    def close(self) -> None:
        """Closes the channel."""
        self.channel.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- plumbing -------------------------------------------------------------

    @staticmethod
    def metadata(token: str | None) -> list[tuple[str, str]] | None:
        """The call metadata carrying ``token`` (None for a spectator)."""
        return [("authorization", f"Bearer {token}")] if token else None

    def call(self, method: Callable[..., Reply], request: object, token: str | None = None) -> Reply:
        """Calls a unary method, retrying the same request on retryable codes."""
        failures = Failures(self.retries, self.patience)
        while True:
            try:
                return method(request, metadata=self.metadata(token), timeout=self.timeout)
            except grpc.RpcError as e:
                if e.code() not in RETRYABLE:
                    raise
                # As long as the server asks (RetryInfo), else backing off.
                pause = failures.next(retry_delay(e), lambda n: self.backoff * 2 ** (n - 1))
                if pause is None:
                    raise
                time.sleep(pause)

    # --- games ----------------------------------------------------------------

    def create_game(
        self,
        kind: str | int,
        players: int,
        *,
        seed: int | None = None,
        seat_names: Iterable[str] = (),
        open_seats: Iterable[int] = (),
        options: pb.GameOptions | None = None,
        request_id: str | None = None,
    ) -> tuple[str, dict[int, str]]:
        """Creates a game; returns ``(game_id, {seat: token})`` for the claimed seats.

        ``kind`` is ``"meduris"``, ``"dolmen"`` or a ``pb.GameKind`` value. A
        ``seed`` makes the game reproducible, but every seat can see it was
        chosen (the dice are not secret). Retry-safe (``request_id``, a fresh
        one by default).
        """
        request = pb.CreateGameRequest(
            kind=kind_of(kind),  # type: ignore[arg-type]
            players=players,
            seed=seed,
            seat_names=list(seat_names),
            open_seats=list(open_seats),
            options=options,
            request_id=request_id or new_key("create"),
        )
        reply: pb.CreateGameResponse = self.call(self.stub.CreateGame, request)
        return reply.game_id, {s.seat: s.token for s in reply.seats}

    def create_game_from(
        self,
        replay: pb.Replay,
        actions: int,
        *,
        options: pb.GameOptions | None = None,
        seat_names: Iterable[str] = (),
        request_id: str | None = None,
    ) -> tuple[str, dict[int, str]]:
        """Creates a game at a position: set up as ``replay``'s was (kind,
        players, seed, options) with its first ``actions`` actions applied
        (``CreateGameRequest.start_from``). ``options`` replace the replay's
        when given. Returns ``(game_id, {seat: token})``; every seat is claimed."""
        request = pb.CreateGameRequest(
            start_from=pb.StartFrom(replay=replay, actions=actions),
            options=options,
            seat_names=list(seat_names),
            request_id=request_id or new_key("create"),
        )
        reply: pb.CreateGameResponse = self.call(self.stub.CreateGame, request)
        return reply.game_id, {s.seat: s.token for s in reply.seats}

    def join_game(
        self, game_id: str, *, seat: int | None = None, name: str = "", request_id: str | None = None
    ) -> tuple[int, str]:
        """Claims an open seat (the lowest when ``seat`` is None); returns ``(seat, token)``."""
        request = pb.JoinGameRequest(
            game_id=game_id, seat=seat, name=name, request_id=request_id or new_key("join")
        )
        reply: pb.JoinGameResponse = self.call(self.stub.JoinGame, request)
        return reply.seat.seat, reply.seat.token

    def state(self, game_id: str, token: str | None = None) -> pb.StateView:
        """The game as the token's seat (or, without a token, a spectator) sees it."""
        reply: pb.GetStateResponse = self.call(self.stub.GetState, pb.GetStateRequest(game_id=game_id), token)
        return reply.state

    def legal_actions(self, game_id: str, token: str, *, all_payments: bool = False) -> pb.GetLegalActionsResponse:
        """Every legal action of the token's seat, all pages joined into one response.

        With ``all_payments`` every distinct payment is listed; entries found
        only in that full list have no ``id`` (submit their ``action``). Pages
        of one list belong to one version: when the game moves on while the
        pages are read (ABORTED), the listing starts again.
        """
        while True:
            try:
                return self._all_pages(game_id, token, all_payments)
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.ABORTED:
                    raise

    def _all_pages(self, game_id: str, token: str, all_payments: bool) -> pb.GetLegalActionsResponse:
        request = pb.GetLegalActionsRequest(game_id=game_id, all_payments=all_payments)
        whole: pb.GetLegalActionsResponse = self.call(self.stub.GetLegalActions, request, token)
        page = whole
        while page.next_page_token:
            request.page_token = page.next_page_token
            page = self.call(self.stub.GetLegalActions, request, token)
            whole.actions.extend(page.actions)
        whole.next_page_token = ""
        return whole

    def submit(
        self,
        game_id: str,
        token: str,
        choice: pb.LegalAction | pb.Action | int,
        expected_version: int,
        idempotency_key: str | None = None,
    ) -> pb.SubmitActionResponse:
        """Submits one decision: a LegalAction (by its ``id`` when it has one,
        else its ``action``), an Action, or a legal-action id. Retries send the
        same ``idempotency_key`` (a fresh one by default), so the action is
        applied at most once."""
        request = pb.SubmitActionRequest(
            game_id=game_id,
            expected_version=expected_version,
            idempotency_key=idempotency_key or new_key("act"),
        )
        if isinstance(choice, int):
            request.legal_action_id = choice
        elif isinstance(choice, pb.LegalAction):
            if choice.HasField("id"):
                request.legal_action_id = choice.id
            else:
                request.action.CopyFrom(choice.action)
        else:
            request.action.CopyFrom(choice)
        reply: pb.SubmitActionResponse = self.call(self.stub.SubmitAction, request, token)
        return reply

    def events(self, game_id: str, token: str | None = None, from_seq: int = 0) -> Iterator[pb.GameEvent]:
        """The game's event stream from ``from_seq`` (0: a snapshot of now, then
        live events; N: every event numbered N and later). Not retried: see
        :func:`druids_bot.seat.play_seat` for a loop that resumes it."""
        request = pb.StreamEventsRequest(game_id=game_id, from_seq=from_seq)
        stream: Iterator[pb.GameEvent] = self.stub.StreamEvents(request, metadata=self.metadata(token))
        return stream

    def export_replay(self, game_id: str) -> pb.Replay:
        """The replay of a finished (or abandoned) game: set-up, seed, every action."""
        reply: pb.Replay = self.call(self.stub.ExportReplay, pb.ExportReplayRequest(game_id=game_id))
        return reply

    # --- arena ----------------------------------------------------------------

    def register_bot(
        self, name: str, description: str = "", owner_contact: str = "", *, operator_key: str | None = None
    ) -> tuple[str, str]:
        """Registers a bot in the arena; returns ``(bot_id, api_key)``. The key
        is shown once: keep it. ``operator_key`` is needed only by a server
        with closed registration. Not retried (a lost answer would leave a bot
        whose key nobody has): ALREADY_EXISTS means the name is taken."""
        request = arena_pb2.RegisterBotRequest(name=name, description=description, owner_contact=owner_contact)
        reply: arena_pb2.RegisterBotResponse = self.arena.RegisterBot(
            request, metadata=self.metadata(operator_key), timeout=self.timeout
        )
        return reply.bot_id, reply.api_key

    def rotate_bot_key(self, key: str) -> str:
        """Replaces the bot's API key ``key``; returns the new one (the old one
        stops working at once)."""
        reply: arena_pb2.RotateBotKeyResponse = self.arena.RotateBotKey(
            arena_pb2.RotateBotKeyRequest(), metadata=self.metadata(key), timeout=self.timeout
        )
        return reply.api_key

    def seek(
        self, key: str, kind: str | int, min_players: int, max_players: int | None = None, *, rated: bool = True
    ) -> Iterator[arena_pb2.SeekEvent]:
        """Opens a seek: the stream of SeekEvent (``seeking``, ``match_started``,
        one ``game_started`` per game, ``match_finished``; a ``heartbeat``, which
        changes nothing, whenever it is quiet). Cancel it (the
        returned call's ``cancel()``) to leave the pool. Not retried: see
        :func:`druids_bot.run_ladder`."""
        request = arena_pb2.SeekRequest(
            kind=kind_of(kind),  # type: ignore[arg-type]
            min_players=min_players,
            max_players=max_players or min_players,
            rated=rated,
        )
        stream: Iterator[arena_pb2.SeekEvent] = self.arena.Seek(request, metadata=self.metadata(key))
        return stream

    def bot_events(self, key: str, from_seq: int = 0) -> Iterator[arena_pb2.BotEvent]:
        """The bot's own event log from ``from_seq`` (resume with the last seq
        seen + 1); stays open. A ``heartbeat`` (sent while the log is quiet)
        repeats the last seq and is not an event."""
        request = arena_pb2.StreamBotEventsRequest(from_seq=from_seq)
        stream: Iterator[arena_pb2.BotEvent] = self.arena.StreamBotEvents(request, metadata=self.metadata(key))
        return stream

    def leaderboard(
        self, kind: str | int, players: int, *, page_size: int = 0, page_token: str = ""
    ) -> arena_pb2.GetLeaderboardResponse:
        """One page of a pool's leaderboard (rated bots, best first)."""
        request = arena_pb2.GetLeaderboardRequest(
            kind=kind_of(kind),  # type: ignore[arg-type]
            players=players,
            page_size=page_size,
            page_token=page_token,
        )
        reply: arena_pb2.GetLeaderboardResponse = self.call(self.arena.GetLeaderboard, request)
        return reply

    def bot(self, bot_id: str) -> arena_pb2.GetBotResponse:
        """A bot's profile, its ratings per pool and its latest matches."""
        reply: arena_pb2.GetBotResponse = self.call(self.arena.GetBot, arena_pb2.GetBotRequest(bot_id=bot_id))
        return reply


def connect(server: str | None = None, **kwargs: object) -> Client:
    """A :class:`Client` for ``server`` (``host:port``, ``http://...`` or
    ``https://...``; default ``$DRUIDS_SERVER``, else ``http://127.0.0.1:50051``).
    Keyword arguments are those of :class:`Client` (``ca_cert``, ``retries``,
    ``backoff``, ``timeout``)."""
    return Client(server, **kwargs)  # type: ignore[arg-type]

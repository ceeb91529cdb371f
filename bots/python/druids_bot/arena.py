"""The arena: register a bot once, then let it play the ladder.

    from druids_bot import register_bot, run_ladder

    bot_id, key = register_bot("my-bot", server="127.0.0.1:50051")  # the key is shown once: keep it
    run_ladder(choose, key=key, server="127.0.0.1:50051", kind="meduris", players=4)

:func:`run_ladder` keeps ``concurrent`` seeks open (``ArenaService.Seek``).
When the server forms a match, the Seek stream names each of its games as it
starts (a duplicate match plays the same seed once per seat rotation, one game
after another); each game is played with the same loop as a single seat
(:class:`druids_bot.SeatPlayer`), the bot's API key acting as the seat's token.
When the match is over the slot seeks again, until ``matches`` matches were
started or KeyboardInterrupt: the first Ctrl-C cancels the open seeks and lets
the matches in progress finish, a second one abandons them. A Seek stream
that breaks during its match is followed on the bot's event log
(StreamBotEvents), so the match's later games are still played.
"""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc

from ._pb import arena_pb2
from ._pb import druids_pb2 as pb
from .client import BotError, Client, kind_of
from .seat import Chooser, SeatPlayer

#: Seek failures in a row (server unavailable, quota) before a slot gives up.
MAX_SEEK_RETRIES = 20

#: Longest pause between two seeks after failures, in seconds.
MAX_BACKOFF = 30.0

#: Codes after which a seek is simply opened again.
SEEK_RETRYABLE = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        grpc.StatusCode.ABORTED,
        grpc.StatusCode.UNKNOWN,
    }
)


@dataclass
class GameResult:
    """One game of a match, as this bot played it."""

    match_id: str
    #: Which game of the match, from 0.
    index: int
    game_id: str
    seat: int
    #: The game's Outcome; None when it could not be played (see ``error``).
    outcome: pb.Outcome | None = None
    error: str | None = None


@dataclass
class MatchResult:
    """A match the bot played: its final ranking and the bot's games."""

    match_id: str
    #: ``arena_pb2.Placement`` (bot, rank, total score), best first (by
    #: rank); empty
    #: when the Seek stream broke before ``match_finished``.
    placements: list[arena_pb2.Placement] = field(default_factory=list)
    games: list[GameResult] = field(default_factory=list)


def parse_pool(spec: str) -> tuple[int, int, int]:
    """``"meduris:4"`` or ``"dolmen:2-4"`` -> ``(GameKind, min_players, max_players)``."""
    game, sep, players = spec.partition(":")
    match = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", players)
    if not sep or match is None:
        raise ValueError(f"{spec!r} is no pool: expected GAME:PLAYERS or GAME:MIN-MAX (meduris:4, dolmen:2-4)")
    low = int(match.group(1))
    high = int(match.group(2) or low)
    if low < 2 or high < low:
        raise ValueError(f"{players!r} is no player count or range (2 or more)")
    return kind_of(game.strip()), low, high


def _no_arena(e: grpc.RpcError) -> Exception:
    """UNIMPLEMENTED as a BotError that says so; other errors as they are."""
    if e.code() == grpc.StatusCode.UNIMPLEMENTED:
        details = f": {e.details()}" if e.details() else ""
        return BotError(f"the server has no arena (UNIMPLEMENTED{details})")
    error: Exception = e
    return error


def register_bot(
    name: str,
    description: str = "",
    owner_contact: str = "",
    *,
    server: str | None = None,
    ca_cert: str | None = None,
    operator_key: str | None = None,
) -> tuple[str, str]:
    """Registers a bot; returns ``(bot_id, api_key)``. The API key is shown
    once (the server keeps only its hash): store it. ``server`` defaults to
    ``$DRUIDS_SERVER``; ``operator_key`` is for servers with closed
    registration. Raises BotError when the server has no arena, grpc.RpcError
    otherwise (ALREADY_EXISTS: the name is taken)."""
    with Client(server, ca_cert=ca_cert) as client:
        try:
            return client.register_bot(name, description, owner_contact, operator_key=operator_key)
        except grpc.RpcError as e:
            raise _no_arena(e) from None


def _log(text: str) -> None:
    print(f"druids-bot: {text}", file=sys.stderr, flush=True)


class _Ladder:
    """What the slots of one :func:`run_ladder` share."""

    def __init__(
        self,
        client: Client,
        choose: Chooser,
        key: str,
        kind: int,
        players: tuple[int, int],
        rated: bool,
        matches: int | None,
        all_payments: bool,
        on_game: Callable[[GameResult], Any] | None,
        on_match: Callable[[MatchResult], Any] | None,
        verbose: bool,
    ) -> None:
        self.client = client
        self.choose = choose
        self.key = key
        self.kind = kind
        self.players = players
        self.rated = rated
        self.limit = matches
        self.all_payments = all_payments
        self.on_game = on_game
        self.on_match = on_match
        self.verbose = verbose
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.reserved = 0
        self.results: list[MatchResult] = []
        #: Seeks not yet matched, cancelled on stop.
        self.open: set[Any] = set()
        #: Every seek, cancelled when the ladder is abandoned.
        self.calls: set[Any] = set()
        self.error: BaseException | None = None

    def log(self, text: str) -> None:
        if self.verbose:
            _log(text)

    def reserve(self) -> bool:
        with self.lock:
            if self.limit is not None and self.reserved >= self.limit:
                return False
            self.reserved += 1
            return True

    def release(self) -> None:
        with self.lock:
            self.reserved -= 1

    def request_stop(self, abandon: bool = False) -> None:
        """No new seeks; open ones are cancelled (and with ``abandon``, the
        matches in progress are left too)."""
        with self.lock:
            self.stop.set()
            for call in list(self.calls if abandon else self.open):
                call.cancel()

    def slot(self, n: int) -> None:
        try:
            self._slot(n)
        except BaseException as e:  # noqa: BLE001 - handed to the caller's thread
            with self.lock:
                if self.error is None:
                    self.error = e
            self.request_stop()

    def _slot(self, n: int) -> None:
        failures = 0
        while not self.stop.is_set():
            if not self.reserve():
                return
            try:
                played = self.one_match(n)
            except (grpc.RpcError, _SeekEnded) as e:
                self.release()
                if isinstance(e, _SeekEnded):
                    code, why = grpc.StatusCode.UNAVAILABLE, str(e)
                else:
                    code, why = e.code(), e.details()
                if self.stop.is_set() and code == grpc.StatusCode.CANCELLED:
                    return
                # A quota (too many seeks or matches of this bot at once) is
                # waited out however long it lasts: other slots free it.
                quota = code == grpc.StatusCode.RESOURCE_EXHAUSTED
                if code not in SEEK_RETRYABLE or (failures >= MAX_SEEK_RETRIES and not quota):
                    raise _no_arena(e) if isinstance(e, grpc.RpcError) else BotError(why) from None
                failures += 1
                pause = min(MAX_BACKOFF, (1.0 * failures) if quota else 0.2 * 2 ** min(failures, 8))
                self.log(f"[{n}] seek: {code.name}: {why}; seeking again in {pause:.1f} s")
                self.stop.wait(pause)
                continue
            if not played:
                self.release()
                return
            failures = 0

    def one_match(self, n: int) -> bool:
        """Seeks and plays one match; False when the seek was cancelled before
        a match was formed. grpc.RpcError: the seek failed before that."""
        low, high = self.players
        call: Any = self.client.seek(self.key, self.kind, low, high, rated=self.rated)
        with self.lock:
            if self.stop.is_set():
                call.cancel()
                return False
            self.open.add(call)
            self.calls.add(call)
        result: MatchResult | None = None
        threads: list[threading.Thread] = []
        started: set[str] = set()
        finished = False
        try:
            try:
                events: Iterator[arena_pb2.SeekEvent] = call
                for event in events:
                    which = event.WhichOneof("event")
                    if which == "seeking":
                        self.log(f"[{n}] seeking: {event.seeking.pool_size} in the pool")
                    elif which == "match_started":
                        m = event.match_started
                        result = result or MatchResult(m.match_id)
                        with self.lock:
                            self.open.discard(call)
                        names = ", ".join(b.name for b in m.bots)
                        rated = ", rated" if m.rated else ""
                        self.log(f"[{n}] match {m.match_id}: {m.games} game(s), {m.players} players{rated}: {names}")
                    elif which == "game_started":
                        g = event.game_started
                        result = result or MatchResult(g.match_id)
                        with self.lock:
                            self.open.discard(call)
                        self.start_game(n, g, result, started, threads)
                    elif which == "match_finished":
                        f = event.match_finished
                        result = result or MatchResult(f.match_id)
                        result.placements = sorted(f.placements, key=lambda p: p.rank)
                        finished = True
                        break
            except grpc.RpcError as e:
                if result is None:
                    raise
                self.log(f"[{n}] the seek stream broke during the match ({e.code().name})")
        finally:
            with self.lock:
                self.open.discard(call)
                self.calls.discard(call)
        if result is None:
            if self.stop.is_set():
                return False
            raise _SeekEnded("the seek stream ended before a match was formed")
        if not finished:
            self.log(f"[{n}] following match {result.match_id} on the bot's event log")
            if not self.recover(n, result, started, threads):
                self.log(f"[{n}] lost track of match {result.match_id}: its later games are lost to this bot")
        for t in threads:
            t.join()
        result.games.sort(key=lambda g: g.index)
        with self.lock:
            self.results.append(result)
        places = ", ".join(f"{p.rank}. {p.bot.name} {p.score}" for p in result.placements)
        self.log(f"[{n}] match {result.match_id} over: {places}")
        if self.on_match is not None:
            self.on_match(result)
        return True

    def start_game(
        self, n: int, g: arena_pb2.MatchGame, result: MatchResult, started: set[str], threads: list[threading.Thread]
    ) -> None:
        """Plays a game of the match on a thread of its own (once per game)."""
        if g.game_id in started:
            return
        started.add(g.game_id)
        self.log(f"[{n}] game {g.index} of match {g.match_id}: {g.game_id}, seat {g.seat}")
        t = threading.Thread(target=self.play, args=(g, result), daemon=True)
        t.start()
        threads.append(t)

    def recover(self, n: int, result: MatchResult, started: set[str], threads: list[threading.Thread]) -> bool:
        """Follows the match on the bot's event log (StreamBotEvents from its
        start) after its Seek stream broke: plays its games not yet started;
        True once the match is over, False if the log cannot be read."""
        for attempt in range(1, MAX_SEEK_RETRIES + 1):
            call: Any = self.client.bot_events(self.key, 1)
            with self.lock:
                self.calls.add(call)
            try:
                events: Iterator[arena_pb2.BotEvent] = call
                for event in events:
                    which = event.WhichOneof("event")
                    if which == "game_started" and event.game_started.match_id == result.match_id:
                        self.start_game(n, event.game_started, result, started, threads)
                    elif which == "match_finished" and event.match_finished.match_id == result.match_id:
                        result.placements = sorted(event.match_finished.placements, key=lambda p: p.rank)
                        return True
            except grpc.RpcError as e:
                if e.code() == grpc.StatusCode.CANCELLED and self.stop.is_set():
                    return False
            finally:
                call.cancel()
                with self.lock:
                    self.calls.discard(call)
            time.sleep(min(MAX_BACKOFF, 0.2 * attempt))
        return False

    def play(self, g: arena_pb2.MatchGame, result: MatchResult) -> None:
        game = GameResult(g.match_id, g.index, g.game_id, g.seat)
        try:
            player = SeatPlayer(self.client, g.game_id, self.key, self.choose, all_payments=self.all_payments)
            game.seat = player.seat
            game.outcome = player.play()
        except grpc.RpcError as e:
            game.error = f"{e.code().name}: {e.details()}"
        except BotError as e:
            game.error = str(e)
        if game.error is not None:
            _log(f"game {g.game_id} (match {g.match_id}): {game.error}")
        with self.lock:
            result.games.append(game)
        if self.on_game is not None:
            self.on_game(game)


class _SeekEnded(Exception):
    """The Seek stream ended before a match was formed (the seek is opened again)."""


def run_ladder(
    choose: Chooser,
    *,
    key: str | None = None,
    server: str | None = None,
    kind: str | int = "meduris",
    players: int | tuple[int, int] | str = 4,
    rated: bool = True,
    concurrent: int = 2,
    matches: int | None = None,
    ca_cert: str | None = None,
    all_payments: bool = False,
    on_game: Callable[[GameResult], Any] | None = None,
    on_match: Callable[[MatchResult], Any] | None = None,
    verbose: bool = True,
) -> list[MatchResult]:
    """Plays the arena's ladder with ``choose`` (the same callback as
    :func:`druids_bot.play_seat`) and returns the matches played.

    ``key`` is the bot's API key (default ``$DRUIDS_BOT_KEY``); ``server``
    defaults to ``$DRUIDS_SERVER``. The pool is ``kind`` with ``players``
    players: a count, a ``(min, max)`` range or ``"2-4"``. ``concurrent``
    seeks are kept open, so up to that many matches are played at once: on
    threads, so ``choose`` may be called from several threads at a time.
    Stops after ``matches`` matches (None: never) or on KeyboardInterrupt (the
    first one lets the matches in progress finish; a second one abandons them
    and is raised). ``on_game`` and ``on_match`` are called (from the
    ladder's threads) with each GameResult and MatchResult as they end;
    ``verbose`` logs progress to stderr.

    Raises BotError when the server has no arena, grpc.RpcError when a seek is
    refused (UNAUTHENTICATED: a wrong key; INVALID_ARGUMENT: a wrong pool).
    """
    key = key or os.environ.get("DRUIDS_BOT_KEY")
    if not key:
        raise BotError("the bot's API key is needed: key=... or $DRUIDS_BOT_KEY (register_bot makes one)")
    if isinstance(players, str):
        _, low, high = parse_pool(f"meduris:{players}")
    elif isinstance(players, int):
        low = high = players
    else:
        low, high = players
    if concurrent < 1:
        raise ValueError("concurrent must be 1 or more")
    with Client(server, ca_cert=ca_cert) as client:
        ladder = _Ladder(
            client, choose, key, kind_of(kind), (low, high), rated, matches, all_payments, on_game, on_match, verbose
        )
        threads = [
            threading.Thread(target=ladder.slot, args=(n,), name=f"druids-ladder-{n}", daemon=True)
            for n in range(concurrent)
        ]
        for t in threads:
            t.start()

        def wait() -> None:
            while any(t.is_alive() for t in threads):
                for t in threads:
                    t.join(0.2)

        try:
            wait()
        except KeyboardInterrupt:
            _log("stopping: open seeks cancelled, matches in progress played to the end (Ctrl-C again to quit now)")
            ladder.request_stop()
            try:
                wait()
            except KeyboardInterrupt:
                ladder.request_stop(abandon=True)
                raise
        if ladder.error is not None:
            raise ladder.error
        return ladder.results

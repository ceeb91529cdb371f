"""The druids bot kit: gRPC stubs of the contract and a loop that plays a seat.

    from druids_bot import connect, play_seat

    client = connect("127.0.0.1:50051")      # or http://..., https://..., $DRUIDS_SERVER
    game_id, tokens = client.create_game("meduris", players=2, open_seats=[1])
    outcome = play_seat(client, game_id, tokens[0], lambda actions, state: actions[0])

The arena (``arena_pb2``, ``arena_pb2_grpc``): ``register_bot`` once, then
``run_ladder`` plays rated matches against other bots with the same callback:

    bot_id, key = register_bot("my-bot", server="127.0.0.1:50051")   # the key is shown once
    run_ladder(choose, key=key, server="127.0.0.1:50051", kind="meduris", players=4)

A policy trained with the ``druids-engine`` package, ``policy(observation,
mask) -> index``, plays through the server unchanged with
``policy_chooser(policy)`` in place of ``choose`` (see ``druids_bot.policy``).

``pb`` is the generated ``druids.v1`` message module (``druids_pb2``);
``meduris_pb2``, ``dolmen_pb2`` (each game's actions, decisions, events and
views), ``druids_pb2_grpc`` (``DruidsServiceStub``) and ``testing_pb2``
(fault plans and ledgers, see ``druids_bot.testing``) are exported too. They
are generated when the package is built (see setup.py), into
``druids_bot._pb``.
"""

from ._pb import arena_pb2, arena_pb2_grpc, dolmen_pb2, druids_pb2_grpc, meduris_pb2, testing_pb2
from ._pb import druids_pb2 as pb
from .address import Address, parse_server, parse_servers
from .arena import GameResult, MatchResult, parse_pool, register_bot, run_ladder
from .cli import result_line, run_cli
from .client import BotError, Client, connect, kind_of, new_key
from .policy import Policy, policy_chooser
from .seat import Choice, Chooser, SeatPlayer, play_seat, seconds_left
from .strategies import load_strategy
from .testing import Testing, TestGame

__all__ = [
    "Address",
    "BotError",
    "Choice",
    "Chooser",
    "Client",
    "GameResult",
    "MatchResult",
    "Policy",
    "SeatPlayer",
    "TestGame",
    "Testing",
    "arena_pb2",
    "arena_pb2_grpc",
    "connect",
    "dolmen_pb2",
    "druids_pb2_grpc",
    "kind_of",
    "load_strategy",
    "meduris_pb2",
    "new_key",
    "parse_pool",
    "parse_server",
    "parse_servers",
    "pb",
    "play_seat",
    "policy_chooser",
    "register_bot",
    "result_line",
    "run_cli",
    "run_ladder",
    "seconds_left",
    "testing_pb2",
]

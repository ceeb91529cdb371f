"""The druids bot kit: a thin layer over the generated gRPC stubs.

    from druids_bot import connect, pb

    client = connect("127.0.0.1:50051")
    game_id, tokens = client.create_game(pb.GAME_KIND_MEDURIS, players=4)
    outcome = client.play(game_id, tokens[0], lambda actions, state: actions[0])

`pb` is the generated `druids.v1` message module (druids_pb2); the per-game
modules `meduris_pb2` (Meduris) and `dolmen_pb2` (Die Dolmengoetter) and
`druids_pb2_grpc` are exported too. A StateView's `WhichOneof("game")` says
which game it is ("meduris" or "dolmen"), and so does each Action's. Stubs
are generated on first import when missing or older than the .proto files
(see _generate.py).
"""

import sys

from . import _generate

_generate.ensure()
# Generated code imports itself as `druids.v1.*`: put its root on the path.
if str(_generate.GEN_DIR) not in sys.path:
    sys.path.insert(0, str(_generate.GEN_DIR))

from druids.v1 import dolmen_pb2  # noqa: E402
from druids.v1 import druids_pb2 as pb  # noqa: E402
from druids.v1 import druids_pb2_grpc  # noqa: E402
from druids.v1 import meduris_pb2  # noqa: E402

from .client import BotError, Client, connect, outcome_dict, run_cli  # noqa: E402

__all__ = [
    "BotError",
    "Client",
    "connect",
    "dolmen_pb2",
    "druids_pb2_grpc",
    "meduris_pb2",
    "outcome_dict",
    "pb",
    "run_cli",
]

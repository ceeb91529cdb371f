"""Faults on cue and the ledger, from Python: the ``TestingService`` calls of a
server started with ``--test-faults`` (docs/testing-clients.md, section 5).

    testing = Testing(client)
    game = testing.create_test_game("meduris", 2, plan, seed=7)
    ... play game.tokens[0] ...
    for entry in testing.ledger(game): ...

A :class:`TestGame` carries the game's test key, which these calls send as
the bearer token. :func:`druids_bot.harness.start_server` with
``test_faults=True`` gives a server that answers them (``server.testing``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ._pb import druids_pb2 as pb
from ._pb import testing_pb2, testing_pb2_grpc
from .client import Client, kind_of, new_key


@dataclass(frozen=True)
class TestGame:
    """A game made by ``CreateTestGame``: its id, the tokens of its seats and
    its test key (for ``AttachFaultPlan``, ``GetLedger``, ``AdvanceClock``)."""

    __test__ = False  # not a pytest class, despite its name

    game_id: str
    tokens: dict[int, str]
    test_key: str


class Testing:
    """The ``TestingService`` of ``client``'s server, with the client's retries."""

    __test__ = False

    def __init__(self, client: Client) -> None:
        self.client = client
        self.stub = testing_pb2_grpc.TestingServiceStub(client.channel)  # type: ignore[no-untyped-call]

    def create_test_game(
        self,
        kind: str | int,
        players: int,
        plan: testing_pb2.FaultPlan | Iterable[testing_pb2.Fault] = (),
        *,
        seed: int | None = None,
        options: pb.GameOptions | None = None,
        request_id: str | None = None,
    ) -> TestGame:
        """Creates a game with every seat claimed and ``plan`` (a FaultPlan,
        or its faults) attached. Retry-safe (``request_id``)."""
        game = pb.CreateGameRequest(
            kind=kind_of(kind),  # type: ignore[arg-type]
            players=players,
            seed=seed,
            options=options,
            request_id=request_id or new_key("create-test"),
        )
        if not isinstance(plan, testing_pb2.FaultPlan):
            plan = testing_pb2.FaultPlan(faults=list(plan))
        reply: testing_pb2.CreateTestGameResponse = self.client.call(
            self.stub.CreateTestGame, testing_pb2.CreateTestGameRequest(game=game, plan=plan)
        )
        return TestGame(
            game_id=reply.game.game_id,
            tokens={s.seat: s.token for s in reply.game.seats},
            test_key=reply.test_key,
        )

    def attach_fault_plan(self, game: TestGame, plan: testing_pb2.FaultPlan) -> int:
        """Replaces the game's plan (its ledger starts again); returns the
        game's last event seq at that moment."""
        request = testing_pb2.AttachFaultPlanRequest(game_id=game.game_id, plan=plan)
        reply: testing_pb2.AttachFaultPlanResponse = self.client.call(
            self.stub.AttachFaultPlan, request, game.test_key
        )
        return reply.last_seq

    def ledger(self, game: TestGame) -> list[testing_pb2.LedgerEntry]:
        """The whole ledger of the game's plan, every page read."""
        entries: list[testing_pb2.LedgerEntry] = []
        start = 0
        while True:
            request = testing_pb2.GetLedgerRequest(game_id=game.game_id, from_index=start)
            page: testing_pb2.GetLedgerResponse = self.client.call(
                self.stub.GetLedger, request, game.test_key
            )
            entries.extend(page.entries)
            if page.next_index == start:
                return entries
            start = page.next_index

    def advance_clock(self, game: TestGame, by_ms: int) -> testing_pb2.AdvanceClockResponse:
        """Moves the pending decision's deadline ``by_ms`` earlier; its
        default is applied at once when that puts it in the past."""
        request = testing_pb2.AdvanceClockRequest(game_id=game.game_id, by_ms=by_ms)
        reply: testing_pb2.AdvanceClockResponse = self.client.call(
            self.stub.AdvanceClock, request, game.test_key
        )
        return reply

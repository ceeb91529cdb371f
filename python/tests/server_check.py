"""Checks against a running server (run by tests/tests/suite/python_engine.rs
with a real server's address; not a pytest file, so that it never skips).

For games of both kinds played on the server with a chosen seed, at every
decision: what the server sends (the seat's and a spectator's StateView, the
default and the all-payments legal lists) becomes exactly the observations
and the mask the engine gives in-process for the same seed and the same
choices, and each chosen index maps back to the legal_action_id the server
applies (its description is the engine's wording). At the end the server's
ExportReplay is the in-process game: the same seed, every action the same
index, the same outcome.

    python python/tests/server_check.py --server 127.0.0.1:50051
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from druids_bot import connect, new_key, pb
from druids_engine import Game, mask_from_legal_actions, observation_from_state_view

CASES = [("meduris", 4, 7), ("meduris", 2, 8), ("meduris", 3, 12), ("dolmen", 2, 9), ("dolmen", 5, 10)]


def check(server: str, name: str, players: int, seed: int) -> int:
    client = connect(server)
    game_id, tokens = client.create_game(name, players, seed=seed)
    local = Game(name, players, seed=seed)
    rng = np.random.default_rng(seed)
    decisions = 0
    while True:
        spectator = client.state(game_id)
        assert np.array_equal(
            observation_from_state_view(spectator.SerializeToString()), local.observation(None)
        ), f"{name}: the spectator's observation differs at decision {decisions}"
        if spectator.status == pb.GAME_STATUS_FINISHED:
            break
        seat = spectator.to_act
        assert seat == local.to_act, f"{name}: seat {seat} to act on the server, {local.to_act} here"
        for s in range(players):
            view = client.state(game_id, tokens[s])
            got = observation_from_state_view(view.SerializeToString())
            assert np.array_equal(got, local.observation(s)), f"{name}: seat {s}'s observation differs"
        legal = client.legal_actions(game_id, tokens[seat])
        mask, ids = mask_from_legal_actions(name, players, legal.SerializeToString())
        assert np.array_equal(mask, local.legal_mask()), f"{name}: the mask differs at decision {decisions}"
        everything = client.legal_actions(game_id, tokens[seat], all_payments=True)
        mask_all, ids_all = mask_from_legal_actions(name, players, everything.SerializeToString())
        assert np.array_equal(mask_all, mask) and np.array_equal(ids_all, ids)
        index = int(rng.choice(np.flatnonzero(mask)))
        entry = next(a for a in legal.actions if a.id == ids[index])
        assert entry.description == local.action_text(index), (entry.description, local.action_text(index))
        client.submit(game_id, tokens[seat], int(ids[index]), legal.version, new_key("check"))
        local.apply(index)
        decisions += 1
    replay = client.export_replay(game_id)
    assert replay.seed == seed and replay.players == players
    indices = []
    for a in replay.actions:
        one = pb.GetLegalActionsResponse(actions=[pb.LegalAction(id=0, action=a.action)])
        _, ids = mask_from_legal_actions(name, players, one.SerializeToString())
        indices.append(int(np.flatnonzero(ids >= 0)[0]))
    assert indices == local.history, f"{name}: the replay's actions are not the game's"
    outcome = local.outcome
    assert outcome is not None
    assert list(replay.outcome.scores) == outcome["scores"]
    assert list(replay.outcome.winners) == outcome["winners"]
    # The replay's seed, played again in-process, is the same game.
    again = Game(name, players, seed=replay.seed)
    for i in indices:
        again.apply(i)
    assert again.outcome == outcome
    return decisions


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", required=True)
    args = ap.parse_args()
    total = 0
    for name, players, seed in CASES:
        n = check(args.server, name, players, seed)
        print(f"{name} {players} players seed {seed}: {n} decisions agree", flush=True)
        total += n
    print(f"{len(CASES)} passed, 0 failed ({total} decisions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The core Game: seeded games are reproducible, copies and serialisations
are the same game, explicit chance fed the seed's draws is the seeded game,
and a seat's observation is the same whatever the others' secrets are."""

import copy
import json
import pickle

import numpy as np
import pytest

from druids_engine import Game, VectorEnv

PLAYERS = [("meduris", n) for n in (2, 3, 4)] + [("dolmen", n) for n in (2, 3, 4, 5)]


def play(game: Game, choose_seed: int, limit: int = 100_000) -> list[int]:
    rng = np.random.default_rng(choose_seed)
    taken = []
    while not game.is_over and len(taken) < limit:
        legal = game.legal_actions()
        a = legal[rng.integers(len(legal))]
        mask = game.legal_mask()
        assert mask.sum() == len(legal) and all(mask[legal])
        game.apply(a)
        taken.append(a)
    return taken


@pytest.mark.parametrize("name,players", PLAYERS)
def test_the_same_seed_and_choices_give_the_same_game(name: str, players: int) -> None:
    a, b = Game(name, players, seed=5), Game(name, players, seed=5)
    assert play(a, 1) == play(b, 1)
    assert a.outcome == b.outcome and a.outcome is not None
    assert a.returns() == b.returns() and abs(sum(a.returns()) - 1.0) < 1e-9


@pytest.mark.parametrize("name,players", PLAYERS)
def test_copies_pickles_and_serialisations_are_the_same_game(name: str, players: int) -> None:
    g = Game(name, players, seed=9)
    play(g, 2, limit=40)
    for other in (g.copy(), copy.copy(g), copy.deepcopy(g), pickle.loads(pickle.dumps(g)),
                  Game.deserialize(g.serialize())):
        assert other.serialize() == g.serialize()
        for seat in [None, *range(players)]:
            assert np.array_equal(other.observation(seat), g.observation(seat))
        # Independent: playing the copy on does not move the original.
        before = g.serialize()
        play(other, 3, limit=5)
        assert g.serialize() == before
    with pytest.raises(ValueError):
        Game.deserialize('{"game": "chess"}')


def test_a_serialised_game_is_the_whole_state_not_a_replay() -> None:
    # A pending draw, a resampled game and the chance mode all come back,
    # and the restored game plays on exactly as the original.
    g = Game("meduris", 3, seed=8, chance="explicit")
    while g.is_chance_node:
        g.apply_chance(1)
    while not g.is_chance_node:
        g.apply(g.legal_actions()[-1])
    resampled = g.copy()
    resampled.apply_chance(3)
    resampled = resampled.resample(1, 77)
    for original in (g, resampled):
        back = pickle.loads(pickle.dumps(original))
        assert back.chance_mode == original.chance_mode
        assert back.chance_outcomes() == original.chance_outcomes()
        assert back.history == original.history
        back.set_chance_mode("seeded")
        original = original.copy()
        original.set_chance_mode("seeded")
        assert play(back, 5) == play(original, 5)
        assert back.outcome == original.outcome
    # The engine's state is in the text: a different state is a different game.
    text = g.serialize()
    assert '"state":' in text and len(text) > 1000
    with pytest.raises(ValueError, match="not a serialised meduris game"):
        Game.deserialize(text.replace('"players":3', '"players":9', 2))
    with pytest.raises(ValueError, match="not conserved"):
        Game.deserialize(text.replace('"supply":[', '"supply":[1', 1))


def test_explicit_chance_fed_the_seeds_draws_is_the_seeded_game() -> None:
    seeded = Game("meduris", 3, seed=21)
    explicit = Game("meduris", 3, seed=21, chance="explicit")
    draws = 0
    rng = np.random.default_rng(0)
    while not seeded.is_over:
        # Script: a copy switched to "seeded" shows what the seed draws.
        while explicit.is_chance_node:
            probe = explicit.copy()
            outcomes = explicit.chance_outcomes()
            assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
            probe.set_chance_mode("seeded")
            # The seed's draw is the one that makes the copy equal the seeded game's next state.
            for o, _ in outcomes:
                trial = explicit.copy()
                trial.apply_chance(o)
                trial.set_chance_mode("seeded")
                if np.array_equal(trial.observation(None), probe.observation(None)):
                    break
            explicit.apply_chance(o)
            draws += 1
        assert np.array_equal(explicit.observation(None), seeded.observation(None))
        legal = seeded.legal_actions()
        assert explicit.legal_actions() == legal
        a = legal[rng.integers(len(legal))]
        seeded.apply(a)
        explicit.apply(a)
    assert explicit.outcome == seeded.outcome and draws > 14


def test_explicit_chance_can_script_the_die() -> None:
    g = Game("meduris", 2, seed=4, chance="explicit")
    while g.is_chance_node:
        g.apply_chance(0)
    while not g.is_chance_node:
        g.apply(g.legal_actions()[0])
    assert [o for o, _ in g.chance_outcomes()] == list(range(6))
    assert g.chance_text(4).startswith("the die shows")
    with pytest.raises(ValueError):
        g.apply_chance(6)
    with pytest.raises(ValueError):
        g.resample(0, 1)
    g.apply_chance(4)
    assert g.to_act is not None


@pytest.mark.parametrize("name,players", PLAYERS)
def test_a_seats_observation_does_not_change_when_others_secrets_are_resampled(
    name: str, players: int
) -> None:
    g = Game(name, players, seed=13)
    rng = np.random.default_rng(4)
    differ = 0
    for step in range(60 if name == "meduris" else 250):
        if g.is_over:
            break
        for seat in range(players):
            mine = g.observation(seat)
            a, b = g.resample(seat, 2 * step), g.resample(seat, 2 * step + 1)
            assert np.array_equal(a.observation(seat), mine)
            assert np.array_equal(b.observation(seat), mine)
            assert a.legal_actions() == g.legal_actions() or a.to_act != seat
            other = (seat + 1) % players
            differ += not np.array_equal(a.observation(other), b.observation(other))
        spectator = g.resample(None, step)
        assert np.array_equal(spectator.observation(None), g.observation(None))
        legal = g.legal_actions()
        g.apply(legal[rng.integers(len(legal))])
    # (With two Meduris players the other seat's goods follow from the rest.)
    assert differ > 0 or (name, players) == ("meduris", 2), "another seat's secrets are dealt anew"


def test_bad_input_is_refused_and_changes_nothing() -> None:
    g = Game("dolmen", 3, seed=1)
    before = g.serialize()
    with pytest.raises(ValueError, match="action 5846 is not legal now"):
        g.apply(5846)
    n = g.num_actions
    with pytest.raises(ValueError, match=rf"action {n} is outside the action space \(0 to {n - 1}\)"):
        g.apply(n)
    with pytest.raises(ValueError, match="not a seat"):
        g.observation(3)
    with pytest.raises(ValueError, match="no game is called"):
        Game("x" * 200, 2)
    with pytest.raises(ValueError, match="2 to 5 players"):
        Game("dolmen", 6)
    # Negative or huge numbers are ValueErrors too (not OverflowError).
    for call in (lambda: g.apply(-1), lambda: g.action_text(-1), lambda: g.observation(-1),
                 lambda: g.heuristic(2**70), lambda: g.resample(0, -5),
                 lambda: Game("dolmen", 3, seed=-1), lambda: Game("dolmen", -3),
                 lambda: VectorEnv("dolmen", players=3, num_envs=-1)):
        with pytest.raises(ValueError, match="expected a whole number from 0 to"):
            call()
    with pytest.raises(TypeError, match="index"):
        g.apply("1")  # type: ignore[arg-type]
    for call in (lambda: g.apply(True), lambda: VectorEnv("dolmen", 3, num_envs=True)):
        with pytest.raises(TypeError, match="got a bool"):
            call()
    assert g.serialize() == before
    over = Game("dolmen", 2, seed=4)
    play(over, 1)
    ended = over.serialize()
    with pytest.raises(ValueError, match="the game is over: action 0 cannot be applied"):
        over.apply(0)
    assert over.serialize() == ended


def test_a_serialised_game_whose_record_contradicts_its_state_is_refused() -> None:
    meduris = json.loads(Game("meduris", 2, seed=3).serialize())
    meduris["record"]["chance"] = "explicit"
    with pytest.raises(ValueError, match="record says its chance is Explicit while its state's is Seeded"):
        Game.deserialize(json.dumps(meduris))
    # A game without draws keeps the mode asked for: nothing contradicts it.
    dolmen = Game("dolmen", 2, seed=3)
    dolmen.set_chance_mode("explicit")
    assert Game.deserialize(dolmen.serialize()).chance_mode == "explicit"


@pytest.mark.parametrize("name,players", [("meduris", 4), ("dolmen", 3)])
def test_the_vector_env_plays_the_games_the_core_plays(name: str, players: int) -> None:
    num = 5
    for threads in (1, 3):
        env = VectorEnv(name, players, num, seed=100, threads=threads)
        obs, masks, to_act = env.observations, env.masks, env.to_act
        games = [Game(name, players, seed=100 + i) for i in range(num)]
        played = [0] * num
        rng = np.random.default_rng(7)
        ended = 0
        for _ in range(400):
            for i, g in enumerate(games):
                assert env.to_act[i] == g.to_act
                assert np.array_equal(env.masks[i], g.legal_mask())
                assert np.array_equal(env.observations[i], g.observation(g.to_act))
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in env.masks], np.int64)
            env.step(actions)
            assert env.observations is obs or np.shares_memory(env.observations, obs)
            for i, g in enumerate(games):
                g.apply(int(actions[i]))
                assert env.terminations[i] == g.is_over
                if g.is_over:
                    assert list(env.rewards[i]) == pytest.approx(g.returns())
                    played[i] += 1
                    ended += 1
                    games[i] = Game(name, players, seed=100 + i + played[i] * num)
                else:
                    assert not env.rewards[i].any()
        assert masks is not None and to_act is not None
        if name == "meduris":
            assert ended > 0
        with pytest.raises(ValueError, match="not legal"):
            env.step(np.full(num, -1, np.int64))


def test_the_vector_envs_arrays_are_read_only_views_written_in_place() -> None:
    env = VectorEnv("dolmen", 3, 4, seed=5)
    masks = env.masks
    for array in (env.observations, masks, env.rewards, env.terminations, env.to_act):
        assert not array.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 1
    # A write would have outlived the step (a row's mask is written only
    # where it changed); the views show each step, as the docstring says.
    before = masks.copy()
    env.step(np.array([int(np.flatnonzero(m)[0]) for m in masks], np.int64))
    assert not np.array_equal(masks, before)
    assert "read-only views" in (VectorEnv.__doc__ or "")


def test_the_vector_envs_arrays_cannot_be_made_writable() -> None:
    # Flipping the flag back (as people do to quiet torch.from_numpy's
    # warning) would let a write outlive the step: numpy refuses it.
    env = VectorEnv("meduris", 2, 3, seed=9)
    for array in (env.observations, env.masks, env.rewards, env.terminations, env.to_act):
        with pytest.raises(ValueError):
            array.flags.writeable = True
    # Rust still writes into them.
    before = env.observations.copy()
    env.step([int(np.flatnonzero(m)[0]) for m in env.masks])
    assert not np.array_equal(env.observations, before)


def test_the_vector_env_takes_any_integer_actions_and_refuses_floats() -> None:
    def first_legal(env: VectorEnv) -> list[int]:
        return [int(np.flatnonzero(m)[0]) for m in env.masks]

    envs = [VectorEnv("dolmen", 2, 3, seed=4) for _ in range(4)]
    for env, convert in zip(envs, (list, np.int32, np.uint8, np.int64)):
        actions = first_legal(env)
        env.step(actions if convert is list else np.array(actions, convert))
    for env in envs[1:]:
        assert np.array_equal(env.observations, envs[0].observations)
    env = envs[0]
    before = env.observations.copy()
    with pytest.raises(TypeError, match="integer indices"):
        env.step(np.array(first_legal(env), np.float64) + 0.5)
    with pytest.raises(TypeError, match="integer indices"):
        env.step(["1", "2", "3"])
    with pytest.raises(ValueError, match="one-dimensional"):
        env.step([[1, 2, 3]])
    with pytest.raises(ValueError, match="got none"):
        env.step([])
    with pytest.raises(ValueError, match="beyond the action space"):
        env.step(np.array([2**64 - 1] * 3, np.uint64))
    assert np.array_equal(env.observations, before)


def test_the_vector_env_resets_to_its_own_seed_unless_told() -> None:
    env = VectorEnv("meduris", 3, 2, seed=77)
    first = env.observations.copy()
    env.step([int(np.flatnonzero(m)[0]) for m in env.masks])
    env.reset()
    assert np.array_equal(env.observations, first)
    env.reset(None)
    assert np.array_equal(env.observations, first)
    env.reset(78)
    assert np.array_equal(env.observations[0], VectorEnv("meduris", 3, 1, seed=78).observations[0])


def test_a_game_touched_from_a_second_thread_while_a_bot_thinks_is_refused_and_unchanged():
    """bot_action lets go of the GIL; the same Game from another thread
    meanwhile is a RuntimeError, and the game is as it was (README)."""
    import threading

    game = Game("meduris", 2, seed=7)
    before = game.serialize()
    iterations = 2_000
    refused = []
    # An iteration budget, not a clock: a bot that finished before the other
    # thread touched the game is asked again with a larger budget.
    while not refused and iterations <= 2_000_000:
        picked = []
        worker = threading.Thread(
            target=lambda: picked.append(game.bot_action("mcts", seed=1, iterations=iterations))
        )
        worker.start()
        while worker.is_alive() and not refused:
            try:
                game.legal_actions()
            except RuntimeError as e:
                refused.append(str(e))
        worker.join()
        assert len(picked) == 1 and picked[0] in game.legal_actions()
        iterations *= 10
    assert refused and "borrowed" in refused[0], refused
    assert game.serialize() == before

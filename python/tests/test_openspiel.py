"""OpenSpiel: both games registered, pyspiel's random simulation test, and
OpenSpiel's own Python search bots (MCTS, ISMCTS) playing whole games."""

import numpy as np
import pytest
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from druids_engine import GAMES, games
from druids_engine.openspiel import register

register()


@pytest.mark.parametrize("name,players", [("druids_meduris", 2), ("druids_meduris", 4),
                                          ("druids_dolmen", 2), ("druids_dolmen", 5)])
def test_random_sim(name: str, players: int) -> None:
    game = pyspiel.load_game(name, {"players": players})
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


def test_the_games_are_registered_with_their_types() -> None:
    meduris = pyspiel.load_game("druids_meduris")
    assert meduris.num_players() == 4 and meduris.num_distinct_actions() == 136
    t = meduris.get_type()
    assert t.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    state = meduris.new_initial_state()
    assert len(state.information_state_tensor(0)) == 758
    assert len(state.observation_tensor(1)) == 758
    assert state.information_state_string(0) != state.information_state_string(1)
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[0])
    assert str(clone) != str(state)
    dolmen = pyspiel.load_game("druids_dolmen", {"players": 3})
    assert dolmen.num_distinct_actions() == 5847
    resampled = dolmen.new_initial_state().resample_from_infostate(
        0, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert resampled.information_state_tensor(0) == dolmen.new_initial_state().information_state_tensor(0)


def test_a_resampled_state_keeps_how_far_the_game_has_gone() -> None:
    for name in ("druids_meduris", "druids_dolmen"):
        state = pyspiel.load_game(name, {"players": 2, "seed": 5}).new_initial_state()
        for _ in range(12):
            state.apply_action(state.legal_actions()[0])
        sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
        resampled = state.resample_from_infostate(state.current_player(), sampler)
        assert resampled.history() == state.history()
        assert resampled.move_number() == state.move_number() == 12
        assert not resampled.is_initial_state()
        assert resampled.history_str() == state.history_str()
        action = resampled.legal_actions()[0]
        clone = resampled.clone()
        resampled.apply_action(action)
        assert resampled.history() == state.history() + [action]
        assert clone.history() == state.history()


def test_the_registered_types_are_the_registrys_descriptors() -> None:
    described = {g["name"]: g for g in games()}
    assert set(described) == set(GAMES) == {"meduris", "dolmen"}
    assert (described["meduris"]["dice_driven"], described["dolmen"]["dice_driven"]) == (True, False)
    for name, about in described.items():
        t = pyspiel.load_game(f"druids_{name}").get_type()
        assert (t.min_num_players, t.max_num_players) == (about["min_players"], about["max_players"])
        assert t.long_name == f"{about['display_name']} (druids engine)"
    assert pyspiel.load_game("druids_dolmen").get_type().max_num_players == 5


def play(game: pyspiel.Game, bots: list[object], rng: np.random.Generator) -> list[float]:
    state = game.new_initial_state()
    while not state.is_terminal():
        player = state.current_player()
        bot = bots[player]
        if bot is None:
            action = int(rng.choice(state.legal_actions()))
        else:
            action = bot.step(state)  # type: ignore[attr-defined]
        state.apply_action(action)
    return state.returns()


@pytest.mark.parametrize("name", ["druids_meduris", "druids_dolmen"])
def test_openspiels_mcts_and_ismcts_bots_play_whole_games(name: str) -> None:
    game = pyspiel.load_game(name, {"players": 2})
    rng = np.random.default_rng(1)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(2))
    m = mcts.MCTSBot(game, uct_c=2.0, max_simulations=3, evaluator=evaluator,
                     random_state=np.random.RandomState(3))
    returns = play(game, [m, None], rng)
    assert sum(returns) == pytest.approx(1.0)
    i = ismcts.ISMCTSBot(game=game, evaluator=evaluator, uct_c=2.0, max_simulations=3,
                         random_state=np.random.RandomState(4))
    returns = play(game, [None, i], rng)
    assert sum(returns) == pytest.approx(1.0)

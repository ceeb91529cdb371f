//! The wire, both ways: what the server sends a seat (a `StateView`, a
//! `GetLegalActionsResponse`, serialised) turned into exactly the engine's
//! observation and mask, and a chosen index back into the `legal_action_id`
//! to submit. The protos are decoded by `druids-contract`'s codec, the one the
//! server encodes with, so there is one implementation of both directions.

use druids_contract::{ProtoGame, pb, with_game};
use druids_engine::Tensors;
use numpy::PyArray1;
use prost::Message;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::core::kind_named;
use crate::unsigned::Unsigned;
use druids_contract::Kind;

fn kind_of(name: &str) -> PyResult<Kind> {
    kind_named(name).map_err(PyValueError::new_err)
}

/// The observation the engine gives the viewer of `state_view` (a
/// serialised `druids.v1.StateView`, as `GetState` or a stream's snapshot
/// carries it), float32.
#[pyfunction]
pub fn observation_from_state_view<'py>(
    py: Python<'py>,
    state_view: &[u8],
) -> PyResult<Bound<'py, PyArray1<f32>>> {
    let wire = pb::StateView::decode(state_view)
        .map_err(|e| PyValueError::new_err(format!("not a serialised StateView: {e}")))?;
    let kind = Kind::from_number(wire.kind)
        .map_err(|_| PyValueError::new_err("the StateView names no game kind"))?;
    let values = with_game!(kind, |G| observe::<G>(&wire))?;
    Ok(PyArray1::from_vec(py, values))
}

fn observe<G: ProtoGame + Tensors>(wire: &pb::StateView) -> PyResult<Vec<f32>> {
    let view = G::decode_view(wire).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let mut out = vec![0.0; G::observation_len(G::view_players(&view))];
    G::observe(&view, &mut out);
    Ok(out)
}

/// A mask over the action space and the `legal_action_id` of each index.
type MaskAndIds<'py> = (Bound<'py, PyArray1<bool>>, Bound<'py, PyArray1<i64>>);

/// The mask the engine gives a seat over the fixed action space of `game`
/// with `players` seats, from the server's legal list for it (a serialised
/// `druids.v1.GetLegalActionsResponse`, default list), and for each index the
/// `legal_action_id` to submit (-1 where not legal). Entries without an id
/// (the extra payments of an `all_payments` list) are not in the default
/// list and are left out.
#[pyfunction]
pub fn mask_from_legal_actions<'py>(
    py: Python<'py>,
    game: &str,
    players: Unsigned<usize>,
    response: &[u8],
) -> PyResult<MaskAndIds<'py>> {
    let players = players.0;
    let kind = kind_of(game)?;
    let wire = pb::GetLegalActionsResponse::decode(response).map_err(|e| {
        PyValueError::new_err(format!("not a serialised GetLegalActionsResponse: {e}"))
    })?;
    let ids = with_game!(kind, |G| ids::<G>(players, &wire))?;
    let mask = PyArray1::from_iter(py, ids.iter().map(|&id| id >= 0));
    let ids = PyArray1::from_vec(py, ids);
    Ok((mask, ids))
}

fn ids<G: ProtoGame + Tensors>(
    players: usize,
    wire: &pb::GetLegalActionsResponse,
) -> PyResult<Vec<i64>> {
    if !(G::MIN_PLAYERS..=G::MAX_PLAYERS).contains(&players) {
        return Err(PyValueError::new_err(format!(
            "{} is played by {} to {} players, not {players}",
            G::NAME,
            G::MIN_PLAYERS,
            G::MAX_PLAYERS
        )));
    }
    let mut ids = vec![-1i64; G::action_count(players)];
    for (k, entry) in wire.actions.iter().enumerate() {
        let Some(id) = entry.id else { continue };
        let action = entry
            .action
            .as_ref()
            .ok_or_else(|| PyValueError::new_err(format!("legal action {k} has no action")))?;
        let action = G::decode_action(action)
            .map_err(|e| PyValueError::new_err(format!("legal action {k}: {e}")))?;
        let index = G::action_index(players, &action).ok_or_else(|| {
            PyValueError::new_err(format!("legal action {k} has no index in the action space"))
        })?;
        if ids[index] >= 0 {
            return Err(PyValueError::new_err(format!(
                "two legal actions have the index {index} (the second is entry {k}): not a default list"
            )));
        }
        ids[index] = id as i64;
    }
    Ok(ids)
}

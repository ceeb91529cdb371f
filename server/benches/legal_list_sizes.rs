//! How large GetLegalActions answers get: over random games of every game and
//! player count, the longest legal-action list with every payment, and the
//! encoded size of that list unpaged and of the largest page the server sends
//! (1,000 entries). A default gRPC client refuses answers over 4 MB.
//!
//! Run: `cargo bench -p druids-server --bench legal_list_sizes -- [GAMES]` (default 10,000
//! games per game and player count).

use druids_contract::pb::submit_action_request::Choice::LegalActionId;
use druids_contract::{pb, registry};
use prost::Message;

/// Entries per page, as the server sends them (`druids_server::legal_pages::MAX_PAGE_SIZE`).
const PAGE: usize = 1000;

fn main() {
    let games: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(10_000);
    println!(
        "{:<8} {:>7} {:>7} {:>14} {:>16} {:>16}",
        "game", "players", "games", "longest list", "unpaged bytes", "largest page"
    );
    for game_type in registry::descriptors() {
        let kind = game_type.kind();
        for players in game_type.players() {
            let (mut longest, mut unpaged, mut page) = (0usize, 0usize, 0usize);
            for seed in 0..games {
                let mut game =
                    druids_server::hosted_game::new_game(kind, players, seed, &Default::default())
                        .unwrap();
                game.start();
                let mut rng = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
                while let Some(seat) = game.to_act() {
                    let all = game.legal_actions(true);
                    if all.len() > longest {
                        longest = all.len();
                        let response = |actions: &[pb::LegalAction]| {
                            pb::GetLegalActionsResponse {
                                version: game.version(),
                                seat: seat.0 as u32,
                                decision: game.decision(),
                                actions: actions.to_vec(),
                                deadline_unix_ms: Some(u64::MAX),
                                next_page_token: "v1.18446744073709551615.1.4294967295".into(),
                                decision_description: game.decision_description(),
                            }
                            .encoded_len()
                        };
                        unpaged = unpaged.max(response(&all));
                        page = page.max(response(&all[..all.len().min(PAGE)]));
                    }
                    let n = game.legal_actions(false).len() as u64;
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    game.apply(seat, &LegalActionId((rng % n) as u32), None)
                        .unwrap();
                }
            }
            println!(
                "{:<8} {players:>7} {games:>7} {longest:>14} {unpaged:>16} {page:>16}",
                kind.name()
            );
        }
    }
}

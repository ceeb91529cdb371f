//! Pages of legal-action lists.
//!
//! The list with every distinct payment can hold tens of thousands of entries
//! (more than the 4 MB a default gRPC client accepts), so GetLegalActions
//! answers in pages. A page token names the version and the list it belongs
//! to, so that a page of one position is never mixed with another. The list
//! is built once per version ([`crate::room::Room::legal_actions`]); a page
//! encodes only its own entries.

use std::sync::Arc;

use druids_contract::pb;

use crate::error::ServiceError;
use crate::hosted_game::LegalList;

/// Entries per page when the request does not say.
pub const DEFAULT_PAGE_SIZE: usize = 1000;
/// Most entries per page.
pub const MAX_PAGE_SIZE: usize = 1000;

/// The legal actions of one seat at one version.
pub struct Listing {
    /// The version the list belongs to.
    pub version: u64,
    /// The seat's pending decision, if it has one.
    pub decision: Option<pb::Decision>,
    /// That decision in the engine's words ("" without one).
    pub decision_description: String,
    /// The list (none when the seat is not to act).
    pub actions: Option<Arc<dyn LegalList>>,
    /// The pending decision's deadline, with a clock.
    pub deadline_unix_ms: Option<u64>,
    /// Whether the engine built the list for this call (not when it was
    /// kept from an earlier page of the same version).
    pub built: bool,
}

impl Listing {
    /// Entries in the list.
    pub fn len(&self) -> usize {
        self.actions.as_ref().map_or(0, |l| l.len())
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Where a page starts, as carried by a page token.
#[derive(Debug, PartialEq, Eq)]
struct Cursor {
    version: u64,
    all_payments: bool,
    offset: usize,
}

impl Cursor {
    fn token(&self) -> String {
        format!(
            "v1.{}.{}.{}",
            self.version, self.all_payments as u8, self.offset
        )
    }

    fn parse(token: &str) -> Option<Cursor> {
        let mut parts = token.strip_prefix("v1.")?.split('.');
        let cursor = Cursor {
            version: parts.next()?.parse().ok()?,
            all_payments: match parts.next()? {
                "0" => false,
                "1" => true,
                _ => return None,
            },
            offset: parts.next()?.parse().ok()?,
        };
        // Only the very string given out: no sign, no leading zero.
        (parts.next().is_none() && cursor.token() == token).then_some(cursor)
    }
}

/// The page of `listing` that `req` asks for, as the response.
pub fn page(
    listing: Listing,
    seat: u32,
    req: &pb::GetLegalActionsRequest,
) -> Result<pb::GetLegalActionsResponse, ServiceError> {
    let size = match req.page_size as usize {
        0 => DEFAULT_PAGE_SIZE,
        n => n.min(MAX_PAGE_SIZE),
    };
    let len = listing.len();
    let offset = if req.page_token.is_empty() {
        0
    } else {
        let forged = || {
            ServiceError::invalid(
                "page_token",
                "page_token is not a token this server gave out: send next_page_token as received",
            )
        };
        let cursor = Cursor::parse(&req.page_token).ok_or_else(forged)?;
        if cursor.all_payments != req.all_payments {
            return Err(ServiceError::invalid(
                "page_token",
                "page_token belongs to the other list: keep all_payments as on the first page",
            ));
        }
        // A later version, or a page of this one past its last entry, was
        // never given out.
        if cursor.version > listing.version
            || (cursor.version == listing.version && !(1..len).contains(&cursor.offset))
        {
            return Err(forged());
        }
        if cursor.version != listing.version {
            return Err(ServiceError::StalePageToken(format!(
                "page_token belongs to version {}, the game is at version {}: start again from the first page",
                cursor.version, listing.version
            )));
        }
        cursor.offset
    };
    let end = offset.saturating_add(size).min(len);
    let next_page_token = if end < len {
        Cursor {
            version: listing.version,
            all_payments: req.all_payments,
            offset: end,
        }
        .token()
    } else {
        String::new()
    };
    let actions = listing
        .actions
        .map(|l| l.entries(offset..end))
        .unwrap_or_default();
    Ok(pb::GetLegalActionsResponse {
        version: listing.version,
        seat,
        decision: listing.decision,
        decision_description: listing.decision_description,
        actions,
        deadline_unix_ms: listing.deadline_unix_ms,
        next_page_token,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list of `n` entries numbered from 0.
    struct Numbered(usize);

    impl LegalList for Numbered {
        fn len(&self) -> usize {
            self.0
        }

        fn entries(&self, range: std::ops::Range<usize>) -> Vec<pb::LegalAction> {
            range
                .map(|i| pb::LegalAction {
                    id: Some(i as u32),
                    ..Default::default()
                })
                .collect()
        }
    }

    fn listing(n: usize) -> Listing {
        Listing {
            version: 7,
            decision: None,
            decision_description: String::new(),
            actions: Some(Arc::new(Numbered(n))),
            deadline_unix_ms: None,
            built: true,
        }
    }

    #[test]
    fn pages_cover_the_list_once_in_order() {
        let mut req = pb::GetLegalActionsRequest {
            page_size: 3,
            all_payments: true,
            ..Default::default()
        };
        let mut seen = Vec::new();
        loop {
            let page = page(listing(8), 0, &req).unwrap();
            seen.extend(page.actions.iter().map(|a| a.id.unwrap()));
            if page.next_page_token.is_empty() {
                break;
            }
            req.page_token = page.next_page_token;
        }
        assert_eq!(seen, (0..8).collect::<Vec<_>>());
    }

    #[test]
    fn foreign_or_stale_tokens_are_refused() {
        let req = |token: &str, all_payments| pb::GetLegalActionsRequest {
            page_token: token.into(),
            all_payments,
            ..Default::default()
        };
        assert!(matches!(
            page(listing(2), 0, &req("garbage", false)),
            Err(ServiceError::Invalid { .. })
        ));
        assert!(matches!(
            page(listing(2), 0, &req("v1.7.1.1", false)),
            Err(ServiceError::Invalid { .. })
        ));
        assert!(matches!(
            page(listing(2), 0, &req("v1.6.0.1", false)),
            Err(ServiceError::StalePageToken(_))
        ));
        // Never given out: a later version, a page past the end or the
        // first page's, another spelling of a number.
        for forged in [
            "v1.8.0.1",
            "v1.7.0.2",
            "v1.7.0.0",
            "v1.7.0.+1",
            "v1.07.0.1",
            "v1.7.0.1.x",
        ] {
            assert!(
                matches!(
                    page(listing(2), 0, &req(forged, false)),
                    Err(ServiceError::Invalid { .. })
                ),
                "{forged}"
            );
        }
        assert_eq!(
            page(listing(2), 0, &req("v1.7.0.1", false))
                .unwrap()
                .actions[0]
                .id,
            Some(1)
        );
    }
}

//! The druids gRPC contract in Rust: the code generated from `proto/`, and the
//! codec that turns engine types into proto messages and back.
//!
//! The server, the CLI and the tests all speak the contract through this crate,
//! exactly as a client generated for another language would.

#![warn(missing_docs)]

/// Code generated from `proto/druids/v1/*.proto` (package `druids.v1`).
#[allow(missing_docs, clippy::all)]
pub mod pb {
    tonic::include_proto!("druids.v1");

    /// The encoded file descriptor set of the contract, for gRPC server reflection.
    pub const FILE_DESCRIPTOR_SET: &[u8] =
        include_bytes!(concat!(env!("OUT_DIR"), "/druids_descriptor.bin"));
}

pub mod chance;
pub mod codec;
pub mod json;
pub mod registry;
pub mod replay;
pub mod wire;

/// The rules engines, for code that dispatches through [`with_game!`].
pub use druids_engine as engine;

/// An `ErrorReason`'s name as `ErrorInfo.reason` carries it: the enum
/// value's name without its `ERROR_REASON_` prefix ("GAME_RUNNING").
pub fn reason_name(reason: pb::ErrorReason) -> &'static str {
    let name = reason.as_str_name();
    name.strip_prefix("ERROR_REASON_").unwrap_or(name)
}

pub use codec::{DecodeError, ProtoGame};
pub use registry::Kind;

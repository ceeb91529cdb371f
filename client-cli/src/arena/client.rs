//! The arena service's client, and its errors as the CLI's: an
//! `UNIMPLEMENTED` means a server without an arena (or an older one).

use druids_contract::pb::arena_service_client::ArenaServiceClient;
use tonic::transport::Channel;
use tonic::{Code, Status};

use crate::connect::{self, CliError, ServerAddr};

/// A client of the arena service.
pub type Arena = ArenaServiceClient<Channel>;

/// A status of the arena service as the CLI's error: UNIMPLEMENTED means the
/// server has no arena at all, or an older one without this call.
pub fn arena_error(server: &ServerAddr, s: Status) -> CliError {
    if s.code() == Code::Unimplemented {
        CliError::NoArena {
            url: server.url.clone(),
            message: s.message().to_owned(),
        }
    } else {
        CliError::Status(s)
    }
}

/// Connects to the arena service at `server`.
pub async fn arena(server: &ServerAddr) -> Result<Arena, CliError> {
    Ok(ArenaServiceClient::new(connect::channel(server).await?))
}

//! `druids health`: the server's gRPC health service, about the druids
//! service.

use crate::connect::{self, CliError, ServerAddr};
use crate::output::outln;

/// `druids health`: asks the server's gRPC health service about the druids
/// service.
pub async fn health(server: &ServerAddr) -> Result<(), CliError> {
    use tonic_health::pb::health_check_response::ServingStatus;
    use tonic_health::pb::health_client::HealthClient;
    let channel = connect::channel(server).await?;
    let status = HealthClient::new(channel)
        .check(tonic_health::pb::HealthCheckRequest {
            service: "druids.v1.DruidsService".into(),
        })
        .await?
        .into_inner()
        .status;
    if status == ServingStatus::Serving as i32 {
        outln!("serving")
    } else {
        Err(CliError::NotServing(status))
    }
}

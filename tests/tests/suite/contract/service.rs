//! The standard gRPC services beside the contract: health, and reflection in
//! both versions the tools speak.

use druids_tests::TestServer;
use tokio_stream::StreamExt;

#[tokio::test]
async fn health_and_reflection_are_served() {
    use tonic_health::pb::health_check_response::ServingStatus;
    use tonic_health::pb::health_client::HealthClient;
    use tonic_reflection::pb::v1::ServerReflectionRequest;
    use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;

    let server = TestServer::start().await;
    let channel = tonic::transport::Endpoint::from_shared(server.url())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut health = HealthClient::new(channel.clone());
    let status = health
        .check(tonic_health::pb::HealthCheckRequest {
            service: "druids.v1.DruidsService".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(status.status, ServingStatus::Serving as i32);

    let mut reflection = ServerReflectionClient::new(channel);
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut replies = reflection
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .unwrap()
        .into_inner();
    let reply = replies.next().await.unwrap().unwrap();
    let Some(MessageResponse::ListServicesResponse(list)) = reply.message_response else {
        panic!("expected a service list");
    };
    let names: Vec<_> = list.service.iter().map(|s| s.name.as_str()).collect();
    assert!(names.contains(&"druids.v1.DruidsService"), "{names:?}");
    assert!(names.contains(&"grpc.health.v1.Health"), "{names:?}");
    server.stop().await;
}

/// Older tools (grpcurl before 1.9) speak only reflection v1alpha.
#[tokio::test]
async fn reflection_is_served_as_v1alpha_too() {
    use tonic_reflection::pb::v1alpha::ServerReflectionRequest;
    use tonic_reflection::pb::v1alpha::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1alpha::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1alpha::server_reflection_response::MessageResponse;

    let server = TestServer::start().await;
    let channel = tonic::transport::Endpoint::from_shared(server.url())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut replies = ServerReflectionClient::new(channel)
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .unwrap()
        .into_inner();
    let reply = replies.next().await.unwrap().unwrap();
    let Some(MessageResponse::ListServicesResponse(list)) = reply.message_response else {
        panic!("expected a service list");
    };
    assert!(
        list.service
            .iter()
            .any(|s| s.name == "druids.v1.DruidsService")
    );
    server.stop().await;
}

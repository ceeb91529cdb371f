//! Optional TLS: a server given a certificate speaks only TLS; a client that
//! trusts the certificate plays, a plaintext client gets nowhere.

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_server::Tls;
use druids_tests::TestServer;
use tonic::transport::{Certificate, ClientTlsConfig, Endpoint};

#[tokio::test]
async fn tls_serves_trusting_clients_only() {
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let cert_pem = cert.cert.pem();
    let server = TestServer::with_tls(Tls {
        cert_pem: cert_pem.clone().into_bytes(),
        key_pem: cert.signing_key.serialize_pem().into_bytes(),
    })
    .await;
    let url = format!("https://localhost:{}", server.addr.port());
    let tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(cert_pem))
        .domain_name("localhost");
    let channel = Endpoint::from_shared(url)
        .unwrap()
        .tls_config(tls)
        .unwrap()
        .connect()
        .await
        .expect("a client trusting the certificate connects");
    let mut client = DruidsServiceClient::new(channel);
    let created = client
        .create_game(pb::CreateGameRequest {
            kind: pb::GameKind::Meduris as i32,
            players: 2,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(created.seats.len(), 2);

    // Plaintext gets no answer from a TLS server (the channel connects on
    // first use, so the call itself must fail, whatever stage refuses it).
    let mut plain = DruidsServiceClient::new(
        Endpoint::from_shared(format!("http://127.0.0.1:{}", server.addr.port()))
            .unwrap()
            .connect_lazy(),
    );
    let refused = plain.list_games(pb::ListGamesRequest::default()).await;
    assert!(
        refused.is_err(),
        "a plaintext call is answered: {refused:?}"
    );

    // Neither does a client trusting another certificate.
    let other = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let distrust = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(other.cert.pem()))
        .domain_name("localhost");
    let mut stranger = DruidsServiceClient::new(
        Endpoint::from_shared(format!("https://localhost:{}", server.addr.port()))
            .unwrap()
            .tls_config(distrust)
            .unwrap()
            .connect_lazy(),
    );
    let refused = stranger.list_games(pb::ListGamesRequest::default()).await;
    assert!(
        refused.is_err(),
        "a client trusting another certificate is answered: {refused:?}"
    );
    server.stop().await;
}

//! A kit's bot over TLS, trusting a self-signed certificate given with
//! `--ca-cert`.

use std::process::Command;
use std::time::Duration;

use druids_contract::pb;
use druids_contract::pb::druids_service_client::DruidsServiceClient;
use druids_tests::TestServer;

use super::{GAME_TIMEOUT, kit_bot, kits_dir, result_fields, venv_bin};

/// A bot of each kit plays over TLS (`--server https://...`) trusting a
/// self-signed certificate given with `--ca-cert`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kit_bots_play_over_tls_with_a_trusted_certificate() {
    use tonic::transport::{Certificate, ClientTlsConfig, Endpoint};

    let venv = tokio::task::spawn_blocking(venv_bin);
    let ts = tokio::task::spawn_blocking(crate::typescript::built_kit);
    let bin = venv
        .await
        .expect("setup task")
        .unwrap_or_else(|e| panic!("Python kit: {e}"));
    let ts_kit = ts
        .await
        .expect("setup task")
        .unwrap_or_else(|e| panic!("TypeScript kit: {e}"));
    let cert =
        rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).expect("certificate");
    let cert_pem = cert.cert.pem();
    let scratch = kits_dir().join(format!("tls-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch dir");
    let ca = scratch.join("cert.pem");
    std::fs::write(&ca, &cert_pem).expect("write cert.pem");
    let server = TestServer::with_tls(druids_server::Tls {
        cert_pem: cert_pem.clone().into_bytes(),
        key_pem: cert.signing_key.serialize_pem().into_bytes(),
    })
    .await;
    let url = format!("https://localhost:{}", server.addr.port());
    let tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(&cert_pem))
        .domain_name("localhost");
    let channel = Endpoint::from_shared(url.clone())
        .expect("url")
        .tls_config(tls)
        .expect("tls")
        .connect()
        .await
        .expect("connect over TLS");
    let mut client = DruidsServiceClient::new(channel);
    let (game_id, tokens) = druids_tests::create(&mut client, pb::GameKind::Meduris, 2, 17).await;
    let mut python = Command::new(bin.join("druids-bot"));
    python
        .args([
            "--server",
            &url,
            "--game-id",
            &game_id,
            "--token",
            &tokens[0],
        ])
        .arg("--ca-cert")
        .arg(&ca);
    let mut node = Command::new("node");
    node.current_dir(&ts_kit)
        .args([
            "dist/src/cli.js",
            "--server",
            &url,
            "--game-id",
            &game_id,
            "--token",
            &tokens[1],
        ])
        .arg("--ca-cert")
        .arg(&ca);
    let id = game_id.clone();
    let py = tokio::task::spawn_blocking(move || kit_bot(python, &id, 0));
    let id = game_id.clone();
    let js = tokio::task::spawn_blocking(move || kit_bot(node, &id, 1));
    let (py, js) = tokio::time::timeout(GAME_TIMEOUT + Duration::from_secs(5), async {
        (py.await.expect("python bot"), js.await.expect("node bot"))
    })
    .await
    .expect("the bots finish");
    let st = druids_tests::state(&mut client, &game_id, None).await;
    let outcome = result_fields(st.outcome.expect("the game is over"));
    assert_eq!(
        py.unwrap_or_else(|e| panic!("python bot over TLS: {e}")),
        outcome
    );
    assert_eq!(
        js.unwrap_or_else(|e| panic!("node bot over TLS: {e}")),
        outcome
    );
    server.stop().await;
    let _ = std::fs::remove_dir_all(&scratch);
}

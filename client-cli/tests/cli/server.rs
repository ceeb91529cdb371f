//! Talking to servers: addresses, TLS, the environment, `list`, `create`.

use super::*;

/// `--server` takes host:port, http:// and https:// alike; DRUIDS_SERVER and
/// DRUIDS_TOKEN stand in for --server and --token; commands that use no
/// server say so.
#[test]
fn server_addresses_tls_and_the_environment() {
    let url = server();
    let bare = url.trim_start_matches("http://");
    let (ok, out, err) = druids(bare, &["health"]);
    assert!(ok, "host:port works: {err}");
    assert_eq!(out.trim(), "serving");
    let (id, tokens) = create(bare, "dolmen", "2", "1");

    // The environment, for every command that talks to a server.
    let env = [
        ("DRUIDS_SERVER", bare),
        ("DRUIDS_TOKEN", tokens[1].as_str()),
    ];
    let (ok, out, err) = druids_env(&["state", "--game-id", &id], &env);
    assert!(ok, "{err}");
    assert!(out.contains("seat 1 (yellow): -  <- you"), "{out}");
    assert!(!out.contains('\x1b'), "no colours into a pipe: {out}");
    let (ok, out, err) = druids_env(&["list"], &env);
    assert!(ok, "{err}");
    assert!(out.contains(&id), "{out}");
    // A bot on seat 1 with the token from the environment, one on seat 0
    // with --token: they finish the game.
    let seat1 = Command::new(env!("CARGO_BIN_EXE_druids"))
        .args(["bot", "--game-id", &id])
        .envs(env)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (ok, out, err) = druids(bare, &["bot", "--game-id", &id, "--token", &tokens[0]]);
    assert!(ok, "{err}");
    assert_eq!(last_json(&out)["seat"], 0);
    let seat1 = seat1.wait_with_output().unwrap();
    assert!(seat1.status.success());
    let line = last_json(&String::from_utf8_lossy(&seat1.stdout));
    assert_eq!(line["seat"], 1);
    assert_eq!(line["game_id"], id.as_str());

    let (ok, _, err) = druids_env(&["health"], &[("DRUIDS_SERVER", "127.0.0.1:1")]);
    assert!(!ok);
    assert!(
        err.contains("cannot reach the druids server at http://127.0.0.1:1: connection refused"),
        "{err}"
    );
    let (ok, _, err) = druids("ftp://x", &["health"]);
    assert!(!ok);
    assert!(err.contains("is not a server address"), "{err}");

    let (ok, _, err) = druids(&url, &["tournament", "--games", "1"]);
    assert!(!ok);
    assert!(
        err.contains("--server is not used by `druids tournament`"),
        "{err}"
    );

    // https:// with the server's certificate trusted.
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let pem = std::env::temp_dir().join(format!("druids-cli-{}.pem", std::process::id()));
    std::fs::write(&pem, cert.cert.pem()).unwrap();
    let tls = serve(
        Some(druids_server::Tls {
            cert_pem: cert.cert.pem().into_bytes(),
            key_pem: cert.signing_key.serialize_pem().into_bytes(),
        }),
        "https",
    );
    let (ok, out, err) = druids_env(
        &[
            "--server",
            &tls,
            "--ca-cert",
            pem.to_str().unwrap(),
            "health",
        ],
        &[],
    );
    assert!(ok, "https works: {err}");
    assert_eq!(out.trim(), "serving");
    // Without trusting the certificate: refused, and the reason is given.
    let (ok, _, err) = druids_env(&["--server", &tls, "health"], &[]);
    assert!(!ok);
    assert!(
        err.contains(&format!("cannot reach the druids server at {tls}:"))
            && err.to_lowercase().contains("certificate"),
        "{err}"
    );
    let _ = std::fs::remove_file(&pem);
}

/// `druids list`: filters, pages, --all, and JSON lines.
#[test]
fn list_filters_pages_and_prints_json() {
    let url = server();
    let (m1, _) = create(&url, "meduris", "2", "1");
    let (m2, _) = create(&url, "meduris", "3", "2");
    let (d1, _) = create(&url, "dolmen", "2", "3");
    let rows = |out: &str| out.lines().skip(1).map(str::to_owned).collect::<Vec<_>>();

    let (ok, out, err) = druids(&url, &["list", "--page-size", "2"]);
    assert!(ok, "{err}");
    assert_eq!(rows(&out).len(), 2, "{out}");
    assert!(
        err.contains("--page-token "),
        "the next page is named: {err}"
    );
    let (ok, out, err) = druids(&url, &["list", "--page-size", "2", "--all"]);
    assert!(ok, "{err}");
    assert_eq!(rows(&out).len(), 3, "{out}");
    for id in [&m1, &m2, &d1] {
        assert!(out.contains(id.as_str()), "{out}");
    }

    let (ok, out, err) = druids(&url, &["list", "--game", "dolmen", "--json"]);
    assert!(ok, "{err}");
    let games: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(games.len(), 1, "{out}");
    assert_eq!(games[0]["gameId"], d1.as_str());
    assert_eq!(games[0]["kind"], "GAME_KIND_DOLMEN");

    let (ok, out, err) = druids(&url, &["list", "--status", "finished"]);
    assert!(ok, "{err}");
    assert!(rows(&out).is_empty(), "{out}");
    let (ok, out, _) = druids(&url, &["list", "--status", "running", "--game", "meduris"]);
    assert!(ok);
    assert_eq!(rows(&out).len(), 2, "{out}");
}

/// `druids create` passes names through: one per seat, or one per claimed seat.
#[test]
fn create_names_the_claimed_seats() {
    let url = server();
    let (ok, out, err) = druids(
        &url,
        &[
            "create",
            "--players",
            "2",
            "--name",
            "ann",
            "--name",
            "bo",
            "--json",
        ],
    );
    assert!(ok, "{err}");
    let j: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(j["seats"][1]["name"], "bo");
    let (ok, _, err) = druids(
        &url,
        &["create", "--players", "3", "--name", "ann", "--json"],
    );
    assert!(!ok, "one name for three seats is refused");
    assert!(
        err.contains("give one per claimed seat (3) or one per seat (3)"),
        "{err}"
    );
    let (ok, out, err) = druids(
        &url,
        &[
            "create",
            "--players",
            "3",
            "--open-seat",
            "1",
            "--name",
            "ann",
            "--name",
            "cy",
            "--json",
        ],
    );
    assert!(ok, "{err}");
    let j: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(j["seats"][0]["name"], "ann");
    assert_eq!(j["seats"][1]["seat"], 2);
    assert_eq!(j["seats"][1]["name"], "cy");
}

/// `druids create` in text: each seat's token and its page in the web
/// viewer, the spectators' page, and a seat named only "seat N" is not
/// named twice; the default turn clock is announced on stderr.
#[test]
fn create_prints_each_seats_page() {
    let url = server();
    let (ok, out, err) = druids(
        &url,
        &[
            "create",
            "--players",
            "2",
            "--viewer",
            "http://viewer.test:9",
        ],
    );
    assert!(ok, "{err}");
    assert!(!out.contains("seat 0 (seat 0)"), "{out}");
    let id = out
        .lines()
        .next()
        .unwrap()
        .trim_start_matches("game ")
        .to_owned();
    let token = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("seat 1: token "))
        .expect("seat 1's token")
        .to_owned();
    assert!(
        out.contains(&format!("http://viewer.test:9/games/{id}#token={token}")),
        "{out}"
    );
    assert!(
        out.contains(&format!("spectators: http://viewer.test:9/games/{id}")),
        "{out}"
    );
    assert!(err.contains("turn clock: 60 s a decision"), "{err}");
    // Without --viewer: the server's host, port 8080.
    let (ok, out, _) = druids(&url, &["create", "--players", "2", "--decision-ms", "0"]);
    assert!(ok);
    assert!(out.contains("http://127.0.0.1:8080/games/"), "{out}");
}

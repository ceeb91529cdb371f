//! The server's log written to a file (or a pipe) holds no ANSI colour
//! codes: they are for terminals only.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};

#[test]
fn a_log_that_is_no_terminal_has_no_colour_codes() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_druids-server"))
        .args([
            "--in-memory",
            "--listen",
            "127.0.0.1:0",
            "--http-listen",
            "off",
            "--log",
            "info",
        ])
        .env_remove("NO_COLOR")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn druids-server");
    // The ready line comes after the start-up log lines.
    let mut ready = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut ready)
        .unwrap();
    assert!(ready.contains("\"grpc\""), "{ready}");
    child.kill().unwrap();
    child.wait().unwrap();
    let mut log = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    assert!(log.contains("INFO"), "the log says something: {log}");
    assert!(
        !log.contains('\x1b'),
        "no ANSI escapes in a piped log: {log:?}"
    );
}

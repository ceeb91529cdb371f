//! The deployment files: the Kubernetes manifests validate against the
//! Kubernetes schemas (kubernetes-validate, installed from PyPI into
//! `deploy/.venv` by this test), and the Dockerfile builds and runs the same
//! binaries as the README (checked by reading it; no container engine runs
//! here). `druids health`, which the image's health check runs, is tested in
//! `client-cli/tests/cli.rs`.

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `deploy/.venv` with kubernetes-validate, made on first use.
fn validator() -> PathBuf {
    let venv = root().join("deploy/.venv");
    let bin = venv.join("bin/kubernetes-validate");
    if !bin.exists() {
        let made = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .expect("python3 is needed to validate the manifests");
        assert!(made.success(), "cannot create {}", venv.display());
        let pip = Command::new(venv.join("bin/pip"))
            .args(["install", "--quiet", "kubernetes-validate==1.37.0"])
            .env("PIP_DEFAULT_TIMEOUT", "30")
            .output()
            .expect("run pip");
        assert!(
            pip.status.success(),
            "cannot install kubernetes-validate from PyPI (the manifest test needs it): {}",
            String::from_utf8_lossy(&pip.stderr)
        );
    }
    bin
}

#[test]
fn kubernetes_manifests_validate_against_the_schemas() {
    let k8s = root().join("deploy/k8s");
    let files = ["statefulset.yaml", "service.yaml"].map(|f| k8s.join(f));
    let out = Command::new(validator())
        .args(["--strict", "--kubernetes-version", "1.33.0"])
        .args(&files)
        .output()
        .expect("run kubernetes-validate");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    // A manifest with a mistake is caught (the check can fail).
    let broken = std::env::temp_dir().join(format!("druids-broken-{}.yaml", std::process::id()));
    let text = std::fs::read_to_string(&files[0])
        .unwrap()
        .replace("containerPort: 50051", "containerPort: \"fifty\"");
    std::fs::write(&broken, text).unwrap();
    let out = Command::new(validator())
        .arg("--strict")
        .arg(&broken)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&broken);
    assert!(!out.status.success(), "a wrong port type must not validate");

    // What the operator guide promises is in the manifests.
    let sts = std::fs::read_to_string(&files[0]).unwrap();
    for needle in [
        "grpc:",
        "readinessProbe",
        "livenessProbe",
        "volumeClaimTemplates",
        "terminationGracePeriodSeconds",
        "runAsNonRoot: true",
        "requests:",
    ] {
        assert!(sts.contains(needle), "statefulset.yaml lacks {needle}");
    }
}

#[test]
fn the_dockerfile_builds_the_server_and_runs_it_unprivileged() {
    let docker = std::fs::read_to_string(root().join("deploy/Dockerfile")).unwrap();
    assert!(docker.contains("cargo build --release --locked -p druids-server"));
    assert!(docker.contains(
        "COPY --from=build /src/target/release/druids-server /usr/local/bin/druids-server"
    ));
    assert!(docker.contains("ENTRYPOINT [\"druids-server\"]"));
    assert!(docker.contains("USER druids"));
    assert!(docker.contains("VOLUME /data"));
    assert!(
        docker.contains("\"health\"]"),
        "the health check asks `druids health`"
    );
    // The image's settings are the server's own flags' environment variables.
    let config = std::fs::read_to_string(root().join("server/src/config.rs")).unwrap();
    for var in ["DRUIDS_LISTEN", "DRUIDS_DB", "DRUIDS_LOG_FORMAT"] {
        assert!(docker.contains(var) && config.contains(var), "{var}");
    }
}

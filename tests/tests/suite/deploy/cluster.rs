//! The several-nodes files: the Deployment, its Services, Secret and
//! disruption budget (`deploy/k8s/cluster`), `compose-cluster.yaml`, and
//! their guide.

use super::*;

/// A Secret a kustomization makes: its name and its keys with, where the
/// files say, their values.
struct Secret {
    name: String,
    keys: Vec<(String, Option<String>)>,
}

/// The Secrets the kustomization of `dir` makes: Secret manifests (values of
/// `stringData`) and its secretGenerator (`literals`, `envs` and `files`).
fn secrets(dir: &str) -> Vec<Secret> {
    let mut out = Vec::new();
    for secret in of_kind(&objects(dir), "Secret") {
        let name = secret["metadata"]["name"]
            .as_str()
            .expect("a name")
            .to_owned();
        let mut keys = Vec::new();
        if let Some(data) = secret["data"].as_mapping() {
            keys.extend(data.keys().map(|k| (k.as_str().unwrap().to_owned(), None)));
        }
        if let Some(data) = secret["stringData"].as_mapping() {
            keys.extend(data.iter().map(|(k, v)| {
                (
                    k.as_str().unwrap().to_owned(),
                    v.as_str().map(str::to_owned),
                )
            }));
        }
        out.push(Secret { name, keys });
    }
    let kustomization = yaml(&format!("{dir}/kustomization.yaml"));
    let strings = |v: &Value| -> Vec<String> {
        v.as_sequence()
            .map(|s| {
                s.iter()
                    .filter_map(|x| x.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let pair = |line: &str| {
        let (k, v) = line
            .split_once('=')
            .unwrap_or_else(|| panic!("{dir}: {line:?} is KEY=VALUE"));
        (k.trim().to_owned(), Some(v.trim().to_owned()))
    };
    for generator in kustomization["secretGenerator"]
        .as_sequence()
        .cloned()
        .unwrap_or_default()
    {
        let name = generator["name"]
            .as_str()
            .expect("a generator's name")
            .to_owned();
        let mut keys: Vec<_> = strings(&generator["literals"])
            .iter()
            .map(|l| pair(l))
            .collect();
        for file in strings(&generator["envs"]) {
            keys.extend(
                read(&format!("{dir}/{file}"))
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !l.starts_with('#'))
                    .map(pair),
            );
        }
        for file in strings(&generator["files"]) {
            let (key, path) = match file.split_once('=') {
                Some((k, p)) => (k.to_owned(), p.to_owned()),
                None => (file.rsplit('/').next().unwrap().to_owned(), file.clone()),
            };
            keys.push((key, Some(read(&format!("{dir}/{path}")))));
        }
        out.push(Secret { name, keys });
    }
    out
}

/// The parts of a `postgres://user:password@host:port/database` URL.
struct PgUrl {
    user: String,
    password: String,
    host: String,
    database: String,
}

fn pg_url(url: &str) -> PgUrl {
    let rest = url
        .strip_prefix("postgres://")
        .or_else(|| url.strip_prefix("postgresql://"))
        .unwrap_or_else(|| panic!("{url:?} is a postgres:// URL"));
    let (userinfo, location) = rest
        .rsplit_once('@')
        .unwrap_or_else(|| panic!("{url:?} names a user"));
    let (user, password) = userinfo.split_once(':').unwrap_or((userinfo, ""));
    let (address, database) = location
        .split_once('/')
        .unwrap_or_else(|| panic!("{url:?} names a database"));
    let host = address.split(':').next().unwrap();
    PgUrl {
        user: user.to_owned(),
        password: password.to_owned(),
        host: host.to_owned(),
        database: database.split('?').next().unwrap().to_owned(),
    }
}

/// How long a node's leases last: DRUIDS_LEASE_SECS, or the server's default.
fn lease_secs(value: Option<String>) -> u64 {
    value.map_or(DEFAULT_LEASE_SECS, |v| {
        v.parse()
            .unwrap_or_else(|_| panic!("DRUIDS_LEASE_SECS {v:?} is a number of seconds"))
    })
}

#[test]
fn the_cluster_deployment_runs_several_nodes_on_one_database() {
    let objects = objects(CLUSTER);
    let deployment = the_deployment(&objects);
    let replicas = deployment["spec"]["replicas"].as_u64().unwrap_or(1);
    assert!(
        replicas >= 2,
        "several nodes: replicas {replicas} is at least 2"
    );
    let template = &deployment["spec"]["template"];
    assert!(
        selects(
            &deployment["spec"]["selector"]["matchLabels"],
            &template["metadata"]["labels"]
        ),
        "the Deployment's selector matches its pods"
    );
    let pod = &template["spec"];
    let container = &pod["containers"][0];
    let field = |name: &str| {
        env(container, name)
            .and_then(|e| e["valueFrom"]["fieldRef"]["fieldPath"].as_str())
            .map(str::to_owned)
    };
    assert_eq!(
        field("DRUIDS_NODE_ID").as_deref(),
        Some("metadata.name"),
        "DRUIDS_NODE_ID is the pod's name (downward API), unique among the nodes"
    );

    // Advertised: http://$(POD_IP):<the gRPC port>, POD_IP the pod's IP,
    // defined before the variable that expands it.
    let grpc_port = container["ports"]
        .as_sequence()
        .and_then(|p| p.iter().find(|p| p["name"] == "grpc"))
        .and_then(|p| p["containerPort"].as_u64())
        .expect("a container port named grpc");
    let listen = env_value(container, "DRUIDS_LISTEN").expect("DRUIDS_LISTEN is set");
    assert!(
        listen.starts_with("0.0.0.0:") && port_of(&listen) == grpc_port,
        "the node listens on every address, on the grpc port: {listen}"
    );
    let advertised =
        env_value(container, "DRUIDS_ADVERTISE_ADDR").expect("DRUIDS_ADVERTISE_ADDR is a value");
    let address = advertised
        .strip_prefix("http://")
        .or_else(|| advertised.strip_prefix("https://"))
        .unwrap_or_else(|| panic!("DRUIDS_ADVERTISE_ADDR {advertised:?} is a URL"));
    let variable = address
        .trim_start_matches('[')
        .strip_prefix("$(")
        .and_then(|a| a.split_once(')'))
        .map(|(v, _)| v.to_owned())
        .unwrap_or_else(|| panic!("DRUIDS_ADVERTISE_ADDR {advertised:?} expands a variable"));
    assert_eq!(
        field(&variable).as_deref(),
        Some("status.podIP"),
        "DRUIDS_ADVERTISE_ADDR uses the pod's IP ({variable})"
    );
    let position = |name: &str| {
        container["env"]
            .as_sequence()
            .and_then(|e| e.iter().position(|e| e["name"] == name))
    };
    assert!(
        position(&variable) < position("DRUIDS_ADVERTISE_ADDR"),
        "{variable} is defined before DRUIDS_ADVERTISE_ADDR expands it"
    );
    assert_eq!(
        port_of(address),
        grpc_port,
        "the advertised address is the gRPC port"
    );

    // The database: a postgres:// URL from a Secret the kustomization makes.
    let reference =
        &env(container, "DRUIDS_DB").expect("DRUIDS_DB is set")["valueFrom"]["secretKeyRef"];
    let (name, key) = (
        reference["name"]
            .as_str()
            .expect("DRUIDS_DB comes from a secretKeyRef"),
        reference["key"].as_str().expect("a secretKeyRef's key"),
    );
    let secrets = secrets(CLUSTER);
    let secret = secrets
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("{CLUSTER} makes the Secret {name} that DRUIDS_DB names"));
    let value = &secret
        .keys
        .iter()
        .find(|(k, _)| k == key)
        .unwrap_or_else(|| panic!("the Secret {name} has the key {key}"))
        .1;
    if let Some(url) = value {
        pg_url(url);
    }

    // Nothing on disk: any pod can replace any other.
    assert!(
        deployment["spec"]["volumeClaimTemplates"].is_null()
            && pod["volumes"]
                .as_sequence()
                .is_none_or(|v| v.iter().all(|v| v["persistentVolumeClaim"].is_null())),
        "the nodes claim no volume"
    );

    // A stopping node finishes its work within its lease's renewals.
    let lease = lease_secs(env_value(container, "DRUIDS_LEASE_SECS"));
    let grace = pod["terminationGracePeriodSeconds"]
        .as_u64()
        .expect("terminationGracePeriodSeconds");
    assert!(
        grace > lease,
        "the grace period ({grace} s) is longer than the lease ({lease} s)"
    );
}

#[test]
fn the_cluster_nodes_have_a_headless_service_and_a_disruption_budget() {
    let objects = objects(CLUSTER);
    let deployment = the_deployment(&objects);
    let labels = &deployment["spec"]["template"]["metadata"]["labels"];
    let services = of_kind(&objects, "Service");
    for service in &services {
        let name = service["metadata"]["name"].as_str().unwrap_or("?");
        assert!(
            selects(&service["spec"]["selector"], labels),
            "Service {name} selects the Deployment's pods"
        );
    }
    let headless = services
        .iter()
        .find(|s| s["spec"]["clusterIP"] == "None")
        .expect("a headless Service (clusterIP: None): one address per node");
    assert!(
        headless["spec"]["ports"]
            .as_sequence()
            .is_some_and(|p| p.iter().any(|p| p["targetPort"] == "grpc")),
        "the headless Service has the gRPC port"
    );
    assert!(
        services.iter().any(|s| s["spec"]["clusterIP"] != "None"),
        "a Service for clients"
    );

    let budget = the_one(&objects, "PodDisruptionBudget");
    assert!(
        selects(&budget["spec"]["selector"]["matchLabels"], labels),
        "the PodDisruptionBudget selects the Deployment's pods"
    );
    let replicas = deployment["spec"]["replicas"].as_u64().unwrap_or(1);
    let spec = &budget["spec"];
    match (
        spec["minAvailable"].as_u64(),
        spec["maxUnavailable"].as_u64(),
    ) {
        (Some(min), None) => assert!(
            min >= 1 && min < replicas,
            "minAvailable {min}: some node stays up, and a drain can still stop one"
        ),
        (None, Some(max)) => assert!(
            max >= 1 && max < replicas,
            "maxUnavailable {max}: a drain can stop a node, and some node stays up"
        ),
        _ => panic!("the PodDisruptionBudget sets minAvailable or maxUnavailable as a number"),
    }
}

/// A compose service's environment variable: `environment` as a map or a list.
fn compose_env(service: &Value, name: &str) -> Option<String> {
    let environment = &service["environment"];
    if let Some(map) = environment.as_mapping() {
        return map.get(name).map(|v| match v {
            Value::String(s) => s.clone(),
            other => serde_norway::to_string(other).unwrap().trim().to_owned(),
        });
    }
    environment.as_sequence().and_then(|list| {
        list.iter().find_map(|e| {
            e.as_str()
                .and_then(|e| e.strip_prefix(name))
                .and_then(|e| e.strip_prefix('='))
                .map(str::to_owned)
        })
    })
}

/// Seconds of a compose duration such as `30s` or `1m`.
fn compose_seconds(duration: &str) -> u64 {
    let number = |s: &str| {
        s.parse::<u64>()
            .unwrap_or_else(|_| panic!("{duration:?} is a duration such as 30s"))
    };
    if let Some(m) = duration.strip_suffix('m') {
        number(m) * 60
    } else {
        number(duration.trim_end_matches('s'))
    }
}

/// A druids service of a compose file runs as locked down as in Kubernetes,
/// from the repository's Dockerfile.
fn assert_locked_down(file: &str, name: &str, service: &Value) {
    assert_eq!(
        service["build"]["dockerfile"], "deploy/Dockerfile",
        "{file}: {name} is built from deploy/Dockerfile"
    );
    assert_eq!(
        service["read_only"], true,
        "{file}: {name} has a read-only root"
    );
    assert!(
        service["cap_drop"]
            .as_sequence()
            .is_some_and(|c| c.iter().any(|c| c == "ALL")),
        "{file}: {name} drops ALL capabilities"
    );
    assert!(
        service["security_opt"].as_sequence().is_some_and(|o| o
            .iter()
            .any(|o| o == "no-new-privileges:true" || o == "no-new-privileges")),
        "{file}: {name} has no-new-privileges"
    );
}

#[test]
fn the_compose_files_run_the_locked_down_image() {
    let single = yaml("deploy/compose.yaml");
    assert_locked_down("compose.yaml", "druids", &single["services"]["druids"]);
}

#[test]
fn the_compose_cluster_runs_two_nodes_on_postgres() {
    let file = "deploy/compose-cluster.yaml";
    let compose = yaml(file);
    let services = compose["services"].as_mapping().expect("services");
    let (pg_name, postgres) = services
        .iter()
        .find(|(_, s)| {
            s["image"]
                .as_str()
                .is_some_and(|i| i.starts_with("postgres:"))
        })
        .map(|(n, s)| (n.as_str().unwrap().to_owned(), s))
        .expect("a postgres service (the official postgres image)");
    let healthcheck = serde_norway::to_string(&postgres["healthcheck"]["test"]).unwrap();
    assert!(
        healthcheck.contains("pg_isready"),
        "{pg_name} has a pg_isready health check"
    );
    let pg =
        |var: &str| compose_env(postgres, var).unwrap_or_else(|| panic!("{pg_name} sets {var}"));
    let (pg_user, pg_password, pg_db) = (
        pg("POSTGRES_USER"),
        pg("POSTGRES_PASSWORD"),
        pg("POSTGRES_DB"),
    );
    let data = postgres["volumes"]
        .as_sequence()
        .and_then(|v| {
            v.iter()
                .filter_map(|v| v.as_str())
                .find_map(|v| v.strip_suffix(":/var/lib/postgresql/data"))
        })
        .unwrap_or_else(|| panic!("{pg_name} keeps its data on a volume"));
    assert!(
        compose["volumes"].get(data).is_some(),
        "{pg_name}'s data is the named volume {data}"
    );

    let nodes: Vec<(&str, &Value)> = services
        .iter()
        .filter(|(_, s)| compose_env(s, "DRUIDS_NODE_ID").is_some())
        .map(|(n, s)| (n.as_str().unwrap(), s))
        .collect();
    assert!(
        nodes.len() >= 2,
        "two or more druids nodes (services with DRUIDS_NODE_ID)"
    );
    let mut ids = Vec::new();
    let mut host_ports = Vec::new();
    for (name, node) in &nodes {
        let var =
            |v: &str| compose_env(node, v).unwrap_or_else(|| panic!("{file}: {name} sets {v}"));
        ids.push(var("DRUIDS_NODE_ID"));
        let db = pg_url(&var("DRUIDS_DB"));
        assert_eq!(
            db.host, pg_name,
            "{name}: DRUIDS_DB is the {pg_name} service"
        );
        assert_eq!(
            (db.user, db.password, db.database),
            (pg_user.clone(), pg_password.clone(), pg_db.clone()),
            "{name}: DRUIDS_DB has {pg_name}'s user, password and database"
        );
        assert_eq!(
            node["depends_on"][pg_name.as_str()]["condition"],
            "service_healthy",
            "{name} waits for {pg_name} to be healthy"
        );
        let listen = var("DRUIDS_LISTEN");
        assert!(
            listen.starts_with("0.0.0.0:"),
            "{name} listens on every address: {listen}"
        );
        let port = port_of(&listen);
        assert_eq!(
            var("DRUIDS_ADVERTISE_ADDR"),
            format!("http://{name}:{port}"),
            "{name} advertises its own service name and gRPC port"
        );
        let published = node["ports"]
            .as_sequence()
            .and_then(|p| {
                p.iter().filter_map(|p| p.as_str()).find_map(|p| {
                    let mut parts = p.rsplit(':');
                    let container = parts.next()?;
                    let host = parts.next()?;
                    (container == port.to_string()).then(|| host.to_owned())
                })
            })
            .unwrap_or_else(|| panic!("{name} publishes its gRPC port {port}"));
        host_ports.push(published);
        let lease = lease_secs(compose_env(node, "DRUIDS_LEASE_SECS"));
        let grace = compose_seconds(node["stop_grace_period"].as_str().unwrap_or("10s"));
        assert!(
            grace > lease,
            "{name}: stop_grace_period ({grace} s) is longer than the lease ({lease} s)"
        );
        assert_locked_down(file, name, node);
    }
    let distinct = |v: &Vec<String>| {
        let mut d = v.clone();
        d.sort();
        d.dedup();
        d.len() == v.len()
    };
    assert!(
        distinct(&ids),
        "each node has its own DRUIDS_NODE_ID: {ids:?}"
    );
    assert!(
        distinct(&host_ports),
        "each node on its own host port: {host_ports:?}"
    );
}

/// Every DRUIDS_* variable of the several-nodes files is a flag of the
/// server's, as `druids-server --help` lists them.
#[test]
fn the_cluster_settings_are_the_servers_flags() {
    let help = std::process::Command::new(druids_tests::process::server_binary())
        .arg("--help")
        .output()
        .expect("druids-server --help");
    let sources = String::from_utf8_lossy(&help.stdout).into_owned();
    assert!(sources.contains("DRUIDS_NODE_ID"), "{sources}");
    let deployment = the_deployment(&objects(CLUSTER));
    let mut names: Vec<String> = deployment["spec"]["template"]["spec"]["containers"][0]["env"]
        .as_sequence()
        .expect("env")
        .iter()
        .filter_map(|e| e["name"].as_str().map(str::to_owned))
        .collect();
    let compose = yaml("deploy/compose-cluster.yaml");
    for (_, service) in compose["services"].as_mapping().expect("services") {
        if let Some(env) = service["environment"].as_mapping() {
            names.extend(env.keys().filter_map(|k| k.as_str().map(str::to_owned)));
        }
    }
    for name in names.iter().filter(|n| n.starts_with("DRUIDS_")) {
        assert!(
            sources.contains(&format!("{name}=")),
            "{name} is the environment variable of a server flag"
        );
    }
}

#[test]
fn the_guide_explains_several_nodes() {
    let guide = read("deploy/README.md");
    for needle in [
        "docker compose -f deploy/compose-cluster.yaml up",
        "kubectl apply -k deploy/k8s/cluster",
        "DRUIDS_LEASE_SECS",
    ] {
        assert!(guide.contains(needle), "deploy/README.md mentions {needle}");
    }
}

//! The pods of both layouts meet the `restricted` Pod Security Standard.

use super::*;

/// A field of the pod or else of the container's securityContext.
fn security<'a>(pod: &'a Value, container: &'a Value, key: &str) -> &'a Value {
    let own = &container["securityContext"][key];
    if own.is_null() {
        &pod["securityContext"][key]
    } else {
        own
    }
}

/// The `restricted` Pod Security Standard, for the pod template `pod` whose
/// volume claims (a StatefulSet's) are named `claims`.
fn assert_restricted(dir: &str, pod: &Value, claims: &[&str]) {
    assert!(
        pod["hostNetwork"].is_null() && pod["hostPID"].is_null() && pod["hostIPC"].is_null(),
        "{dir}: no host namespaces"
    );
    let volumes = pod["volumes"].as_sequence().cloned().unwrap_or_default();
    assert!(
        volumes.iter().all(|v| v["hostPath"].is_null()),
        "{dir}: no hostPath volume"
    );
    let containers = pod["containers"].as_sequence().expect("containers");
    let init = pod["initContainers"]
        .as_sequence()
        .cloned()
        .unwrap_or_default();
    for container in containers.iter().chain(&init) {
        let name = format!("{dir}: {}", container["name"].as_str().unwrap_or("?"));
        let ctx = &container["securityContext"];
        assert_eq!(
            ctx["allowPrivilegeEscalation"], false,
            "{name}: allowPrivilegeEscalation: false"
        );
        assert_eq!(
            ctx["readOnlyRootFilesystem"], true,
            "{name}: readOnlyRootFilesystem: true"
        );
        assert!(ctx["privileged"] != true, "{name}: not privileged");
        let dropped = ctx["capabilities"]["drop"]
            .as_sequence()
            .cloned()
            .unwrap_or_default();
        assert!(
            dropped.iter().any(|c| c == "ALL"),
            "{name}: capabilities drop ALL"
        );
        let added = ctx["capabilities"]["add"]
            .as_sequence()
            .cloned()
            .unwrap_or_default();
        assert!(
            added.iter().all(|c| c == "NET_BIND_SERVICE"),
            "{name}: adds no capability"
        );
        assert_eq!(
            security(pod, container, "runAsNonRoot"),
            &Value::from(true),
            "{name}: runAsNonRoot"
        );
        let uid = security(pod, container, "runAsUser");
        assert!(
            uid.as_u64().is_some_and(|u| u > 0),
            "{name}: a numeric non-root runAsUser"
        );
        assert_eq!(
            security(pod, container, "seccompProfile")["type"],
            "RuntimeDefault",
            "{name}: seccompProfile RuntimeDefault"
        );
        // A read-only root: every writable path is a volume.
        for mount in container["volumeMounts"]
            .as_sequence()
            .cloned()
            .unwrap_or_default()
        {
            let volume = mount["name"].as_str().expect("mount name");
            let backed = claims.contains(&volume)
                || volumes.iter().any(|v| {
                    v["name"] == volume
                        && (v["emptyDir"].is_mapping() || v["persistentVolumeClaim"].is_mapping())
                });
            assert!(backed, "{name}: mount {volume} is an emptyDir or a claim");
        }
    }
}

#[test]
fn pods_meet_the_restricted_pod_security_standard() {
    let sts = the_statefulset(&objects(SINGLE));
    let pod = &sts["spec"]["template"]["spec"];
    let claims: Vec<&str> = sts["spec"]["volumeClaimTemplates"]
        .as_sequence()
        .map(|v| {
            v.iter()
                .filter_map(|c| c["metadata"]["name"].as_str())
                .collect()
        })
        .unwrap_or_default();
    assert_restricted(SINGLE, pod, &claims);
    // The single node's SQLite file lies on its claimed volume.
    let container = &pod["containers"][0];
    let mounted = |path: &str| {
        container["volumeMounts"]
            .as_sequence()
            .is_some_and(|m| m.iter().any(|m| m["mountPath"] == path))
    };
    assert!(mounted("/data"), "the database's /data is a volume");
    let db = env_value(container, "DRUIDS_DB").unwrap_or_default();
    assert!(
        db.starts_with("/data/"),
        "DRUIDS_DB lies on the /data volume"
    );

    let deployment = the_deployment(&objects(CLUSTER));
    assert_restricted(CLUSTER, &deployment["spec"]["template"]["spec"], &[]);
}

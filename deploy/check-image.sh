#!/usr/bin/env bash
# Builds the image of deploy/Dockerfile and plays games against a container
# run as the manifests run it (read-only root, no capabilities, no new
# privileges). Needs a container engine with the docker CLI; run it by hand
# on such a machine (the CI machines cannot run containers, so this is not
# part of `cargo test`, where it could only skip). Exits non-zero on any
# failure, including "no container engine".
#
#   bash deploy/check-image.sh
set -euo pipefail
cd "$(dirname "$0")/.."

tag=druids-server:image-check
if ! docker info >/dev/null 2>&1; then
    echo "check-image: no container engine answers 'docker info': nothing was checked" >&2
    exit 1
fi

docker build -f deploy/Dockerfile -t "$tag" .
id=$(docker run -d --read-only --tmpfs /tmp --cap-drop ALL \
    --security-opt no-new-privileges -p 127.0.0.1::50051 "$tag")
trap 'docker logs "$id" >&2 || true; docker rm -f "$id" >/dev/null' EXIT

# The image's own client, inside the container: its health check first
# (waiting on the condition, with a deadline that only guards a hang) ...
in_container() { docker exec "$id" druids --server http://127.0.0.1:50051 "$@"; }
deadline=$((SECONDS + 120))
until in_container health; do
    if ((SECONDS > deadline)); then
        echo "check-image: the container never became healthy" >&2
        exit 1
    fi
    sleep 1
done

# ... then complete games through the published port from the host, with the
# workspace's client, and through the container's own.
addr=$(docker port "$id" 50051/tcp | head -n 1)
cargo run --quiet --release -p druids-cli -- --server "http://$addr" \
    selfplay --game dolmen --players 3 --games 2
in_container selfplay --game meduris --players 2 --games 1

# The games were stored on the /data volume and the server says they ended.
in_container list --status finished | tee /dev/stderr | grep -q -i dolmen
echo "check-image: the image builds, runs locked down and serves games"

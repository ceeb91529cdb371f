#!/bin/sh
# Dependency-caching layer of deploy/Dockerfile (the cargo-chef pattern, with
# nothing downloaded): with only the workspace's Cargo.toml files copied in,
# put an empty source at every target path a manifest needs, so that
# `cargo build` compiles every dependency into a layer of its own. That layer
# is reused until Cargo.toml or Cargo.lock change.
#
#   sh deploy/stub-sources.sh            create the stubs (listed in .stub-sources)
#   sh deploy/stub-sources.sh --remove   delete them again
set -eu
LIST=.stub-sources
if [ "${1:-}" = "--remove" ]; then
  xargs rm -f < "$LIST"
  rm -f "$LIST"
  exit 0
fi
: > "$LIST"
stub() { # stub FILE CONTENT
  if [ ! -e "$1" ]; then
    mkdir -p "$(dirname "$1")"
    printf '%s\n' "$2" > "$1"
    echo "$1" >> "$LIST"
  fi
}
for manifest in $(find . -name Cargo.toml -not -path './target/*'); do
  dir=$(dirname "$manifest")
  stub "$dir/src/lib.rs" ''
  grep -q '^\[\[bin\]\]' "$manifest" && stub "$dir/src/main.rs" 'fn main() {}'
  grep -q '^build *= *"build.rs"' "$manifest" && stub "$dir/build.rs" 'fn main() {}'
  # Declared benches must exist for the manifest to load.
  for bench in $(sed -n '/^\[\[bench\]\]/,/^name/s/^name *= *"\(.*\)"/\1/p' "$manifest"); do
    stub "$dir/benches/$bench.rs" 'fn main() {}'
  done
done

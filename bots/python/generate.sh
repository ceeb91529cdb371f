#!/usr/bin/env bash
# Generates the Python stubs from ../../proto into druids_bot/gen/ (gitignored).
# Equivalent to:
#   python -m grpc_tools.protoc -I ../../proto --python_out=druids_bot/gen \
#     --grpc_python_out=druids_bot/gen --pyi_out=druids_bot/gen ../../proto/druids/v1/*.proto
# Uses $PYTHON, else .venv/bin/python, else python3 (needs grpcio-tools).
set -euo pipefail
cd "$(dirname "$0")"
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  if [ -x .venv/bin/python ]; then PY=.venv/bin/python; else PY=python3; fi
fi
exec "$PY" druids_bot/_generate.py --force

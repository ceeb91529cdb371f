#!/usr/bin/env bash
# Creates (or refreshes) bots/python/.venv: a virtualenv with requirements.txt
# installed from PyPI, and the stubs generated. Idempotent: a venv whose
# installed requirements match requirements.txt is reused without network.
# Uses $PYTHON, else python3 (3.9 or newer).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
cd "$HERE"
# One set-up at a time (parallel test runs): hold a lock where flock exists.
if [ -z "${DRUIDS_SETUP_LOCKED:-}" ] && command -v flock >/dev/null; then
  export DRUIDS_SETUP_LOCKED=1
  exec flock "$HERE/.setup.lock" bash "$HERE/setup_venv.sh" "$@"
fi
VENV=.venv
STAMP="$VENV/.requirements.installed"
PY="${PYTHON:-python3}"

fail() { echo "setup_venv.sh: $*" >&2; exit 1; }

command -v "$PY" >/dev/null || fail "$PY not found: install Python 3.9+ or set PYTHON"
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 9))' || fail "$PY is older than 3.9"

# A venv that cannot run its python (half-created, moved, Python upgraded) is rebuilt.
if [ -e "$VENV" ] && ! "$VENV/bin/python" -c 'import sys' >/dev/null 2>&1; then
  echo "setup_venv.sh: rebuilding broken $VENV" >&2
  rm -rf "$VENV"
fi
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV" || fail "'$PY -m venv' failed (on Debian/Ubuntu: apt install python3-venv)"
fi

if ! cmp -s requirements.txt "$STAMP"; then
  rm -f "$STAMP"
  echo "setup_venv.sh: installing requirements.txt into $VENV" >&2
  "$VENV/bin/python" -m pip install --disable-pip-version-check --no-input -q -r requirements.txt \
    || fail "pip install -r requirements.txt failed: is PyPI (https://pypi.org) reachable?"
  cp requirements.txt "$STAMP"
fi

"$VENV/bin/python" druids_bot/_generate.py

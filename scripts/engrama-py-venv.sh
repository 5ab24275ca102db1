#!/usr/bin/env bash
# The Python engrama 0.18.1 (PyPI) in a project-local virtual environment, for the interoperability
# test (tests/interop/engrama-py.test.ts). Idempotent: a venv that already has it is left alone.
# Its SQLite backend loads sqlite-vec, so the Python must allow SQLite extensions (Debian's does;
# pyenv builds usually do not): set ENGRAMA_PY_PYTHON to choose one.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${ENGRAMA_PY_VENV:-$PWD/.venv-engrama-py}"
VERSION=0.18.1

if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('engrama') != '$VERSION')" 2>/dev/null; then
	echo "engrama $VERSION already in $VENV"
	exit 0
fi

can_load_extensions() {
	"$1" -c "import sqlite3, venv; sqlite3.connect(':memory:').enable_load_extension(True)" 2>/dev/null
}
PYTHON=""
for candidate in ${ENGRAMA_PY_PYTHON:-} /usr/bin/python3 python3; do
	if command -v "$candidate" >/dev/null 2>&1 && can_load_extensions "$candidate"; then
		PYTHON="$candidate"
		break
	fi
done
if [ -z "$PYTHON" ]; then
	echo "No python3 with venv and SQLite extension loading (engrama's sqlite-vec needs it)." >&2
	echo "On Debian: apt-get install -y python3 python3-venv; or set ENGRAMA_PY_PYTHON to such a python." >&2
	exit 1
fi

# Only a virtual environment is ever replaced (ENGRAMA_PY_VENV could name any folder).
if [ -e "$VENV" ] && [ ! -f "$VENV/pyvenv.cfg" ]; then
	echo "$VENV exists and is not a Python virtual environment: remove it or set ENGRAMA_PY_VENV elsewhere." >&2
	exit 1
fi
rm -rf "$VENV"
"$PYTHON" -m venv "$VENV" || { echo "python3 -m venv failed: on Debian, apt-get install -y python3-venv" >&2; exit 1; }
"$VENV/bin/pip" install --quiet --disable-pip-version-check "engrama==$VERSION"
echo "engrama $VERSION installed in $VENV (python: $PYTHON)"

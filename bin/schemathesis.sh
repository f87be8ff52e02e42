#!/usr/bin/env bash
# schemathesis, the property-based API tester, with the arguments given (e.g. `bash bin/schemathesis.sh run URL …`).
# It is a Python tool: installed, pinned, into a venv of this checkout (.venv-schemathesis/, gitignored) the first
# time, then reused. test/e2e/contract-fuzz.test.ts runs it against the published document on the local stack.
# schemathesis keeps a cache of what it found (.schemathesis/, gitignored) in the directory it runs in: the test runs
# it in a directory of its own, so no run replays an earlier one's.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"

SCHEMATHESIS_VERSION=4.32.5
VENV="$ROOT/.venv-schemathesis"

if ! "$VENV/bin/st" --version 2>/dev/null | grep -qx "st, version $SCHEMATHESIS_VERSION"; then
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION" >&2
fi

exec "$VENV/bin/st" "$@"

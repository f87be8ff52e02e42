#!/usr/bin/env bash
# AWS's CloudFormation linter over every template `npm run synth` wrote to cdk.out (nested stacks included).
# cfn-lint is a Python tool: it is installed, pinned, into a venv of this checkout (.venv-cfn-lint/, gitignored)
# the first time, then reused. Rules left out, with their reasons, are in .cfnlintrc. Any error, warning or
# informational finding fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."

CFN_LINT_VERSION=1.58.0
VENV=.venv-cfn-lint

if ! "$VENV/bin/cfn-lint" --version 2>/dev/null | grep -qx "cfn-lint $CFN_LINT_VERSION"; then
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "cfn-lint==$CFN_LINT_VERSION"
fi

shopt -s nullglob
templates=(cdk.out/*.template.json)
if [ ${#templates[@]} -eq 0 ]; then
  echo "cfn-lint: no cdk.out/*.template.json: run npm run synth first" >&2
  exit 1
fi
echo "cfn-lint $CFN_LINT_VERSION: ${#templates[@]} templates"
# Non-zero when anything is reported (errors 2, warnings 4, informational 8).
exec "$VENV/bin/cfn-lint" --config-file .cfnlintrc -- "${templates[@]}"

#!/usr/bin/env bash
# Installs the API fuzzer (schemathesis, from PyPI) into .cache/venv, once. Used by
# test/api/fuzz.test.ts and by .ci/run; `npm run fuzz:setup` runs it by hand.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
version=4.32.5
venv=.cache/venv
if [[ -x $venv/bin/schemathesis ]] && "$venv/bin/schemathesis" --version | grep -q "$version"; then
  echo "schemathesis $version is installed in $venv"
  exit 0
fi
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version"
echo "installed schemathesis $("$venv/bin/schemathesis" --version) in $venv"

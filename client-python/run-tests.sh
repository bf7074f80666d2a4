#!/usr/bin/env bash
# Installs the Python client into a fresh virtual environment (in a temporary folder, removed at exit) with its
# test, pandas, pac, sig and fast extras from PyPI (test_plain_install.py makes one more without extras), then checks the type hints (mypy, strict) and runs pytest.
# With OUTPOST_TEST_SERVER=http://127.0.0.1:PORT (a service on the demo database, as ./outpost test starts one) the
# tests against the real service and a real Squid run as well; with OUTPOST_TEST_DATABASE (that service's JDBC URL)
# and JAVA_HOME, the snapshot test also writes into it through the loader. Needs python3 (3.10+) with venv.
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PYTHONDONTWRITEBYTECODE=1 PIP_DISABLE_PIP_VERSION_CHECK=1

echo "=== outpost client-python: virtual environment and install"
python3 -m venv "$work/venv"
cp -r pyproject.toml README.md src "$work/"   # built from a copy: no build output in the source folder
"$work/venv/bin/pip" install -q "$work[test,pandas,pac,sig,fast]"

echo "=== outpost client-python: mypy (strict)"
"$work/venv/bin/mypy" --cache-dir "$work/mypy-cache" src tests

echo "=== outpost client-python: pytest"
"$work/venv/bin/python" -m pytest -p no:cacheprovider --basetemp "$work/pytest" -q tests

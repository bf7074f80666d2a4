#!/usr/bin/env bash
# The conditions browser's tests (ui.test.mjs) in Debian's Chromium against the service named by
# OUTPOST_TEST_SERVER (./outpost test starts one with the demo data). npm ci installs the locked test packages.
set -euo pipefail
cd "$(dirname "$0")"
command -v npm >/dev/null 2>&1 || { echo "the browser tests need Node.js 20 or newer with npm" >&2; exit 1; }
chromium=${OUTPOST_CHROMIUM:-/usr/bin/chromium}
[ -x "$chromium" ] || { echo "the browser tests need Chromium at $chromium (apt-get install chromium)" >&2; exit 1; }
echo "=== outpost ui: browser tests in $("$chromium" --version 2>/dev/null | head -1)"
npm ci --no-audit --no-fund --loglevel=error
exec node --test --test-concurrency=1 ui.test.mjs

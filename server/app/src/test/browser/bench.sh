#!/usr/bin/env bash
# First paint of the conditions browser on big folders (docs/benchmarks.md, "Conditions browser"). Loads the
# likeLuis1iov (10,000 channels) and coolFlat (1,000,000 IOVs) reference workloads into the SQLite database of the
# running service (OUTPOST_TEST_SERVER, OUTPOST_TEST_DATABASE: ./outpost bench-ui starts one), then measures in Chromium.
set -euo pipefail
cd "$(dirname "$0")"
: "${OUTPOST_TEST_SERVER:?}" "${OUTPOST_TEST_DATABASE:?}" "${OUTPOST_LOADER_JAR:?}"
for workload in likeLuis1iov coolFlat; do
  "$JAVA_HOME/bin/java" -jar "$OUTPOST_LOADER_JAR" generate "$workload" --url "$OUTPOST_TEST_DATABASE" 2>/dev/null | tail -1
done
npm ci --no-audit --no-fund --loglevel=error
exec node bench.mjs

#!/usr/bin/env bash
# Runs the command-line contract's shared case table (testdata/cli/cases.txt, docs/cli.md) against outpost-cli and
# a real service: cli_contract.sh OUTPOST_CLI [CASES]. The service is OUTPOST_TEST_SERVER (a base URL); without it
# the run is skipped with a message (exit 77, ctest's skip code). Exits 1 if any case fails.
set -uo pipefail
cli=${1:?usage: cli_contract.sh OUTPOST_CLI [CASES]}
cases=${2:-"$(dirname "$0")/../../testdata/cli/cases.txt"}
if [ -z "${OUTPOST_TEST_SERVER:-}" ]; then
  echo "cli contract: skipped (set OUTPOST_TEST_SERVER to a service on the demo database to run it)"
  exit 77
fi
case "$OUTPOST_TEST_SERVER" in
  \(*) echo "cli contract: skipped (OUTPOST_TEST_SERVER is a configuration string, the table needs a plain URL)"; exit 77 ;;
esac
export OUTPOST_SERVER=$OUTPOST_TEST_SERVER
unset OUTPOST_PROXY FRONTIER_SERVER FRONTIER_PROXY
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

failed=0 count=0 line=0 start=0 args="" any=0
: >"$tmp/expected"; : >"$tmp/contains"
while IFS= read -r l || [ -n "$l" ]; do
  line=$((line + 1))
  case "$l" in
    '$ '*) args=${l#\$ }; start=$line; : >"$tmp/expected"; : >"$tmp/contains"; any=0 ;;
    '>*') any=1 ;;
    '>'*) printf '%s\n' "${l:2}" >>"$tmp/expected" ;;
    '~ '*) printf '%s\n' "${l#\~ }" >>"$tmp/contains" ;;
    'exit '*)
      want=${l#exit }
      count=$((count + 1))
      # shellcheck disable=SC2086  # the table's arguments are split on spaces on purpose
      "$cli" $args >"$tmp/out" 2>"$tmp/err"
      rc=$?
      problem=""
      [ "$rc" = "$want" ] || problem="exit code $rc, expected $want"
      if [ $any -eq 0 ] && [ ! -s "$tmp/contains" ]; then
        cmp -s "$tmp/out" "$tmp/expected" || problem="$problem${problem:+; }standard output differs"
      fi
      while IFS= read -r text; do
        grep -qF -- "$text" "$tmp/out" || problem="$problem${problem:+; }standard output lacks '$text'"
      done <"$tmp/contains"
      if [ -n "$problem" ]; then
        failed=$((failed + 1))
        echo "FAIL line $start: outpost-cli $args: $problem"
        diff "$tmp/expected" "$tmp/out" | head -20
        head -3 "$tmp/err"
      fi
      ;;
  esac
done <"$cases"
echo "cli contract: $((count - failed)) of $count cases as expected"
[ "$count" -gt 30 ] && [ "$failed" -eq 0 ]

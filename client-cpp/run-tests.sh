#!/usr/bin/env bash
# Configure, build and run the C++ client tests twice: a normal build, then with AddressSanitizer and
# UndefinedBehaviorSanitizer (separate build directories). Then a third, small build with both optional features
# OFF (no libpacparser, no OpenSSL): the library, the CLI and features_test only. Exits non-zero if anything fails.
# Needs (Debian): cmake g++ make pkg-config libcurl4-openssl-dev zlib1g-dev libzstd-dev libpacparser-dev libgtest-dev
#   nlohmann-json3-dev
# Set OUTPOST_TEST_SERVER=http://127.0.0.1:8000 to also run the integration test against a running service.
set -euo pipefail
cd "$(dirname "$0")"

jobs=${OUTPOST_BUILD_JOBS:-2}
status=0

run() {  # run NAME BUILD_DIR CMAKE_ARGS...
  local name=$1 dir=$2
  shift 2
  echo "=== outpost client-cpp: $name build ($dir)"
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >"$dir.configure.log" 2>&1 \
    || { cat "$dir.configure.log"; echo "client-cpp: cmake configure failed ($name)" >&2; return 1; }
  cmake --build "$dir" -j"$jobs" 2>&1 | grep -Ev '^\[ *[0-9]+%\]|^(Consolidate|Scanning)' || true
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "client-cpp: build failed ($name)" >&2; return 1; }
  local log="$dir.ctest.log" rc=0
  (cd "$dir" && ctest --output-on-failure -j"$jobs" --timeout 120) >"$log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    cat "$log"
    echo "client-cpp: tests failed ($name)" >&2
    return 1
  fi
  # ctest's summary: pass/fail count, skipped tests (with why), total time
  sed -n '/tests passed/,$p' "$log"
  grep -h 'Skipped\|skipped' "$dir"/Testing/Temporary/LastTest.log 2>/dev/null | grep -i 'skip' | sort -u | head -5 || true
}

mkdir -p build-tests
run normal build-tests/normal || status=1

san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
run "address+undefined sanitizer" build-tests/asan -DOUTPOST_BUILD_BENCH=OFF \
  "-DCMAKE_CXX_FLAGS=$san" "-DCMAKE_EXE_LINKER_FLAGS=$san" "-DCMAKE_SHARED_LINKER_FLAGS=$san" || status=1

without_features() {  # OUTPOST_WITH_PAC=OFF, OUTPOST_WITH_SIGNATURES=OFF: builds and links without either library
  local dir=build-tests/no-features
  echo "=== outpost client-cpp: build without proxy auto-config and signatures ($dir)"
  # CMAKE_DISABLE_FIND_PACKAGE_OpenSSL: a find_package(OpenSSL) anywhere would fail the configure.
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOUTPOST_WITH_PAC=OFF -DOUTPOST_WITH_SIGNATURES=OFF \
    -DOUTPOST_BUILD_BENCH=OFF -DCMAKE_DISABLE_FIND_PACKAGE_OpenSSL=ON >"$dir.configure.log" 2>&1 \
    || { cat "$dir.configure.log"; echo "client-cpp: cmake configure failed (no features)" >&2; return 1; }
  cmake --build "$dir" -j"$jobs" --target outpost-cli features_test 2>&1 \
    | grep -Ev '^\[ *[0-9]+%\]|^(Consolidate|Scanning)' || true
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "client-cpp: build failed (no features)" >&2; return 1; }
  local linked
  linked=$( { readelf -d "$dir/liboutpost-client.so" | grep NEEDED; nm -D --undefined-only "$dir/liboutpost-client.so"; } \
    | grep -Ei 'pacparser|libcrypto|libssl|EVP_|PEM_' || true)
  if [ -n "$linked" ]; then
    echo "$linked"
    echo "client-cpp: the build without features still links libpacparser or OpenSSL" >&2
    return 1
  fi
  "$dir/tests/features_test" >"$dir.test.log" 2>&1 \
    || { cat "$dir.test.log"; echo "client-cpp: features_test failed (no features)" >&2; return 1; }
  grep -E '^\[  PASSED  \]' "$dir.test.log"
}
without_features || status=1

if [ $status -eq 0 ]; then echo "client-cpp: all tests passed (normal, sanitizer and no-features builds)"; fi
exit $status

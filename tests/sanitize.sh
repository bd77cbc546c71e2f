#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The engine and CLI tests under AddressSanitizer + UBSan, the threaded engine
# tests under ThreadSanitizer, and valgrind memcheck on a small CLI copy; one
# summary line each at the end. Build folders: build-asan, build-tsan (made if
# missing). Usage: tests/sanitize.sh [SOURCE-DIR] [--tsan]
#
# Exit status: 0 when every step that could run was clean, 1 otherwise. A step
# that cannot run here (no valgrind, say) says SKIP and does not count.

set -u

case "${1:-}" in
  --tsan|"") src=$(cd "$(dirname "$0")/.." && pwd) ;;
  *) src=$(cd "$1" && pwd) ;;
esac
summary=""
failed=0
start=$(date +%s)

note () {
  summary="$summary$1
"
}

setup () {
  dir=$1
  shift
  if [ ! -f "$src/$dir/build.ninja" ]; then
    meson setup "$src/$dir" "$src" -Dgui=disabled "$@" >/dev/null || return 1
  fi
  ninja -C "$src/$dir" >/dev/null
}

# ASan + UBSan: every quick engine test, the CLI tests and the fault suite.
# Leaks are errors; UBSan stops at the first report.
step_start=$(date +%s)
if setup build-asan -Db_sanitize=address,undefined -Db_lundef=false; then
  if LSAN_OPTIONS="suppressions=$src/tests/lsan.supp:print_suppressions=0" \
     ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_odr_violation=0 \
     UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
     meson test -C "$src/build-asan" --suite engine --no-rebuild --print-errorlogs \
       >"$src/build-asan/sanitize.log" 2>&1; then
    note "PASS  asan+ubsan  engine suite ($(($(date +%s) - step_start)) s)"
  else
    note "FAIL  asan+ubsan  engine suite: see build-asan/sanitize.log"
    failed=1
  fi
else
  note "FAIL  asan+ubsan  could not build"
  failed=1
fi

# TSan: the engine's threaded tests. GLib's GMutex and GCond are futex calls
# TSan cannot see, so with a distribution GLib every access guarded by them is
# reported as a race; the step is informational unless GLib itself was built
# with -fsanitize=thread, and runs only when asked: --tsan.
step_start=$(date +%s)
if [ "${2:-}" != "--tsan" ] && [ "${1:-}" != "--tsan" ]; then
  note "SKIP  tsan        not asked for (--tsan); needs a TSan-built GLib to mean anything"
elif setup build-tsan -Db_sanitize=thread -Db_lundef=false; then
  if TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
     meson test -C "$src/build-tsan" --no-rebuild --print-errorlogs \
       test-job test-fault test-generate \
       >"$src/build-tsan/sanitize.log" 2>&1; then
    note "PASS  tsan        test-job, test-fault, test-generate ($(($(date +%s) - step_start)) s)"
  else
    note "FAIL  tsan        see build-tsan/sanitize.log"
    failed=1
  fi
else
  note "FAIL  tsan        could not build"
  failed=1
fi

# valgrind memcheck on a small copy by the plain build's CLI.
step_start=$(date +%s)
cli=""
for candidate in "$src/build/src/cli/copyscope-cli" "$src/build-fault/src/cli/copyscope-cli"; do
  [ -x "$candidate" ] && cli=$candidate
done
if ! command -v valgrind >/dev/null; then
  note "SKIP  valgrind    not installed"
elif [ ! -x "$cli" ]; then
  note "SKIP  valgrind    no plain build of copyscope-cli (build or build-fault)"
else
  tmp=$(mktemp -d)
  mkdir -p "$tmp/src/sub"
  for i in 1 2 3 4 5 6 7 8; do
    head -c $((i * 70000)) /dev/urandom >"$tmp/src/f$i"
  done
  head -c 100 /dev/urandom >"$tmp/src/sub/small"
  ln -s f1 "$tmp/src/link"
  if XDG_DATA_HOME="$tmp/xdg" XDG_CONFIG_HOME="$tmp/xdg" G_SLICE=always-malloc \
     valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
       --track-fds=no --quiet \
       "$cli" copy --threads 4 --verify --json "$tmp/run.json" "$tmp/src" "$tmp/dst" \
       >"$tmp/valgrind.log" 2>&1 && cmp -s "$tmp/src/f8" "$tmp/dst/f8"; then
    note "PASS  valgrind    memcheck of a small CLI copy ($(($(date +%s) - step_start)) s)"
  else
    cp "$tmp/valgrind.log" "$src/valgrind.log" 2>/dev/null
    note "FAIL  valgrind    see valgrind.log"
    failed=1
  fi
  rm -rf "$tmp"
fi

printf '\nsanitizers (%s s in all):\n%s' "$(($(date +%s) - start))" "$summary"
exit $failed

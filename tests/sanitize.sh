#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The engine and CLI tests under AddressSanitizer + UBSan, the threaded engine
# tests and a 16-thread CLI copy under ThreadSanitizer, and valgrind memcheck
# on a small CLI copy; one summary line each at the end.
#
# Usage: tests/sanitize.sh [--work DIR] [SOURCE-DIR]
#
# Build folders go in DIR (default: the source folder): build-asan and
# build-tsan, made if missing and reused after; only the targets a step runs
# are built. The meson test 'sanitizers' (suites sanitize and slow) runs this
# with DIR inside the build folder. CS_CLI names the plain build's
# copyscope-cli for valgrind (default: build/ or build-fault/ in the source).
#
# Exit status: 0 when every step ran and was clean; 1 when a step failed;
# 77 (a skip, to meson) when nothing failed but a step could not run here
# because a tool is missing — the summary says which.

set -u

work=""
src=""
while [ $# -gt 0 ]; do
  case "$1" in
    --work) work=$2; shift 2 ;;
    --tsan) shift ;;   # TSan always runs now; kept so old command lines work
    *) src=$1; shift ;;
  esac
done
[ -n "$src" ] || src=$(dirname "$0")/..
src=$(cd "$src" && pwd)
[ -n "$work" ] || work=$src
mkdir -p "$work"
work=$(cd "$work" && pwd)

summary=""
failed=0
skipped=0
start=$(date +%s)
# Two cores are shared with other people: ninja's default is cores + 2.
jobs=$(nproc 2>/dev/null || echo 2)

note () {
  summary="$summary$1
"
  echo "$1"
}

elapsed () {
  echo "$(($(date +%s) - step_start)) s"
}

# Whether the compiler can build and link with a sanitizer (its runtime is a
# separate package on some systems).
can_sanitize () {
  probe=$(mktemp -d)
  printf 'int main (void) { return 0; }\n' >"$probe/p.c"
  ${CC:-cc} -fsanitize="$1" "$probe/p.c" -o "$probe/p" >/dev/null 2>&1
  ok=$?
  rm -rf "$probe"
  return $ok
}

# setup DIR TARGETS... -- MESON-OPTIONS...: configures once, builds only TARGETS.
setup () {
  dir=$1
  shift
  targets=""
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    targets="$targets $1"
    shift
  done
  [ $# -gt 0 ] && shift
  if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" "$src" -Dgui=disabled -Dbuildtype=debugoptimized "$@" \
      >"$dir.setup.log" 2>&1 || { cat "$dir.setup.log"; return 1; }
  else
    # A folder made before a meson.build changed knows only the old targets
    # until ninja regenerates it; meson compile looks names up first.
    ninja -C "$dir" build.ninja >"$dir.setup.log" 2>&1 \
      || { cat "$dir.setup.log"; return 1; }
  fi
  # shellcheck disable=SC2086
  meson compile -C "$dir" -j "$jobs" $targets >"$dir.build.log" 2>&1 \
    || { tail -40 "$dir.build.log"; return 1; }
}

# ASan + UBSan: the whole quick engine suite (engine, CLI, fault, report and
# plot tests). Leaks are errors; UBSan stops at the first report. A debug build:
# LeakSanitizer needs the frame pointers to match tests/lsan.supp.
stage_asan () {
  step_start=$(date +%s)
  if ! can_sanitize address,undefined; then
    note "SKIP  asan+ubsan  the compiler cannot link -fsanitize=address,undefined (libasan, libubsan)"
  elif setup "$work/build-asan" -- -Dbuildtype=debug -Db_sanitize=address,undefined \
         -Db_lundef=false; then
    # The instrumented builds run several times slower than the plain one, whose
    # suite holds the tests' own timeouts: at load 23, test-cli and test-run
    # under ASan ran past their 120 s. GLib has no frame pointers: without the slow unwinder a leak's stack stops
    # at g_malloc and never reaches the library frames tests/lsan.supp names.
    if LSAN_OPTIONS="suppressions=$src/tests/lsan.supp:print_suppressions=0:fast_unwind_on_malloc=0" \
       ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_odr_violation=0 \
       UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
       meson test -C "$work/build-asan" --suite engine --no-rebuild --print-errorlogs \
         --num-processes "$jobs" --timeout-multiplier 3 >"$work/build-asan/sanitize.log" 2>&1; then
      note "PASS  asan+ubsan  engine suite ($(elapsed))"
    else
      note "FAIL  asan+ubsan  engine suite: see $work/build-asan/sanitize.log"
      echo "--- the last lines of $work/build-asan/sanitize.log:"
      tail -40 "$work/build-asan/sanitize.log"
      echo "--- what failed:"
      grep -E "^ *[0-9]+/[0-9]+ .*(FAIL|ERROR|TIMEOUT)" "$work/build-asan/sanitize.log" | sort -u
    fi
  else
    note "FAIL  asan+ubsan  could not build"
  fi
}

# TSan: the threaded engine tests and a CLI copy with 16 threads. GLib's own
# locks are futexes TSan cannot see; the engine states what they guarantee
# with annotations (src/engine/common/cs-tsan-private.h), and tests/tsan.supp only
# names frames inside GLib. Any warning fails the step (exit code 66).
tsan_tests="test-job test-fault test-generate test-sweep test-smb-connect"
tsan_env="halt_on_error=0:exitcode=66:second_deadlock_stack=1:suppressions=$src/tests/tsan.supp"
# GCC 12's TSan maps its shadow memory at fixed addresses and dies with
# "unexpected memory mapping" when address randomisation puts a library there,
# now and then even at the kernel's default entropy; the TSan processes run
# with randomisation off (inherited by meson's children), as its authors advise.
no_aslr=""
if command -v setarch >/dev/null && setarch "$(uname -m)" -R true 2>/dev/null; then
  no_aslr="setarch $(uname -m) -R"
fi
stage_tsan () {
  step_start=$(date +%s)
  if ! can_sanitize thread; then
    note "SKIP  tsan        the compiler cannot link -fsanitize=thread (libtsan)"
  elif setup "$work/build-tsan" tests/engine/test-job tests/fault/test-fault \
         tests/engine/test-generate tests/engine/test-sweep tests/engine/test-smb-connect \
         tests/engine/fake-libsmbclient/smbclient \
         tests/engine/fake-libsmbclient/samba-util src/cli/copyscope-cli \
         -- -Dbuildtype=debugoptimized -Db_sanitize=thread -Db_lundef=false; then
    tmp=$(mktemp -d)
    mkdir -p "$tmp/src/a" "$tmp/src/b" "$tmp/src/c"
    i=0
    while [ $i -lt 300 ]; do
      head -c $((i * 37)) /dev/urandom >"$tmp/src/$(echo abc | cut -c $((i % 3 + 1)))/f$i"
      i=$((i + 1))
    done
    head -c 40000000 /dev/urandom >"$tmp/src/big"
    log=$work/build-tsan/sanitize.log
    why=""
    # shellcheck disable=SC2086
    if ! TSAN_OPTIONS=$tsan_env G_SLICE=always-malloc \
         $no_aslr meson test -C "$work/build-tsan" --no-rebuild --print-errorlogs --timeout-multiplier 3 $tsan_tests \
           >"$log" 2>&1; then
      why="a test failed"
    elif ! TSAN_OPTIONS=$tsan_env G_SLICE=always-malloc XDG_DATA_HOME="$tmp/xdg" \
           XDG_CONFIG_HOME="$tmp/xdg" $no_aslr "$work/build-tsan/src/cli/copyscope-cli" copy \
             --threads 16 --verify "$tmp/src" "$tmp/dst" >>"$log" 2>&1; then
      why="the CLI copy with 16 threads failed"
    elif ! cmp -s "$tmp/src/big" "$tmp/dst/big"; then
      why="the CLI copy's big file differs from its source"
    elif grep -q "WARNING: ThreadSanitizer" "$log" "$work/build-tsan/meson-logs/testlog.txt"; then
      why="ThreadSanitizer warned"
    fi
    if [ -z "$why" ]; then
      note "PASS  tsan        $tsan_tests, CLI copy with 16 threads: no warnings ($(elapsed))"
    else
      note "FAIL  tsan        $why ($(elapsed)): see $log and meson-logs/testlog.txt"
      # The log stays in a build folder CI does not keep: what it needs to be
      # understood goes to the output, the most telling part last, where a
      # shortened view of the output still shows it.
      echo "--- the last lines of $log:"
      tail -40 "$log"
      echo "--- what failed:"
      grep -h -A6 "ThreadSanitizer" "$log" \
        "$work/build-tsan/meson-logs/testlog.txt" | head -30
      grep -E "^ *[0-9]+/[0-9]+ .*(FAIL|ERROR|TIMEOUT)" "$log" | sort -u
    fi
    rm -rf "$tmp"
  else
    note "FAIL  tsan        could not build"
  fi
}

# valgrind memcheck on a small copy by the plain build's CLI.
stage_valgrind () {
  step_start=$(date +%s)
  cli=${CS_CLI:-}
  if [ -z "$cli" ]; then
    for candidate in "$src/build/src/cli/copyscope-cli" "$src/build-fault/src/cli/copyscope-cli"; do
      [ -x "$candidate" ] && cli=$candidate
    done
  fi
  if ! command -v valgrind >/dev/null; then
    note "SKIP  valgrind    not installed"
  elif [ ! -x "$cli" ]; then
    note "SKIP  valgrind    no plain build of copyscope-cli (set CS_CLI, or build in build/)"
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
      note "PASS  valgrind    memcheck of a small CLI copy ($(elapsed))"
    else
      cp "$tmp/valgrind.log" "$work/valgrind.log" 2>/dev/null
      note "FAIL  valgrind    see $work/valgrind.log"
      tail -40 "$tmp/valgrind.log"
    fi
    rm -rf "$tmp"
  fi
}

# The steps spend much of their time waiting (timers, kills, child processes),
# so they run side by side; each writes its own log and its summary lines.
for stage in asan tsan valgrind; do
  rm -f "$work/$stage.summary"
  (
    summary=""
    "stage_$stage"
    printf '%s' "$summary" >"$work/$stage.summary"
  ) >"$work/$stage.out" 2>&1 &
done
wait
for stage in asan tsan valgrind; do
  cat "$work/$stage.out"
  summary="$summary$(cat "$work/$stage.summary" 2>/dev/null || echo "FAIL  $stage did not finish")
"
done
case "$summary" in
  *FAIL*) failed=1 ;;
esac
case "$summary" in
  *SKIP*) skipped=1 ;;
esac

printf '\nsanitizers (%s s in all):\n%s' "$(($(date +%s) - start))" "$summary"
if [ $failed -ne 0 ]; then
  exit 1
fi
if [ $skipped -ne 0 ]; then
  echo "some steps could not run here (see SKIP above): reported as skipped"
  exit 77
fi
exit 0

#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test-netfs.sh labnas|sshnas: copyscope-cli on a network share.  Copies a
# tree onto a lab share and checks it against the source (content, sizes,
# modes, owners where the share keeps them, mtimes at the precision it keeps),
# then what shares do differently from a local disk: no copy_file_range or
# reflink, no RENAME_NOREPLACE, 2-second timestamps, owners it refuses,
# fsync with --durable, and the share going away in the middle of a copy.
# Exit 77 with a SKIP line when this machine cannot run FUSE or sshd.

set -euo pipefail
export LC_ALL=C.UTF-8 LANG=C.UTF-8

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
kind=${1:?usage: test-netfs.sh labnas|sshnas}
case $kind in
  labnas|sshnas) ;;
  *) echo "unknown share kind: $kind" >&2; exit 2 ;;
esac
share=$here/$kind
cli=${CS_CLI:-$here/../../build/src/cli/copyscope-cli}

failures=0
work=
mnt=

cleanup ()
{
  local rc=$?
  if [[ -n $mnt ]]; then
    "$share" stop "$mnt" >/dev/null || echo "# teardown: could not stop $mnt" >&2
  fi
  if [[ -n $work ]]; then
    rm -rf -- "$work"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

skip ()
{
  echo "SKIP: test-netfs $kind: $*"
  exit 77
}

ok ()
{
  echo "ok: $kind: $*"
}

fail ()
{
  echo "FAIL: $kind: $*"
  failures=$((failures + 1))
}

ms_now ()
{
  echo $(($(date +%s%N) / 1000000))
}

# Starts the share with extra start options; sets mnt.  Skips the whole test
# when the machine cannot run it.
start_share ()
{
  local out rc=0
  out=$("$share" start "$work/backing" "$work/mnt" "$@" 2>&1) || rc=$?
  if ((rc == 77)); then
    skip "$(tail -n 1 <<<"$out")"
  elif ((rc != 0)); then
    echo "$out"
    echo "FAIL: $kind: start exited with $rc"
    exit 1
  fi
  mnt=$(tail -n 1 <<<"$out")
}

stop_share ()
{
  "$share" stop "$mnt" >/dev/null
  mnt=
}

# Value of a Python expression over the JSON run record $1 (as "d").
json ()
{
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$1" "$2"
}

# Runs copyscope-cli copy with a JSON record; sets cli_rc, keeps stderr.
copy ()
{
  local record="$1"
  shift
  cli_rc=0
  "$cli" copy --no-history --quiet --json "$record" "$@" 2>"$record.err" || cli_rc=$?
}

expect_rc ()
{
  local what="$1" want="$2" record="$3"
  if ((cli_rc == want)); then
    ok "$what: exit $cli_rc"
  else
    fail "$what: exit $cli_rc, expected $want: $(head -c 2000 "$record.err")"
  fi
}

# One line per entry below $1: path, type, size, mode, owner, mtime cut to $2
# decimals (-1: to the even second below, as a 2-second share keeps it), link
# target.  Modes and owners are left out when $3 / $4 is 0.
# Folder sizes and symlink times say nothing about a copy; SFTP cannot set a
# symlink's time at all.
listing ()
{
  local dir="$1" digits="$2" modes="$3" owners="$4"
  (cd -- "$dir" && find . -mindepth 1 -printf '%P\t%y\t%s\t%m\t%U:%G\t%T@\t%l\n' | LC_ALL=C sort) |
    awk -F '\t' -v OFS='\t' -v digits="$digits" -v modes="$modes" -v owners="$owners" '{
      split($6, t, ".")
      $6 = t[1] (digits > 0 ? "." substr(t[2], 1, digits) : "")
      if (digits < 0) $6 = t[1] - t[1] % 2
      if ($2 == "d") $3 = "-"
      if ($2 == "l") $6 = "-"
      if (!modes && $2 != "l") $4 = "-"
      if (!owners) $5 = "-"
      print
    }'
}

# The tree comparison: bytes, then the listing.
same_tree ()
{
  local what="$1" a="$2" b="$3" digits="$4" modes="$5" owners="$6"
  if ! diff -r --no-dereference "$a" "$b" >"$work/content.diff" 2>&1; then
    head -n 20 "$work/content.diff"
    fail "$what: contents differ"
    return
  fi
  if diff <(listing "$a" "$digits" "$modes" "$owners") \
    <(listing "$b" "$digits" "$modes" "$owners") >"$work/meta.diff"; then
    ok "$what: identical (content, sizes, types$( ((modes)) && echo ", modes")$( ((owners)) && echo ", owners"), mtimes to $( ((digits < 0)) && echo 2 || echo "10^-$digits") s)"
  else
    head -n 20 "$work/meta.diff"
    fail "$what: metadata differs"
  fi
}

no_temporaries ()
{
  local what="$1" dir="$2" left
  left=$(find "$dir" -name '.copyscope-*' | wc -l)
  if ((left == 0)); then
    ok "$what: no temporaries left"
  else
    find "$dir" -name '.copyscope-*' | head -n 5
    fail "$what: $left temporaries left"
  fi
}

# Every regular file under a final name below $2 (a backing folder, read
# directly while the share is down) must be the complete source file from $1.
no_partial_files ()
{
  local src="$1" dst="$2" bad=0 complete=0 temps=0 f rel
  while IFS= read -r -d '' f; do
    rel=${f#"$dst"/}
    case ${rel##*/} in
      .copyscope-*.part) temps=$((temps + 1)); continue ;;
    esac
    if cmp -s "$src/$rel" "$f"; then
      complete=$((complete + 1))
    else
      echo "# not the complete source file: $rel"
      bad=$((bad + 1))
    fi
  done < <(find "$dst" -type f -print0)
  if ((bad == 0)); then
    ok "after the fault: $complete files complete under final names, $temps temporaries, none partial"
  else
    fail "after the fault: $bad files under final names are not complete"
  fi
}

make_tree ()
{
  local dir="$1" i
  "$cli" generate small "$dir" --scale 0.01 --seed 3 >/dev/null
  mkdir -p "$dir/sub/deeper" "$dir/empty" "$dir/modes"
  for i in $(seq 12); do
    head -c $((i * 4099)) /dev/urandom >"$dir/sub/file$i"
  done
  head -c 3000000 /dev/urandom >"$dir/sub/deeper/large.bin"
  : >"$dir/zero"
  printf 'text with a newline\n' >"$dir/sub/deeper/note.txt"
  printf 'x' >"$dir/modes/private"
  printf 'x' >"$dir/modes/script"
  printf 'x' >"$dir/modes/readonly"
  chmod 0600 "$dir/modes/private"
  chmod 0755 "$dir/modes/script"
  chmod 0444 "$dir/modes/readonly"
  chmod 0750 "$dir/modes"
  # SFTP sets a link's times through the link, onto its target: on sshnas a
  # link to a file in the tree would move that file's mtime (a known
  # limitation of sshfs, see README.md).  A dangling link shows the rest.
  ln -s does-not-exist "$dir/dangling"
  if [[ $kind == labnas ]]; then
    ln -s sub/file3 "$dir/link"
  fi
  # Times with nanoseconds, and one a share rounding to seconds would move.
  touch -d '2021-06-01 12:34:56.123456789' "$dir/sub/file4"
  touch -d '2020-02-29 23:59:59.999999999' "$dir/sub/file5"
  touch -d '2019-01-01 00:00:00.5' "$dir/zero"
  if ((EUID == 0)); then
    chown 1234:1235 "$dir/sub/file6" "$dir/modes/script"
  fi
  # Folder times last, after their contents.
  touch -d '2022-03-04 05:06:07.891011121' "$dir/sub/deeper" "$dir/empty"
}

[[ -z ${LABNAS_SKIP:-} ]] || skip "$LABNAS_SKIP"
command -v python3 >/dev/null || skip "python3 is missing (reads the JSON run records)"
[[ -x $cli ]] || { echo "FAIL: $kind: copyscope-cli not found: $cli"; exit 1; }

work=$(mktemp -d)
chmod 755 "$work"
mkdir "$work/backing"
make_tree "$work/src"
# Files and symlinks: what the run record counts as files.
nfiles=$(find "$work/src" ! -type d | wc -l)
nregular=$(find "$work/src" -type f | wc -l)
root=0
((EUID == 0)) && root=1

# labnas keeps nanoseconds and, as root, owners; SFTP (v3) keeps whole
# seconds, and sshd logged in as root sets owners too.
digits=9
[[ $kind == sshnas ]] && digits=0

if [[ $kind == labnas ]]; then
  start_share --latency-us 1000 --bandwidth-mbps 110
else
  start_share
fi
ok "mounted on $mnt"

# ---- a plain copy: the fast paths are not there, the fallback is right ------

if [[ $kind == labnas ]]; then
  "$share" set "$mnt" reset-counters >/dev/null
fi
copy "$work/r1.json" --threads 8 "$work/src" "$mnt"
expect_rc "copy onto the share" 0 "$work/r1.json"
same_tree "copy onto the share" "$work/src" "$mnt/src" "$digits" 1 "$root"
# The staging folders sit next to the copy, in the folder it was copied into.
no_temporaries "copy onto the share" "$mnt"
if [[ $kind == labnas ]]; then
  # Small files in small folders are published from the staging folders by
  # hard links: with temporaries beside them, RENAME_NOREPLACE needs none.
  links=$("$share" status "$mnt" | sed -n 's/^requests\.link=//p')
  if ((${links:-0} > 0)); then
    ok "staged: ${links} files published by hard link from the staging folders"
  else
    fail "staged: no hard links; the temporaries were not staged on the share"
  fi
fi
# sshfs cannot set a link's times: one note for the run, not one per link.
notes=$(json "$work/r1.json" '[e["operation"] for e in d["errors"]]')
if [[ $kind == labnas && $notes == "[]" ]]; then
  ok "nothing reported"
elif [[ $kind == sshnas && $notes == "['set link times']" ]]; then
  ok "link times not kept: reported once"
else
  fail "reported: $(json "$work/r1.json" '[(e["path"], e["operation"], e["message"]) for e in d["errors"][:5]]')"
fi

# What the kernel answered for the fast paths, when strace is there to ask.
if command -v strace >/dev/null; then
  strace -f -qq -e trace=copy_file_range,ioctl -o "$work/fast.trace" \
    "$cli" copy --no-history --quiet --threads 2 "$work/src/sub" "$mnt/traced" || true
  cfr=$(grep -c 'copy_file_range(.*= -1 E' "$work/fast.trace" || true)
  clone=$(grep -c 'ioctl(.*FICLONE.*= -1 E' "$work/fast.trace" || true)
  if grep -q 'copy_file_range(.*= [1-9]' "$work/fast.trace"; then
    fail "copy_file_range succeeded on the share; the fallback was not exercised"
  else
    ok "copy_file_range refused ($cfr calls, $(grep -o 'copy_file_range(.*= -1 E[A-Z]*' "$work/fast.trace" | grep -o 'E[A-Z]*$' | sort -u | tr '\n' ' ')), reflink refused ($clone calls)"
  fi
  same_tree "copy after refused fast paths" "$work/src/sub" "$mnt/traced" "$digits" 1 "$root"
fi

# ---- a rerun skips everything -------------------------------------------------

copy "$work/r2.json" --threads 8 "$work/src" "$mnt"
expect_rc "rerun" 0 "$work/r2.json"
skipped=$(json "$work/r2.json" 'd["totals"]["skipped"]["files"]')
copied=$(json "$work/r2.json" 'd["totals"]["copied"]["files"]')
if ((skipped == nfiles && copied == 0)); then
  ok "rerun skipped all $nfiles files"
else
  fail "rerun: $skipped of $nfiles skipped, $copied copied again"
fi

# ---- --durable: every file and folder flushed before it is published --------

if [[ $kind == labnas ]]; then
  "$share" set "$mnt" reset-counters >/dev/null
fi
copy "$work/r3.json" --threads 8 --durable "$work/src" "$mnt/durable"
expect_rc "--durable copy" 0 "$work/r3.json"
same_tree "--durable copy" "$work/src" "$mnt/durable" "$digits" 1 "$root"
if [[ $kind == labnas ]]; then
  fsyncs=$("$share" status "$mnt" | sed -n 's/^requests\.fsync=//p')
  if ((${fsyncs:-0} >= nregular)); then
    ok "--durable: ${fsyncs} fsync requests for $nregular regular files"
  else
    fail "--durable: ${fsyncs:-0} fsync requests for $nregular regular files"
  fi

  # A share whose fsync fails: nothing may be published.
  "$share" fault "$mnt" fsync-fail >/dev/null
  copy "$work/r4.json" --threads 4 --retries 0 --durable "$work/src/sub" "$mnt/fsync-fail"
  "$share" fault "$mnt" clear >/dev/null
  if ((cli_rc == 1 || cli_rc == 3)); then
    ok "--durable with failing fsync: exit $cli_rc"
  else
    fail "--durable with failing fsync: exit $cli_rc, expected 1 or 3"
  fi
  published=$(find "$mnt/fsync-fail" -type f ! -name '.copyscope-*' 2>/dev/null | wc -l)
  if ((published == 0)); then
    ok "--durable with failing fsync: no file published"
  else
    fail "--durable with failing fsync: $published files published"
  fi
  no_temporaries "--durable with failing fsync" "$mnt"
fi

# ---- the share goes away in the middle of a copy ------------------------------

"$cli" generate small "$work/vsrc" --scale 0.05 --seed 4 >/dev/null
if [[ $kind == labnas ]]; then
  # Slow enough that the copy is surely half-way when the share vanishes.
  "$share" set "$mnt" bandwidth-mbps=4 >/dev/null
fi
mkdir "$mnt/v"
t_start=$(ms_now)
# At most 300 files a second, so the 1,000 files take over 3 s on any share:
# unslowed, sshfs took them all within the 1.2 s before the fault (CI run).
"$cli" copy --no-history --quiet --threads 4 --max-files 300/s --json "$work/v1.json" "$work/vsrc" "$mnt/v" \
  2>"$work/v1.err" &
copier=$!
sleep 1.2
t_fault=$(ms_now)
if [[ $kind == labnas ]]; then
  "$share" fault "$mnt" vanish >/dev/null
  how="the vanish fault"
else
  # The FUSE daemon dies: every request now fails with ENOTCONN.
  state=$(awk -v m="$mnt" '$5 == m { for (i = 7; i <= NF; i++) if ($i == "-") print $(i + 2) }' \
    /proc/self/mountinfo)
  kill -KILL "$(cat "${state#sshnas:}/sshfs.pid")"
  how="sshfs killed"
fi
v_rc=0
if timeout 30 tail --pid="$copier" -f /dev/null; then
  wait "$copier" || v_rc=$?
else
  kill -KILL "$copier" 2>/dev/null || true
  v_rc=124
fi
t_end=$(ms_now)
echo "# copy started $((t_fault - t_start)) ms before $how, exited $((t_end - t_fault)) ms after it"
if ((v_rc == 3)); then
  ok "share gone mid-copy ($how): exit 3"
else
  fail "share gone mid-copy ($how): exit $v_rc, expected 3: $(head -c 2000 "$work/v1.err")"
fi
if ((t_end - t_fault < 5000)); then
  ok "stopped $((t_end - t_fault)) ms after the share went away"
else
  fail "took $((t_end - t_fault)) ms to stop after the share went away"
fi
if [[ -s $work/v1.json ]]; then
  n=$(json "$work/v1.json" 'len(d["errors"])')
  msg=$(json "$work/v1.json" 'd["errors"][0]["message"] if d["errors"] else ""')
  if ((n == 1)); then
    ok "one error reported: $msg"
  else
    fail "$n errors reported, expected one: $(json "$work/v1.json" '[(e["operation"], e["message"]) for e in d["errors"][:5]]')"
  fi
  done_files=$(json "$work/v1.json" 'd["totals"]["copied"]["files"]')
  if ((done_files < $(find "$work/vsrc" -type f | wc -l))); then
    ok "the fault came mid-copy ($done_files files were copied before it)"
  else
    fail "the copy finished before the fault; the test proves nothing"
  fi
else
  fail "no JSON run record after the share went away"
fi
no_partial_files "$work/vsrc" "$work/backing/v/vsrc"

# Back again: a clear on labnas, a fresh mount on sshnas.
if [[ $kind == labnas ]]; then
  "$share" fault "$mnt" clear >/dev/null
  "$share" set "$mnt" bandwidth-mbps=110 >/dev/null
else
  stop_share
  start_share
fi
copy "$work/v2.json" --threads 4 "$work/vsrc" "$mnt/v"
expect_rc "rerun after the share came back" 0 "$work/v2.json"
same_tree "rerun after the share came back" "$work/vsrc" "$mnt/v/vsrc" "$digits" 1 "$root"
no_temporaries "rerun after the share came back" "$mnt/v"
stop_share

# ---- labnas with a share's quirks: no RENAME_NOREPLACE, 2-second timestamps
# (FAT-like, rounded down), no owners

if [[ $kind == labnas ]]; then
  rm -rf -- "$work/backing"
  mkdir "$work/backing"
  start_share --latency-us 1000 --bandwidth-mbps 110 \
    -o no_rename_noreplace -o time_granularity_ns=2000000000 -o no_chown
  ok "remounted with no_rename_noreplace, time_granularity_ns=2000000000, no_chown"

  copy "$work/q1.json" --threads 8 "$work/src" "$mnt"
  expect_rc "copy onto the quirky share" 0 "$work/q1.json"
  same_tree "copy onto the quirky share" "$work/src" "$mnt/src" -1 1 0
  no_temporaries "copy onto the quirky share" "$mnt"
  if ((root)); then
    n=$(json "$work/q1.json" 'len(d["errors"])')
    op=$(json "$work/q1.json" 'd["errors"][0]["operation"] if d["errors"] else ""')
    if ((n == 1)) && [[ $op == chown ]]; then
      ok "owners not kept: reported once ($(json "$work/q1.json" 'd["errors"][0]["message"]'))"
    else
      fail "owners not kept: $n errors reported, expected one chown note: $(json "$work/q1.json" '[(e["path"], e["operation"]) for e in d["errors"][:5]]')"
    fi
    failed=$(json "$work/q1.json" 'd["totals"]["failed"]["files"]')
    if ((failed == 0)); then ok "owners not kept: no file failed"; else fail "owners not kept: $failed files failed"; fi
  fi

  copy "$work/q2.json" --threads 8 "$work/src" "$mnt"
  expect_rc "rerun on 2-second timestamps" 0 "$work/q2.json"
  skipped=$(json "$work/q2.json" 'd["totals"]["skipped"]["files"]')
  copied=$(json "$work/q2.json" 'd["totals"]["copied"]["files"]')
  if ((skipped == nfiles && copied == 0)); then
    ok "2-second timestamps: rerun skipped all $nfiles files"
  else
    fail "2-second timestamps: rerun skipped $skipped of $nfiles, copied $copied again"
  fi

  # The policy (newer, the default) keeps a newer destination file and
  # replaces an older one.
  mkdir -p "$mnt/keep/sub"
  printf 'newer, keep me' >"$mnt/keep/sub/file7"
  touch -d '2030-01-01 00:00:00' "$mnt/keep/sub/file7"
  printf 'older, replace me' >"$mnt/keep/sub/file8"
  touch -d '2001-01-01 00:00:00' "$mnt/keep/sub/file8"
  copy "$work/q3.json" --threads 8 "$work/src/sub" "$mnt/keep"
  expect_rc "copy over existing files" 0 "$work/q3.json"
  if [[ $(cat "$mnt/keep/sub/file7") == 'newer, keep me' ]]; then
    ok "without RENAME_NOREPLACE: the newer destination file was kept"
  else
    fail "without RENAME_NOREPLACE: the newer destination file was clobbered"
  fi
  if cmp -s "$work/src/sub/file8" "$mnt/keep/sub/file8"; then
    ok "without RENAME_NOREPLACE: the older destination file was replaced"
  else
    fail "without RENAME_NOREPLACE: the older destination file was not replaced"
  fi
  no_temporaries "copy over existing files" "$mnt/keep"

  # Another program creates the file while it is being copied: the copy must
  # not clobber it, even without RENAME_NOREPLACE.
  head -c 2000000 /dev/urandom >"$work/race.bin"
  "$share" set "$mnt" bandwidth-mbps=1 >/dev/null
  "$cli" copy --no-history --quiet --threads 1 --json "$work/q4.json" "$work/race.bin" \
    "$mnt/race.bin" 2>"$work/q4.err" &
  copier=$!
  sleep 0.7
  if printf 'created meanwhile' >"$mnt/race.bin"; then
    race_rc=0
    wait "$copier" || race_rc=$?
    "$share" set "$mnt" bandwidth-mbps=110 >/dev/null
    if [[ $(cat "$mnt/race.bin") == 'created meanwhile' ]]; then
      ok "without RENAME_NOREPLACE: a file created during the copy was not clobbered (exit $race_rc)"
    else
      fail "without RENAME_NOREPLACE: a file created during the copy was clobbered"
    fi
    if ((race_rc == 1)); then
      ok "the conflict is reported: $(json "$work/q4.json" '[e["message"] for e in d["errors"] if e["operation"] != "chown"]')"
    else
      fail "a file created during the copy: exit $race_rc, expected 1"
    fi
  else
    wait "$copier" || true
    fail "could not create the competing file"
  fi
  no_temporaries "a file created during the copy" "$mnt"
  stop_share
fi

if awk -v m="$work/mnt" '$5 == m { found = 1 } END { exit found }' /proc/self/mountinfo; then
  ok "nothing left mounted"
else
  fail "$work/mnt is still mounted"
fi

if ((failures > 0)); then
  echo "test-netfs $kind: $failures check(s) failed"
  exit 1
fi
echo "test-netfs $kind: all checks passed"

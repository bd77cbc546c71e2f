#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test-gvfs-kill.sh: copies killed on their way through GVfs's FUSE path, the
# route a copy to a share GNOME Files mounted takes when Copyscope cannot log
# in to the server itself (no password given, none in the keyring: the route
# "through GVfs's mount"). Each copy is killed with SIGKILL once a part of
# its files is published, then every file under a final name is fetched from
# the server with smbclient, on a connection of its own (not through the
# mount, whose page cache can show what never reached the server), at once
# and again a few seconds later: each must be the source's file byte for
# byte, or a claim (its text, or empty: killed between the create and the
# text). A rerun is killed again in the same folder, checked the same way,
# and a last rerun must complete the tree with nothing of ours left.
# GVFS_KILLS (default 5) folders, two kills each.
#
# Exit 77 with a SKIP line when this machine cannot run smbd, GVfs or FUSE.

smbtest_name=gvfs-kill
# shellcheck source=smbtest-lib.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/smbtest-lib.sh"

# Runs a copy through the mount with no password anywhere; sets rc and keeps
# the output.
run_copy ()
{
  rc=0
  env -u COPYSCOPE_SMB_PASSWORD "$cli" copy --no-history "$@" >"$work/out" 2>&1 || rc=$?
}

route_line () { sed -n 's/^ *Route : //p' "$work/out"; }
files_line () { awk '$1 == "Files" { print $3, $4, $5, $6, $7 }' "$work/out"; }

# Copies $work/src into the mount's folder $1 and kills it once $2 files
# are published there (seen on the server's disk, which is only a clock).
copy_and_kill ()
{
  local name="$1" want="$2" copier n
  env -u COPYSCOPE_SMB_PASSWORD setsid "$cli" copy --no-history --quiet --threads 8 \
    "$work/src" "$mnt/$name" >/dev/null 2>&1 &
  copier=$!
  for _ in $(seq 3000); do
    n=$(find "$work/backing/$name" -type f ! -name '.copyscope-*' 2>/dev/null | wc -l)
    ((n >= want)) && break
    kill -0 "$copier" 2>/dev/null || break
    sleep 0.02
  done
  kill -KILL -- "-$copier" 2>/dev/null
  wait "$copier" 2>/dev/null
}

# The server's files below the share's folder $1, fetched by smbclient into
# $2; checked as smbtest_check_final_names does. $3 names the check.
check_on_server ()
{
  local name="$1" into="$2" what="$3"
  rm -rf -- "$into"
  mkdir -p "$into"
  "$smbnas" client "$mnt" -D "$name" -c "prompt OFF; recurse ON; lcd $into; mget *" \
    >"$work/smbclient.out" 2>&1
  if ! smbtest_check_final_names "$work/src" "$into/src"; then
    fail "$what: a partial file under a final name on the server"
    return 1
  fi
  return 0
}

[[ -z ${LABNAS_SKIP:-} ]] || skip "$LABNAS_SKIP"
[[ -x $cli ]] || { echo "FAIL: gvfs-kill: copyscope-cli not found: $cli"; exit 1; }

smbtest_workdir
mkdir -p "$work/backing" "$work/src/sub"
# Small files in one write each, and larger ones that take several writes
# through FUSE (128 KiB) and through the engine's buffer (1 MiB).
"$cli" generate small "$work/src/small" --scale 0.01 --seed 31 >/dev/null
for i in $(seq 24); do
  head -c $((i * 97 * 1024 + i)) /dev/urandom >"$work/src/sub/mid$i.bin"
done
for i in 1 2 3; do
  head -c $((i * 1536 * 1024 + 3)) /dev/urandom >"$work/src/large$i.bin"
done
total=$(find "$work/src" -type f | wc -l)

smbtest_start "$work/backing"

# No login: the copy must take GVfs's mount, or this tests the other route.
mkdir "$work/backing/route" && chown "$user:" "$work/backing/route"
run_copy --threads 4 "$work/src/sub" "$mnt/route"
if ((rc == 0)) && [[ $(route_line) == "through GVfs's mount"* ]]; then
  ok "with no login the copy goes $(route_line)"
else
  cat "$work/out"
  fail "the copy did not go through GVfs's mount (exit $rc): route “$(route_line)”"
  smbtest_finish
fi

kills=${GVFS_KILLS:-5}
mid=0
before=$failures
for k in $(seq "$kills"); do
  mkdir "$work/backing/kill$k" && chown "$user:" "$work/backing/kill$k"
  # The k-th of kills + 1 parts of the tree, then half way to the end.
  first=$((total * k / (kills + 1)))
  second=$(((first + total) / 2))
  for at in "$first" "$second"; do
    copy_and_kill "kill$k" "$at"
    check_on_server "kill$k" "$work/got" "kill $k at $at of $total" || true
    echo "# kill $k at $at of $total: $last_complete complete, $last_claims claims, $last_temps temporaries"
    ((last_complete < total && last_claims + last_temps > 0)) && mid=$((mid + 1))
    # gvfsd-fuse may still be closing the killed copy's files.
    sleep 3
    check_on_server "kill$k" "$work/got" "kill $k at $at of $total, 3 s later" || true
  done
  run_copy --threads 8 --quiet "$work/src" "$mnt/kill$k"
  if ((rc != 0)); then
    tail -n 5 "$work/out"; fail "the rerun after kill $k: exit $rc"
  elif ! diff -r "$work/src" "$work/backing/kill$k/src" >/dev/null; then
    fail "the rerun after kill $k: the tree differs on the server"
  elif [[ -n $(find "$work/backing/kill$k" -name '.copyscope-*') ]]; then
    find "$work/backing/kill$k" -name '.copyscope-*' | head -n 3
    fail "the rerun after kill $k left temporaries or claims"
  fi
done
if ((failures == before)); then
  ok "$((kills * 2)) kills ($mid mid-copy): no partial file under a final name on the server, every rerun complete"
fi
((mid >= kills)) || fail "only $mid of $((kills * 2)) kills landed mid-copy with claims or temporaries"

"$smbnas" stop "$mnt" >/dev/null
mnt=

smbtest_finish

#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test-smb-resume.sh: a big file copied to smb:// by the engine's own SMB
# backend resumes inside the file. A 64 MiB copy, slowed by --max-rate so a
# kill lands in its middle, is killed with SIGKILL once part of its partial
# is on the server; the rerun says "Resumed … at X of Y", reuses more than
# nothing, reads back what it keeps, and publishes a file byte-equal to the
# source, leaving no partial, journal or lock; no partial is ever seen under
# the final name. A source changed between runs starts over instead; a
# partial whose lock names another host is left alone, the file copied whole.
# Exit 77 with a SKIP line when this machine cannot run smbd.

smbtest_name=smb-resume
# shellcheck source=smbtest-lib.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/smbtest-lib.sh"

[[ -z ${LABNAS_SKIP:-} ]] || skip "$LABNAS_SKIP"
[[ -x $cli ]] || { echo "FAIL: smb-resume: copyscope-cli not found: $cli"; exit 1; }

smbtest_workdir
mkdir -p "$work/backing" "$work/src"
head -c $((64 * 1024 * 1024)) /dev/urandom >"$work/src/big.bin"

smbtest_start "$work/backing"
eval "$("$smbnas" env "$mnt")"
url="smb://$SMBNAS_USER@127.0.0.1:$SMBNAS_PORT/share"
export COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD

# The bytes of the partial in the server's folder $1 (the share's backing
# folder: what the server holds) that its journal proves written: a 80-byte
# header, then 32 bytes per 32 MiB block. The partial itself has its full
# size from the start.
proven_bytes ()
{
  local f size
  for f in "$1"/.copyscope-resume-*.journal; do
    [[ -f $f ]] || continue
    size=$(stat -c %s "$f")
    ((size >= 80)) && { echo $(((size - 80) / 32 * 32 * 1024 * 1024)); return; }
  done
  echo 0
}

# Copies $work/src into $url/$1, kills it with SIGKILL once its journal on
# the server proves $2 bytes; fails if the final name ever holds other bytes.
copy_and_kill ()
{
  local name="$1" at="$2" dst=$work/backing/$1/src copier size=0
  mkdir "$work/backing/$name" && chown "$user:" "$work/backing/$name"
  setsid "$cli" copy --no-history --quiet --threads 2 --max-rate 16M \
    "$work/src" "$url/$name" >/dev/null 2>&1 &
  copier=$!
  for _ in $(seq 3000); do
    size=$(proven_bytes "$dst")
    ((size >= at)) && break
    kill -0 "$copier" 2>/dev/null || break
    # Never a partial under the final name.
    [[ -e $dst/big.bin ]] && ! cmp -s "$work/src/big.bin" "$dst/big.bin" &&
      fail "$name: a partial file under the final name"
    sleep 0.02
  done
  kill -KILL -- "-$copier" 2>/dev/null
  wait "$copier" 2>/dev/null
  killed_at=$(proven_bytes "$dst")
  if [[ -e $dst/big.bin ]]; then
    fail "$name: the killed copy published the file (killed too late, at $size bytes)"
  elif ((killed_at < at)); then
    fail "$name: the journal never proved $at bytes ($killed_at)"
  else
    ok "$name: killed with $killed_at of 67108864 bytes journaled on the share"
  fi
}

# ---- killed, then resumed ---------------------------------------------------
copy_and_kill resume $((32 * 1024 * 1024))
dst=$work/backing/resume/src
rc=0
"$cli" copy --no-history --threads 2 --json "$work/record.json" "$work/src" "$url/resume" \
  >"$work/out" 2>&1 || rc=$?
line=$(grep -E '^ *Resumed : ' "$work/out")
# Sizes come from g_format_size, with a no-break space before the unit.
line=${line//$'\xc2\xa0'/ }
echo "# the resumed run: $(grep -E '^ *(Times|Requests) : ' "$work/out" | tr -s ' ' | tr '\n' ';')"
if ((rc == 0)) && [[ $line =~ big\.bin\ at\ ([0-9.]+\ [KMG]?i?B)\ of ]]; then
  ok "rerun says: ${line# *}"
else
  cat "$work/out"; fail "the rerun (exit $rc) does not say it resumed"
fi
reused=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(int(sum(e.get("value", 0) for e in r.get("events", []) if e.get("kind") == "resume")))
' "$work/record.json" 2>/dev/null)
if [[ $reused =~ ^[0-9]+$ ]] && ((reused > 0 && reused <= killed_at)); then
  ok "the record's resume event reuses $reused bytes (partial held $killed_at)"
else
  fail "the record's resume event: reused '${reused}' bytes (partial held $killed_at)"
fi
if cmp -s "$work/src/big.bin" "$dst/big.bin"; then
  ok "the resumed file on the server is byte-equal to the source"
else
  fail "the resumed file differs from the source"
fi
if [[ -n $(find "$work/backing/resume" -name '.copyscope-*') ]]; then
  find "$work/backing/resume" -name '.copyscope-*'; fail "a partial, journal or lock is left"
else
  ok "no partial, journal or lock left"
fi

# ---- killed, the source changed, then a clean restart -----------------------
copy_and_kill changed $((32 * 1024 * 1024))
dst=$work/backing/changed/src
# Same size, other bytes and time: the journal's source identity no longer holds.
head -c $((64 * 1024 * 1024)) /dev/urandom >"$work/src/big.bin"
rc=0
"$cli" copy --no-history --threads 2 "$work/src" "$url/changed" >"$work/out" 2>&1 || rc=$?
echo "# the restarted run: $(grep -E '^ *(Times|Requests) : ' "$work/out" | tr -s ' ' | tr '\n' ';')"
if ((rc == 0)) && ! grep -q 'Resumed' "$work/out"; then
  ok "changed source: the rerun starts over, no resume"
else
  cat "$work/out"; fail "changed source: exit $rc or it claims a resume"
fi
if cmp -s "$work/src/big.bin" "$dst/big.bin"; then
  ok "changed source: the file on the server is the new source"
else
  fail "changed source: the file on the server is not the new source"
fi
if [[ -n $(find "$work/backing/changed" -name '.copyscope-*') ]]; then
  find "$work/backing/changed" -name '.copyscope-*'; fail "changed source: something of ours is left"
else
  ok "changed source: nothing of ours left"
fi

# ---- killed, its lock then another host's: held, the file copied whole -----
# The stale rule judges only this host's locks: another's counts as held, so
# the rerun keeps off the partial and copies the file whole beside it.
copy_and_kill foreign $((32 * 1024 * 1024))
dst=$work/backing/foreign/src
lock=$(find "$dst" -name '.copyscope-resume-*.lock')
if [[ -n $lock ]]; then
  printf 'copyscope-lock 1\nhost elsewhere.invalid\nboot 0\npidns pid:[0]\npid 1\nstart 1\n' >"$lock"
  rc=0
  "$cli" copy --no-history --threads 2 "$work/src" "$url/foreign" >"$work/out" 2>&1 || rc=$?
  if ((rc == 0)) && ! grep -q 'Resumed' "$work/out" && cmp -s "$work/src/big.bin" "$dst/big.bin"; then
    ok "another host's lock: held, the file copied whole and equal"
  else
    cat "$work/out"; fail "another host's lock: exit $rc, a resume claimed or the file differs"
  fi
  if [[ -f $lock && -n $(find "$dst" -name '.copyscope-resume-*.part') ]]; then
    ok "another host's lock: its partial and lock left alone"
  else
    fail "another host's lock: its partial or lock was removed"
  fi
else
  fail "the killed run left no lock file beside its partial"
fi

smbtest_finish

#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test-smb-full.sh: copyscope-cli speaking SMB itself (smb://) to a lab share
# that fills up. The share lies on the lab's FUSE (smbnas --latency-us 0), whose
# "enospc" fault makes every create, write and mkdir fail as a full disk does;
# smbd answers NT_STATUS_DISK_FULL. A share full before the copy ends it at
# once: exit 3, one line saying so, nothing written. A share that fills up
# mid-copy ends it the same way, and every file under a final name is complete
# or absent; with space again, a rerun completes the tree and leaves none of
# the first run's temporaries or claims behind.
# Exit 77 with a SKIP line when this machine cannot run smbd.

smbtest_name=smb-full
# shellcheck source=smbtest-lib.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/smbtest-lib.sh"

labnas=$here/labnas

# Runs a copy with a record; sets rc and keeps the output.
run_copy ()
{
  rc=0
  COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD "$cli" copy --no-history --quiet \
    --json "$work/record.json" "$@" >"$work/out" 2>&1 || rc=$?
}

# The record's "files" counts: copied skipped failed.
record_files ()
{
  python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))["totals"]
print(t["copied"]["files"], t["skipped"]["files"], t["failed"]["files"])' "$work/record.json" 2>/dev/null
}

[[ -z ${LABNAS_SKIP:-} ]] || skip "$LABNAS_SKIP"
[[ -x $cli ]] || { echo "FAIL: smb-full: copyscope-cli not found: $cli"; exit 1; }

smbtest_workdir
mkdir -p "$work/backing"
"$cli" generate small "$work/src" --scale 0.02 --seed 31 >/dev/null
head -c 3000000 /dev/urandom >"$work/src/big.bin"
total=$(find "$work/src" -type f | wc -l)

smbtest_start "$work/backing" --latency-us 0
eval "$("$smbnas" env "$mnt")"
share=$(cat "$state/latency")
url="smb://$SMBNAS_USER@127.0.0.1:$SMBNAS_PORT/share"

# ---- full before the copy: exit 3, one line, nothing written ------------------
"$labnas" fault "$share" enospc >/dev/null || fail "labnas fault enospc"
run_copy --threads 8 "$work/src" "$url/before"
if ((rc == 3)) && (($(wc -l <"$work/out") == 1)) && grep -q 'destination is full' "$work/out" &&
  [[ ! -e $work/backing/before ]]; then
  ok "a full share: exit 3, one line: $(cat "$work/out")"
else
  cat "$work/out"; fail "a full share (exit $rc, $(wc -l <"$work/out") lines)"
fi
"$labnas" fault "$share" clear >/dev/null || fail "labnas fault clear"

# ---- full in the middle: exit 3, one line, final names complete ------------
# Made as the lab's user, so the copy and its rerun both go into it.
mkdir "$work/backing/mid" && chown "$user:" "$work/backing/mid"
dst=$work/backing/mid/src
COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD "$cli" copy --no-history --quiet --threads 8 --max-rate 2M \
  "$work/src" "$url/mid" >"$work/mid.out" 2>&1 &
copier=$!
for _ in $(seq 1500); do
  (($(find "$dst" -type f ! -name '.copyscope-*' 2>/dev/null | wc -l) >= total / 4)) && break
  kill -0 "$copier" 2>/dev/null || break
  sleep 0.02
done
"$labnas" fault "$share" enospc >/dev/null || fail "labnas fault enospc"
mid_rc=0
wait "$copier" || mid_rc=$?
if ((mid_rc == 3)) && (($(wc -l <"$work/mid.out") == 1)) && grep -q 'destination is full' "$work/mid.out"; then
  ok "full mid-copy: exit 3, one line: $(cat "$work/mid.out")"
else
  head -n 5 "$work/mid.out"
  fail "full mid-copy: exit $mid_rc, $(wc -l <"$work/mid.out") lines"
fi
smbtest_check_final_names "$work/src" "$dst" || fail "full mid-copy: a partial file under a final name"
echo "# full at about a quarter of $total: $last_complete complete, $last_claims claims, $last_temps temporaries"
if ((last_complete > 0 && last_complete < total)); then
  ok "the share filled up mid-copy ($last_complete of $total files complete)"
else
  fail "the share did not fill up mid-copy: $last_complete of $total files complete"
fi

# ---- space again: the rerun completes the tree --------------------------------
"$labnas" fault "$share" clear >/dev/null || fail "labnas fault clear"
run_copy --threads 8 "$work/src" "$url/mid"
read -r copied skipped failed <<<"$(record_files)"
if ((rc == 0)) && diff -r "$work/src" "$dst" >/dev/null; then
  ok "the rerun completes the tree: diff -r equal"
else
  cat "$work/out"; fail "the rerun (exit $rc) or its tree differs"
fi
if ((copied + skipped == total && failed == 0 && copied == total - last_complete)); then
  ok "the rerun copied the $copied missing files and skipped the $skipped complete ones"
else
  fail "the rerun's counts: copied $copied, skipped $skipped, failed $failed of $total"
fi
if [[ -n $(find "$work/backing" -name '.copyscope-*') ]]; then
  find "$work/backing" -name '.copyscope-*' | head -n 3
  fail "temporaries or claims left after the rerun"
else
  ok "no temporary or claim left after the rerun"
fi

"$smbnas" stop "$mnt" || fail "smbnas stop"
mnt=

smbtest_finish

#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test-smb-rename.sh: a copy onto the lab Samba spoken to directly survives a
# server that fails, once, to remove a name inside the rename that publishes
# a file. Shares without a rename that refuses to replace get each file by a
# claim: an exclusive create of the final name, then the finished temporary
# renamed over it, which libsmbclient does as a rename, a delete of the
# claim and the rename again, and answers EEXIST when the delete fails,
# whatever failed. The lab's smbd did that when its processes panicked
# while closing such a delete ("Could not store share mode data"; 2 to 6
# files a copy of 1,000 at 8 threads with 1 ms per request, until the lab's
# lock folder was opened to them); a real server's delete can fail too.
# Here the share (the latency FUSE under Samba, its unlink-fail switch)
# refuses the delete of one claim once, which is the same answer every
# time. The copy must be whole, with nothing of ours left. Exit 77 with a
# SKIP line when this machine cannot run smbd.

smbtest_name=smb-rename
# shellcheck source=smbtest-lib.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/smbtest-lib.sh"

labnas=$here/labnas

[[ -z ${LABNAS_SKIP:-} ]] || skip "$LABNAS_SKIP"
[[ -x $cli ]] || { echo "FAIL: smb-rename: copyscope-cli not found: $cli"; exit 1; }

smbtest_workdir
mkdir -p "$work/backing/copies"
"$cli" generate small "$work/src" --scale 0.002 --seed 28 >/dev/null
total=$(find "$work/src" -type f | wc -l)
victim=$(cd "$work/src" && find . -type f -printf '%P\n' | sort | sed -n 8p)

# A latency of its own puts the lab's FUSE under the share, with its switches.
smbtest_start "$work/backing" --latency-us 100
eval "$("$smbnas" env "$mnt")"
chown "$user:" "$SMBNAS_SHARE/copies"
url="smb://$SMBNAS_USER@127.0.0.1:$SMBNAS_PORT/share/copies"
fuse=$(cat "$state/latency")

"$labnas" fault "$fuse" "unlink-fail=/copies/c1/$victim:1" >/dev/null || fail "labnas fault unlink-fail"
rc=0
COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD "$cli" copy --no-history --threads 4 \
  --json "$work/record.json" "$work/src" "$url/c1" >"$work/out" 2>&1 || rc=$?
injected=$("$labnas" status "$fuse" | sed -n 's/^faults-injected=//p')
failed=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print("; ".join("%s: %s %s" % (e["path"].rsplit("/", 1)[-1], e["operation"], e["message"])
                for e in d["errors"] if e["attempts"] > 0))' "$work/record.json" 2>/dev/null)
if ((injected != 1)); then
  fail "the share refused ${injected:-no} deletes, not 1: the rename over a claim did not meet it"
elif ((rc == 0)) && [[ -z $failed ]] && diff -r "$work/src" "$SMBNAS_SHARE/copies/c1" >/dev/null; then
  ok "the delete of $victim's claim refused once: all $total files whole on the server"
else
  tail -n 12 "$work/out"
  fail "exit $rc, failed: ${failed:-none}"
fi
if [[ -n $(find "$SMBNAS_SHARE/copies" -name '.copyscope-*' 2>/dev/null) ]]; then
  fail "a temporary or a claim is left on the server"
fi

"$smbnas" stop "$mnt" || fail "smbnas stop"
mnt=

smbtest_finish

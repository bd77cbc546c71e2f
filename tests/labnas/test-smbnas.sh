#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test-smbnas.sh: the SMB lab itself.  Starts a private Samba reached through
# GVfs, copies a tree onto it and back, checks that a second client sees the
# same share, that parallel connections do not make smbd panic, that the
# options do what they say (a case-sensitive share, the vfs objects NAS boxes
# use, a per-request latency) and that stop leaves nothing behind: no
# process, no mount, no lab user, no state folder.
# Exit 77 with a SKIP line when this machine cannot run smbd, GVfs or FUSE.

smbtest_name=smbnas
# shellcheck source=smbtest-lib.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/smbtest-lib.sh"

ms_now ()
{
  echo $(($(date +%s%N) / 1000000))
}

# Stops the lab and checks that nothing of it is left.
stop_and_check ()
{
  local what="$1" left
  local -a pids
  read -ra pids < <(cat "$state"/{smbd,dbus,gvfsd,fuse}.pid 2>/dev/null | tr '\n' ' ')
  if ! "$smbnas" stop "$mnt"; then
    fail "$what: stop failed"
  fi
  mnt=
  left=$(grep -lzxF "SMBNAS_STATE=$state" /proc/[0-9]*/environ 2>/dev/null | wc -l)
  # A process that has exited but is not reaped yet (a zombie) is gone.
  for pid in "${pids[@]}"; do
    if [[ -r /proc/$pid/stat ]] && ! awk '{ exit $3 == "Z" }' "/proc/$pid/stat"; then
      :
    elif [[ -r /proc/$pid/stat ]]; then
      echo "# left: $pid $(cat "/proc/$pid/comm" 2>/dev/null)"
      left=$((left + 1))
    fi
  done
  if ((left == 0)); then ok "$what: no process left"; else fail "$what: $left processes left"; fi
  if grep -q " $state/" /proc/self/mountinfo; then
    fail "$what: something is still mounted in the lab"
  else
    ok "$what: nothing left mounted"
  fi
  if getent passwd "$user" >/dev/null; then fail "$what: the lab user $user is left"; else ok "$what: the lab user is gone"; fi
  if [[ -e $state ]]; then fail "$what: the state folder is left"; else ok "$what: the state folder is gone"; fi
}

[[ -z ${LABNAS_SKIP:-} ]] || skip "$LABNAS_SKIP"

smbtest_workdir
mkdir "$work/backing" "$work/src" "$work/src/sub"
for i in $(seq 20); do
  head -c $((i * 997)) /dev/urandom >"$work/src/sub/file$i"
done
head -c 3000000 /dev/urandom >"$work/src/big.bin"
: >"$work/src/zero"

# ---- the default share: case-insensitive, as NAS boxes ship ----------------

t0=$(ms_now)
smbtest_start "$work/backing"
ok "started in $(($(ms_now) - t0)) ms: $mnt"
if grep -qF " $state/run/gvfs " /proc/self/mountinfo &&
  awk -v m="$state/run/gvfs" '$5 == m && / - fuse\.gvfsd-fuse / { found = 1 } END { exit !found }' \
    /proc/self/mountinfo; then
  ok "GVfs's FUSE path is mounted (fuse.gvfsd-fuse)"
else
  fail "no gvfsd-fuse mount at $state/run/gvfs"
fi

if cp -r "$work/src" "$mnt/tree" && diff -r "$work/src" "$mnt/tree"; then
  ok "cp -r onto the share, diff -r"
else
  fail "cp -r onto the share differs"
fi
if diff -r "$work/src" "$work/backing/tree" >/dev/null; then
  ok "the backing folder holds the same tree"
else
  fail "the backing folder differs"
fi
owner=$(stat -c %U "$work/backing/tree/big.bin")
if [[ $owner == "$user" ]]; then
  ok "files on the server belong to the lab user ($user)"
else
  fail "files on the server belong to $owner, not the lab user $user"
fi

# A second client on its own connection sees the same share.
printf 'from smbclient\n' >"$work/put.txt"
if "$smbnas" client "$mnt" -c "put $work/put.txt tree/put.txt" >"$work/client.log" 2>&1 &&
  [[ $(cat "$mnt/tree/put.txt" 2>/dev/null) == 'from smbclient' ]]; then
  ok "smbclient puts a file the FUSE path shows"
else
  cat "$work/client.log"
  fail "smbclient put is not seen through GVfs"
fi
if "$smbnas" client "$mnt" -c 'ls tree/big.bin' 2>/dev/null | grep -q 'big.bin'; then
  ok "smbclient lists a file written through GVfs"
else
  fail "smbclient does not see a file written through GVfs"
fi

# Several connections in one folder at once, as a parallel copier makes them:
# a waiting smbd process (running as the lab user) checks that the holder of
# a share-mode lock lives by reading the lock directory's msg.lock; when it
# cannot, it takes the lock over and smbd panics ("Could not unlock share
# mode"), dropping connections mid-copy.
smbd_pid=$(cat "$state/smbd.pid")
if setpriv --reuid="$user" --regid="$user" --clear-groups \
  cat "$state/lock/msg.lock/$smbd_pid" >/dev/null 2>&1; then
  ok "the lab user reads smbd's msg.lock entry, as Samba's lock directory allows"
else
  fail "the lab user cannot read $state/lock/msg.lock/$smbd_pid"
fi
head -c 12288 /dev/urandom >"$work/f12k"
mkdir "$mnt/race"
panics_before=$(grep -c '^PANIC' "$state/smbd.log")
for c in $(seq 8); do
  cmds="cd race"
  for j in $(seq 40); do cmds+="; put $work/f12k c$c-$j; ls"; done
  "$smbnas" client "$mnt" -c "$cmds" >"$work/race$c.log" 2>&1 &
done
wait
panics=$(($(grep -c '^PANIC' "$state/smbd.log") - panics_before))
raced=$(find "$work/backing/race" -type f | wc -l)
if ((panics == 0 && raced == 320)); then
  ok "8 smbclients, 40 puts each into one folder: 320 files, smbd never panicked"
else
  fail "8 smbclients into one folder: $raced of 320 files, $panics smbd panics"
fi

"$smbnas" profile "$mnt" >"$work/before"
cat "$mnt/tree/sub/file3" >/dev/null
touch "$mnt/tree/new-file"
"$smbnas" profile "$mnt" "$work/before" >"$work/after"
creates=$(sed -n 's/^smb2\.create=//p' "$work/after")
if ((${creates:-0} > 0)); then
  ok "smbd counts requests: $(tr '\n' ' ' <"$work/after")"
else
  fail "no SMB2 requests counted: $(tr '\n' ' ' <"$work/after")"
fi

echo upper >"$mnt/tree/Case.txt"
if [[ $(cat "$mnt/tree/case.txt" 2>/dev/null) == upper ]]; then
  ok "case-insensitive by default: case.txt opens Case.txt"
else
  fail "the default share is case-sensitive"
fi
stop_and_check "default share"
if [[ $(stat -c %u "$work/backing/tree/big.bin") == "$(id -u)" ]]; then
  ok "the share's files went back to the folder's owner"
else
  fail "the share's files still belong to uid $(stat -c %u "$work/backing/tree/big.bin")"
fi

# ---- a case-sensitive share, with the vfs objects NAS boxes use ------------

rm -rf -- "$work/backing"
mkdir "$work/backing"
smbtest_start "$work/backing" --case-sensitive --vfs "catia fruit streams_xattr" \
  --set "fruit:metadata = stream"
ok "started with --case-sensitive --vfs 'catia fruit streams_xattr'"
echo upper >"$mnt/Case.txt"
echo lower >"$mnt/case.txt"
if [[ $(cat "$mnt/Case.txt") == upper && $(cat "$mnt/case.txt") == lower ]] &&
  [[ -f $work/backing/Case.txt && -f $work/backing/case.txt ]]; then
  ok "case-sensitive: Case.txt and case.txt are two files"
else
  fail "the case-sensitive share folds names"
fi
if cp -r "$work/src" "$mnt/tree" && diff -r "$work/src" "$mnt/tree"; then
  ok "cp -r through catia, fruit and streams_xattr, diff -r"
else
  fail "cp -r through catia, fruit and streams_xattr differs"
fi
stop_and_check "case-sensitive share"

# ---- a per-request latency under the share ----------------------------------

if [[ -x ${CSNASFS:-} ]]; then
  rm -rf -- "$work/backing"
  mkdir "$work/backing"
  smbtest_start "$work/backing"
  t0=$(ms_now)
  for i in $(seq 20); do echo x >"$mnt/fast$i"; done
  fast=$(($(ms_now) - t0))
  stop_and_check "share without latency"

  smbtest_start "$work/backing" --latency-us 5000
  t0=$(ms_now)
  for i in $(seq 20); do echo x >"$mnt/slow$i"; done
  slow=$(($(ms_now) - t0))
  echo "# 20 small files: ${fast} ms without latency, ${slow} ms with 5 ms per request under the share"
  if ((slow >= 20 * 5 && slow > fast)); then
    ok "--latency-us 5000: 20 files took ${slow} ms (${fast} ms without)"
  else
    fail "--latency-us 5000: 20 files took ${slow} ms, ${fast} ms without"
  fi
  if diff <(cd "$work/backing" && ls) <(cd "$mnt" && ls) >/dev/null; then
    ok "the share under latency shows the backing folder"
  else
    fail "the share under latency differs from its backing folder"
  fi
  stop_and_check "share with latency"
else
  fail "--latency-us not checked: csnasfs is not built (CSNASFS unset)"
fi

smbtest_finish

#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test-move-smb.sh: copyscope-cli move onto the NAS a GNOME desktop has, Samba
# through GVfs's FUSE path (tests/labnas/smbnas).  A move across filesystems
# copies each file and removes its source only once the copy is published, so
# whatever happens, every file is in the source, on the share, or both:
#
#   - watched while it runs: each source file seen gone is already on the
#     server under its final name, whole;
#   - kill -9 at three moments, each followed by the same check (a file gone
#     from the source is whole on the server; under a final name on the
#     server stands the whole file or a claim, never a partial one), then a
#     rerun that finishes: the source is gone, the tree on the server and
#     read back through the mount equals the original, nothing of ours is
#     left.
#
# It holds whichever way the engine reaches the share: through the FUSE path,
# or natively through libsmbclient for a GVfs SMB path.
#
# Exit 77 with a SKIP line when this machine cannot run smbd, GVfs or FUSE.

smbtest_name=move-smbnas
smbtest_tag=move-smbnas
# shellcheck source=smbtest-lib.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/smbtest-lib.sh"

# Files of ours left anywhere under $1: temporaries, claims, staging folders.
ours_left ()
{
  find "$1" -name '.copyscope-*' | wc -l
}

# Every file of the original $1 is in the source $2 or the destination $3
# (or both), identical to the original; prints what breaks that, and a count
# of each place on its last line.  With --watch PID: checks again and again
# while PID runs, each file once it is gone from the source.
check_places ()
{
  python3 - "$@" <<'EOF'
import filecmp, os, sys, time

args = sys.argv[1:]
pid = None
if args[0] == '--watch':
    pid = int(args[1])
    args = args[2:]
ref, src, dst = args

files = []
for top, dirs, names in os.walk(ref):
    files += [os.path.relpath(os.path.join(top, n), ref) for n in names]

def same(a, b):
    try:
        return filecmp.cmp(a, b, shallow=False)
    except OSError:
        return False

def running():
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie has exited: its parent has not reaped it yet.
    with open(f'/proc/{pid}/stat') as f:
        return f.read().rsplit(')', 1)[1].split()[0] != 'Z'

bad = []
if pid is not None:
    # The source is looked at before the server: a file gone from the source
    # must already be published when it is looked for there.
    pending = set(files)
    seen_gone = 0
    while pending:
        alive = running()
        for rel in list(pending):
            if os.path.lexists(os.path.join(src, rel)):
                continue
            pending.discard(rel)
            seen_gone += 1
            if not same(os.path.join(ref, rel), os.path.join(dst, rel)):
                bad.append(f'{rel}: gone from the source, not whole on the server')
        if not alive:
            break
        time.sleep(0.02)
    for line in bad[:10]:
        print(line)
    print(f'{seen_gone} {len(pending)} {len(bad)}')
    sys.exit(0)

# A claim on a final name (the copy's placeholder text, or empty beside the
# temporary that names it: killed between the create and the text), which
# a killed run may leave and the next one replaces.
def is_claim(path):
    try:
        with open(path, 'rb') as f:
            head = f.read(64)
    except OSError:
        return False
    if head.startswith(b'copyscope placeholder '):
        return True
    folder = os.path.dirname(path)
    return head == b'' and any(n.startswith('.copyscope-') and '.claim-' in n
                               for n in os.listdir(folder))

# Lost, or on the server and not whole (neither the file nor a claim): a
# file is gone, or a partial one stands under its final name.
in_src = in_dst = claims = 0
for rel in files:
    s = os.path.join(src, rel)
    d = os.path.join(dst, rel)
    here_src = os.path.lexists(s)
    here_dst = os.path.lexists(d)
    in_src += here_src
    in_dst += here_dst
    if not here_src and not here_dst:
        bad.append(f'{rel}: lost, in neither place')
    elif here_src and not same(os.path.join(ref, rel), s):
        bad.append(f'{rel}: the source changed')
    elif here_dst and not same(os.path.join(ref, rel), d):
        if here_src and is_claim(d):
            claims += 1
        elif here_src:
            bad.append(f'{rel}: in the source, and not whole on the server under its name')
        else:
            bad.append(f'{rel}: gone from the source, not whole on the server')
for line in bad[:10]:
    print(line)
print(f'{in_src} {in_dst} {len(bad)} {claims}')
EOF
}

# A tree of about 1,000 files in $1, with nested and empty folders, and a
# copy of it in $2 to compare with once the move has taken it away.
make_tree ()
{
  "$cli" generate small "$1" --scale 0.05 --seed "$3" >/dev/null
  mkdir -p "$1/sub/deeper" "$1/empty"
  printf 'deeper\n' >"$1/sub/deeper/note.txt"
  head -c $((5 * 1024 * 1024 + 7)) /dev/urandom >"$1/sub/five.bin"
  cp -a -- "$1" "$2"
}

[[ -z ${LABNAS_SKIP:-} ]] || skip "$LABNAS_SKIP"
command -v python3 >/dev/null || skip "python3 is missing (checks where each file is)"
[[ -x $cli ]] || { echo "FAIL: move-smbnas: copyscope-cli not found: $cli"; exit 1; }

smbtest_workdir
mkdir "$work/backing"
smbtest_start "$work/backing"
ok "mounted on $mnt"

# ---- watched while it runs ----------------------------------------------------

make_tree "$work/tree" "$work/ref" 41
nfiles=$(find "$work/ref" -type f | wc -l)
# Limited, so that it runs for a few seconds under the watcher's eyes.
"$cli" move --no-history --quiet --threads 4 --max-files 250/s "$work/tree" "$mnt" \
  >"$work/m1.out" 2>&1 &
mover=$!
read -r gone pending wrong < <(check_places --watch "$mover" "$work/ref" "$work/tree" \
  "$work/backing/tree" | tee "$work/watch.out" | tail -n 1)
rc=0
wait "$mover" || rc=$?
if ((rc == 0)); then ok "move of $nfiles files: exit 0"; else fail "move: exit $rc: $(head -c 2000 "$work/m1.out")"; fi
if ((wrong == 0 && gone == nfiles)); then
  ok "each of the $gone source files was seen gone only once published whole"
else
  head -n 10 "$work/watch.out"
  fail "watched: $gone gone, $pending still in the source, $wrong not published first"
fi
if [[ ! -e $work/tree ]]; then ok "the source folder is gone"; else fail "the source folder is left: $(find "$work/tree" | head -n 5)"; fi
if diff -r "$work/ref" "$work/backing/tree" >/dev/null; then ok "the server has the tree"; else fail "the tree on the server differs"; fi
if diff -r "$work/ref" "$mnt/tree" >/dev/null; then ok "the tree reads back equal through the mount"; else fail "the tree read back through the mount differs"; fi
if [[ $(ours_left "$work/backing") == 0 ]]; then ok "nothing of ours left"; else fail "$(ours_left "$work/backing") files of ours left"; fi

# ---- kill -9 at three moments, then a rerun -------------------------------------

make_tree "$work/killed" "$work/ref2" 42
nfiles=$(find "$work/ref2" -type f | wc -l)
for at in 50 300 600; do
  setsid "$cli" move --no-history --quiet --threads 8 "$work/killed" "$mnt" >/dev/null 2>&1 &
  mover=$!
  for _ in $(seq 400); do
    n=$(find "$work/backing/killed" -type f -name 'file_*' 2>/dev/null | wc -l)
    ((n >= at)) && break
    sleep 0.02
  done
  kill -KILL -- "-$mover" 2>/dev/null
  wait "$mover" 2>/dev/null
  read -r in_src in_dst wrong claims < <(check_places "$work/ref2" "$work/killed" \
    "$work/backing/killed" | tee "$work/kill.out" | tail -n 1)
  if ((wrong == 0 && in_src < nfiles && in_dst > 0)); then
    ok "killed at $at: $in_src of $nfiles files in the source, $in_dst on the server ($claims of them claims), none lost"
  elif ((wrong == 0)); then
    fail "the kill at $at did not land mid-move ($in_src in the source, $in_dst on the server)"
  else
    head -n 10 "$work/kill.out"
    fail "killed at $at: $wrong files lost or not whole"
  fi
done
rc=0
"$cli" move --no-history --quiet --threads 8 --log "$work/m2.log" "$work/killed" "$mnt" \
  >"$work/m2.out" 2>&1 || rc=$?
if ((rc == 0)); then ok "rerun after the kills: exit 0"; else fail "rerun: exit $rc: $(head -c 2000 "$work/m2.out")"; fi
read -r in_src in_dst wrong claims < <(check_places "$work/ref2" "$work/killed" "$work/backing/killed" |
  tail -n 1)
# Through GVfs a file's time is set once it is published (the server stamps
# the close over a time set before): one a killed run published but did not
# date yet is whole and newer than its source, so the rerun keeps that
# source, and says so.
reported=$(grep -c -e 'at the destination is newer' -e 'different contents' -e 'differs and was kept' \
  "$work/m2.log")
left=$(find "$work/killed" -type f 2>/dev/null | wc -l)
if [[ ! -e $work/killed ]]; then
  ok "after the rerun the source folder is gone"
elif ((wrong == 0 && claims == 0 && left <= reported)); then
  ok "after the rerun $left source files are left, each reported and also whole on the server"
else
  fail "after the rerun $left source files are left, $reported reported: $(find "$work/killed" -type f | head -n 5)"
fi
if diff -r "$work/ref2" "$work/backing/killed" >/dev/null && diff -r "$work/ref2" "$mnt/killed" >/dev/null; then
  ok "after the rerun the tree on the server, and read back, equals the original"
else
  fail "after the rerun the tree differs"
fi
if [[ $(ours_left "$work/backing") == 0 ]]; then
  ok "after the rerun nothing of ours is left"
else
  find "$work/backing" -name '.copyscope-*' | head -n 5
  fail "after the rerun $(ours_left "$work/backing") files of ours are left"
fi

"$smbnas" stop "$mnt" >/dev/null
mnt=

smbtest_finish

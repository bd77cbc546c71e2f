#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test-netfs-smb.sh: copyscope-cli onto the NAS a GNOME desktop has, Samba
# through GVfs's FUSE path (tests/labnas/smbnas).  What such a share does
# differently from a local disk, and what the copy must still get right:
#
#   - modification times kept to the share's precision, so a rerun of an
#     untouched tree skips every file and prints nothing;
#   - a source replaced by an older-dated file is copied again;
#   - two names that differ only in case, on a case-insensitive share: reported
#     once, naming both, and the share's file never flips between them;
#   - two sources whose names differ only in case: the first named is kept;
#   - a name the share refuses fails before any of its data is written;
#   - kill -9 in the middle of a copy, then a rerun: the same tree, nothing of
#     ours left;
#   - a second client (smbclient) creating a name between the scan and the
#     publication: its bytes survive and the conflict is reported.
#
# Exit 77 with a SKIP line when this machine cannot run smbd, GVfs or FUSE.

smbtest_name=netfs-smbnas
smbtest_tag=smbnas
# shellcheck source=smbtest-lib.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/smbtest-lib.sh"

# Value of a Python expression over the JSON run record $1 (as "d").
json ()
{
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$1" "$2"
}

# Runs copyscope-cli copy with a JSON record; sets cli_rc, keeps what it
# printed in $record.out.
copy ()
{
  local record="$1"
  shift
  cli_rc=0
  "$cli" copy --no-history --quiet --json "$record" "$@" >"$record.out" 2>&1 || cli_rc=$?
}

expect_rc ()
{
  local what="$1" want="$2" record="$3"
  if ((cli_rc == want)); then
    ok "$what: exit $cli_rc"
  else
    fail "$what: exit $cli_rc, expected $want: $(head -c 2000 "$record.out")"
  fi
}

# The first few reported items, as (name, operation, message).
errors ()
{
  json "$1" '[(e["path"].rsplit("/", 1)[-1], e["operation"], e["message"]) for e in d["errors"][:4]]'
}

# What was reported about items, leaving out the notes on what the share
# does not keep (said once per run, about the destination itself).
ITEMS='[e for e in d["errors"] if e["attempts"] > 0]'

# Files of ours left anywhere under $1: temporaries, claims, staging folders.
ours_left ()
{
  find "$1" -name '.copyscope-*' | wc -l
}

# path, type, size and mtime in whole seconds of every entry below $1.
listing ()
{
  (cd -- "$1" && find . -mindepth 1 -printf '%P\t%y\t%s\t%TY%Tm%Td%TH%TM%TS\n' | LC_ALL=C sort) |
    awk -F '\t' -v OFS='\t' '{ sub(/\..*$/, "", $4); if ($2 == "d") { $3 = "-"; $4 = "-" } print }'
}

[[ -z ${LABNAS_SKIP:-} ]] || skip "$LABNAS_SKIP"
command -v python3 >/dev/null || skip "python3 is missing (reads the JSON run records)"
[[ -x $cli ]] || { echo "FAIL: smbnas: copyscope-cli not found: $cli"; exit 1; }

smbtest_workdir
mkdir "$work/backing"
smbtest_start "$work/backing"
ok "mounted on $mnt"

# ---- 1,000 files: times kept, and a rerun is silent ---------------------------

"$cli" generate small "$work/tree" --scale 0.05 --seed 23 >/dev/null
mkdir -p "$work/tree/sub/deeper"
printf 'private\n' >"$work/tree/sub/private"
chmod 0600 "$work/tree/sub/private"
printf 'deeper\n' >"$work/tree/sub/deeper/note.txt"
touch -d '2019-05-06 07:08:09.987654321' "$work/tree/sub/deeper/note.txt"
touch -d '2018-01-02 03:04:05' "$work/tree/sub/deeper"
nfiles=$(find "$work/tree" -type f | wc -l)

copy "$work/c1.json" --threads 8 "$work/tree" "$mnt"
expect_rc "copy of $nfiles files" 0 "$work/c1.json"
if diff -r "$work/tree" "$work/backing/tree" >/dev/null; then
  ok "every byte on the server"
else
  fail "the server's copy differs from the source"
fi
# GVfs sets times in whole seconds: the server must hold the source's second.
if diff <(listing "$work/tree") <(listing "$work/backing/tree") >"$work/times.diff"; then
  ok "modification times kept on the server, to the second ($nfiles files and the folders)"
else
  echo "# $(grep -c '^>' "$work/times.diff") entries with other times, e.g.:"
  head -n 6 "$work/times.diff"
  fail "modification times were not kept on the server"
fi
echo "# reported: $(errors "$work/c1.json")"
notes=$(json "$work/c1.json" 'len(d["errors"])')
if ((notes <= 2)); then
  ok "what the share does not keep is said at most once per kind ($notes notes)"
else
  fail "$notes notes for one copy: $(errors "$work/c1.json")"
fi
if [[ $(ours_left "$work/backing") == 0 ]]; then ok "nothing of ours left on the server"; else fail "$(ours_left "$work/backing") files of ours left on the server"; fi

# Past the attribute caches: what a rerun sees is what the server holds.
sleep 2
copy "$work/c2.json" --threads 8 "$work/tree" "$mnt"
expect_rc "rerun of the untouched tree" 0 "$work/c2.json"
copied=$(json "$work/c2.json" 'd["totals"]["copied"]["files"]')
skipped=$(json "$work/c2.json" 'd["totals"]["skipped"]["files"]')
if ((copied == 0 && skipped == nfiles)); then
  ok "the rerun skipped all $nfiles files and copied none"
else
  fail "the rerun copied $copied and skipped $skipped of $nfiles files"
fi
if [[ ! -s $work/c2.json.out && $(json "$work/c2.json" 'len(d["errors"])') == 0 ]]; then
  ok "the rerun printed nothing and reported nothing"
else
  echo "# printed $(wc -l <"$work/c2.json.out") lines, e.g.:"
  head -n 3 "$work/c2.json.out"
  fail "the rerun was not silent: $(errors "$work/c2.json")"
fi

# ---- a source replaced by an older-dated file is copied again -----------------

victim=$(cd "$work/tree" && find . -name 'file_*' -type f | LC_ALL=C sort | head -n 1)
victim=${victim#./}
size=$(stat -c %s "$work/tree/$victim")
head -c "$size" /dev/urandom >"$work/replacement"
touch -d '2001-02-03 04:05:06' "$work/replacement"
mv "$work/replacement" "$work/tree/$victim"
copy "$work/c3.json" --threads 8 "$work/tree" "$mnt"
expect_rc "rerun after a source was replaced by an older-dated file" 0 "$work/c3.json"
if cmp -s "$work/tree/$victim" "$work/backing/tree/$victim"; then
  ok "the older-dated replacement was copied ($(json "$work/c3.json" 'd["totals"]["copied"]["files"]') file copied)"
else
  fail "the server still holds the old $victim: $(errors "$work/c3.json")"
fi

# ---- two names that differ only in case ----------------------------------------

mkdir -p "$work/pair"
printf 'the upper one\n' >"$work/pair/Report.txt"
printf 'the lower one, longer\n' >"$work/pair/report.txt"
first=
for run in 1 2 3; do
  copy "$work/p$run.json" --threads 4 "$work/pair" "$mnt"
  held=$(find "$work/backing/pair" -maxdepth 1 -type f ! -name '.copyscope-*' | wc -l)
  content=$(cat "$work/backing/pair/"* 2>/dev/null | head -n 1)
  msgs=$(json "$work/p$run.json" "[e[\"message\"] for e in $ITEMS]")
  both=$(json "$work/p$run.json" "sum(1 for e in $ITEMS if 'Report.txt' in e['message'] and 'report.txt' in e['message'])")
  if ((run == 1)); then
    first=$content
  fi
  if ((cli_rc == 1 && both == 1)) && [[ $(json "$work/p$run.json" "len($ITEMS)") == 1 ]]; then
    ok "case pair, run $run: reported once, naming both: $msgs"
  else
    fail "case pair, run $run: exit $cli_rc, reported: $msgs"
  fi
  if ((held == 1)) && [[ $content == "$first" ]]; then
    ok "case pair, run $run: the share holds one file, unchanged: '$content'"
  else
    fail "case pair, run $run: the share holds $held files, '$content' (run 1: '$first')"
  fi
  sleep 1
done

# ---- two sources whose names differ only in case ------------------------------
# Named one after the other on the command line, each alone: the first named
# keeps the name on the share, the second is reported naming both (issue 37).

mkdir -p "$work/cam1" "$work/cam2"
printf 'the first named\n' >"$work/cam1/Photo.JPG"
printf 'the second named, longer\n' >"$work/cam2/photo.jpg"
copy "$work/two.json" --threads 4 "$work/cam1/Photo.JPG" "$work/cam2/photo.jpg" "$mnt/two"
held=$(find "$work/backing/two" -maxdepth 1 -type f ! -name '.copyscope-*' | wc -l)
content=$(cat "$work/backing/two/"* 2>/dev/null | head -n 1)
both=$(json "$work/two.json" "sum(1 for e in $ITEMS if 'cam1/Photo.JPG' in e['message'] and 'photo.jpg' in e['path'])")
if ((cli_rc == 1 && both == 1 && held == 1)) && [[ $content == 'the first named' ]]; then
  ok "two sources differing in case: the first named kept, the second reported naming both"
else
  fail "two sources differing in case: exit $cli_rc, $held files, '$content': $(errors "$work/two.json")"
fi

# ---- a name the share refuses fails before its data is written ---------------

mkdir -p "$work/names"
head -c 20000000 /dev/urandom >"$work/names/video:1.bin"
printf 'fine\n' >"$work/names/fine.txt"
"$smbnas" profile "$mnt" >"$work/profile.before"
copy "$work/n1.json" --threads 2 "$work/names" "$mnt"
"$smbnas" profile "$mnt" "$work/profile.before" >"$work/profile.after"
writes=$(sed -n 's/^smb2\.write=//p' "$work/profile.after")
expect_rc "a name the share refuses" 1 "$work/n1.json"
if [[ $(json "$work/n1.json" "len($ITEMS)") == 1 ]] &&
  json "$work/n1.json" "$ITEMS[0]['path']" | grep -q 'video:1.bin'; then
  ok "one message for video:1.bin: $(json "$work/n1.json" "$ITEMS[0]['message']")"
else
  fail "reported: $(errors "$work/n1.json")"
fi
if ((${writes:-0} <= 2)); then
  ok "no data of video:1.bin was sent: ${writes:-0} SMB2 writes in the run (fine.txt needs one)"
else
  fail "${writes} SMB2 writes in the run: the refused file's data was sent first"
fi
if cmp -s "$work/names/fine.txt" "$work/backing/names/fine.txt" && [[ $(ours_left "$work/backing") == 0 ]]; then
  ok "the other file was copied, nothing of ours left"
else
  fail "fine.txt missing or files of ours left"
fi

# ---- kill -9 in the middle of a copy, then a rerun converges -------------------

"$cli" generate small "$work/killed" --scale 0.05 --seed 24 >/dev/null
setsid "$cli" copy --no-history --quiet --threads 8 "$work/killed" "$mnt" >/dev/null 2>&1 &
copier=$!
for _ in $(seq 200); do
  n=$(find "$work/backing/killed" -maxdepth 1 -type f -name 'file_*' 2>/dev/null | wc -l)
  ((n >= 100)) && break
  sleep 0.05
done
kill -KILL -- "-$copier" 2>/dev/null
wait "$copier" 2>/dev/null
done_before=$(find "$work/backing/killed" -type f -name 'file_*' 2>/dev/null | wc -l)
total=$(find "$work/killed" -type f | wc -l)
if ((done_before > 0 && done_before < total)); then
  ok "killed with $done_before of $total files published, $(ours_left "$work/backing") files of ours left"
else
  fail "the kill did not land mid-copy ($done_before of $total files published)"
fi
copy "$work/k2.json" --threads 8 "$work/killed" "$mnt"
expect_rc "rerun after kill -9" 0 "$work/k2.json"
if diff -r "$work/killed" "$work/backing/killed" >/dev/null; then
  ok "after the rerun the tree is complete"
else
  fail "after the rerun the tree differs"
fi
if [[ $(ours_left "$work/backing") == 0 ]]; then
  ok "after the rerun nothing of ours is left"
else
  find "$work/backing" -name '.copyscope-*' | head -n 5
  fail "after the rerun $(ours_left "$work/backing") files of ours are left"
fi

# ---- a second client creates the name between the scan and the publication ----

mkdir -p "$work/race"
head -c 60000000 /dev/urandom >"$work/race/race.bin"
printf 'written by smbclient meanwhile\n' >"$work/theirs"
mkdir -p "$mnt/race"
# At 10 MB/s the copy writes for 6 s: time for smbclient to log in and put
# its file while ours is still a temporary.
"$cli" copy --no-history --quiet --threads 1 --max-rate 10M --json "$work/r1.json" "$work/race" "$mnt" \
  >"$work/r1.json.out" 2>&1 &
copier=$!
# The copy has scanned and is writing once its temporary holds data (under
# its .part name: renamed for the claim, it is about to be published).
for _ in $(seq 600); do
  [[ -n $(find "$work/backing/race" -name '.copyscope-*.part' -size +1M 2>/dev/null) ]] && break
  sleep 0.02
done
if "$smbnas" client "$mnt" -c "put $work/theirs race/race.bin" >"$work/put.log" 2>&1; then
  race_rc=0
  wait "$copier" || race_rc=$?
  if cmp -s "$work/theirs" "$work/backing/race/race.bin"; then
    ok "smbclient's file created during the copy kept its bytes (copy exit $race_rc)"
  else
    fail "smbclient's file created during the copy was clobbered"
  fi
  if ((race_rc == 1)) &&
    [[ $(json "$work/r1.json" 'sum(1 for e in d["errors"] if e["path"].endswith("race.bin"))') == 1 ]]; then
    ok "the conflict is reported: $(json "$work/r1.json" '[e["message"] for e in d["errors"]]')"
  else
    fail "the conflict: exit $race_rc, reported $(errors "$work/r1.json")"
  fi
elif grep -q 'NT_STATUS_ACCESS_DENIED\|NT_STATUS_OBJECT_NAME_COLLISION' "$work/put.log"; then
  # Too late for the race: our claim already held the name, and smbclient
  # was told so. Nothing of its is lost, but the conflict was not tried.
  cat "$work/put.log"
  wait "$copier" || true
  fail "smbclient came after the claim (a slow machine?): the race was not tried"
else
  cat "$work/put.log"
  wait "$copier" || true
  fail "smbclient could not put the competing file"
fi
if [[ $(ours_left "$work/backing") == 0 ]]; then ok "after the race nothing of ours is left"; else fail "after the race $(ours_left "$work/backing") files of ours are left"; fi

"$smbnas" stop "$mnt" >/dev/null
mnt=

smbtest_finish

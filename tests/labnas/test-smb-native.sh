#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test-smb-native.sh: copyscope-cli speaking SMB itself (libsmbclient, each
# worker its own connection) to the lab Samba, smb://user@127.0.0.1:PORT/share
# with no mount in between: a copy arrives whole with its times, a rerun
# skips it, the password comes from the environment or an smbclient -A file
# and is in no record or log, a wrong password and a share that does not
# exist end the run (exit 3) with one clear message naming it and nothing
# written, names the share cannot hold are reported one by one, a tree on
# the share copies back to a local disk with its times, a copy within the
# share is made by the server (copy-chunk), copies killed at ten
# moments (SMB_NATIVE_KILLS) leave nothing partial under a final name and
# their reruns complete them and remove what they left, a second client
# creating a name during the copy keeps its bytes and is reported, and a
# server that dies mid-copy ends the run with exit 3 and one message.
# Exit 77 with a SKIP line when this machine cannot run smbd.

smbtest_name=smb-native
# shellcheck source=smbtest-lib.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/smbtest-lib.sh"

# Runs a copy with a record and a log; sets rc and keeps the output.
run_copy ()
{
  rc=0
  "$cli" copy --no-history --json "$work/record.json" --log "$work/items.log" "$@" \
    >"$work/out" 2>&1 || rc=$?
}

# The "Files :" line of the summary: total copied skipped mismatch failed.
files_line () { awk '$1 == "Files" { print $3, $4, $5, $6, $7 }' "$work/out"; }

[[ -z ${LABNAS_SKIP:-} ]] || skip "$LABNAS_SKIP"
[[ -x $cli ]] || { echo "FAIL: smb-native: copyscope-cli not found: $cli"; exit 1; }

smbtest_workdir
mkdir -p "$work/backing" "$work/src/sub/deeper"
for i in $(seq 40); do
  head -c $((i * 613)) /dev/urandom >"$work/src/sub/file$i"
done
head -c 5000000 /dev/urandom >"$work/src/big.bin"
echo "a name with spaces, 100% and #" >"$work/src/sub/deeper/a b 100% #.txt"
: >"$work/src/empty"
touch -d '2001-02-03 04:05:06.123456789' "$work/src/sub/file7"

smbtest_start "$work/backing"
eval "$("$smbnas" env "$mnt")"
url="smb://$SMBNAS_USER@127.0.0.1:$SMBNAS_PORT/share"

# ---- a copy, whole, with its times ------------------------------------------
# Into the share's root, which exists: the copy is share/src, a rerun the same.
COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD run_copy --threads 8 "$work/src" "$url"
if ((rc == 0)) && diff -r "$work/src" "$work/backing/src" >/dev/null; then
  ok "copy onto smb:// directly, diff -r equal"
else
  cat "$work/out"; fail "copy onto smb:// (exit $rc) or its contents differ"
fi
if [[ $(files_line) == "43 43 0 0 0" ]]; then ok "43 files copied"; else fail "summary: $(files_line)"; fi
# smbc_utimes sets microseconds.
src_t=$(stat -c %.6Y "$work/src/sub/file7")
dst_t=$(stat -c %.6Y "$work/backing/src/sub/file7" 2>/dev/null)
if [[ $src_t == "$dst_t" ]]; then ok "modification time kept to the microsecond"; else fail "time $src_t became $dst_t"; fi
if ls -A "$work/backing" "$work/backing/src" | grep -q '^\.copyscope'; then
  fail "a temporary is left on the share"
else
  ok "no temporary left"
fi

# The record names the backend, the server (not the user) and the connections:
# one per worker that had work (up to 8), the scanner's and the check's.
fs=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["environment"]["destination_fs"])' \
  "$work/record.json" 2>/dev/null)
if [[ $fs =~ ^smb://127\.0\.0\.1:$SMBNAS_PORT\ \(libsmbclient\ [0-9.]+.*,\ ([0-9]+)\ connections?\)$ ]] &&
  ((BASH_REMATCH[1] >= 2 && BASH_REMATCH[1] <= 10)); then
  ok "the record names backend, server and connections: $fs"
else
  fail "the record's destination is “$fs”"
fi

# ---- --durable: what it does on smb://, said once ------------------------------
# libsmbclient 4.17 has no flush: the run says so once, in English, Dutch and
# German (the installed copy the e2e tests share has the catalogues).
no_flush_en="The server has each byte once its write returns, but libsmbclient offers no flush"
COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD run_copy --durable "$work/src/sub" "$url/durable"
said=$(grep -cF "$no_flush_en" "$work/out")
if ((rc == 0)) && ((said == 1)) && diff -r "$work/src/sub" "$work/backing/durable" >/dev/null; then
  ok "--durable onto smb:// copies and says once that libsmbclient has no flush"
else
  cat "$work/out"; fail "--durable onto smb:// (exit $rc) said it $said times"
fi
COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD run_copy --no-flush "$work/src/sub" "$url/no-flush"
if ((rc == 0)) && ! grep -qF "libsmbclient" "$work/out"; then
  ok "a copy that asks for no flush says nothing of it"
else
  cat "$work/out"; fail "--no-flush onto smb:// (exit $rc) or it spoke of flushing"
fi
prefix=$(python3 "$here/../data/install-prefix.py" "$here/../.." \
  "$G_TEST_BUILDDIR/data/prefix-build" "$G_TEST_BUILDDIR/data/prefix" 2>"$work/install.log") ||
  { cat "$work/install.log"; fail "could not install into a prefix for the translations"; }
for lang in nl:nl_NL:"De server heeft elke byte zodra het schrijven ervan terugkeert" \
            de:de_DE:"Der Server hat jedes Byte, sobald sein Schreiben zurückkehrt"; do
  IFS=: read -r code locale sentence <<<"$lang"
  if ! locale -a 2>/dev/null | grep -qix "$locale.utf8"; then
    echo "SKIP $code: the $locale.UTF-8 locale is not generated (see .ci/install-deps)"
    continue
  fi
  rc=0
  COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD LANGUAGE=$code LC_ALL=$locale.UTF-8 \
    "$prefix/bin/copyscope-cli" copy --no-history --durable "$work/src/sub" "$url/durable-$code" \
    >"$work/out" 2>&1 || rc=$?
  said=$(grep -cF "$sentence" "$work/out")
  if ((rc == 0)) && ((said == 1)); then
    ok "--durable onto smb:// in $code: said once"
  else
    cat "$work/out"; fail "--durable onto smb:// in $code (exit $rc) said it $said times"
  fi
done

# ---- the password is in no record and no log ---------------------------------
if grep -qF "$SMBNAS_PASSWORD" "$work/record.json" "$work/items.log" "$work/out"; then
  fail "the password is written in the record, the log or the output"
else
  ok "the password is in no record, log or output"
fi

# ---- a rerun skips what is there ------------------------------------------
COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD run_copy --threads 8 "$work/src" "$url"
if ((rc == 0)) && [[ $(files_line) == "43 0 43 0 0" ]]; then
  ok "rerun skips all 43 files"
else
  cat "$work/out"; fail "rerun (exit $rc): $(files_line)"
fi

# ---- "SRC/." copies the folder's contents, with the same rules ---------------
# "." names the source folder itself, as with cp -r; it is no name the share
# must hold (a share refuses names ending in a dot): the copy and its rerun
# decide every file as "SRC" into a folder does, request for request.
mkdir "$work/backing/dotted" && chown "$SMBNAS_USER:" "$work/backing/dotted"
COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD run_copy --threads 8 "$work/src/." "$url/dotted/"
if ((rc == 0)) && [[ $(files_line) == "43 43 0 0 0" ]] && diff -r "$work/src" "$work/backing/dotted" >/dev/null; then
  ok "copy SRC/. onto smb:// copies the contents, diff -r equal"
else
  cat "$work/out"; fail "copy SRC/. onto smb:// (exit $rc): $(files_line)"
fi
"$smbnas" profile "$mnt" >"$work/snap.dot"
COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD run_copy --threads 8 "$work/src/." "$url/dotted/"
"$smbnas" profile "$mnt" "$work/snap.dot" >"$work/profile.dot"
dotted=$(sed -n 's/^smb2\.total=//p' "$work/profile.dot")
dotted_files=$(files_line)
"$smbnas" profile "$mnt" >"$work/snap.named"
COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD run_copy --threads 8 "$work/src" "$url"
"$smbnas" profile "$mnt" "$work/snap.named" >"$work/profile.named"
named=$(sed -n 's/^smb2\.total=//p' "$work/profile.named")
# The same files decided by the same requests; a few more or less for the
# connections' setup, never a request per file apart (43 files).
if [[ $dotted_files == "43 0 43 0 0" ]] && ((dotted > 43 && named > 43 && dotted - named < 20 && named - dotted < 20)); then
  ok "rerun of SRC/. skips all 43 files as SRC does: ${dotted} and ${named} SMB2 requests"
else
  fail "rerun of SRC/. ($dotted_files, ${dotted:-?} requests) against SRC (${named:-?} requests)"
fi

# ---- the password from an smbclient -A file ----------------------------------
printf 'username = %s\npassword = %s\ndomain = LAB\n' "$SMBNAS_USER" "$SMBNAS_PASSWORD" >"$work/auth"
chmod 600 "$work/auth"
env -u COPYSCOPE_SMB_PASSWORD "$cli" copy --no-history --quiet --auth-file "$work/auth" \
  "$work/src/big.bin" "smb://127.0.0.1:$SMBNAS_PORT/share/from-auth-file.bin" >"$work/out" 2>&1
rc=$?
if ((rc == 0)) && cmp -s "$work/src/big.bin" "$work/backing/from-auth-file.bin"; then
  ok "--auth-file gives user and password"
else
  cat "$work/out"; fail "--auth-file copy (exit $rc)"
fi

# ---- a wrong password: one clear message, exit 3, nothing written ----------
COPYSCOPE_SMB_PASSWORD=not-the-password run_copy "$work/src" "$url/wrong"
if ((rc == 3)) && grep -q 'Permission denied' "$work/out" && [[ ! -e $work/backing/wrong ]]; then
  ok "wrong password: exit 3, Permission denied, nothing written"
else
  cat "$work/out"; fail "wrong password (exit $rc)"
fi
if grep -qF "not-the-password" "$work/out"; then fail "the wrong password is printed"; fi

# ---- a share that does not exist ---------------------------------------------
# The message names the share, as destination and as source.
COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD run_copy "$work/src" "smb://$SMBNAS_USER@127.0.0.1:$SMBNAS_PORT/nosuchshare/dst"
if ((rc == 3)) && (($(wc -l <"$work/out") == 1)) && grep -q 'share named “nosuchshare”' "$work/out"; then
  ok "share not found: exit 3, one line naming it: $(cat "$work/out")"
else
  cat "$work/out"; fail "share not found (exit $rc)"
fi
# A source that cannot be read fails alone, as a missing one does (exit 1,
# as with cp); its line comes first, before the summary.
COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD run_copy "smb://$SMBNAS_USER@127.0.0.1:$SMBNAS_PORT/nosuchshare/src" "$work/nowhere"
if ((rc == 1)) && head -n 1 "$work/out" | grep -q 'src: check: .*share named “nosuchshare”' &&
  (($(grep -c 'nosuchshare' "$work/out") == 1)) && [[ ! -e $work/nowhere ]]; then
  ok "share not found as the source: exit 1, one line naming it"
else
  cat "$work/out"; fail "share not found as the source (exit $rc)"
fi

# ---- smb:// as the source: the share's tree back onto a local disk -----------
COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD run_copy --threads 8 "$url/src" "$work/back"
if ((rc == 0)) && diff -r "$work/src" "$work/back" >/dev/null; then
  ok "copy from smb:// to a local folder, diff -r equal"
else
  cat "$work/out"; fail "copy from smb:// (exit $rc) or its contents differ"
fi
# The share holds microseconds: what comes back is the share's time.
if diff <(cd "$work/backing/src" && find . -type f -printf '%P %.6T@\n' | sort) \
  <(cd "$work/back" && find . -type f -printf '%P %.6T@\n' | sort) >"$work/times.diff"; then
  ok "modification times came back from the share to the microsecond"
else
  head -n 4 "$work/times.diff"; fail "times differ after the copy back"
fi

# ---- within the share the server copies the data itself ----------------------
# smb:// to smb:// on one share: SMB2 copy-chunk (an ioctl per 16 MiB), no data
# read or written by the client but the claims' few bytes.
"$smbnas" profile "$mnt" >"$work/snap.copy"
COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD run_copy --threads 4 "$url/src" "$url/within"
"$smbnas" profile "$mnt" "$work/snap.copy" >"$work/profile.copy"
reads=$(sed -n 's/^smb2\.read=//p' "$work/profile.copy")
ioctls=$(sed -n 's/^smb2\.ioctl=//p' "$work/profile.copy")
if ((rc == 0)) && diff -r "$work/src" "$work/backing/within" >/dev/null; then
  ok "copy from smb:// to smb:// on one share, diff -r equal"
else
  cat "$work/out"; fail "copy within the share (exit $rc) or its contents differ"
fi
# 42 files with data; the connections' own setup asks an ioctl or two each.
if ((${reads:-0} == 0 && ${ioctls:-0} >= 42)); then
  ok "the server copied the data: ${ioctls} ioctls, no read"
else
  fail "the data went through the client: ${reads:-0} reads, ${ioctls:-0} ioctls"
fi
# A big file, in chunks that several workers copy into one temporary: each
# chunk by the server too, and nothing read back for a resume journal.
mkdir -p "$work/backing/bigsrc"
head -c 70000000 /dev/urandom >"$work/backing/bigsrc/huge.bin"
"$smbnas" profile "$mnt" >"$work/snap.copy"
COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD run_copy --threads 4 "$url/bigsrc" "$url/bigwithin"
"$smbnas" profile "$mnt" "$work/snap.copy" >"$work/profile.copy"
reads=$(sed -n 's/^smb2\.read=//p' "$work/profile.copy")
if ((rc == 0)) && cmp -s "$work/backing/bigsrc/huge.bin" "$work/backing/bigwithin/huge.bin" &&
  ((${reads:-0} == 0)); then
  ok "a 70 MB file within the share: copied by the server, identical, no read"
else
  cat "$work/out"; fail "the 70 MB file within the share: exit $rc, ${reads:-0} reads"
fi

# ---- names the share refuses: reported one by one, the rest copied -----------
# What an SMB share cannot hold (as Windows clients see it): ':' (a stream's
# separator), '\' and '*', a trailing dot or space. Each is said before any
# of its data is sent; the other file is copied.
mkdir -p "$work/names"
for name in 'colon:1.txt' 'back\slash.txt' 'star*.txt' 'fine.txt' 'dot.' 'space '; do
  printf '%s\n' "$name" >"$work/names/$name"
done
COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD run_copy --threads 2 "$work/names" "$url"
refused=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print("|".join(sorted(e["path"].rsplit("/", 1)[-1] for e in d["errors"] if e["attempts"] > 0)))' \
  "$work/record.json" 2>/dev/null)
if ((rc == 1)) && [[ $refused == 'back\slash.txt|colon:1.txt|dot.|space |star*.txt' ]]; then
  ok "five refused names reported one by one: $refused"
else
  cat "$work/out"; fail "refused names (exit $rc): “$refused”"
fi
if cmp -s "$work/names/fine.txt" "$work/backing/names/fine.txt" && [[ $(ls -A "$work/backing/names") == fine.txt ]]; then
  ok "the other name was copied, nothing of the refused ones written"
else
  ls -A "$work/backing/names"; fail "the share holds: $(ls -A "$work/backing/names" | tr '\n' ' ')"
fi
if [[ -n $(find "$work/backing" -name '.copyscope-*') ]]; then fail "a temporary is left after refused names"; fi

# ---- a folder whose times the user may not set --------------------------------
# A rerun onto a folder another user owns, its source's time changed: the
# server refuses its times. libsmbclient, refused, opens the folder to set
# them on a handle (its plan B), which fails as a folder does: the warning
# said "Is a directory". It says what a local filesystem says.
mkdir -p "$work/locked/inside"
echo kept >"$work/locked/inside/file"
COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD run_copy --threads 2 "$work/locked" "$url"
chown root: "$work/backing/locked/inside" && chmod 755 "$work/backing/locked/inside"
touch -d '2020-03-04 05:06:07.5' "$work/locked/inside"
COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD run_copy --threads 2 "$work/locked" "$url"
if grep -q 'inside: set times: Operation not permitted' "$work/out" && ! grep -q 'Is a directory' "$work/out"; then
  ok "a folder's times refused: Operation not permitted (exit $rc)"
else
  cat "$work/out"; fail "a folder's times refused (exit $rc): not said as a local filesystem says it"
fi

# ---- kill -9 in the middle of a copy, then a rerun completes it --------------
# Kills at spread moments, each into a fresh folder: after a kill every file
# under a final name is complete or a claim (its text, or empty: killed
# between the create and the text); the rerun completes the tree, removes
# every temporary and claim of the killed run and replaces nothing else.

"$cli" generate small "$work/killed" --scale 0.01 --seed 24 >/dev/null
total=$(find "$work/killed" -type f | wc -l)
kills=${SMB_NATIVE_KILLS:-10}
mid=0
before=$failures
for k in $(seq "$kills"); do
  # Made as the lab's user, so the copy and its rerun both go into it.
  mkdir "$work/backing/kill$k" && chown "$user:" "$work/backing/kill$k"
  dst=$work/backing/kill$k/killed
  # The k-th of kills + 1 parts of the tree published, however slow the machine.
  want=$((total * k / (kills + 1)))
  COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD setsid "$cli" copy --no-history --quiet --threads 8 \
    "$work/killed" "$url/kill$k" >/dev/null 2>&1 &
  copier=$!
  for _ in $(seq 2400); do
    (($(find "$dst" -type f ! -name '.copyscope-*' 2>/dev/null | wc -l) >= want)) && break
    kill -0 "$copier" 2>/dev/null || break
    sleep 0.02
  done
  kill -KILL -- "-$copier" 2>/dev/null
  wait "$copier" 2>/dev/null
  smbtest_check_final_names "$work/killed" "$dst" || fail "kill $k: a partial file under a final name"
  echo "# kill $k at $want of $total: $last_complete complete, $last_claims claims, $last_temps temporaries"
  ((last_complete < total && last_claims + last_temps > 0)) && mid=$((mid + 1))
  COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD run_copy --threads 8 "$work/killed" "$url/kill$k"
  if ((rc != 0)) || [[ $(files_line) != "$total "*" 0 0" ]]; then
    tail -n 5 "$work/out"; fail "the rerun after kill $k: exit $rc, files $(files_line)"
  elif ! diff -r "$work/killed" "$dst" >/dev/null; then
    fail "the rerun after kill $k: the tree differs"
  elif [[ -n $(find "$dst" -name '.copyscope-*') ]]; then
    find "$dst" -name '.copyscope-*' | head -n 3; fail "the rerun after kill $k left temporaries or claims"
  fi
done
if ((failures == before)); then
  ok "$kills kills ($mid mid-copy with claims or temporaries): every rerun complete, nothing of ours left"
fi
((mid >= kills / 2)) || fail "only $mid of $kills kills landed mid-copy with claims or temporaries to clean"

# ---- a second client creates the name during the copy ------------------------
# The share's folder is the lab user's, as anything the copy made there: the
# second client logs in as that user and may create in it.
mkdir -p "$work/race" "$work/backing/race"
chown "$user:" "$work/backing/race"
head -c 30000000 /dev/urandom >"$work/race/race.bin"
printf 'written by smbclient meanwhile\n' >"$work/theirs"
# At 10 MB/s the copy writes for 3 s: time for smbclient to log in and put
# its file while ours is still a temporary.
COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD "$cli" copy --no-history --quiet --threads 1 --max-rate 10M \
  --json "$work/race.json" "$work/race" "$url" >"$work/race.out" 2>&1 &
copier=$!
for _ in $(seq 1200); do
  [[ -n $(find "$work/backing/race" -name '.copyscope-*' -size +1M 2>/dev/null) ]] && break
  sleep 0.02
done
if "$smbnas" client "$mnt" -c "put $work/theirs race/race.bin" >"$work/put.log" 2>&1; then
  race_rc=0
  wait "$copier" || race_rc=$?
  if cmp -s "$work/theirs" "$work/backing/race/race.bin"; then
    ok "the second client's file kept its bytes (copy exit $race_rc)"
  else
    fail "the second client's file was clobbered"
  fi
  conflicts=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sum(1 for e in d["errors"] if e["path"].endswith("race.bin")))' "$work/race.json" 2>/dev/null)
  if ((race_rc == 1 && conflicts == 1)); then
    ok "the conflict is reported: $(cat "$work/race.out")"
  else
    cat "$work/race.out"; fail "the conflict: exit $race_rc, $conflicts reports"
  fi
else
  cat "$work/put.log"
  wait "$copier" || true
  fail "smbclient could not put the competing file: the race was not tried"
fi
if [[ -n $(find "$work/backing" -name '.copyscope-*') ]]; then fail "a temporary is left after the race"; fi

# ---- the server goes away mid-copy: exit 3 and one message -------------------
COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD "$cli" copy --no-history --quiet --threads 4 --max-rate 1M \
  "$work/killed" "$url/gone" >"$work/gone.out" 2>&1 &
copier=$!
for _ in $(seq 1200); do
  [[ -n $(find "$work/backing/gone" -type f 2>/dev/null | head -n 1) ]] && break
  sleep 0.02
done
# smbd runs in a process group of its own: the server and every connection.
kill -KILL -- "-$(cat "$state/smbd.pid")"
gone_rc=0
wait "$copier" || gone_rc=$?
if ((gone_rc == 3)) && (($(wc -l <"$work/gone.out") == 1)); then
  ok "server gone mid-copy: exit 3, one line: $(cat "$work/gone.out")"
else
  head -n 5 "$work/gone.out"
  fail "server gone mid-copy: exit $gone_rc, $(wc -l <"$work/gone.out") lines"
fi

"$smbnas" stop "$mnt" || fail "smbnas stop"
mnt=

smbtest_finish

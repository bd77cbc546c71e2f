#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test-smb-native.sh: copyscope-cli speaking SMB itself (libsmbclient, each
# worker its own connection) to the lab Samba, smb://user@127.0.0.1:PORT/share
# with no mount in between: a copy arrives whole with its times, a rerun
# skips it, the password comes from the environment or an smbclient -A file
# and is in no record or log, a wrong password and a share that does not
# exist end the run (exit 3) with one clear message naming it and nothing
# written, names the share cannot hold are reported one by one, and a tree
# on the share copies back to a local disk with its times.
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
COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD run_copy "smb://$SMBNAS_USER@127.0.0.1:$SMBNAS_PORT/nosuchshare/src" "$work/nowhere"
if ((rc == 3)) && (($(wc -l <"$work/out") == 1)) && grep -q 'share named “nosuchshare”' "$work/out" &&
  [[ ! -e $work/nowhere ]]; then
  ok "share not found as the source: exit 3, one line naming it"
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

"$smbnas" stop "$mnt" || fail "smbnas stop"
mnt=

smbtest_finish

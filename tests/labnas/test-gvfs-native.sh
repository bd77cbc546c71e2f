#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test-gvfs-native.sh: a copy to the path GNOME Files gives for a share GVfs
# mounted ($XDG_RUNTIME_DIR/gvfs/smb-share:…) talks SMB to the server itself:
# the summary and the record say "SMB directly to 127.0.0.1/share", smbd
# counts far fewer requests per file than through GVfs's FUSE path, the
# copy reads back equal through that path with its times, and a rerun
# copies nothing. With no login that works it goes through GVfs's mount, as
# the summary says, and still copies correctly; with the password GVfs keeps
# in the secret service (and none given) it goes directly. A folder of that
# name on a local disk is just a folder.
# Exit 77 with a SKIP line when this machine cannot run smbd.

smbtest_name=gvfs-native
# shellcheck source=smbtest-lib.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/smbtest-lib.sh"

keyring_pid=

stop_keyring ()
{
  if [[ -n $keyring_pid ]]; then
    kill "$keyring_pid" 2>/dev/null
    wait "$keyring_pid" 2>/dev/null
    keyring_pid=
  fi
}
trap 'rc=$?; stop_keyring; (exit $rc); smbtest_cleanup' EXIT

# Runs a copy with a record, no password given, in the environment
# copy_env adds; sets rc and keeps the output.
copy_env=()
run_copy ()
{
  rc=0
  env -u COPYSCOPE_SMB_PASSWORD "${copy_env[@]}" "$cli" copy --no-history --json "$work/record.json" "$@" \
    >"$work/out" 2>&1 || rc=$?
}

files_line () { awk '$1 == "Files" { print $3, $4, $5, $6, $7 }' "$work/out"; }
route_line () { sed -n 's/^ *Route : //p' "$work/out"; }

record_field ()
{
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
v = d
for k in sys.argv[2].split("."):
    v = v.get(k) if isinstance(v, dict) else None
print("" if v is None else v)' "$work/record.json" "$1" 2>/dev/null
}

# Names and modification times (to the second) of every file below $1.
times_of () { (cd "$1" && find . -type f -printf '%P %TY-%Tm-%Td %TT\n' | sed 's/\.[0-9]*$//' | sort); }

# SMB2 requests smbd served since the snapshot in $work/snap.
requests_since () { "$smbnas" profile "$mnt" "$work/snap" | sed -n 's/^smb2.total=//p'; }

[[ -z ${LABNAS_SKIP:-} ]] || skip "$LABNAS_SKIP"
[[ -x $cli ]] || { echo "FAIL: gvfs-native: copyscope-cli not found: $cli"; exit 1; }
command -v gnome-keyring-daemon >/dev/null || skip "gnome-keyring-daemon is missing (apt-get install gnome-keyring)"
command -v secret-tool >/dev/null || skip "secret-tool is missing (apt-get install libsecret-tools)"

smbtest_workdir
mkdir -p "$work/backing" "$work/src/small" "$work/src/deeper" "$work/few"
n_small=100
for i in $(seq "$n_small"); do
  head -c 12288 /dev/urandom >"$work/src/small/file$i"
done
head -c 3000000 /dev/urandom >"$work/src/big.bin"
echo "a name with spaces, 100% and #" >"$work/src/deeper/a b 100% #.txt"
touch -d '2001-02-03 04:05:06.123456789' "$work/src/small/file7"
for i in 1 2 3 4 5; do
  head -c $((i * 1000)) /dev/urandom >"$work/few/f$i"
done
touch -d '2002-03-04 05:06:07' "$work/few/f3"
n_files=$((n_small + 2))

smbtest_start "$work/backing"
eval "$("$smbnas" env "$mnt")"
printf 'username = %s\npassword = %s\ndomain = LAB\n' "$SMBNAS_USER" "$SMBNAS_PASSWORD" >"$work/auth"
chmod 600 "$work/auth"
direct="SMB directly to 127.0.0.1/share"

# ---- the GVfs path, with a login given: straight to the server ---------------
"$smbnas" profile "$mnt" >"$work/snap"
run_copy --auth-file "$work/auth" --threads 8 "$work/src" "$mnt"
requests=$(requests_since)
if ((rc == 0)) && [[ $(route_line) == "$direct" ]]; then
  ok "copy to the GVfs path: $(route_line)"
else
  cat "$work/out"; fail "copy to the GVfs path (exit $rc), route “$(route_line)”"
fi
if [[ $(record_field environment.route) == "$direct" &&
  $(record_field environment.destination_fs) == smb://127.0.0.1:$SMBNAS_PORT\ \(libsmbclient* &&
  $(record_field destination) == "$mnt" ]]; then
  ok "the record says so, and keeps the path as given"
else
  fail "record: route “$(record_field environment.route)”, destination_fs “$(record_field environment.destination_fs)”, destination “$(record_field destination)”"
fi
# Through GVfs's FUSE path the same copy takes some 46 per small file
# (bench/RESULTS.md); here what one connection per worker asks directly.
per_file=$(awk -v r="$requests" -v n="$n_files" 'BEGIN { printf "%.1f", r / n }')
if [[ -n $requests ]] && awk -v p="$per_file" 'BEGIN { exit !(p <= 34) }'; then
  ok "smbd served $requests SMB2 requests, $per_file per file (through GVfs: about 46)"
else
  fail "smbd served “$requests” SMB2 requests, $per_file per file"
fi
if diff -r "$work/src" "$mnt/src" >/dev/null; then
  ok "read back through the GVfs path: diff -r equal"
else
  fail "the copy read back through the GVfs path differs"
fi
if diff <(times_of "$work/src") <(times_of "$mnt/src") >"$work/times.diff"; then
  ok "modification times kept, read back through the GVfs path"
else
  head -n 4 "$work/times.diff"; fail "times differ through the GVfs path"
fi
if [[ -n $(find "$work/backing" -name '.copyscope-*') ]]; then fail "a temporary is left on the share"; fi

# ---- a file big enough to be resumable on a local disk --------------------
# Directly, the share offers no lock for the resume journal: copied whole.
mkdir "$work/large"
head -c $((66 << 20)) /dev/urandom >"$work/large/large.bin"
run_copy --auth-file "$work/auth" --threads 4 "$work/large/large.bin" "$mnt/large.bin"
if ((rc == 0)) && [[ $(route_line) == "$direct" ]] && cmp -s "$work/large/large.bin" "$work/backing/large.bin"; then
  ok "a 66 MiB file, directly: whole"
else
  cat "$work/out"; fail "the 66 MiB file (exit $rc), route “$(route_line)”"
fi
rm -f "$work/large/large.bin"

# ---- a rerun copies nothing ------------------------------------------------------
run_copy --auth-file "$work/auth" --threads 8 "$work/src" "$mnt"
if ((rc == 0)) && [[ $(files_line) == "$n_files 0 $n_files 0 0" && $(route_line) == "$direct" ]]; then
  ok "rerun: all $n_files files skipped, directly again"
else
  cat "$work/out"; fail "rerun (exit $rc): $(files_line), route “$(route_line)”"
fi

# ---- a folder of that name on a local disk is a folder ------------------------
fake="$work/smb-share:port=$SMBNAS_PORT,server=127.0.0.1,share=share"
mkdir "$fake"
run_copy --auth-file "$work/auth" "$work/few" "$fake"
if ((rc == 0)) && [[ -z $(route_line) ]] && cmp -s "$work/few/f1" "$fake/few/f1" &&
  [[ ! -e $work/backing/few ]]; then
  ok "a local folder named like a GVfs share stays local"
else
  cat "$work/out"; fail "the local folder named smb-share:… (exit $rc), route “$(route_line)”"
fi

# ---- no login that works: through GVfs's mount, still correct ----------------
# The lab's bus has no secret service; the lab's smbd takes no guests.
copy_env=("DBUS_SESSION_BUS_ADDRESS=unix:path=$state/bus")
run_copy --threads 4 "$work/few" "$mnt/fallback"
if ((rc == 0)) && [[ $(route_line) == "through GVfs's mount (SMB directly to 127.0.0.1/share: "* ]] &&
  [[ $(record_field environment.destination_fs) == fuse.gvfsd-fuse ]]; then
  ok "no login: $(route_line)"
else
  cat "$work/out"; fail "no login (exit $rc), route “$(route_line)”"
fi
if diff -r "$work/few" "$work/backing/fallback" >/dev/null &&
  diff <(times_of "$work/few") <(times_of "$work/backing/fallback") >/dev/null; then
  ok "through GVfs's mount the copy is whole, with its times"
else
  fail "the copy through GVfs's mount differs"
fi

# ---- the password GVfs keeps in the secret service ------------------------------
# A private gnome-keyring on the lab's bus, its login collection unlocked
# with a password on stdin, holding what gvfsd-smb stores for this server.
mkdir -m 0700 "$work/keyring" "$work/keyring/run" "$work/keyring/data"
keyring_env=(
  "DBUS_SESSION_BUS_ADDRESS=unix:path=$state/bus"
  "XDG_RUNTIME_DIR=$work/keyring/run" "XDG_DATA_HOME=$work/keyring/data" "HOME=$work/keyring"
)
printf 'lab keyring' | env "${keyring_env[@]}" gnome-keyring-daemon --foreground --unlock \
  --components=secrets >"$work/keyring/log" 2>&1 &
keyring_pid=$!
stored=0
for _ in $(seq 200); do
  if printf '%s' "$SMBNAS_PASSWORD" | env "${keyring_env[@]}" timeout 10 secret-tool store \
    --label="smb://$SMBNAS_USER@127.0.0.1:$SMBNAS_PORT" xdg:schema org.gnome.keyring.NetworkPassword \
    user "$SMBNAS_USER" server 127.0.0.1 domain LAB protocol smb port "$SMBNAS_PORT" 2>/dev/null; then
    stored=1
    break
  fi
  kill -0 "$keyring_pid" 2>/dev/null || break
  sleep 0.05
done
if ((stored)); then
  run_copy --threads 4 "$work/few" "$mnt/from-keyring"
  if ((rc == 0)) && [[ $(route_line) == "$direct" ]] &&
    diff -r "$work/few" "$work/backing/from-keyring" >/dev/null; then
    ok "the password from the secret service, none given: $(route_line)"
  else
    cat "$work/out"; fail "with the password in the secret service (exit $rc), route “$(route_line)”"
  fi
  if grep -qF "$SMBNAS_PASSWORD" "$work/record.json" "$work/out"; then
    fail "the password is in the record or the output"
  fi
else
  cat "$work/keyring/log"; fail "gnome-keyring-daemon took no password"
fi
stop_keyring

"$smbnas" stop "$mnt" || fail "smbnas stop"
mnt=

smbtest_finish

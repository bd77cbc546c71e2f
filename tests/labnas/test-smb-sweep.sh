#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test-smb-sweep.sh: copyscope-cli sweep onto the lab Samba spoken to
# directly, smb://user@127.0.0.1:PORT/share/folder: every timed copy arrives
# whole in a folder of its own on the share, over SMB, and is removed there
# after it is timed, leaving what else the folder holds as it was; the
# password comes from the environment or an smbclient -A file and is in no
# output or sweep file; a folder or a share that is not there, or a wrong
# password, stop the sweep before any copy with exit 3 and one message; and
# a sweep onto the share's GVfs path goes to the server directly the same
# way. Exit 77 with a SKIP line when this machine cannot run smbd.

smbtest_name=smb-sweep
# shellcheck source=smbtest-lib.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/smbtest-lib.sh"

# Runs a sweep with its JSON, warm, in the environment sweep_env adds; sets
# rc and keeps the output.
sweep_env=()
run_sweep ()
{
  rc=0
  env "${sweep_env[@]}" "$cli" sweep --warm --json "$work/sweep.json" "$@" >"$work/out" 2>&1 || rc=$?
}

# "threads:files:ok" of every run in the sweep's JSON, in order.
runs_of ()
{
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%d:%d:%s" % (r["threads"], r["files"], r["ok"]) for r in d["runs"]))' \
    "$work/sweep.json" 2>/dev/null
}

# The share's folder $1 (on the backing folder), listed with each file's hash.
contents_of () { (cd "$1" && find . -printf '%P %y\n' | sort && find . -type f -exec md5sum {} + | sort); }

# SMB2 requests of a kind smbd served since the snapshot in $work/snap.
requests_since () { "$smbnas" profile "$mnt" "$work/snap" | sed -n "s/^smb2.$1=//p"; }

[[ -z ${LABNAS_SKIP:-} ]] || skip "$LABNAS_SKIP"
[[ -x $cli ]] || { echo "FAIL: smb-sweep: copyscope-cli not found: $cli"; exit 1; }

smbtest_workdir
mkdir -p "$work/backing"
"$cli" generate small "$work/src" --scale 0.005 --seed 28 >/dev/null
mkdir "$work/src/sub"
head -c 70000 /dev/urandom >"$work/src/sub/odd.bin"
total=$(find "$work/src" -type f | wc -l)

smbtest_start "$work/backing"
eval "$("$smbnas" env "$mnt")"
url="smb://$SMBNAS_USER@127.0.0.1:$SMBNAS_PORT/share"

# The sweep's folder on the share holds other things too, which stay.
mkdir -p "$work/backing/sweeps/other" "$work/backing/sweeps/sweep-not-ours"
echo "not the sweep's" >"$work/backing/sweeps/kept.txt"
echo "nor this" >"$work/backing/sweeps/other/inside.txt"
echo "a name like the sweep's" >"$work/backing/sweeps/sweep-not-ours/file"
chown -R "$user:" "$work/backing/sweeps"
before=$(contents_of "$work/backing/sweeps")

# ---- a sweep onto smb://: whole copies, each removed on the share ----------
"$smbnas" profile "$mnt" >"$work/snap"
sweep_env=(COPYSCOPE_SMB_PASSWORD="$SMBNAS_PASSWORD")
run_sweep --threads 1,4 --repeats 2 "$work/src" "$url/sweeps"
runs=$(runs_of)
if ((rc == 0)) && [[ $runs == "1:$total:True 4:$total:True 1:$total:True 4:$total:True" ]]; then
  ok "sweep onto smb:// (1 and 4 threads, 2 rounds): every copy whole, $total files each"
else
  cat "$work/out"; fail "sweep onto smb:// (exit $rc): runs “$runs”"
fi
if grep -q '^| 4 ' "$work/out" && grep -q '^Recommended: ' "$work/out"; then
  ok "the table and the recommendation: $(grep '^Recommended: ' "$work/out")"
else
  cat "$work/out"; fail "no table or recommendation"
fi
# smbd saw the copies (a create for every temporary, claim and name) and the
# removals (every file of four copies deleted on the share).
creates=$(requests_since create)
if ((creates >= 4 * total)); then
  ok "the copies and their removal went over SMB: $creates SMB2 creates"
else
  fail "only ${creates:-no} SMB2 creates for 4 copies of $total files"
fi
after=$(contents_of "$work/backing/sweeps")
if [[ $after == "$before" ]]; then
  ok "every copy's folder removed from the share, everything else as it was"
else
  diff <(echo "$before") <(echo "$after") | head -n 10
  fail "the share's folder differs after the sweep"
fi
if [[ -n $(find "$work/backing" -name '.copyscope-*') ]]; then fail "a temporary is left on the share"; fi

# ---- the password is nowhere -------------------------------------------------
if grep -qF "$SMBNAS_PASSWORD" "$work/out" "$work/sweep.json"; then
  fail "the password is in the output or the sweep file"
else
  ok "the password is in no output and no sweep file"
fi

# ---- the login from an smbclient -A file ------------------------------------
printf 'username = %s\npassword = %s\ndomain = LAB\n' "$SMBNAS_USER" "$SMBNAS_PASSWORD" >"$work/auth"
chmod 600 "$work/auth"
sweep_env=(-u COPYSCOPE_SMB_PASSWORD)
run_sweep --threads 2 --repeats 1 --auth-file "$work/auth" "$work/src" \
  "smb://127.0.0.1:$SMBNAS_PORT/share/sweeps"
if ((rc == 0)) && [[ $(runs_of) == "2:$total:True" && $(contents_of "$work/backing/sweeps") == "$before" ]]; then
  ok "--auth-file gives user and password; the copy removed after"
else
  cat "$work/out"; fail "sweep with --auth-file (exit $rc): runs “$(runs_of)”"
fi

# ---- what stops a sweep before any copy: exit 3, one line --------------------
# $1: what it is; $2: what the line says; the rest: the sweep's arguments.
refused ()
{
  local what="$1" says="$2"
  shift 2
  rm -f "$work/sweep.json"
  run_sweep --threads 1 --repeats 1 "$@"
  if ((rc == 3)) && (($(wc -l <"$work/out") == 1)) && grep -qF "$says" "$work/out" &&
    [[ ! -e $work/sweep.json && $(contents_of "$work/backing/sweeps") == "$before" ]]; then
    ok "$what: exit 3, one line: $(cat "$work/out")"
  else
    cat "$work/out"; fail "$what (exit $rc)"
  fi
}
sweep_env=(COPYSCOPE_SMB_PASSWORD="$SMBNAS_PASSWORD")
refused "a folder not on the share" "The destination must be an existing folder" \
  "$work/src" "$url/sweeps/nosuchfolder"
refused "a file, not a folder" "The destination must be an existing folder" \
  "$work/src" "$url/sweeps/kept.txt"
refused "a share not on the server" 'share named “nosuchshare”' \
  "$work/src" "smb://$SMBNAS_USER@127.0.0.1:$SMBNAS_PORT/nosuchshare/sweeps"
sweep_env=(COPYSCOPE_SMB_PASSWORD=not-the-password)
refused "a wrong password" "Permission denied" "$work/src" "$url/sweeps"
if grep -qF not-the-password "$work/out"; then fail "the wrong password is printed"; fi
[[ ! -e $work/backing/sweeps/nosuchfolder ]] || fail "the missing folder was made"

# ---- the share's GVfs path: the copies go to the server directly ------------
# What the window's sweep page hands over for a share GNOME Files mounted.
"$smbnas" profile "$mnt" >"$work/snap"
sweep_env=(COPYSCOPE_SMB_PASSWORD="$SMBNAS_PASSWORD")
run_sweep --threads 2 --repeats 1 "$work/src" "$mnt/sweeps"
creates=$(requests_since create)
if ((rc == 0)) && [[ $(runs_of) == "2:$total:True" && $(contents_of "$work/backing/sweeps") == "$before" ]] &&
  ((creates >= total)); then
  ok "sweep onto the share's GVfs path: whole, removed after ($creates SMB2 creates)"
else
  cat "$work/out"; fail "sweep onto the GVfs path (exit $rc): runs “$(runs_of)”, $creates creates"
fi

"$smbnas" stop "$mnt" || fail "smbnas stop"
mnt=

smbtest_finish

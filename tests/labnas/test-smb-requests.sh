#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test-smb-requests.sh: how many SMB2 requests the engine's own SMB client
# (libsmbclient) sends per small file, counted by the lab Samba itself
# (smbstatus --profile): 200 files of 12 KiB, 4 threads, into a folder the
# copy creates and into one that exists, each whole with its times and
# nothing of ours left. The limits are the publication docs/SMB.md
# ("Requests per small file") lists; a copy that sends more fails here.
# Exit 77 with a SKIP line when this machine cannot run smbd.

smbtest_name=smb-requests
# shellcheck source=smbtest-lib.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/smbtest-lib.sh"

# Per file, into a new folder and into an existing one (which costs each
# file a lookup of its name: a create answered "not found", 1 request).
max_new=${SMB_REQUESTS_MAX_NEW:-18.5}
max_existing=${SMB_REQUESTS_MAX_EXISTING:-19.5}
n_files=200

[[ -z ${LABNAS_SKIP:-} ]] || skip "$LABNAS_SKIP"
[[ -x $cli ]] || { echo "FAIL: smb-requests: copyscope-cli not found: $cli"; exit 1; }

smbtest_workdir
mkdir -p "$work/backing" "$work/src"
for i in $(seq "$n_files"); do
  head -c 12288 /dev/urandom >"$work/src/file$i"
done
# Times well apart from now, as most files have: the check of the first
# file's time then settles how this share keeps them.
touch -d '2024-01-01 00:00:00.123456' "$work/src"/file*

smbtest_start "$work/backing"
eval "$("$smbnas" env "$mnt")"
url="smb://$SMBNAS_USER@127.0.0.1:$SMBNAS_PORT/share"

# Copies $work/src into $1 (a URL) with 4 threads; sets per_file to the
# SMB2 requests smbd served per file, to one decimal, and rc.
count_copy ()
{
  "$smbnas" profile "$mnt" >"$work/before"
  rc=0
  COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD "$cli" copy --no-history --threads 4 "$work/src" "$1" \
    >"$work/out" 2>&1 || rc=$?
  "$smbnas" profile "$mnt" "$work/before" >"$work/after"
  per_file=$(awk -F= -v n="$n_files" '$1 == "smb2.total" { printf "%.1f", $2 / n }' "$work/after")
  echo "# $(paste -sd' ' "$work/after")"
}

# Whole, with times to the microsecond, and no temporary or claim left.
check_copy ()
{
  local dst="$1" what="$2"
  if ((rc == 0)) && diff -r "$work/src" "$dst" >/dev/null; then
    ok "$what: $n_files files copied, diff -r equal"
  else
    cat "$work/out"; fail "$what: exit $rc or the contents differ"
  fi
  if diff <(cd "$work/src" && find . -type f -printf '%P %.6T@\n' | sort) \
    <(cd "$dst" && find . -type f -printf '%P %.6T@\n' | sort) >/dev/null; then
    ok "$what: modification times kept"
  else
    fail "$what: modification times differ"
  fi
  if find "$dst" -name '.copyscope*' | grep -q .; then
    fail "$what: a temporary is left: $(find "$dst" -name '.copyscope*' | head -n 3)"
  else
    ok "$what: no temporary left"
  fi
}

count_copy "$url/new"
check_copy "$work/backing/new" "into a new folder"
if awk -v a="$per_file" -v b="$max_new" 'BEGIN { exit !(a <= b) }'; then
  ok "into a new folder: $per_file SMB2 requests per file (at most $max_new)"
else
  fail "into a new folder: $per_file SMB2 requests per file, more than $max_new"
fi

# An existing folder: the copy of src lands in existing/src, already there.
mkdir -p "$work/backing/existing/src"
chown -R "$user" "$work/backing/existing"
count_copy "$url/existing"
check_copy "$work/backing/existing/src" "into an existing folder"
if awk -v a="$per_file" -v b="$max_existing" 'BEGIN { exit !(a <= b) }'; then
  ok "into an existing folder: $per_file SMB2 requests per file (at most $max_existing)"
else
  fail "into an existing folder: $per_file SMB2 requests per file, more than $max_existing"
fi

smbtest_finish

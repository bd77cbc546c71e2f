#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test-smb-requests.sh: how many SMB2 requests the engine's own SMB client
# (libsmbclient) sends per small file, counted by the lab Samba itself
# (smbstatus --profile): 200 files of 12 KiB, 4 threads, into a folder the
# copy creates and into one that exists, each whole with its times and
# nothing of ours left. The limits are the publication docs/SMB.md
# ("Requests per small file") lists; a copy that sends more fails here.
# Then a rerun of a tree of folders that changes nothing sets no folder's
# times but its top's (no SETINFO for the others) and asks about no folder
# its parent's listing showed but the first each thread lists ahead (no
# GETINFO per folder), and a rerun after a
# source folder's time changed and a file was added to another still gives
# every folder its source's time.
# A rerun after one file in each folder changed costs each replaced file a
# bounded number of requests (no staging folder, no failed rename try).
# Exit 77 with a SKIP line when this machine cannot run smbd.

smbtest_name=smb-requests
# shellcheck source=smbtest-lib.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/smbtest-lib.sh"

# Per file, into a new folder and into an existing one (which costs each
# file a lookup of its name: a create answered "not found", 1 request).
max_new=${SMB_REQUESTS_MAX_NEW:-15.5}
max_existing=${SMB_REQUESTS_MAX_EXISTING:-16.5}
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

# ---- Reruns of a tree of folders ----------------------------------------------
# More folders than threads list ahead (8): each thread's first folder is
# opened by name, as it connects.
n_folders=24
mkdir -p "$work/tree"
for d in $(seq "$n_folders"); do
  mkdir -p "$work/tree/d$d"
  for i in 1 2 3; do head -c 4096 /dev/urandom >"$work/tree/d$d/f$i"; done
done
touch -d '2024-01-01 00:00:00.654321' "$work/tree"/d*/f* "$work/tree"/d* "$work/tree"

# Runs `copy $1 $url/$2` (tree into trees lands in trees/tree); sets rc and
# keeps the SMB2 requests smbd served for kind_count.
rerun_tree ()
{
  "$smbnas" profile "$mnt" >"$work/before"
  rc=0
  COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD "$cli" copy --no-history --threads 4 "$work/${1:-tree}" \
    "$url/${2:-trees}" >"$work/out" 2>&1 || rc=$?
  "$smbnas" profile "$mnt" "$work/before" >"$work/after"
}
kind_count () { awk -F= -v k="smb2.$1" '$1 == k { n = $2 } END { print n + 0 }' "$work/after"; }
# The requests that set connections up and end them. Besides its own kinds
# each connection sends two CREATE, two GETINFO and two CLOSE (the IPC$
# tree's and the stat of the share's root it is set up by,
# cs-io-smb-conn.c): 16 connections more in a run sent 32 of each more.
# How many listing and worker threads set up ahead depends on how slow the
# listings were (cs-dest-listing.c: a loaded machine makes 38 where an idle
# one makes 22), so per-file costs are counted without them.
connection_requests () {
  echo $(($(kind_count negprot) * 7 + $(kind_count sesssetup) + $(kind_count tcon) \
          + $(kind_count tdis) + $(kind_count ioctl) + $(kind_count keepalive)))
}
folder_times () { (cd "$1" && find . -type d -printf '%P %.6T@\n' | sort); }

# Into a folder that exists: the copy is trees/tree, its rerun the same.
mkdir -p "$work/backing/trees"
chown -R "$user" "$work/backing/trees"
rerun_tree
((rc == 0)) || { cat "$work/out"; fail "the first copy of the tree: exit $rc"; }
rerun_tree
setinfo=$(kind_count setinfo) getinfo=$(kind_count getinfo) tcon=$(kind_count tcon)
noop_total=$(kind_count total)
noop_connections=$(connection_requests) noop_negprot=$(kind_count negprot)
echo "# a no-op rerun of $n_folders folders: $(paste -sd' ' "$work/after")"
# What a run asks whatever its folders (its connections, the top folder):
# a no-op rerun of src into existing (existing/src), one folder.
rerun_tree src existing
getinfo_one=$(kind_count getinfo) tcon_one=$(kind_count tcon) negprot_one=$(kind_count negprot)
echo "# a no-op rerun of one folder: $(paste -sd' ' "$work/after")"
# The top folder's times, and one request a run makes besides.
if ((rc == 0 && setinfo <= 2)); then
  ok "a no-op rerun sets no listed folder's times ($setinfo SETINFO for $n_folders folders)"
else
  cat "$work/out"; fail "a no-op rerun (exit $rc) sent $setinfo SETINFO for $n_folders unchanged folders"
fi
# Each connection asks once (two tree connects each: IPC$ and the share),
# and once more as it is set up (the stat of the share's root), no folder
# it lists ahead (before: an open by name asked about each, a fstat
# again). So no more than one per connection the 24 folders took more.
extra=$(((getinfo - tcon / 2) - (getinfo_one - tcon_one / 2)))
if ((extra <= noop_negprot - negprot_one)); then
  ok "a no-op rerun asks about no listed folder ($extra GETINFO more for $n_folders folders than for one, connections aside: one per connection more at most)"
else
  fail "a no-op rerun sent $extra GETINFO more for $n_folders folders than for one, connections aside"
fi
if diff <(folder_times "$work/tree") <(folder_times "$work/backing/trees/tree") >/dev/null; then
  ok "after a no-op rerun every folder has its source's time"
else
  fail "after a no-op rerun folder times differ: $(diff <(folder_times "$work/tree") <(folder_times "$work/backing/trees/tree") | head -n 4)"
fi

# d1's time changed, a file added to d2 (its time put back): both set again.
touch -d '2025-02-03 04:05:06.789012' "$work/tree/d1"
head -c 4096 /dev/urandom >"$work/tree/d2/new"
touch -d '2024-01-01 00:00:00.654321' "$work/tree/d2/new" "$work/tree/d2"
rerun_tree
if ((rc == 0)) && diff <(folder_times "$work/tree") <(folder_times "$work/backing/trees/tree") >/dev/null; then
  ok "a folder whose source time changed, and one a file was written in, get their source's times ($(kind_count setinfo) SETINFO)"
else
  cat "$work/out"
  fail "after a rerun with changes (exit $rc) folder times differ: $(diff <(folder_times "$work/tree") <(folder_times "$work/backing/trees/tree") | head -n 4)"
fi

# One file in each folder rewritten with new bytes and a later time, as
# bench/rerun's "1 % changed": each is replaced (the worker asks about it
# by name, writes a temporary, sets its times, deletes the old file and
# renames the temporary to its name) and its folder gets its source's time
# again. What that costs over a no-op rerun, per replaced file: at most
# max_replaced requests (the workers' first files' checks included, their
# connections' set-ups not: 17.2 on an idle machine), and three SETINFO, the file's times, the rename
# and the folder's times. Before: no staging folder per worker (each made,
# asked about and removed, the file renamed between folders) and a rename
# that first tried not to replace (a CREATE, SETINFO and CLOSE more).
max_replaced=${SMB_REQUESTS_MAX_REPLACED:-19}
for d in $(seq "$n_folders"); do
  head -c 4096 /dev/urandom >"$work/tree/d$d/f2"
  touch -d '2025-06-07 08:09:10.111213' "$work/tree/d$d/f2"
done
touch -d '2024-01-01 00:00:00.654321' "$work/tree"/d*
rerun_tree
echo "# a rerun replacing one file in each of $n_folders folders: $(paste -sd' ' "$work/after")"
per_replaced=$(awk -v a="$(($(kind_count total) - $(connection_requests)))" \
  -v b="$((noop_total - noop_connections))" -v n="$n_folders" 'BEGIN { printf "%.1f", (a - b) / n }')
setinfo_replaced=$(awk -v a="$(kind_count setinfo)" -v b="$setinfo" -v n="$n_folders" \
  'BEGIN { printf "%.1f", (a - b) / n }')
if ((rc == 0)) && diff -r "$work/tree" "$work/backing/trees/tree" >/dev/null \
  && diff <(cd "$work/tree" && find . -printf '%P %.6T@\n' | sort) \
    <(cd "$work/backing/trees/tree" && find . -printf '%P %.6T@\n' | sort) >/dev/null; then
  ok "a rerun replacing $n_folders files: contents and every time equal to the source"
else
  cat "$work/out"; fail "a rerun replacing $n_folders files (exit $rc) left the tree different"
fi
if find "$work/backing/trees" -name '.copyscope*' | grep -q .; then
  fail "a rerun replacing files left a temporary: $(find "$work/backing/trees" -name '.copyscope*' | head -n 3)"
fi
if awk -v a="$per_replaced" -v b="$max_replaced" 'BEGIN { exit !(a <= b) }'; then
  ok "a replaced file costs $per_replaced SMB2 requests over a no-op rerun, connections aside (at most $max_replaced)"
else
  fail "a replaced file costs $per_replaced SMB2 requests over a no-op rerun, connections aside, more than $max_replaced"
fi
if awk -v a="$setinfo_replaced" 'BEGIN { exit !(a <= 3) }'; then
  ok "a replaced file costs $setinfo_replaced SETINFO: its times, the rename, its folder's times"
else
  fail "a replaced file costs $setinfo_replaced SETINFO, more than its times, the rename and its folder's times"
fi

smbtest_finish

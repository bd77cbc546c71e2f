# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck shell=bash
# Shared by the tests on the SMB lab (tests/labnas/smbnas); sourced, not run.
#
# The sourcing script sets smbtest_name (its SKIP line) and may set
# smbtest_tag (put before every ok/FAIL line), then calls smbtest_start.
# Afterwards: here, smbnas, cli, work (a private folder, removed at exit),
# mnt (the share's GVfs path, stopped at exit) and failures.

set -uo pipefail
export LC_ALL=C.UTF-8 LANG=C.UTF-8

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
smbnas=$here/smbnas
cli=${CS_CLI:-$here/../../build/src/cli/copyscope-cli}

failures=0
work=
mnt=

smbtest_cleanup ()
{
  local rc=$?
  if [[ -n $mnt ]]; then
    "$smbnas" stop "$mnt" >/dev/null || echo "# teardown: could not stop $mnt" >&2
  fi
  [[ -n $work ]] && rm -rf -- "$work"
  exit "$rc"
}
trap smbtest_cleanup EXIT
trap 'exit 130' INT TERM

skip ()
{
  echo "SKIP: ${smbtest_name:-smb}: $*"
  exit 77
}

ok ()
{
  echo "ok: ${smbtest_tag:+$smbtest_tag: }$*"
}

fail ()
{
  echo "FAIL: ${smbtest_tag:+$smbtest_tag: }$*"
  failures=$((failures + 1))
}

# Makes the private work folder, readable by the lab's smbd.
smbtest_workdir ()
{
  work=$(mktemp -d) || exit 1
  chmod 755 "$work"
}

# Starts the lab on the backing folder $1 with options; sets mnt, state
# (the lab's state folder) and user (the lab's Unix user).
smbtest_start ()
{
  local backing="$1" out rc=0
  shift
  out=$("$smbnas" start "$backing" "$@" 2>&1) || rc=$?
  if ((rc == 77)); then
    skip "$(tail -n 1 <<<"$out")"
  elif ((rc != 0)); then
    echo "$out"
    echo "FAIL: ${smbtest_name:-smb}: smbnas start $* exited with $rc"
    exit 1
  fi
  mnt=$(tail -n 1 <<<"$out")
  state=${mnt%%/run/gvfs/*}
  user=$(cat "$state/user")
}

# Under final names below $2 (a copy of $1, as the server holds it): every
# file complete, or a claim: its text, or empty, killed between the create
# and the text, which is a claim only beside the temporary that names it
# (".copyscope-…claim-…"; an empty file beside none is what a copier writing
# straight into the final name leaves). Sets last_complete, last_claims and
# last_temps; fails on anything else, naming it.
smbtest_check_final_names ()
{
  local src="$1" dst="$2" f rel dir bad=0
  local -A intents=()
  last_complete=0 last_claims=0 last_temps=0
  while IFS= read -r -d '' f; do
    [[ ${f##*/} == .copyscope-*.claim-* ]] && intents[${f%/*}]=$((${intents[${f%/*}]:-0} + 1))
  done < <(find "$dst" -type f -print0 2>/dev/null)
  while IFS= read -r -d '' f; do
    rel=${f#"$dst"/}
    dir=${f%/*}
    if [[ ${rel##*/} == .copyscope-* ]]; then
      last_temps=$((last_temps + 1))
    elif cmp -s "$src/$rel" "$f"; then
      last_complete=$((last_complete + 1))
    elif [[ -s $f && $(head -c 22 "$f") == "copyscope placeholder " ]]; then
      last_claims=$((last_claims + 1))
    elif [[ ! -s $f ]] && ((${intents[$dir]:-0} > 0)); then
      intents[$dir]=$((intents[$dir] - 1))
      last_claims=$((last_claims + 1))
    else
      echo "# under a final name, not the source file: $rel ($(stat -c %s "$f") of" \
        "$(stat -c %s "$src/$rel" 2>/dev/null) bytes, $(cmp "$src/$rel" "$f" 2>&1 | head -n 1))"
      bad=$((bad + 1))
    fi
  done < <(find "$dst" -type f -print0 2>/dev/null)
  ((bad == 0))
}

# Ends the script: exit 1 with a count if anything failed.
smbtest_finish ()
{
  if ((failures > 0)); then
    echo "${smbtest_name:-smb}: $failures check(s) failed"
    exit 1
  fi
  echo "${smbtest_name:-smb}: all checks passed"
  exit 0
}

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

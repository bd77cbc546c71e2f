# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck shell=bash
# Shared by labnas and sshnas; sourced, not run.
#
# A share's state lives in a private mktemp -d folder whose path is carried in
# the mount's fsname ("labnas:/tmp/labnas.XXXXXXXX"), so stop and fault find it
# from /proc/self/mountinfo alone.  Nothing here ever stats the mount point:
# on a hung or vanished share that would block or fail.

# Exit code meaning "this machine cannot run the share" (meson's skip code).
LABNAS_CANNOT_RUN=77

labnas_die ()
{
  echo "${0##*/}: $*" >&2
  exit 1
}

labnas_cannot_run ()
{
  echo "${0##*/}: cannot run here: $*" >&2
  exit "$LABNAS_CANNOT_RUN"
}

# Absolute path of $1 without touching $1 itself, only its parent.
labnas_abspath ()
{
  local path="${1%/}" parent base
  [[ -n $path ]] || path=/
  [[ $path == / ]] && { echo /; return; }
  parent=$(dirname -- "$path")
  base=$(basename -- "$path")
  parent=$(cd -- "$parent" 2>/dev/null && pwd -P) || labnas_die "no such folder: $(dirname -- "$path")"
  [[ $parent == / ]] && parent=
  echo "$parent/$base"
}

# mountinfo escapes space, tab, newline and backslash as octal.
labnas_mountinfo_escape ()
{
  local s="$1"
  s=${s//\\/\\134}
  s=${s// /\\040}
  s=${s//$'\t'/\\011}
  s=${s//$'\n'/\\012}
  printf '%s' "$s"
}

# Prints the source (fsname) of the mount at absolute path $1, or fails.
labnas_mount_source ()
{
  local want
  want=$(labnas_mountinfo_escape "$1")
  awk -v want="$want" '
    $5 == want {
      for (i = 7; i <= NF; i++)
        if ($i == "-") { src = $(i + 2); found = 1; break }
    }
    END { if (found) print src; else exit 1 }
  ' /proc/self/mountinfo
}

labnas_is_mounted ()
{
  labnas_mount_source "$1" >/dev/null
}

# State folder of the share of kind $1 ("labnas" or "sshnas") mounted at $2.
labnas_state_dir ()
{
  local kind="$1" mount="$2" source state
  source=$(labnas_mount_source "$mount") || return 1
  [[ $source == "$kind:"* ]] || return 1
  state=$(printf '%b' "${source#"$kind:"}")
  # Only a folder we made: ours, private, with our marker in it.
  [[ -d $state && ! -L $state && -O $state && -f $state/kind ]] || return 1
  [[ $(cat "$state/kind") == "$kind" ]] || return 1
  echo "$state"
}

labnas_new_state_dir ()
{
  local kind="$1" state
  state=$(mktemp -d "${TMPDIR:-/tmp}/$kind.XXXXXXXXXX") || labnas_die "mktemp failed"
  chmod 700 "$state"
  echo "$kind" >"$state/kind"
  echo "$state"
}

labnas_remove_state_dir ()
{
  local kind="$1" state="$2"
  [[ -n $state && -f $state/kind && $(cat "$state/kind") == "$kind" ]] || return 0
  rm -rf -- "$state"
}

# Waits up to $3 seconds for the mount at $1 to appear while process $2 lives.
labnas_wait_mounted ()
{
  local mount="$1" pid="$2" deadline=$((SECONDS + $3))
  while ((SECONDS < deadline)); do
    labnas_is_mounted "$mount" && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.05
  done
  labnas_is_mounted "$mount"
}

# Unmounts $1: a clean unmount first, a lazy one if something holds it busy.
labnas_unmount ()
{
  local mount="$1" i
  labnas_is_mounted "$mount" || return 0
  for i in 1 2 3; do
    fusermount3 -u -- "$mount" 2>/dev/null || umount -- "$mount" 2>/dev/null || true
    labnas_is_mounted "$mount" || return 0
    sleep 0.2
  done
  fusermount3 -u -z -- "$mount" 2>/dev/null || umount -l -- "$mount" 2>/dev/null || true
  ! labnas_is_mounted "$mount"
}

# Ends process $1 (if it is still alive and still command $2): TERM, then KILL.
labnas_stop_pid ()
{
  local pid="$1" comm="$2" i
  [[ $pid =~ ^[0-9]+$ ]] || return 0
  [[ -r /proc/$pid/comm && $(cat "/proc/$pid/comm" 2>/dev/null) == "$comm" ]] || return 0
  for i in $(seq 50); do
    kill -0 "$pid" 2>/dev/null || return 0
    ((i == 1)) && kill -TERM "$pid" 2>/dev/null
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
}

labnas_check_fuse ()
{
  [[ -c /dev/fuse ]] || labnas_cannot_run "/dev/fuse is missing"
  { exec 9<>/dev/fuse; } 2>/dev/null || labnas_cannot_run "/dev/fuse cannot be opened"
  exec 9>&-
  command -v fusermount3 >/dev/null || labnas_cannot_run "fusermount3 is missing (apt-get install fuse3)"
}

# Did the FUSE mount fail because the machine forbids it (not because of us)?
labnas_log_says_cannot_mount ()
{
  grep -qiE 'fuse: device not found|failed to open /dev/fuse|mount failed: (operation not permitted|permission denied)|fusermount3?: (mount failed|option allow_other only allowed)|fuse: failed to exec fusermount3' "$1"
}

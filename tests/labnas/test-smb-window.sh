#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test-smb-window.sh: the window copies to the lab Samba by its smb:// URL,
# smb://USER@127.0.0.1:PORT/share/dst, with nothing mounted: the server
# refuses the window's own attempt, the login dialog asks, a wrong password
# is refused and asked again, the password typed goes to the engine's SMB
# client, the thread count changes during the copy, and the files arrive
# byte-identical (tests/ui/test-smb-window.c, /smb-window/lab, in-process
# under the display this test has, or xvfb-run's). The password is in no
# output. A folder on the share's GVfs mount: the destination row says a
# copy goes through the mount while no login works, directly once the
# password is given. Then, with a private gnome-keyring on the lab's D-Bus, "Remember
# password" puts it in the keyring as gvfsd-smb keeps one (secret-tool finds
# it by user, server, protocol and port), and the next window, a process of
# its own, copies without asking. SMB_WINDOW_FILES small files (default 300)
# make the copy longer, CS_SCREENSHOT_DIR keeps the window's pictures.
# Exit 77 with a SKIP line when this machine cannot run smbd or show a window.

smbtest_name=smb-window-lab
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

[[ -z ${LABNAS_SKIP:-} ]] || skip "$LABNAS_SKIP"
command -v gnome-keyring-daemon >/dev/null || skip "gnome-keyring-daemon is missing (apt-get install gnome-keyring)"
command -v secret-tool >/dev/null || skip "secret-tool is missing (apt-get install libsecret-tools)"
window_test=${CS_SMB_WINDOW_TEST:-$here/../../build/tests/ui/test-smb-window}
[[ -x $window_test ]] || { echo "FAIL: smb-window-lab: $window_test not found"; exit 1; }
runner=()
if [[ -z ${DISPLAY:-} && -z ${WAYLAND_DISPLAY:-} ]]; then
  command -v xvfb-run >/dev/null || skip "no display, and no xvfb-run (apt-get install xvfb)"
  runner=(xvfb-run -a -s "-screen 0 1280x1024x24")
fi

smbtest_workdir
mkdir -p "$work/backing" "$work/src/small" "$work/src/deeper"
for i in $(seq "${SMB_WINDOW_FILES:-300}"); do
  head -c $((12288 + i % 1000)) /dev/urandom >"$work/src/small/file$i"
done
head -c 3000000 /dev/urandom >"$work/src/big.bin"
echo "a name with spaces, 100% and #" >"$work/src/deeper/a b 100% #.txt"
: >"$work/src/empty"

smbtest_start "$work/backing"
eval "$("$smbnas" env "$mnt")"
url="smb://$SMBNAS_USER@127.0.0.1:$SMBNAS_PORT/share"

lab_env=(CS_SMB_LAB_URL="$url" CS_SMB_LAB_PASSWORD="$SMBNAS_PASSWORD" CS_SMB_LAB_SOURCE="$work/src")
rc=0
env "${lab_env[@]}" "${runner[@]}" "$window_test" >"$work/out" 2>&1 || rc=$?
if ((rc == 0)) && grep -q '^ok .*/smb-window/lab' "$work/out"; then
  ok "the window logged in through its dialog and copied to $url/dst"
else
  cat "$work/out"; fail "the window's copy to smb:// (exit $rc)"
fi
if diff -r "$work/src" "$work/backing/dst/src" >"$work/diff" 2>&1; then
  ok "diff -r equal on the share: $(find "$work/src" -type f | wc -l) files"
else
  head -n 5 "$work/diff"; fail "the copy on the share differs from the source"
fi
if [[ -n $(find "$work/backing" -name '.copyscope-*') ]]; then fail "a temporary is left on the share"; fi
if grep -qF "$SMBNAS_PASSWORD" "$work/out"; then fail "the password is in the test's output"; fi

# ---- a folder on the share's GVfs mount: the row says which way -------------
# No keyring, no guests: through the mount; with the password: directly.
rc=0
env CS_SMB_LAB_GVFS_PATH="$mnt" CS_SMB_LAB_USER="$SMBNAS_USER" CS_SMB_LAB_PASSWORD="$SMBNAS_PASSWORD" \
  "${runner[@]}" "$window_test" >"$work/out" 2>&1 || rc=$?
if ((rc == 0)) && grep -q '^ok .*/smb-window/gvfs-row' "$work/out"; then
  ok "a folder on the GVfs mount: the row says through the mount, then directly"
else
  cat "$work/out"; fail "the destination row on the GVfs mount (exit $rc)"
fi

# ---- "Remember password", and the keyring's password the next time ------------
# A private gnome-keyring on the lab's bus, its login collection unlocked
# with a password on stdin.
mkdir -m 0700 "$work/keyring" "$work/keyring/run" "$work/keyring/data"
keyring_env=(
  "DBUS_SESSION_BUS_ADDRESS=unix:path=$state/bus"
  "XDG_RUNTIME_DIR=$work/keyring/run" "XDG_DATA_HOME=$work/keyring/data" "HOME=$work/keyring"
)
printf 'lab keyring' | env "${keyring_env[@]}" gnome-keyring-daemon --foreground --unlock \
  --components=secrets >"$work/keyring/log" 2>&1 &
keyring_pid=$!
for _ in $(seq 200); do
  env "${keyring_env[@]}" timeout 10 gdbus call --session --dest org.freedesktop.secrets \
    --object-path /org/freedesktop/secrets --method org.freedesktop.DBus.Peer.Ping >/dev/null 2>&1 && break
  kill -0 "$keyring_pid" 2>/dev/null || break
  sleep 0.05
done

rc=0
env "${lab_env[@]}" "${keyring_env[@]}" CS_SMB_LAB_KEYRING=remember "${runner[@]}" "$window_test" \
  >"$work/out" 2>&1 || rc=$?
kept=$(env "${keyring_env[@]}" timeout 10 secret-tool lookup xdg:schema org.gnome.keyring.NetworkPassword \
  user "$SMBNAS_USER" server 127.0.0.1 protocol smb port "$SMBNAS_PORT" 2>/dev/null)
if ((rc == 0)) && [[ $kept == "$SMBNAS_PASSWORD" ]]; then
  ok "Remember password: in the keyring under user, server, protocol smb and port"
else
  cat "$work/out" "$work/keyring/log"; fail "Remember password (exit $rc), the keyring has “${kept:+(a password)}”"
fi

rc=0
env "${lab_env[@]}" "${keyring_env[@]}" CS_SMB_LAB_KEYRING=remembered "${runner[@]}" "$window_test" \
  >"$work/out" 2>&1 || rc=$?
if ((rc == 0)) && grep -q '^ok .*/smb-window/lab-remembered' "$work/out" &&
  diff -r "$work/src" "$work/backing/dst-remembered/src" >/dev/null; then
  ok "the next window copied with the keyring's password, without asking"
else
  cat "$work/out"; fail "the copy with the remembered password (exit $rc)"
fi
if grep -qF "$SMBNAS_PASSWORD" "$work/out"; then fail "the password is in the test's output"; fi
stop_keyring

"$smbnas" stop "$mnt" || fail "smbnas stop"
mnt=

smbtest_finish

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
# output. SMB_WINDOW_FILES small files (default 300) make the copy longer,
# CS_SCREENSHOT_DIR keeps the window's pictures.
# Exit 77 with a SKIP line when this machine cannot run smbd or show a window.

smbtest_name=smb-window
# shellcheck source=smbtest-lib.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/smbtest-lib.sh"

[[ -z ${LABNAS_SKIP:-} ]] || skip "$LABNAS_SKIP"
window_test=${CS_SMB_WINDOW_TEST:-$here/../../build/tests/ui/test-smb-window}
[[ -x $window_test ]] || { echo "FAIL: smb-window: $window_test not found"; exit 1; }
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

rc=0
env CS_SMB_LAB_URL="$url" CS_SMB_LAB_PASSWORD="$SMBNAS_PASSWORD" CS_SMB_LAB_SOURCE="$work/src" \
  "${runner[@]}" "$window_test" >"$work/out" 2>&1 || rc=$?
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

"$smbnas" stop "$mnt" || fail "smbnas stop"
mnt=

smbtest_finish

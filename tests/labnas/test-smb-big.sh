#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test-smb-big.sh: a big file written to the lab Samba through the engine's
# own SMB backend moves in big calls, as smbclient's put does. smbd's profile
# counts the SMB2 writes of a 96 MiB copy onto the share (one thread): at
# most size / 4 MiB + 16 (the 1 MiB calls of before took 102). It reads back
# equal with its time to the microsecond, so does the copy back from the
# share (1 MiB reads, counted), and eight threads (a big buffer for one of
# them, 1 MiB for the others) copy it whole too.
# Exit 77 with a SKIP line when this machine cannot run smbd.

smbtest_name=smb-big
# shellcheck source=smbtest-lib.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/smbtest-lib.sh"

[[ -z ${LABNAS_SKIP:-} ]] || skip "$LABNAS_SKIP"
[[ -x $cli ]] || { echo "FAIL: smb-big: copyscope-cli not found: $cli"; exit 1; }

size=$((96 * 1024 * 1024))
most=$((size / (4 * 1024 * 1024) + 16))

smbtest_workdir
mkdir -p "$work/backing" "$work/src" "$work/back"
head -c "$size" /dev/urandom >"$work/src/big.bin"
touch -d '2001-02-03 04:05:06.123456789' "$work/src/big.bin"

smbtest_start "$work/backing"
eval "$("$smbnas" env "$mnt")"
url="smb://$SMBNAS_USER@127.0.0.1:$SMBNAS_PORT/share"
export COPYSCOPE_SMB_PASSWORD=$SMBNAS_PASSWORD

# Copies $1 to $2 with $3 threads; sets rc and kind (smbd's count of the SMB2
# requests of kind $4 it served meanwhile).
copy_counting ()
{
  local from="$1" to="$2" threads="$3" what="$4"
  "$smbnas" profile "$mnt" >"$work/before"
  rc=0
  "$cli" copy --no-history --threads "$threads" "$from" "$to" >"$work/out" 2>&1 || rc=$?
  kind=$("$smbnas" profile "$mnt" "$work/before" | awk -F= -v k="smb2.$what" '$1 == k { print $2 }')
  kind=${kind:-0}
}

# Whether $1 and $2 hold the same bytes and the same time to the microsecond.
same_with_time ()
{
  cmp -s "$1" "$2" && [[ $(stat -c %.6Y "$1") == "$(stat -c %.6Y "$2")" ]]
}

# ---- onto the share, one thread ---------------------------------------------
copy_counting "$work/src/big.bin" "$url/big.bin" 1 write
if ((rc == 0)) && same_with_time "$work/src/big.bin" "$work/backing/big.bin"; then
  ok "96 MiB onto smb:// reads back equal, with its time"
else
  cat "$work/out"; fail "the copy onto smb:// (exit $rc) differs or lost its time"
fi
if ((kind > 0 && kind <= most)); then
  ok "$kind SMB2 writes for 96 MiB (at most $most)"
else
  fail "$kind SMB2 writes for 96 MiB (at most $most)"
fi

# ---- back from the share, one thread ----------------------------------------
copy_counting "$url/big.bin" "$work/back/big.bin" 1 read
if ((rc == 0)) && same_with_time "$work/src/big.bin" "$work/back/big.bin"; then
  ok "96 MiB back from smb:// equal, with its time"
else
  cat "$work/out"; fail "the copy back from smb:// (exit $rc) differs or lost its time"
fi
echo "# $kind SMB2 reads for 96 MiB"

# ---- eight threads: one big buffer, the others 1 MiB ---------------------------
copy_counting "$work/src/big.bin" "$url/big8.bin" 8 write
if ((rc == 0)) && same_with_time "$work/src/big.bin" "$work/backing/big8.bin"; then
  ok "8 threads: equal, with its time ($kind SMB2 writes)"
else
  cat "$work/out"; fail "8 threads onto smb:// (exit $rc) differ or lost the time"
fi
if [[ -n $(find "$work/backing" -name '.copyscope-*') ]]; then
  find "$work/backing" -name '.copyscope-*'; fail "a temporary, partial or journal is left"
else
  ok "nothing of ours left on the share"
fi

smbtest_finish

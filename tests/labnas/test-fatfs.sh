#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test-fatfs.sh [KILLS]: copyscope-cli onto a FAT32 share through fusefat,
# which has neither hard links nor RENAME_NOREPLACE (nor O_TMPFILE, owners
# or modes), so every new file is published through a claim on its final
# name.  A copy, its rerun, hard-linked names copied as separate files with
# one note, and KILLS (default 3) SIGKILLs of a slowed copy at random moments:
# after each kill every file under a final name is complete, or a claim (its
# text, or empty: killed before the text), and the rerun leaves the
# source's tree with no claim and no temporary.  Exit 77 with a SKIP line
# when fusefat or FUSE is not available.

set -euo pipefail
export LC_ALL=C.UTF-8 LANG=C.UTF-8

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
share=$here/fatnas
cli=${CS_CLI:-$here/../../build/src/cli/copyscope-cli}
shim=${CS_PRELOAD:-}
kills=${1:-3}

failures=0
work=
mnt=
copier=

cleanup ()
{
  local rc=$?
  if [[ -n $copier ]]; then
    kill -KILL -- "-$copier" 2>/dev/null || true
  fi
  if [[ -n $mnt ]]; then
    "$share" stop "$mnt" >/dev/null || echo "# teardown: could not stop $mnt" >&2
  fi
  [[ -n $work ]] && rm -rf -- "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ok () { echo "ok: fatfs: $*"; }
fail () { echo "FAIL: fatfs: $*"; failures=$((failures + 1)); }

json ()
{
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$1" "$2"
}

copy ()
{
  local record="$1"
  shift
  cli_rc=0
  "$cli" copy --no-history --quiet --json "$record" "$@" 2>"$record.err" || cli_rc=$?
}

# FAT keeps times to 2 s and no owners, modes or links: contents, names and
# times (to the even second below) are what a copy there can match.
same_tree ()
{
  local what="$1" a="$2" b="$3"
  if ! diff -r "$a" "$b" >"$work/diff" 2>&1; then
    head -n 20 "$work/diff"
    fail "$what: contents differ"
    return
  fi
  # FAT rounds a time to 2 s, down or up (fusefat rounds to the nearest).
  if python3 - "$a" "$b" >"$work/meta.diff" <<'EOF'
import os, sys
a, b = sys.argv[1], sys.argv[2]
bad = 0
for top, dirs, files in os.walk(a):
    for name in files:
        rel = os.path.relpath(os.path.join(top, name), a)
        sa, sb = os.stat(os.path.join(a, rel)), os.stat(os.path.join(b, rel))
        if sa.st_size != sb.st_size or abs(sa.st_mtime_ns - sb.st_mtime_ns) >= 2_000_000_000:
            print(rel, sa.st_size, sb.st_size, sa.st_mtime_ns, sb.st_mtime_ns)
            bad += 1
sys.exit(1 if bad else 0)
EOF
  then
    ok "$what: identical (contents, sizes, mtimes within FAT's 2 s)"
  else
    head -n 20 "$work/meta.diff"
    fail "$what: sizes or times differ"
  fi
}

# Under final names below $2 (a copy of $1): every file complete, or — when
# $3 is "killed" — a claim: the placeholder text, or empty (killed between
# the create and the text).  Temporaries are allowed only then too.
check_final_names ()
{
  local src="$1" dst="$2" when="$3" f rel bad=0 complete=0 claims=0 temps=0
  while IFS= read -r -d '' f; do
    rel=${f#"$dst"/}
    case ${rel##*/} in
      .copyscope-*)
        temps=$((temps + 1))
        continue
        ;;
    esac
    if cmp -s "$src/$rel" "$f"; then
      complete=$((complete + 1))
    elif [[ $when == killed && ( ! -s $f || $(head -c 22 "$f") == "copyscope placeholder " ) ]]; then
      claims=$((claims + 1))
    else
      echo "# under a final name, not the source file: $rel ($(stat -c %s "$f") bytes)"
      bad=$((bad + 1))
    fi
  done < <(find "$dst" -type f -print0 2>/dev/null)
  if [[ $when != killed ]] && ((temps > 0)); then
    echo "# $temps temporaries left"
    bad=$((bad + temps))
  fi
  last_complete=$complete last_claims=$claims last_temps=$temps
  ((bad == 0))
}

[[ -x $cli ]] || { echo "FAIL: fatfs: copyscope-cli not found: $cli"; exit 1; }
command -v python3 >/dev/null || { echo "SKIP: fatfs: python3 is missing (reads the run records)"; exit 77; }

work=$(mktemp -d)
chmod 755 "$work"
out=0
out=$("$share" start "$work/fat.img" "$work/mnt" --size-mb 128 2>&1) || {
  rc=$?
  if ((rc == 77)); then
    echo "SKIP: fatfs: $(tail -n 1 <<<"$out")"
    exit 77
  fi
  echo "$out"
  echo "FAIL: fatfs: start exited with $rc"
  exit 1
}
mnt=$(tail -n 1 <<<"$out")
ok "FAT32 mounted on $mnt through fusefat"

# ---- a tree, its rerun -------------------------------------------------------

mkdir -p "$work/src/sub/deeper" "$work/src/empty"
for i in $(seq 20); do
  head -c $((i * 3001)) /dev/urandom >"$work/src/sub/file$i"
done
head -c 3000000 /dev/urandom >"$work/src/big.bin"
: >"$work/src/zero"
printf 'a note\n' >"$work/src/sub/deeper/note.txt"
touch -d '2020-05-05 10:00:00' "$work/src/big.bin" "$work/src/sub/file3"

copy "$work/r1.json" --threads 4 "$work/src" "$mnt"
if ((cli_rc == 0)); then ok "copy onto FAT: exit 0"; else fail "copy onto FAT: exit $cli_rc: $(head -c 1500 "$work/r1.json.err")"; fi
same_tree "copy onto FAT" "$work/src" "$mnt/src"
if check_final_names "$work/src" "$mnt/src" done; then ok "copy onto FAT: no claim or temporary left"; else fail "copy onto FAT: claims or temporaries left"; fi
ops=$(json "$work/r1.json" 'sorted(set(e["operation"] for e in d["errors"]))')
notes=$(json "$work/r1.json" 'len(d["errors"])')
if [[ $(json "$work/r1.json" 'len(d["errors"]) == len(set(e["operation"] for e in d["errors"])) and all(e["message"].startswith("The destination does not keep") for e in d["errors"])') == True ]]; then
  ok "what FAT does not keep is said once each: $ops"
else
  fail "reported: $(json "$work/r1.json" '[(e["path"], e["operation"], e["message"]) for e in d["errors"][:6]]')"
fi

copy "$work/r2.json" --threads 4 "$work/src" "$mnt"
copied=$(json "$work/r2.json" 'd["totals"]["copied"]["files"]')
skipped=$(json "$work/r2.json" 'd["totals"]["skipped"]["files"]')
others=$(json "$work/r2.json" '[e["message"] for e in d["errors"] if not e["message"].startswith("The destination does not keep")]')
if ((cli_rc == 0 && copied == 0 && skipped == $(find "$work/src" -type f | wc -l))) && [[ $others == "[]" ]]; then
  ok "rerun: every file skipped as identical"
else
  fail "rerun: exit $cli_rc, $copied copied again, $skipped skipped; reported: ${others:0:800}"
fi

# ---- hard links where there are none -------------------------------------------

mkdir -p "$work/linked/a" "$work/linked/b"
head -c 5000 /dev/urandom >"$work/linked/a/one"
ln "$work/linked/a/one" "$work/linked/b/two"
ln "$work/linked/a/one" "$work/linked/b/three"
copy "$work/r3.json" --threads 2 "$work/linked" "$mnt"
if ((cli_rc == 0)) && cmp -s "$work/linked/a/one" "$mnt/linked/b/two" && cmp -s "$work/linked/a/one" "$mnt/linked/b/three"; then
  ok "hard-linked names copied as separate, complete files"
else
  fail "hard-linked names: exit $cli_rc: $(head -c 1500 "$work/r3.json.err")"
fi
if [[ $(json "$work/r3.json" 'sum(1 for e in d["errors"] if e["operation"] == "link")') == 1 ]]; then
  ok "links not kept: said once"
else
  fail "links not kept: $(json "$work/r3.json" '[(e["operation"], e["message"]) for e in d["errors"]]')"
fi

# ---- kills at random moments -------------------------------------------------------

if [[ -z $shim || ! -f $shim ]]; then
  echo "# no preload shim (CS_PRELOAD): the kills are not slowed, and not tried"
else
  mkdir -p "$work/ksrc/d1" "$work/ksrc/d2"
  head -c 3000000 /dev/urandom >"$work/ksrc/big.bin"
  for i in $(seq 12); do
    head -c $((i * 7001)) /dev/urandom >"$work/ksrc/d$((i % 2 + 1))/f$i"
  done
  touch -d '2020-01-01 00:00:00' "$work/ksrc/big.bin" "$work/ksrc/d1/"* "$work/ksrc/d2/"*
  mid=0
  before=$failures
  for k in $(seq "$kills"); do
    rm -rf -- "$mnt/ksrc"
    delay_ms=$((RANDOM % 1400 + 100))
    # Only writes under final names are slowed: the claims' texts, so kills
    # land between a claim's create and its text as often as anywhere.
    setsid env LD_PRELOAD="$shim" CSFAULT_PATH="$mnt/ksrc/big.bin|$mnt/ksrc/d?/f*" CSFAULT_OP=write \
      CSFAULT_DELAY_US=150000 \
      "$cli" copy --no-history --quiet --threads 2 "$work/ksrc" "$mnt" >/dev/null 2>&1 &
    copier=$!
    sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
    kill -KILL -- "-$copier" 2>/dev/null || true
    wait "$copier" 2>/dev/null || true
    copier=
    if check_final_names "$work/ksrc" "$mnt/ksrc" killed; then
      :
    else
      fail "kill $k after $delay_ms ms: a partial file under a final name"
    fi
    echo "# kill $k after $delay_ms ms: $last_complete complete, $last_claims claims, $last_temps temporaries"
    ((last_claims + last_temps > 0)) && mid=$((mid + 1))
    copy "$work/k.json" --threads 2 "$work/ksrc" "$mnt"
    if ((cli_rc != 0)); then
      fail "rerun after kill $k: exit $cli_rc: $(head -c 1500 "$work/k.json.err")"
    elif ! check_final_names "$work/ksrc" "$mnt/ksrc" done || ! diff -rq "$work/ksrc" "$mnt/ksrc" >/dev/null; then
      fail "rerun after kill $k: not the source's tree, or claims or temporaries left"
    fi
  done
  if ((failures == before)); then
    ok "$kills kills ($mid caught a claim or a temporary): every rerun converged, no claim or temporary left"
  fi
  if ((mid == 0)); then
    fail "no kill landed mid-copy; the kills proved nothing"
  fi
fi

"$share" stop "$mnt" >/dev/null
mnt=
if ((failures > 0)); then
  echo "fatfs: $failures check(s) failed"
  exit 1
fi
echo "fatfs: all checks passed"

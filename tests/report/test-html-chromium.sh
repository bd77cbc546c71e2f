#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The HTML comparison report, opened in a real browser: two copies of the same
# folder with 1 and 2 threads, compared by copyscope-cli, rendered by headless
# Chromium into a screenshot that must show the charts (many colours, not a
# blank or an error page). The screenshot is kept in the build folder.
set -euo pipefail

cli=${CS_CLI:?CS_CLI must name copyscope-cli}
out_dir=${G_TEST_BUILDDIR:-.}/report
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "SKIP: no chromium here (Debian package chromium)"
  exit 77
fi
if ! command -v identify >/dev/null; then
  echo "SKIP: no identify (imagemagick) to look at the screenshot"
  exit 77
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out_dir"

"$cli" generate small "$work/src" --scale 0.02 >/dev/null
"$cli" copy -q --no-history --interval 100 --threads 1 --json "$work/t1.json" "$work/src" "$work/d1"
"$cli" copy -q --no-history --interval 100 --threads 2 --json "$work/t2.json" "$work/src" "$work/d2"
"$cli" compare "$work/t1.json" "$work/t2.json" --label T1 --label 'T2 <b>&amp;</b>' \
  --format html -o "$work/report.html"

grep -q "achieves better results in" "$work/report.html"
grep -q "<svg" "$work/report.html"
# The label is text, never markup.
if grep -q "T2 <b>" "$work/report.html"; then
  echo "FAIL: a label reached the page as markup"
  exit 1
fi

shot="$out_dir/report-html.png"
rm -f "$shot"
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$work/profile" --window-size=1200,2400 --hide-scrollbars \
  --screenshot="$shot" "file://$work/report.html" >/dev/null 2>&1 || true

if [ ! -s "$shot" ]; then
  echo "FAIL: chromium wrote no screenshot"
  exit 1
fi
colours=$(identify -format '%k' "$shot")
echo "screenshot $shot: $colours colours"
# A page of text alone has a few dozen greys; the charts bring anti-aliased colours.
if [ "$colours" -lt 200 ]; then
  echo "FAIL: the screenshot looks blank or chart-less ($colours colours)"
  exit 1
fi
echo "PASS"

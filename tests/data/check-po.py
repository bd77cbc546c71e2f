#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks every translation in po/LINGUAS: it compiles with msgfmt --check and
translates every message of the template, with nothing fuzzy.

Usage: check-po.py PO_DIR
"""

import os
import re
import subprocess
import sys


def main():
    po_dir = sys.argv[1]
    with open(os.path.join(po_dir, 'LINGUAS'), encoding='utf-8') as f:
        languages = [w for line in f if not line.startswith('#') for w in line.split()]

    failed = False
    for lang in languages:
        po = os.path.join(po_dir, lang + '.po')
        result = subprocess.run(['msgfmt', '--check', '--statistics', '-o', os.devnull, po],
                                capture_output=True, text=True, env=dict(os.environ, LC_ALL='C'))
        report = (result.stdout + result.stderr).strip()
        print(f'{lang}: {report}')
        if result.returncode != 0:
            failed = True
            continue
        if re.search(r'\b(fuzzy|untranslated)\b', report):
            print(f'{lang}: not completely translated')
            failed = True

        # Messages the template has and the translation lacks count as untranslated.
        pot = os.path.join(po_dir, 'copyscope.pot')
        if os.path.exists(pot):
            merged = subprocess.run(['msgmerge', '--quiet', '--no-fuzzy-matching', '-o', '-', po, pot],
                                    capture_output=True, text=True, check=True)
            stats = subprocess.run(['msgfmt', '--statistics', '-o', os.devnull, '-'],
                                   input=merged.stdout, capture_output=True, text=True,
                                   env=dict(os.environ, LC_ALL='C'))
            if re.search(r'\b(fuzzy|untranslated)\b', stats.stderr):
                print(f'{lang} against copyscope.pot: {stats.stderr.strip()}')
                failed = True

    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())

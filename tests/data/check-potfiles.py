#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks that po/POTFILES.in lists every file with translatable strings.

Usage: check-potfiles.py SOURCE_ROOT [--write]

A file needs listing when its C or Python code marks a string with _(), N_(),
C_(), NC_() or ngettext(), when a .ui file has translatable="yes", and for the
desktop file, the metainfo and the settings schema. --write rewrites
POTFILES.in instead of checking it.
"""

import os
import re
import sys

C_MARK = re.compile(r'(?<![A-Za-z0-9_])(?:_|N_|C_|NC_|ngettext|g_dngettext)\s*\(')
UI_MARK = re.compile(r'translatable="yes"')
SEARCHED = ['src/app', 'src/cli', 'src/engine', 'src/nautilus', 'src/plot', 'src/report', 'ui',
            'data']


def needs_listing(root, path):
    with open(os.path.join(root, path), encoding='utf-8') as f:
        text = f.read()
    if path.endswith(('.c', '.h')):
        # Strings in comments are not translatable.
        text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
        text = re.sub(r'^\s*//.*$', '', text, flags=re.M)
        return C_MARK.search(text) is not None
    if path.endswith(('.py', '.py.in')):
        text = re.sub(r'^\s*#.*$', '', text, flags=re.M)
        return C_MARK.search(text) is not None
    if path.endswith('.ui'):
        return UI_MARK.search(text) is not None
    return path.endswith(('.desktop.in', '.metainfo.xml.in', '.gschema.xml.in'))


def wanted(root):
    found = []
    for top in SEARCHED:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                path = os.path.relpath(os.path.join(dirpath, name), root)
                if path.endswith(('.c', '.h', '.py', '.ui', '.in')) and needs_listing(root, path):
                    found.append(path)
    return sorted(found)


def listed(root):
    with open(os.path.join(root, 'po', 'POTFILES.in'), encoding='utf-8') as f:
        return [line.strip() for line in f
                if line.strip() and not line.lstrip().startswith('#')]


def main():
    root = sys.argv[1]
    found = wanted(root)

    if '--write' in sys.argv[2:]:
        with open(os.path.join(root, 'po', 'POTFILES.in'), 'w', encoding='utf-8') as f:
            f.write('# Files with translatable strings; tests/data/check-potfiles.py checks this list.\n')
            f.write(''.join(p + '\n' for p in found))
        return 0

    have = listed(root)
    missing = [p for p in found if p not in have]
    stale = [p for p in have if not os.path.exists(os.path.join(root, p))]
    for p in missing:
        print(f'not in po/POTFILES.in: {p}')
    for p in stale:
        print(f'listed in po/POTFILES.in but missing: {p}')
    if missing or stale:
        print(f'run: {sys.argv[0]} {root} --write')
        return 1
    print(f'po/POTFILES.in lists all {len(found)} files with translatable strings')
    return 0


if __name__ == '__main__':
    sys.exit(main())

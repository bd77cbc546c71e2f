#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks that every relative link in the project's Markdown files resolves.

Usage: check-links.py SOURCE_ROOT

Reads every .md file of the source tree (not hidden folders, build folders or
the benchmark's work and results) and checks each inline link and image,
[text](target) and ![alt](target), and each reference definition,
[name]: target. A relative target must name a file or folder that exists; a
#fragment on a Markdown file (or alone, for the same file) must name one of
its headings as GitHub turns them into anchors. Links to web addresses are not
followed. Code blocks and code spans are skipped.
"""

import os
import re
import sys

SKIPPED_DIRS = {os.path.join('bench', 'work'), os.path.join('bench', 'results')}
INLINE = re.compile(r'!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)')
REFERENCE = re.compile(r'^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$')
HEADING = re.compile(r'^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$')
FENCE = re.compile(r'^\s{0,3}(```|~~~)')
CODE_SPAN = re.compile(r'(`+)(.+?)\1')


def markdown_files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        # A meson build folder inside the source tree, whatever its name.
        dirnames[:] = sorted(d for d in dirnames
                             if not d.startswith('.')
                             and os.path.normpath(os.path.join(rel, d)) not in SKIPPED_DIRS
                             and not os.path.isdir(os.path.join(dirpath, d, 'meson-private')))
        for name in sorted(filenames):
            if name.endswith('.md'):
                yield os.path.join(dirpath, name)


def prose_lines(path):
    """The lines outside fenced code blocks, with their numbers."""
    fenced = None
    with open(path, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            m = FENCE.match(line)
            if m:
                if fenced is None:
                    fenced = m.group(1)
                elif m.group(1) == fenced:
                    fenced = None
                continue
            if fenced is None:
                yield number, line.rstrip('\n')


def slug(text):
    """The anchor GitHub gives a heading."""
    text = CODE_SPAN.sub(lambda m: m.group(2), text)
    text = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', text)
    text = text.strip().lower()
    text = ''.join(c for c in text if c.isalnum() or c in ' -_')
    return text.replace(' ', '-')


_anchors = {}


def anchors(path):
    if path not in _anchors:
        found, seen = set(), {}
        for _number, line in prose_lines(path):
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f'{base}-{n}')
        _anchors[path] = found
    return _anchors[path]


def targets(path):
    for number, line in prose_lines(path):
        m = REFERENCE.match(line)
        if m:
            yield number, m.group(1)
            continue
        for m in INLINE.finditer(CODE_SPAN.sub('', line)):
            yield number, m.group(1)


def check(root, path, target):
    """None when @target, linked from @path, resolves; else what is wrong."""
    if re.match(r'^[a-z][a-z0-9+.-]*:', target, re.I):
        return None
    file_part, _, fragment = target.partition('#')
    if file_part.startswith('/'):
        return 'absolute path: links must be relative to the file'
    resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
    if os.path.relpath(resolved, root).split(os.sep)[0] == '..':
        return 'outside the repository'
    if not os.path.exists(resolved):
        return 'no such file'
    if fragment and resolved.endswith('.md') and fragment not in anchors(resolved):
        return f'no heading for #{fragment}'
    return None


def main():
    root = os.path.abspath(sys.argv[1])
    n_files = n_links = 0
    broken = []
    for path in markdown_files(root):
        n_files += 1
        for number, target in targets(path):
            n_links += 1
            problem = check(root, path, target)
            if problem:
                broken.append(f'{os.path.relpath(path, root)}:{number}: {target}: {problem}')
    for line in broken:
        print(line)
    if broken:
        print(f'{len(broken)} of {n_links} links broken')
        return 1
    print(f'all {n_links} links in {n_files} Markdown files resolve')
    return 0


if __name__ == '__main__':
    sys.exit(main())

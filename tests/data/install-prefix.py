#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Builds Copyscope in its own build folder and installs it into PREFIX.

Usage: install-prefix.py SOURCE_ROOT BUILD_DIR PREFIX [MESON_OPTION...]

The installed programs look for their translations, schema and icons under
the prefix they were configured with, so a test that runs them as a user would
needs a build configured for that prefix (meson install --destdir would leave
the translations out of reach). Tests running at the same time share one
build: a lock makes the others wait, and their install is then a quick no-op.
"""

import fcntl
import os
import subprocess
import sys


def main():
    source, build, prefix = (os.path.abspath(p) for p in sys.argv[1:4])
    options = sys.argv[4:]
    os.makedirs(os.path.dirname(build), exist_ok=True)

    with open(build + '.lock', 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        env = dict(os.environ)
        # The outer "meson test" sets these for its own build; the nested one has its own.
        for name in ('MESON_BUILD_ROOT', 'MESON_SOURCE_ROOT', 'MESON_SUBDIR', 'DESTDIR'):
            env.pop(name, None)
        if not os.path.exists(os.path.join(build, 'build.ninja')):
            subprocess.run(['meson', 'setup', build, source, '--prefix', prefix,
                            '-Dtests=false', '--buildtype=debugoptimized'] + options,
                           check=True, env=env, stdout=sys.stderr)
        subprocess.run(['meson', 'install', '-C', build, '--quiet'],
                       check=True, env=env, stdout=sys.stderr)
    print(prefix)
    return 0


if __name__ == '__main__':
    sys.exit(main())

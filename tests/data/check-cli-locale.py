#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Runs the installed copyscope-cli --help in Dutch and German.

Usage: check-cli-locale.py SOURCE_ROOT WORK_DIR

Exits 77 (skipped) when the nl_NL or de_DE locale is not generated; the
.ci/install-deps script generates both.
"""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# A few messages of each translation, as they should appear.
CHECKS = {
    'nl': ('nl_NL.UTF-8', [
        (['--help'], 'Opdrachten:'),
        (['--help'], 'Bestanden en mappen kopiëren'),
        (['copy', '--help'], 'Werkthreads'),
        (['sweep', '--help'], 'Herhalingen per aantal threads'),
    ]),
    'de': ('de_DE.UTF-8', [
        (['--help'], 'Befehle:'),
        (['--help'], 'Dateien und Ordner kopieren'),
        (['copy', '--help'], 'Arbeits-Threads'),
    ]),
}


def have_locale(name):
    out = subprocess.run(['locale', '-a'], capture_output=True, text=True).stdout.lower().split()
    return name.lower().replace('utf-8', 'utf8') in out


def main():
    source, work = sys.argv[1], os.path.abspath(sys.argv[2])
    prefix = subprocess.run([sys.executable, os.path.join(HERE, 'install-prefix.py'), source,
                             os.path.join(work, 'prefix-build'), os.path.join(work, 'prefix')],
                            check=True, capture_output=True, text=True).stdout.strip()
    cli = os.path.join(prefix, 'bin', 'copyscope-cli')

    failed = False
    tested = 0
    for lang, (locale, checks) in CHECKS.items():
        if not have_locale(locale):
            print(f'skipping {lang}: the {locale} locale is not generated (see .ci/install-deps)')
            continue
        env = dict(os.environ, LANGUAGE=lang, LC_ALL=locale, LANG=locale)
        for args, text in checks:
            out = subprocess.run([cli] + args, capture_output=True, text=True, env=env).stdout
            tested += 1
            if text in out:
                print(f'ok  LANGUAGE={lang} copyscope-cli {" ".join(args)} shows “{text}”')
            else:
                print(f'FAIL  LANGUAGE={lang} copyscope-cli {" ".join(args)} lacks “{text}”:\n{out}')
                failed = True

    if tested == 0:
        return 77
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Installs the release and the development profile into one temporary prefix
and checks that every file is there, side by side.

Usage: check-install.py SOURCE_ROOT WORK_DIR
"""

import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def expected(app_id):
    files = []
    # The GNOME Files extension, one module per profile, when nautilus-python is there.
    if subprocess.run(['pkg-config', '--exists', 'nautilus-python']).returncode == 0:
        module = 'copyscope_devel' if app_id.endswith('.Devel') else 'copyscope'
        files.append(f'share/nautilus-python/extensions/{module}.py')
    return files + [
        'bin/copyscope',
        'bin/copyscope-cli',
        f'share/applications/{app_id}.desktop',
        f'share/metainfo/{app_id}.metainfo.xml',
        f'share/glib-2.0/schemas/{app_id}.gschema.xml',
        'share/glib-2.0/schemas/gschemas.compiled',
        f'share/icons/hicolor/scalable/apps/{app_id}.svg',
        f'share/icons/hicolor/symbolic/apps/{app_id}-symbolic.svg',
        'share/locale/nl/LC_MESSAGES/copyscope.mo',
        'share/locale/de/LC_MESSAGES/copyscope.mo',
        'share/man/man1/copyscope-cli.1',
        'share/man/man1/copyscope.1',
    ]


def chart_from_installed_cli(prefix, work):
    cli = os.path.join(prefix, 'bin', 'copyscope-cli')
    scratch = os.path.join(work, 'install-check-chart')
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(os.path.join(scratch, 'src'))
    with open(os.path.join(scratch, 'src', 'a.txt'), 'w', encoding='utf-8') as f:
        f.write('a file to copy\n')
    run_json = os.path.join(scratch, 'run.json')
    png = os.path.join(scratch, 'chart.png')
    env = dict(os.environ)
    steps = [[cli, 'copy', '--quiet', '--no-history', '--json', run_json,
              os.path.join(scratch, 'src'), os.path.join(scratch, 'dst')],
             [cli, 'report', run_json, '-o', png]]
    for argv in steps:
        result = subprocess.run(argv, capture_output=True, text=True, env=env)
        if result.returncode != 0:
            print(f'FAILED  {" ".join(argv[1:3])} with the installed CLI: {result.stderr.strip()}')
            return False
    with open(png, 'rb') as f:
        ok = f.read(8) == b'\x89PNG\r\n\x1a\n'
    print(f'{"ok" if ok else "WRONG"}  a PNG chart from the installed copyscope-cli')
    shutil.rmtree(scratch, ignore_errors=True)
    return ok


def main():
    source, work = sys.argv[1], os.path.abspath(sys.argv[2])
    prefix = os.path.join(work, 'install-check-prefix')
    shutil.rmtree(prefix, ignore_errors=True)

    failed = False
    for profile, app_id in (('default', 'io.github.copyscope.Copyscope'),
                            ('development', 'io.github.copyscope.Copyscope.Devel')):
        subprocess.run([sys.executable, os.path.join(HERE, 'install-prefix.py'), source,
                        os.path.join(work, 'install-check-' + profile), prefix,
                        '-Dprofile=' + profile], check=True, stdout=subprocess.DEVNULL)
        for path in expected(app_id):
            ok = os.path.isfile(os.path.join(prefix, path))
            print(f'{"ok" if ok else "MISSING"}  {path}')
            failed |= not ok

        schema = os.path.join(prefix, 'share/glib-2.0/schemas', app_id + '.gschema.xml')
        if os.path.exists(schema):
            with open(schema, encoding='utf-8') as f:
                text = f.read()
            path = '/' + app_id.replace('.', '/') + '/'
            if f'id="{app_id}"' not in text or f'path="{path}"' not in text:
                print(f'WRONG  {schema} does not use id {app_id} and path {path}')
                failed = True

    if not chart_from_installed_cli(prefix, work):
        failed = True

    # The compiled schemas hold both ids, so both profiles run from one prefix.
    listing = subprocess.run(['gsettings', 'list-schemas'], capture_output=True, text=True,
                             env=dict(os.environ,
                                      GSETTINGS_SCHEMA_DIR=os.path.join(prefix, 'share/glib-2.0/schemas')))
    for app_id in ('io.github.copyscope.Copyscope', 'io.github.copyscope.Copyscope.Devel'):
        if app_id not in listing.stdout.split():
            print(f'MISSING  schema {app_id} in gschemas.compiled')
            failed = True

    for tool in (['desktop-file-validate'], ['appstreamcli', 'validate', '--no-net']):
        if shutil.which(tool[0]) is None:
            continue
        for app_id in ('io.github.copyscope.Copyscope', 'io.github.copyscope.Copyscope.Devel'):
            name = (f'share/applications/{app_id}.desktop' if tool[0] == 'desktop-file-validate'
                    else f'share/metainfo/{app_id}.metainfo.xml')
            result = subprocess.run(tool + [os.path.join(prefix, name)], capture_output=True, text=True)
            if result.returncode != 0:
                print(f'INVALID  {name}\n{result.stdout}{result.stderr}')
                failed = True

    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())

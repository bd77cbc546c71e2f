#!/usr/bin/env python3
"""README's first command on a fresh Debian 12 machine: everything the configured
build found is brought by `.ci/install-deps` without `--tests`.

For every dependency `meson introspect --dependencies` lists, every program the
meson log says it found ("Program ... found: YES"; meson 1.0 does not introspect
programs) and the compiler, the Debian package that owns the file (`dpkg -S`)
must be in the dependency closure of the base list (`apt-cache depends
--recurse`, recommends and suggests not followed, as `--no-install-recommends`
installs), or be Essential or of priority required (on every Debian system).

A dependency or program that the project's meson.build files only name under
tests/ is a test tool: it must be in the closure of the base and test lists
together. Anything found elsewhere (the gnome and i18n modules find
update-desktop-database, msgfmt, ... themselves) counts as building.

Usage: check-install-deps.py SOURCE_ROOT BUILD_ROOT
"""

import json
import os
import re
import shutil
import subprocess
import sys


def install_deps_lists(source_root):
    """The two package arrays of .ci/install-deps, comments removed."""
    with open(os.path.join(source_root, '.ci', 'install-deps')) as f:
        text = f.read()
    lists = {}
    for name in ('packages', 'test_packages'):
        m = re.search(r'^%s=\((.*?)^\)' % name, text, re.M | re.S)
        if not m:
            sys.exit('.ci/install-deps has no %s=( ... ) list' % name)
        words = []
        for line in m.group(1).splitlines():
            words += line.split('#', 1)[0].split()
        lists[name] = words
    return lists['packages'], lists['test_packages']


def closure(packages):
    out = subprocess.run(
        ['apt-cache', 'depends', '--recurse', '--no-recommends', '--no-suggests',
         '--no-conflicts', '--no-breaks', '--no-replaces', '--no-enhances']
        + packages,
        check=True, capture_output=True, text=True).stdout
    found = set()
    for line in out.splitlines():
        if line and not line[0].isspace():
            found.add(line.strip('<>').split(':')[0])
    return found


def always_there():
    """Essential packages and those of priority required."""
    out = subprocess.run(
        ['dpkg-query', '-W', '-f', '${Package}\t${Essential}\t${Priority}\n'],
        check=True, capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        name, essential, priority = (line.split('\t') + ['', ''])[:3]
        if essential == 'yes' or priority == 'required':
            names.add(name)
    return names


def owner(path):
    """The package owning PATH, trying the merged-/usr spellings; None if none."""
    candidates = [path, os.path.realpath(path)]
    for p in list(candidates):
        if p.startswith('/usr/'):
            candidates.append(p[len('/usr'):])
        else:
            candidates.append('/usr' + p)
    for p in candidates:
        r = subprocess.run(['dpkg', '-S', p], capture_output=True, text=True)
        if r.returncode == 0:
            # "pkg:arch: /path", or "pkg1, pkg2: /path" when shared
            return r.stdout.split(': ', 1)[0].split(',')[0].strip().split(':')[0]
    return None


def names_in_meson_files(source_root):
    """{('program'|'dependency', name): set of top folders naming it}."""
    found = {}
    pattern = re.compile(r"\b(find_program|dependency)\(\s*'([^']+)'")
    for top, dirs, files in os.walk(source_root):
        dirs[:] = [d for d in dirs if not d.startswith(('.', '_build', 'build'))]
        if 'meson.build' not in files:
            continue
        rel = os.path.relpath(top, source_root)
        area = rel.split(os.sep)[0]
        with open(os.path.join(top, 'meson.build')) as f:
            for kind, name in pattern.findall(f.read()):
                kind = 'program' if kind == 'find_program' else 'dependency'
                found.setdefault((kind, os.path.basename(name)), set()).add(area)
    return found


def main():
    source_root, build_root = (os.path.realpath(a) for a in sys.argv[1:3])
    if not (shutil.which('dpkg') and shutil.which('apt-cache')):
        print('SKIP: not a Debian system (no dpkg, apt-cache): .ci/install-deps is for Debian 12')
        return 77
    base, tests = install_deps_lists(source_root)
    named = names_in_meson_files(source_root)

    def test_only(kind, name):
        areas = named.get((kind, name))
        return bool(areas) and areas == {'tests'}

    # What the build found: (kind, name, file to look up)
    items = []
    deps = json.loads(subprocess.run(
        ['meson', 'introspect', '--dependencies', build_root],
        check=True, capture_output=True, text=True).stdout)
    for dep in deps:
        name = dep['name']
        if name == 'threads':
            continue  # -pthread, the C library's
        r = subprocess.run(['pkg-config', '--path', name], capture_output=True, text=True)
        if r.returncode != 0:
            print('FAIL: no pkg-config file for the dependency %s' % name)
            return 1
        items.append(('dependency', name, r.stdout.strip()))

    with open(os.path.join(build_root, 'meson-logs', 'meson-log.txt')) as f:
        for m in re.finditer(r'^Program (\S+) found: YES \((.*)\)$', f.read(), re.M):
            name = os.path.basename(m.group(1))
            path = m.group(2).split()[-1]
            if path.startswith((source_root + '/', build_root + '/')):
                continue  # the project's own scripts
            items.append(('program', name, path))

    with open(os.path.join(build_root, 'meson-logs', 'meson-log.txt')) as f:
        for m in re.finditer(r'^(\S+) compiler for the host machine: (\S+) \(', f.read(), re.M):
            items.append(('compiler', m.group(1), shutil.which(m.group(2)) or m.group(2)))

    essential = always_there()
    base_closure = closure(base) | essential
    all_closure = closure(base + tests) | essential

    failures = 0
    seen = set()
    for kind, name, path in items:
        if (kind, name, path) in seen:
            continue
        seen.add((kind, name, path))
        package = owner(path)
        if package is None and kind == 'program':
            # Not from a Debian package (a pyenv shim, /usr/local): a fresh
            # machine finds the system's copy instead.
            for d in ('/usr/bin', '/usr/sbin', '/usr/lib/x86_64-linux-gnu/glib-2.0'):
                if os.path.exists(os.path.join(d, name)):
                    package = owner(os.path.join(d, name))
                    if package:
                        break
        if package is None:
            print('FAIL: %s %s (%s) belongs to no Debian package' % (kind, name, path))
            failures += 1
            continue
        if kind != 'compiler' and test_only(kind, name):
            ok, where = package in all_closure, 'the base or --tests list'
        else:
            ok, where = package in base_closure, 'the base list'
        status = 'ok  ' if ok else 'FAIL'
        print('%s %s %s: %s, package %s%s' % (
            status, kind, name, path, package,
            '' if ok else ', which %s of .ci/install-deps does not bring' % where))
        if not ok:
            failures += 1

    if failures:
        print('%d found by the build but not installed by .ci/install-deps' % failures)
        return 1
    print('everything the build found comes with .ci/install-deps')
    return 0


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The GNOME Files extension outside Files: how it reads Files' clipboard, when
its items appear, what each starts, and how it learns whether Copyscope moves.

Usage: test-extension.py EXTENSION COPYSCOPE

EXTENSION is the configured extension of the build, COPYSCOPE the built window
program (its --help-all lists --move). Exits 77 when nautilus-python's
Nautilus 4.0 bindings are missing.
"""

import importlib.util
import os
import sys
import tempfile
import time
import unittest

import gi

try:
    gi.require_version('Gdk', '4.0')
    gi.require_version('Nautilus', '4.0')
except ValueError as e:
    print(f'SKIP: {e} (apt-get install python3-nautilus)')
    sys.exit(77)
from gi.repository import Gio, GLib  # noqa: E402

EXTENSION, COPYSCOPE = sys.argv[1], sys.argv[2]


def load_extension():
    spec = importlib.util.spec_from_file_location('copyscope_extension', EXTENSION)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ext = load_extension()
# The copyscope the extension asks and starts is the built one, not the installed one.
ext.COPYSCOPE = COPYSCOPE


class FileInfo:
    """What the extension asks of a Nautilus.FileInfo."""

    def __init__(self, location, directory=True, writable=True):
        self.location, self.directory, self.writable = location, directory, writable

    def get_location(self):
        return self.location

    def is_directory(self):
        return self.directory

    def can_write(self):
        return self.writable


def local(path, **kwargs):
    return FileInfo(Gio.File.new_for_path(path), **kwargs)


def iterate_until(condition, timeout=10):
    context = GLib.MainContext.default()
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        context.iteration(False)
        time.sleep(0.01)
    return condition()


class ParseCopiedFiles(unittest.TestCase):
    def test_files_43(self):
        self.assertEqual(ext.parse_copied_files(b'copy\nfile:///a/b%20c\nfile:///d'),
                         ('copy', ['file:///a/b%20c', 'file:///d']))

    def test_cut(self):
        self.assertEqual(ext.parse_copied_files(b'cut\nfile:///a'), ('cut', ['file:///a']))

    def test_final_newline_nul_and_crlf(self):
        for data in (b'copy\nfile:///a\n', b'copy\nfile:///a\0', b'copy\r\nfile:///a\r\n'):
            self.assertEqual(ext.parse_copied_files(data), ('copy', ['file:///a']), data)

    def test_not_ours(self):
        for data in (b'', b'copy', b'copy\n', b'move\nfile:///a', b'file:///a\nfile:///b',
                     b'copy\nfile:///a\n\nfile:///b', b'copy\nfile:///\xff'):
            self.assertIsNone(ext.parse_copied_files(data), data)


class LocalPaths(unittest.TestCase):
    def test_local_and_remote(self):
        self.assertEqual(ext.local_paths([Gio.File.new_for_path('/a'),
                                          Gio.File.new_for_uri('file:///b%20c')]),
                         ['/a', '/b c'])
        # Trash, recent files and unmounted shares have no path Copyscope could copy.
        self.assertIsNone(ext.local_paths([Gio.File.new_for_path('/a'),
                                           Gio.File.new_for_uri('trash:///a')]))
        self.assertIsNone(ext.local_paths([]))


class OffersMove(unittest.TestCase):
    def test_help_text(self):
        self.assertTrue(ext.offers_move('Application Options:\n'
                                        '  --move                Move instead of copying\n'))
        self.assertTrue(ext.offers_move('  -m, --move            Move\n'))
        self.assertFalse(ext.offers_move('  --move-mode=MODE      How\n'))
        self.assertFalse(ext.offers_move('  --start   Start, then --move on\n'))

    def test_built_copyscope_moves(self):
        output = GLib.spawn_sync(None, [COPYSCOPE, '--help-all'], None, 0, None)[1].decode()
        self.assertIn('--choose-destination', output)
        self.assertTrue(ext.offers_move(output))


class PasteArguments(unittest.TestCase):
    copy = ('copy', ['/src/a', '/src/b'])

    def test_copy(self):
        self.assertEqual(ext.paste_arguments(self.copy, local('/dst'), False),
                         ['--destination', '/dst', '--start', '--', '/src/a', '/src/b'])

    def test_cut_only_when_copyscope_moves(self):
        cut = ('cut', ['/src/a'])
        self.assertIsNone(ext.paste_arguments(cut, local('/dst'), False))
        self.assertEqual(ext.paste_arguments(cut, local('/dst'), True),
                         ['--move', '--destination', '/dst', '--start', '--', '/src/a'])

    def test_nowhere_to_paste(self):
        self.assertIsNone(ext.paste_arguments(None, local('/dst'), True))
        self.assertIsNone(ext.paste_arguments(self.copy, local('/dst', writable=False), True))
        self.assertIsNone(ext.paste_arguments(self.copy, local('/dst', directory=False), True))
        self.assertIsNone(ext.paste_arguments(self.copy,
                                              FileInfo(Gio.File.new_for_uri('trash:///')), True))


class Menus(unittest.TestCase):
    def setUp(self):
        self.provider = ext.CopyscopeMenuProvider()
        self.ran = []
        self.provider.run = self.ran.append

    def labels(self, items):
        return [item.props.label for item in items]

    def test_selection(self):
        files = [local('/src/a', directory=False), local('/src/b')]
        items = self.provider.get_file_items(files)
        self.assertEqual(self.labels(items), ['Copy to… with Copyscope'])
        items[0].activate()
        self.assertEqual(self.ran, [['--choose-destination', '--', '/src/a', '/src/b']])

    def test_copyscope_gone(self):
        ext.COPYSCOPE = '/nonexistent/copyscope'
        try:
            self.provider.clip = ('copy', ['/src/a'])
            self.assertEqual(self.provider.get_file_items([local('/src/a')]), [])
            self.assertEqual(self.provider.get_background_items(local('/dst')), [])
        finally:
            ext.COPYSCOPE = COPYSCOPE

    def test_selection_elsewhere(self):
        files = [local('/src/a'), FileInfo(Gio.File.new_for_uri('trash:///b'))]
        self.assertEqual(self.provider.get_file_items(files), [])

    def test_move_to_once_copyscope_moves(self):
        self.provider.can_move = True
        items = self.provider.get_file_items([local('/src/a')])
        self.assertEqual(self.labels(items), ['Copy to… with Copyscope',
                                              'Move to… with Copyscope'])
        items[1].activate()
        self.assertEqual(self.ran, [['--move', '--choose-destination', '--', '/src/a']])

    def test_paste(self):
        self.assertEqual(self.provider.get_background_items(local('/dst')), [])
        cancellable = Gio.Cancellable()
        self.provider.reading = cancellable
        self.provider.clipboard_read(b'copy\nfile:///src/a\nfile:///src/b', cancellable)
        items = self.provider.get_background_items(local('/dst'))
        self.assertEqual(self.labels(items), ['Paste with Copyscope'])
        items[0].activate()
        self.assertEqual(self.ran, [['--destination', '/dst', '--start', '--', '/src/a',
                                     '/src/b']])
        # On a selected folder, into it.
        items = self.provider.get_file_items([local('/dst/inner')])
        self.assertEqual(self.labels(items), ['Copy to… with Copyscope',
                                              'Paste Into Folder with Copyscope'])

    def test_no_paste(self):
        for data in (b'cut\nfile:///src/a', b'copy\ntrash:///a', b'nonsense'):
            cancellable = Gio.Cancellable()
            self.provider.reading = cancellable
            self.provider.clipboard_read(data, cancellable)
            self.assertEqual(self.provider.get_background_items(local('/dst')), [], data)

    def test_stale_read(self):
        # A read that a newer clipboard change overtook is dropped.
        self.provider.reading = Gio.Cancellable()
        self.provider.clipboard_read(b'copy\nfile:///src/a', Gio.Cancellable())
        self.assertIsNone(self.provider.clip)


class Capability(unittest.TestCase):
    """The extension asks the installed copyscope once, without waiting."""

    def provider_with(self, copyscope):
        saved, ext.COPYSCOPE = ext.COPYSCOPE, copyscope
        try:
            provider = ext.CopyscopeMenuProvider()
        finally:
            ext.COPYSCOPE = saved
        return provider

    def test_built_copyscope(self):
        updates = []
        provider = self.provider_with(COPYSCOPE)
        provider.connect('items-updated', lambda *_: updates.append(1))
        # Let the answer come in.
        iterate_until(lambda: False, timeout=3)
        self.assertTrue(provider.can_move)
        self.assertEqual(updates, [1])

    def test_a_copyscope_that_moves(self):
        with tempfile.TemporaryDirectory() as work:
            fake = os.path.join(work, 'copyscope')
            with open(fake, 'w') as f:
                f.write('#!/bin/sh\necho "  --move    Move instead of copying"\n')
            os.chmod(fake, 0o755)
            updates = []
            provider = self.provider_with(fake)
            provider.connect('items-updated', lambda *_: updates.append(1))
            self.assertTrue(iterate_until(lambda: provider.can_move))
            self.assertEqual(updates, [1])

    def test_run_starts_copyscope(self):
        with tempfile.TemporaryDirectory() as work:
            fake, record = os.path.join(work, 'copyscope'), os.path.join(work, 'argv')
            with open(fake, 'w') as f:
                f.write(f'#!/bin/sh\n[ "$1" = --help-all ] && exit 0\n'
                        f'printf "%s\\n" "$@" > {record}.part && mv {record}.part {record}\n')
            os.chmod(fake, 0o755)
            saved, ext.COPYSCOPE = ext.COPYSCOPE, fake
            try:
                provider = ext.CopyscopeMenuProvider()
                provider.run(['--destination', '/d', '--start', '--', '/s p a c e'])
            finally:
                ext.COPYSCOPE = saved
            self.assertTrue(iterate_until(lambda: os.path.exists(record)))
            with open(record) as f:
                self.assertEqual(f.read().splitlines(),
                                 ['--destination', '/d', '--start', '--', '/s p a c e'])


if __name__ == '__main__':
    unittest.main(argv=sys.argv[:1], verbosity=2)

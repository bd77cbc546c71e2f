#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Copies with Copyscope from inside GNOME Files, as a user would, through AT-SPI.

Usage: test-nautilus.py SOURCE_ROOT BUILD_ROOT OUTPUT_DIR

Installs Copyscope, its GNOME Files extension included, into the tests' prefix
and starts the real `nautilus` on a folder of two files, on a virtual X screen
with a session bus, a home and an accessibility bus of its own; the prefix comes
first in XDG_DATA_DIRS, so nautilus-python loads the installed extension. Keys
and clicks go in through AT-SPI (dogtail's rawinput); menu items are found by
role and name and activated through their AT-SPI action.

1. Ctrl+A and Ctrl+C in the source folder, Ctrl+L to the destination, Shift+F10
   for the folder's menu: "Paste with Copyscope" starts the installed copyscope,
   which copies at once. The window reaches its summary, both files are in the
   destination byte for byte, and the run is in Copyscope's history.
2. Back in the source folder, "Copy to… with Copyscope" on the selection: the
   running window takes the files and opens its destination chooser, where the
   second destination is typed and selected; Start copies it, byte for byte,
   and the history holds two runs.
3. Ctrl+X in a second folder: a cut. "Paste with Copyscope" and "Move to… with
   Copyscope" appear exactly when the installed copyscope's command line offers
   --move.
4. Where it does, that cut pasted with Copyscope moves the files: they arrive
   byte for byte and leave the folder they were cut from.
5. "Move to… with Copyscope" on a third folder's files: the window's chooser
   is called Move Into, its Start button Start Move, and the files move.
6. In Dutch, the items carry the Dutch catalogue's labels.

Screenshots of the menus go to OUTPUT_DIR. Exits 77 (skipped) when nautilus,
nautilus-python, Xvfb, a session bus or AT-SPI are missing.
"""

import filecmp
import gettext
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from e2e_session import (app_environment, check_atspi, find, find_app, find_summary, have_locale, inside,
                         install_prefix, log, run_inside, screenshot, skip, start_compositor, stop, walk)

SCREEN = (1100, 780)
FILES = {'notes.txt': 4000, 'photo.raw': 3 * 1024 * 1024 + 17}
FIRST = 'notes.txt'


def requirements():
    if shutil.which('nautilus') is None:
        skip('nautilus is not installed (apt-get install nautilus)')
    if subprocess.run(['pkg-config', '--exists', 'nautilus-python'],
                      stderr=subprocess.DEVNULL).returncode != 0:
        skip('nautilus-python is not installed (apt-get install python3-nautilus)')
    try:
        from dogtail.config import config
        # dogtail writes a debug log of every event into /tmp unless told not to.
        config.logDebugToFile = False
        config.typingDelay = 0.02
    except ImportError:
        skip('dogtail is not installed (apt-get install python3-dogtail)')


class Files:
    """One run of nautilus with the installed extension, ended when the block
    ends. The screen has no window manager, so the window a test works in is
    the one opened last, on top, and a click gives it the keyboard."""

    def __init__(self, prefix, lang, home, out_dir):
        self.prefix, self.lang, self.home, self.out_dir = prefix, lang, home, out_dir
        # The copyscope the extension starts inherits this environment: its
        # history goes to the private data folder.
        self.env = app_environment(lang, home, os.path.join(prefix, 'share') + ':/usr/share',
                                   PATH=os.path.join(prefix, 'bin') + ':' + os.environ['PATH'])
        self.process = None
        self.app = None

    def __enter__(self):
        self.log = open(os.path.join(self.out_dir, f'nautilus-{self.lang}.log'), 'w')
        return self

    def frames(self, title):
        import pyatspi
        return [n for n in walk(self.app) if n.getRoleName() == 'frame' and n.name == title
                and n.getState().contains(pyatspi.STATE_SHOWING)]

    def open(self, folder, first_file):
        """Shows @folder, in a new window or, as Files does for a folder already
        open, by raising the window that shows it; waits until it shows
        @first_file and clicks the empty part of its view: the view has the
        keyboard and nothing selected."""
        from dogtail import rawinput
        import pyatspi
        title = os.path.basename(folder)
        command = subprocess.Popen(['nautilus', folder], env=self.env,
                                   stdout=self.log, stderr=subprocess.STDOUT)
        if self.process is None:
            self.process = command
            self.app = find_app(lambda pid: pid == command.pid, alive=command)
            if self.app is None:
                raise RuntimeError('nautilus did not appear on the accessibility bus')
        else:
            command.wait(30)
        deadline = time.monotonic() + 20
        while not self.frames(title) and time.monotonic() < deadline:
            time.sleep(0.3)
        frames = self.frames(title)
        if not frames:
            raise RuntimeError(f'nautilus shows no window on {folder}')
        if first_file is not None and find(frames[-1], 'label', first_file) is None:
            raise RuntimeError(f'nautilus does not show {first_file} in {folder}')
        time.sleep(0.5)
        # GTK 4 gives window coordinates for screen ones; with no window
        # manager every window sits at 0,0, so they are the same.
        x, y, width, height = frames[-1].queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        rawinput.click(x + width * 2 // 3, y + height * 3 // 4)
        time.sleep(0.5)

    def menu(self):
        """Pops up the context menu of the view and returns its items by name."""
        from dogtail import rawinput
        import pyatspi

        # GTK 4.8 marks the items of the open menu visible, not showing.
        def items():
            return {n.name: n for n in walk(self.app) if n.getRoleName() == 'menu item'
                    and n.getState().contains(pyatspi.STATE_VISIBLE)}
        rawinput.keyCombo('<Shift>F10')
        deadline = time.monotonic() + 10
        while not items() and time.monotonic() < deadline:
            time.sleep(0.3)
        time.sleep(0.5)
        return items()

    def close_menu(self):
        from dogtail import rawinput
        rawinput.keyCombo('Escape')
        time.sleep(0.5)

    def __exit__(self, *exc):
        if self.process is not None:
            stop(self.process)
        self.log.close()
        return False


def copyscope_pids(prefix, home):
    """The installed copyscope's processes that this test's Files started: they
    have its private data folder."""
    binary = os.path.join(prefix, 'bin', 'copyscope').encode()
    mark = b'XDG_DATA_HOME=' + os.path.join(home, 'data').encode()
    pids = []
    for entry in os.listdir('/proc'):
        try:
            if entry.isdigit() and os.readlink(f'/proc/{entry}/exe').encode() == binary:
                with open(f'/proc/{entry}/environ', 'rb') as f:
                    if mark in f.read().split(b'\0'):
                        pids.append(int(entry))
        except OSError:
            continue
    return pids


def copyscope_app(prefix, home):
    """The accessible application of the copyscope that Files started."""
    return find_app(lambda pid: pid in copyscope_pids(prefix, home))


def offers_move(prefix):
    help_text = subprocess.run([os.path.join(prefix, 'bin', 'copyscope'), '--help-all'],
                               capture_output=True, text=True).stdout
    return any(word == '--move' or word.startswith('--move=') for word in help_text.split())


def copied(app, _, source, destination, home, runs, out_dir, name):
    """Whether the Copyscope window reaches its summary with the files in
    @destination byte for byte, and @runs runs in its history."""
    if find_summary(app, _) is None:
        log(f'{name}: the Copyscope window did not reach its summary')
        screenshot(out_dir, f'nautilus-{name}-failed')
        return False
    # The record is saved after the last file: wait for it and the files as a
    # user would, a while.
    folder = os.path.join(home, 'data', 'copyscope', 'runs')
    deadline = time.monotonic() + 60
    while True:
        differs = [file for file in FILES
                   if not os.path.isfile(os.path.join(destination, file))
                   or not filecmp.cmp(os.path.join(source, file), os.path.join(destination, file),
                                      shallow=False)]
        kept = [n for n in os.listdir(folder) if n.endswith('.json')] if os.path.isdir(folder) else []
        if (not differs and len(kept) == runs) or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    if differs:
        log(f'{name}: {differs} missing in {destination} or different from the source')
        return False
    if len(kept) != runs:
        log(f'{name}: expected {runs} runs in the history, found {kept}')
        return False
    return True


def moved(app, _, reference, origin, destination, home, runs, out_dir, name):
    """Whether the files of @origin (the same as @reference's) reached
    @destination byte for byte, as copied() checks, and left @origin."""
    if not copied(app, _, reference, destination, home, runs, out_dir, name):
        return False
    left = [file for file in FILES if os.path.lexists(os.path.join(origin, file))]
    if left:
        log(f'{name}: still in {origin} after the move: {left}')
        return False
    return True


def choose_folder(app, _, title, folder, out_dir, name):
    """Types @folder into the destination chooser called @title, which the
    window opens, and selects it."""
    from dogtail import rawinput
    chooser = find_window(app, title)
    if chooser is None:
        log(f'{name}: no destination chooser called {title!r} opened')
        screenshot(out_dir, f'nautilus-{name}-failed')
        return False
    click_corner(chooser)
    rawinput.keyCombo('<Control>l')
    rawinput.typeText(folder + '/\n')
    # Enter on a folder's path selects it in GTK 4.8; Select, if it stays open.
    if not window_closed(app, title, timeout=5):
        select = find(chooser, 'push button', _('_Select').replace('_', ''))
        if select is None:
            log(f'{name}: the chooser has no Select button')
            screenshot(out_dir, f'nautilus-{name}-chooser-failed')
            return False
        select.queryAction().doAction(0)
        if not window_closed(app, title):
            log(f'{name}: the chooser does not close')
            return False
    return True


def check_english(prefix, work, home, out_dir):
    from dogtail import rawinput
    _ = gettext.translation('copyscope', os.path.join(prefix, 'share', 'locale'),
                            languages=['en'], fallback=True).gettext
    source = os.path.join(work, 'source')
    pasted, chosen, cut_into, moved_into = (os.path.join(work, name)
                                            for name in ('pasted', 'chosen', 'cut', 'moved'))
    to_move = [os.path.join(work, name) for name in ('to-cut', 'to-move')]
    for folder in (pasted, chosen, cut_into, moved_into):
        os.makedirs(folder)
    for folder in to_move:
        shutil.copytree(source, folder)
    move = offers_move(prefix)
    log(f'the installed copyscope {"offers" if move else "does not offer"} --move')

    with Files(prefix, 'en', home, out_dir) as files:
        # 1. Copy in Files, paste with Copyscope.
        files.open(source, FIRST)
        rawinput.keyCombo('<Control>a')
        rawinput.keyCombo('<Control>c')
        files.open(pasted, None)
        items = files.menu()
        paste = items.get('Paste with Copyscope')
        if paste is None:
            log(f'the folder menu has no "Paste with Copyscope": {sorted(items)}')
            screenshot(out_dir, 'nautilus-paste-missing')
            return False
        screenshot(out_dir, 'nautilus-paste-en')
        started = time.monotonic()
        paste.queryAction().doAction(0)
        app = copyscope_app(prefix, home)
        if app is None:
            log('"Paste with Copyscope" started no copyscope window')
            return False
        if not copied(app, _, source, pasted, home, 1, out_dir, 'paste'):
            return False
        log(f'"Paste with Copyscope": both files copied in {time.monotonic() - started:.1f} s, '
            'the run is in the history')

        # 2. Copy to… with Copyscope, into a folder chosen in its window.
        files.open(source, FIRST)
        rawinput.keyCombo('<Control>a')
        items = files.menu()
        copy_to = items.get('Copy to… with Copyscope')
        if copy_to is None:
            log(f'the selection menu has no "Copy to… with Copyscope": {sorted(items)}')
            return False
        if ('Move to… with Copyscope' in items) != move:
            log(f'"Move to… with Copyscope" in the selection menu: {sorted(items)}')
            return False
        screenshot(out_dir, 'nautilus-copy-to-en')
        copy_to.queryAction().doAction(0)
        if not choose_folder(app, _, _('Copy Into'), chosen, out_dir, 'copy-to'):
            return False
        # The second copyscope hands its command line to the first and leaves.
        deadline = time.monotonic() + 10
        while len(copyscope_pids(prefix, home)) > 1 and time.monotonic() < deadline:
            time.sleep(0.3)
        if len(copyscope_pids(prefix, home)) != 1:
            log(f'more than one copyscope runs: {copyscope_pids(prefix, home)}')
            return False
        start = find(app, 'push button', _('Start Copy'))
        if start is None:
            log('no Start button after choosing the destination')
            screenshot(out_dir, 'nautilus-chosen-failed')
            return False
        start.queryAction().doAction(0)
        if not copied(app, _, source, chosen, home, 2, out_dir, 'chosen'):
            return False
        log('"Copy to… with Copyscope": both files copied into the chosen folder')

        # 3. A cut is pasted with Copyscope only when it can move.
        files.open(to_move[0], FIRST)
        rawinput.keyCombo('<Control>a')
        rawinput.keyCombo('<Control>x')
        files.open(cut_into, None)
        items = files.menu()
        if 'Paste' not in items:
            log(f'Files offers no Paste after Ctrl+X: {sorted(items)}')
            return False
        if ('Paste with Copyscope' in items) != move:
            log(f'"Paste with Copyscope" after a cut, with --move '
                f'{"offered" if move else "not offered"}: {sorted(items)}')
            return False
        log('after a cut, "Paste with Copyscope" is ' + ('offered' if move else 'not offered'))
        if not move:
            files.close_menu()
            return True

        # 4. That cut pasted with Copyscope moves: the files arrive, byte for
        # byte, and leave the folder they were cut from.
        paste = items['Paste with Copyscope']
        screenshot(out_dir, 'nautilus-paste-cut-en')
        paste.queryAction().doAction(0)
        if not moved(app, _, source, to_move[0], cut_into, home, 3, out_dir, 'paste-cut'):
            return False
        log('"Paste with Copyscope" after a cut: both files moved')

        # 5. Move to… with Copyscope, into a folder chosen in its window.
        files.open(to_move[1], FIRST)
        rawinput.keyCombo('<Control>a')
        items = files.menu()
        move_to = items.get('Move to… with Copyscope')
        if move_to is None:
            log(f'the selection menu has no "Move to… with Copyscope": {sorted(items)}')
            return False
        move_to.queryAction().doAction(0)
        if not choose_folder(app, _, _('Move Into'), moved_into, out_dir, 'move-to'):
            return False
        start = find(app, 'push button', _('Start Move'))
        if start is None:
            log('no Start Move button after choosing where to move')
            screenshot(out_dir, 'nautilus-move-to-failed')
            return False
        screenshot(out_dir, 'nautilus-move-to-en')
        start.queryAction().doAction(0)
        if not moved(app, _, source, to_move[1], moved_into, home, 4, out_dir, 'move-to'):
            return False
        log('"Move to… with Copyscope": both files moved into the chosen folder')
    return True


def open_window(app, title):
    """The open window of @app called @title, or None. GTK 4.8 gives dialogs
    the role filler, and keeps closed ones in the tree for a while."""
    import pyatspi
    for i in range(app.childCount):
        window = app.getChildAtIndex(i)
        try:
            if window.name == title and window.getState().contains(pyatspi.STATE_VISIBLE):
                return window
        except Exception:
            continue
    return None


def find_window(app, title, timeout=20):
    deadline = time.monotonic() + timeout
    while (window := open_window(app, title)) is None and time.monotonic() < deadline:
        time.sleep(0.3)
    return window


def window_closed(app, title, timeout=20):
    deadline = time.monotonic() + timeout
    while open_window(app, title) is not None:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.3)
    return True


def click_corner(window):
    """Gives @window the keyboard with a click in its bottom left corner, where
    a dialog's buttons leave room."""
    from dogtail import rawinput
    import pyatspi
    deadline = time.monotonic() + 10
    while True:
        x, y, width, height = window.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        if height > 40 or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    rawinput.click(x + 30, y + height - 20)
    time.sleep(0.3)


def check_dutch(prefix, work, home, out_dir):
    from dogtail import rawinput
    nl = gettext.translation('copyscope', os.path.join(prefix, 'share', 'locale'),
                             languages=['nl']).gettext
    labels = [nl('Copy to… with Copyscope'), nl('Paste with Copyscope')]
    if labels == ['Copy to… with Copyscope', 'Paste with Copyscope']:
        log('the Dutch catalogue does not translate the menu items')
        return False
    source = os.path.join(work, 'source')
    # The selection's menu after Ctrl+C, then the menu of the folder pasted into.
    menus = ((source, labels[0], 'nautilus-copy-to-nl'),
             (os.path.join(work, 'pasted'), labels[1], 'nautilus-paste-nl'))
    with Files(prefix, 'nl', home, out_dir) as files:
        for folder, label, shot in menus:
            files.open(folder, FIRST)
            if folder == source:
                rawinput.keyCombo('<Control>a')
                rawinput.keyCombo('<Control>c')
            items = files.menu()
            if label not in items:
                log(f'[nl] no "{label}" in the menu: {sorted(items)}')
                return False
            screenshot(out_dir, shot)
            files.close_menu()
    log(f'[nl] {labels[0]!r} and {labels[1]!r} in the menus')
    return True


def main(argv):
    source_root, build_root, out_dir = (os.path.abspath(p) for p in argv[1:4])
    os.makedirs(out_dir, exist_ok=True)
    requirements()
    check_atspi()
    prefix = install_prefix(source_root, build_root)
    extension = os.path.join(prefix, 'share', 'nautilus-python', 'extensions', 'copyscope.py')
    if not os.path.isfile(extension):
        log(f'{extension} was not installed; a prefix build configured before python3-nautilus '
            f'was installed keeps -Dnautilus off: remove {build_root}/tests/data/prefix-build')
        return 1

    started = time.monotonic()
    ok = True
    with tempfile.TemporaryDirectory(prefix='cs-e2e-nautilus-') as work:
        source = os.path.join(work, 'source')
        os.makedirs(source)
        rng = random.Random(29)
        for name, size in FILES.items():
            with open(os.path.join(source, name), 'wb') as f:
                f.write(rng.randbytes(size))
        home = os.path.join(work, 'home')
        compositor = start_compositor()
        try:
            ok = check_english(prefix, work, home, out_dir)
            if ok and have_locale('nl_NL.UTF-8'):
                ok = check_dutch(prefix, work, home, out_dir)
            elif ok:
                log('SKIP Dutch: the nl_NL.UTF-8 locale is not generated (see .ci/install-deps)')
        except RuntimeError as e:
            log(str(e))
            ok = False
        finally:
            for pid in copyscope_pids(prefix, home):
                os.kill(pid, signal.SIGTERM)
            if compositor is not None:
                stop(compositor)
    log(f'{"passed" if ok else "FAILED"} in {time.monotonic() - started:.0f} s')
    return 0 if ok else 1


if __name__ == '__main__':
    if inside():
        sys.exit(main(sys.argv))
    sys.exit(run_inside(__file__, sys.argv, SCREEN, private_home=True))

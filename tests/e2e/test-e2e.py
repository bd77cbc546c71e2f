#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Copies a tree with the installed Copyscope as a user would, through AT-SPI.

Usage: test-e2e.py SOURCE_ROOT BUILD_ROOT OUTPUT_DIR

Installs Copyscope into a prefix, starts the installed `copyscope --destination
DEST SOURCE` on a virtual X screen of its own with an accessibility bus, finds
the thread slider and the Start button by their accessible names, sets the
slider to 16 threads through the AT-SPI Value interface, starts the copy, waits
for the summary and compares the destination with the source byte for byte.
A command line sent to the open window while it shows History brings the
setup page forward with its source and destination, and that copy is made.
It does so in English and in Dutch, and saves screenshots of the window, the
preferences, the about window and the shortcuts into OUTPUT_DIR.

The application gets XDG data, config, cache and state folders of its own in a
temporary folder, so the runs it keeps never reach the real user's history;
XDG_DATA_DIRS still leads to the installed icons and settings schema.

Exits 77 (skipped) when Xvfb, a session bus or AT-SPI cannot be started.
"""

import filecmp
import gettext
import math
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

from e2e_session import (app_environment, check_atspi, find, find_app, find_summary, have_locale, inside,
                         install_prefix, log, run_inside, screenshot)

APP_ID = 'io.github.copyscope.Copyscope'
SCREEN = (1100, 780)


# Inside: the session bus and the screen are ours.

def make_tree(root):
    """A tree with the shapes a copy meets: nesting, empty files and folders,
    a file bigger than a chunk of the pool's buffer, odd names."""
    rng = random.Random(7)
    os.makedirs(root)
    sizes = [0, 1, 4095, 4096, 65537, 300000, 2 * 1024 * 1024 + 3]
    for d in ('', 'docs', 'docs/deep/er', 'photos', 'empty', 'naïve names'):
        os.makedirs(os.path.join(root, d), exist_ok=True)
        if d == 'empty':
            continue
        for i in range(12):
            size = sizes[i % len(sizes)] if i < len(sizes) else rng.randrange(0, 20000)
            with open(os.path.join(root, d, f'file {i:02d}.bin'), 'wb') as f:
                f.write(rng.randbytes(size))
    os.symlink('file 01.bin', os.path.join(root, 'docs', 'link'))


def trees_equal(a, b):
    cmp = filecmp.dircmp(a, b)
    if cmp.left_only or cmp.right_only or cmp.funny_files:
        log(f'differ in {a}: only source {cmp.left_only}, only copy {cmp.right_only}')
        return False
    for name in cmp.common_files:
        pa, pb = os.path.join(a, name), os.path.join(b, name)
        if os.path.islink(pa) != os.path.islink(pb):
            log(f'{pb}: link-ness differs')
            return False
        if os.path.islink(pa):
            if os.readlink(pa) != os.readlink(pb):
                log(f'{pb}: link target differs')
                return False
        elif not filecmp.cmp(pa, pb, shallow=False):
            log(f'{pb}: contents differ')
            return False
    return all(trees_equal(os.path.join(a, d), os.path.join(b, d)) for d in cmp.common_dirs)


class Copyscope:
    """One run of the installed copyscope, ended when the block ends."""

    def __init__(self, prefix, lang, home, args):
        self.prefix, self.lang, self.home, self.args = prefix, lang, home, args

    def __enter__(self):
        share = os.path.join(self.prefix, 'share')
        env = app_environment(self.lang, self.home, f'{share}:/usr/local/share:/usr/share')
        self.process = subprocess.Popen([os.path.join(self.prefix, 'bin', 'copyscope')] + self.args,
                                        env=env)
        self.app = find_app(lambda pid: pid == self.process.pid, alive=self.process)
        if self.app is None:
            raise RuntimeError('copyscope did not appear on the accessibility bus')
        return self

    def activate(self, action, path=''):
        """Runs an application (app.) or window (win.) action over D-Bus, as a
        launcher or the shell would."""
        scope, name = action.split('.', 1)
        object_path = '/' + APP_ID.replace('.', '/') + ('/window/1' if scope == 'win' else '')
        subprocess.run(['gdbus', 'call', '--session', '--dest', APP_ID,
                        '--object-path', object_path, '--method', 'org.gtk.Actions.Activate',
                        name, '[]', '{}'], check=True, stdout=subprocess.DEVNULL)

    def __exit__(self, *exc):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return False


def command_line_source(prefix, lang, work, home, _):
    """`copyscope --destination D SOURCE` sent to the open window while it
    shows another page: the setup page comes forward with both, ready to
    start, and the copy lands in D."""
    later = os.path.join(work, 'Later ' + lang)
    os.makedirs(later)
    with open(os.path.join(later, 'notes.txt'), 'w') as f:
        f.write('handed over\n')
    destination = os.path.join(work, 'destination-later-' + lang)
    share = os.path.join(prefix, 'share')
    env = app_environment(lang, home, f'{share}:/usr/local/share:/usr/share')

    with Copyscope(prefix, lang, home, []) as app:
        if find(app.app, 'push button', _('Start Copy')) is not None:
            log(f'[{lang}] Start Copy is usable with no source')
            return False
        history = find(app.app, 'push button', _('History'))
        if history is None:
            log(f'[{lang}] no History button')
            return False
        history.queryAction().doAction(0)
        time.sleep(1)
        # A second copyscope hands its command line to this one and exits.
        subprocess.run([os.path.join(prefix, 'bin', 'copyscope'), '--destination', destination, later],
                       env=env, check=True, timeout=60)
        # Enabled only on the setup page on screen, with a source and a destination.
        start = find(app.app, 'push button', _('Start Copy'))
        if start is None:
            log(f'[{lang}] the handed-over source did not bring the setup page forward')
            screenshot(work, f'window-handed-over-{lang}')
            return False
        start.queryAction().doAction(0)
        if find_summary(app.app, _) is None:
            log(f'[{lang}] the summary page did not appear after the handed-over copy')
            return False

    if not trees_equal(later, os.path.join(destination, os.path.basename(later))):
        return False
    log(f'[{lang}] a command line sent to the open window was copied')
    return True


def run_language(prefix, lang, work, out_dir):
    tr = gettext.translation('copyscope', os.path.join(prefix, 'share', 'locale'),
                             languages=[lang], fallback=True)

    def _(text):
        return tr.gettext(text)

    source = os.path.join(work, 'Photos and documents')
    if not os.path.exists(source):
        make_tree(source)
    destination = os.path.join(work, 'destination-' + lang)
    os.makedirs(destination)
    home = os.path.join(work, 'home-' + lang)

    with Copyscope(prefix, lang, home, ['--destination', destination, source]) as app:
        slider = find(app.app, 'slider', _('Threads'))
        start = find(app.app, 'push button', _('Start Copy'))
        if slider is None or start is None:
            log(f'[{lang}] thread slider: {slider}, Start button: {start}')
            return False

        # The slider runs over log2 of the thread count.
        value = slider.queryValue()
        value.currentValue = math.log2(16)
        deadline = time.monotonic() + 5
        while abs(value.currentValue - 4) > 1e-6 and time.monotonic() < deadline:
            time.sleep(0.1)
        log(f'[{lang}] slider at {value.currentValue} (16 threads)')
        if abs(value.currentValue - 4) > 1e-6:
            return False
        time.sleep(0.5)
        screenshot(out_dir, f'window-setup-{lang}')

        start.queryAction().doAction(0)
        summary = find_summary(app.app, _)
        if summary is None:
            log(f'[{lang}] the summary page did not appear')
            screenshot(out_dir, f'window-failed-{lang}')
            return False
        time.sleep(0.5)
        screenshot(out_dir, f'window-summary-{lang}')

    copied = os.path.join(destination, os.path.basename(source))
    if not trees_equal(source, copied):
        return False
    log(f'[{lang}] the destination matches the source')

    # The finished run is kept in the history of the private data folder.
    runs = os.path.join(home, 'data', 'copyscope', 'runs')
    kept = [n for n in os.listdir(runs) if n.endswith('.json')] if os.path.isdir(runs) else []
    if len(kept) != 1:
        log(f'[{lang}] expected one run in {runs}, found {kept}')
        return False

    if not command_line_source(prefix, lang, work, home, _):
        return False

    # The dialogs, each over a fresh window with the same sources.
    for action, name in (('app.preferences', 'preferences'), ('app.about', 'about'),
                         ('win.show-help-overlay', 'shortcuts')):
        with Copyscope(prefix, lang, home, ['--destination', destination, source]) as app:
            find(app.app, 'push button', _('Start Copy'))
            app.activate(action)
            time.sleep(2)
            screenshot(out_dir, f'{name}-{lang}')

    return True


def main(argv):
    source_root, build_root, out_dir = (os.path.abspath(p) for p in argv[1:4])
    os.makedirs(out_dir, exist_ok=True)
    check_atspi()
    prefix = install_prefix(source_root, build_root)

    languages = ['en']
    if have_locale('nl_NL.UTF-8'):
        languages.append('nl')
    else:
        log('SKIP Dutch: the nl_NL.UTF-8 locale is not generated (see .ci/install-deps)')

    ok = True
    with tempfile.TemporaryDirectory(prefix='cs-e2e-') as work:
        for lang in languages:
            try:
                passed = run_language(prefix, lang, work, out_dir)
            except RuntimeError as e:
                log(f'[{lang}] {e}')
                passed = False
            log(f'[{lang}] {"passed" if passed else "FAILED"}')
            ok &= passed

    return 0 if ok else 1


if __name__ == '__main__':
    if inside():
        sys.exit(main(sys.argv))
    sys.exit(run_inside(__file__, sys.argv, SCREEN))

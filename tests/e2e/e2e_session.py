# SPDX-License-Identifier: GPL-3.0-or-later
"""What the end-to-end tests share: a virtual X screen with a session bus and
AT-SPI of their own, the installed Copyscope, and finding things on the screen
by role and accessible name.

A test calls run_inside() from its main: the first call starts Xvfb and runs
the script again inside dbus-run-session, where inside() is true.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

SKIP = 77


def skip(message):
    """A tool this machine lacks: a skip, which CI fails on unless
    tests/allowed-skips names it."""
    print(f'SKIP: {message}', flush=True)
    sys.exit(SKIP)


def cannot_start(message, log_text=''):
    """A tool that is here but does not start (Xvfb, AT-SPI) is a failure of
    the test's set-up, with its log, not a skip."""
    if log_text:
        print(log_text, flush=True)
    print(f'FAIL: {message}', flush=True)
    sys.exit(1)


def log(message):
    print(message, flush=True)


def inside():
    return os.environ.get('CS_E2E_INSIDE') == '1'


# Outside: a virtual screen and a private session bus, then the script again inside.

def start_xvfb(screen):
    if shutil.which('Xvfb') is None:
        skip('Xvfb is not installed')
    read_fd, write_fd = os.pipe()
    xvfb_log = tempfile.TemporaryFile(mode='w+')
    xvfb = subprocess.Popen(['Xvfb', '-displayfd', str(write_fd), '-nolisten', 'tcp',
                             '-screen', '0', f'{screen[0]}x{screen[1]}x24'],
                            pass_fds=(write_fd,), stderr=xvfb_log)
    os.close(write_fd)
    with os.fdopen(read_fd) as f:
        display = f.readline().strip()
    if not display:
        xvfb.kill()
        xvfb.wait()
        xvfb_log.seek(0)
        cannot_start('Xvfb did not start', xvfb_log.read())
    xvfb_log.close()
    return xvfb, ':' + display


def run_inside(script, argv, screen, private_home=False):
    """Runs @script with @argv on a screen of its own. With @private_home the
    session, and every service its bus starts (GVfs, Tracker), gets a home and
    a runtime folder of its own, and GVfs mounts nothing through FUSE."""
    if shutil.which('dbus-run-session') is None:
        skip('dbus-run-session is not installed (apt-get install dbus)')
    try:
        import pyatspi  # noqa: F401
    except ImportError:
        skip('pyatspi is not installed (apt-get install python3-pyatspi at-spi2-core)')

    xvfb, display = start_xvfb(screen)
    session = tempfile.mkdtemp(prefix='cs-e2e-session-')
    try:
        env = dict(os.environ, DISPLAY=display, CS_E2E_INSIDE='1')
        env.pop('NO_AT_BRIDGE', None)
        env.pop('WAYLAND_DISPLAY', None)
        if private_home:
            home, runtime = os.path.join(session, 'home'), os.path.join(session, 'run')
            os.makedirs(home)
            os.makedirs(runtime, mode=0o700)
            env.update(HOME=home, XDG_RUNTIME_DIR=runtime, GVFS_DISABLE_FUSE='1')
        return subprocess.run(['dbus-run-session', '--', sys.executable,
                               os.path.abspath(script)] + argv[1:], env=env).returncode
    finally:
        xvfb.terminate()
        xvfb.wait()
        # The services the bus started leave once it has gone, writing as they go.
        for _ in range(20):
            shutil.rmtree(session, ignore_errors=True)
            if not os.path.exists(session):
                break
            time.sleep(0.5)


# Inside: the session bus and the screen are ours.

def check_atspi():
    try:
        import pyatspi
        pyatspi.Registry.getDesktop(0).childCount
    except Exception as e:
        cannot_start(f'AT-SPI does not start: {e}')


def start_compositor():
    """Starts xcompmgr, when installed, so that GTK draws popovers with see-through
    shadows instead of black boxes in screenshots. None without it."""
    if shutil.which('xcompmgr') is None:
        log('xcompmgr is not installed: menus in the screenshots sit in black boxes')
        return None
    return subprocess.Popen(['xcompmgr', '-n'], stderr=subprocess.DEVNULL)


LOCALES = {'en': 'C.UTF-8', 'nl': 'nl_NL.UTF-8'}


def app_environment(lang, home, data_dirs, **extra):
    """The environment of a program under test: @lang, XDG folders of its own
    under @home (made here), so that the runs it keeps never reach the real
    user's, settings in memory, X11 with AT-SPI, and no portals."""
    locale = LOCALES[lang]
    env = dict(os.environ, LANGUAGE=lang, LC_ALL=locale, LANG=locale,
               XDG_DATA_DIRS=data_dirs,
               GSETTINGS_BACKEND='memory',
               GTK_A11Y='atspi',
               GDK_BACKEND='x11',
               GSK_RENDERER='cairo',
               GTK_USE_PORTAL='0',
               ADW_DISABLE_PORTAL='1',
               **extra)
    for name in ('config', 'data', 'cache', 'state'):
        folder = os.path.join(home, name)
        os.makedirs(folder, exist_ok=True)
        env[f'XDG_{name.upper()}_HOME'] = folder
    env.pop('NO_AT_BRIDGE', None)
    env.pop('GSETTINGS_SCHEMA_DIR', None)
    return env


def install_prefix(source_root, build_root):
    """Installs Copyscope into the prefix the tests share and returns it."""
    data_dir = os.path.join(build_root, 'tests', 'data')
    prefix = subprocess.run([sys.executable,
                             os.path.join(source_root, 'tests', 'data', 'install-prefix.py'),
                             source_root, os.path.join(data_dir, 'prefix-build'),
                             os.path.join(data_dir, 'prefix')],
                            check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
    log(f'installed into {prefix}')
    return prefix


def have_locale(name):
    out = subprocess.run(['locale', '-a'], capture_output=True, text=True).stdout.lower().split()
    return name.lower().replace('utf-8', 'utf8') in out


def screenshot(out_dir, name):
    path = os.path.join(out_dir, name + '.png')
    subprocess.run(['import', '-window', 'root', path], check=True)
    log(f'screenshot: {path}')
    return path


def walk(node, depth=0):
    if node is None or depth > 60:
        return
    yield node
    try:
        count = node.childCount
    except Exception:
        return
    for i in range(count):
        try:
            child = node.getChildAtIndex(i)
        except Exception:
            continue
        yield from walk(child, depth + 1)


def sensitive(node):
    import pyatspi
    try:
        return node.getState().contains(pyatspi.STATE_SENSITIVE)
    except Exception:
        return False


def named(node, name):
    # GTK 4.8 joins a button's label property and its label child's text,
    # mnemonic underline included: "_New Copy New Copy".
    return node.name == name or node.name.replace('_', '').endswith(' ' + name)


def find(app, role, name, timeout=20):
    """The first enabled node, in tree order, with this role and accessible name.
    GTK 4.8 does not say which stack page shows, but the window enables only the
    actions of the page on screen."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for node in walk(app):
            try:
                if node.getRoleName() == role and named(node, name) and sensitive(node):
                    return node
            except Exception:
                continue
        time.sleep(0.3)
    return None


def find_summary(app, _, timeout=120):
    """The summary page's Open Destination button once the summary is on screen,
    or None. New Copy cannot tell: it is offered on every page, the copy's own
    too, so it is there the moment a copy starts. The row that holds the button
    lends it its title, "_Open Destination Copied Into", so the name is matched
    by its start."""
    label = _('_Open Destination')
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for node in walk(app):
            try:
                if (node.getRoleName() == 'push button' and node.name.startswith(label + ' ')
                        and sensitive(node)):
                    return node
            except Exception:
                continue
        time.sleep(0.3)
    return None


def find_app(matches, timeout=30, alive=None):
    """The accessible application whose process id @matches, or None. Raises
    when @alive, a Popen, has exited."""
    import pyatspi
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if alive is not None and alive.poll() is not None:
            raise RuntimeError(f'{alive.args[0]} exited with status {alive.returncode}')
        desktop = pyatspi.Registry.getDesktop(0)
        for i in range(desktop.childCount):
            app = desktop.getChildAtIndex(i)
            try:
                if app is not None and matches(app.get_process_id()):
                    return app
            except Exception:
                continue
        time.sleep(0.3)
    return None


def stop(process, timeout=10):
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A password typed into an smb:// location is used and never kept.

copyscope-cli (built with the fake SMB server of tests/common/cs-fake-smb.c,
which refuses every login but its user's with its password) copies to
"smb://user:PASSWORD@nas/share/dir/": the copy logs in with that password
and arrives; then the password is in no file under the run's XDG folders
(history records, logs, the cache), in no export of the run (report as
json, csv, md, html), in no line of `history`, on no line of the copy's
stdout or stderr, and a destination that cannot be is named by the
location without it. stderr says once how to keep it out of the shell's history.

Usage: test-smb-secret.py COPYSCOPE_CLI_WITH_FAKE_SMB
"""

import os
import shutil
import subprocess
import sys
import tempfile

USER = "lab"
# Escaped in the URL as a user would have to ("@" and "#"); neither its
# escaped nor its plain form may be kept anywhere.
PASSWORD = "Zq9x@k3p#1"
PASSWORD_ESCAPED = "Zq9x%40k3p%231"
SECRETS = [PASSWORD, PASSWORD_ESCAPED, "Zq9x"]
REDACTED = f"smb://{USER}@nas/share"

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print(f"FAIL: {what}", file=sys.stderr)


def leaks(text):
    return [s for s in SECRETS if s in text]


def run(cli, env, *args):
    done = subprocess.run([cli, *args], env=env, capture_output=True, text=True, timeout=120)
    for name, out in (("stdout", done.stdout), ("stderr", done.stderr)):
        for line in out.splitlines():
            check(not leaks(line), f"`{' '.join(args[:1])}` {name} shows the password: {line!r}")
    return done


def main():
    cli = sys.argv[1]
    work = tempfile.mkdtemp(prefix="cs-smb-secret-")
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
        env.pop("DBUS_SESSION_BUS_ADDRESS", None)   # no keyring: not the test's
        env.pop("COPYSCOPE_SMB_PASSWORD", None)
        xdg = {}
        for key in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME",
                    "XDG_RUNTIME_DIR"):
            xdg[key] = os.path.join(work, key.lower())
            os.makedirs(xdg[key], mode=0o700)
            env[key] = xdg[key]
        env["HOME"] = os.path.join(work, "home")
        os.makedirs(env["HOME"])
        share = os.path.join(work, "share")
        os.makedirs(os.path.join(share, "bad", "src", "b.txt"))   # a folder where a file goes
        env["CS_FAKE_SMB_FOLDER"] = share
        env["CS_FAKE_SMB_USER"] = USER
        env["CS_FAKE_SMB_PASSWORD"] = PASSWORD
        env["LC_ALL"] = env["LANG"] = "C.UTF-8"

        src = os.path.join(work, "src")
        os.makedirs(os.path.join(src, "sub"))
        for name, text in (("a.txt", "alpha\n"), ("b.txt", "beta\n"), ("sub/c.txt", "gamma\n")):
            with open(os.path.join(src, name), "w") as f:
                f.write(text)
        url = f"smb://{USER}:{PASSWORD_ESCAPED}@nas/share"
        log = os.path.join(work, "items.log")

        # The copy logs in with the URL's password and arrives whole.
        done = run(cli, env, "copy", "--threads", "2", "--log", log, src, url + "/dir/")
        check(done.returncode == 0, f"copy exit {done.returncode}, not 0: {done.stderr!r}")
        for name, text in (("a.txt", "alpha\n"), ("sub/c.txt", "gamma\n")):
            path = os.path.join(share, "dir", name)   # a new folder: the copy of src
            check(os.path.isfile(path) and open(path).read() == text, f"{path} did not arrive")
        notes = [l for l in done.stderr.splitlines() if "COPYSCOPE_SMB_PASSWORD" in l]
        check(len(notes) == 1, f"stderr says {len(notes)} times how to keep the password out "
                               f"of the shell's history, not once: {done.stderr!r}")
        with open(log) as f:
            text = f.read()
        check(not leaks(text), "the --log file has the password")

        # A failing item, and a destination that cannot be: the messages
        # name it without the password.
        done = run(cli, env, "copy", "--threads", "2", "--retries", "0", "--no-history", src,
                   url + "/bad/")
        check(done.returncode == 1, f"failing copy exit {done.returncode}, not 1: {done.stderr!r}")
        done = run(cli, env, "copy", "--no-history", src, url + "/missing/deeper/dir")
        check(done.returncode == 3, f"copy into no folder exit {done.returncode}, not 3")
        named = [l for l in done.stderr.splitlines() if f"{REDACTED}/missing/deeper/dir" in l]
        check(named, f"no stderr line names {REDACTED}/missing/deeper/dir: {done.stderr!r}")

        # A sweep to the share: its table and its record without it.
        sweep_json = os.path.join(work, "sweep.json")
        os.makedirs(os.path.join(share, "sweep"))
        done = run(cli, env, "sweep", "--threads", "1", "--repeats", "1", "--warm", "--json",
                   sweep_json, src, url + "/sweep")
        check(done.returncode == 0, f"sweep exit {done.returncode}: {done.stderr!r}")
        check(f"{REDACTED}/sweep" in done.stdout, f"the sweep does not name {REDACTED}/sweep")
        with open(sweep_json) as f:
            check(not leaks(f.read()), "the sweep's record has the password")

        # The history: its lines, its records, their exports.
        done = run(cli, env, "history")
        check(done.returncode == 0, f"history exit {done.returncode}")
        check(REDACTED in done.stdout, f"history does not name {REDACTED}: {done.stdout!r}")
        records = []
        for key in xdg:
            for root, _, files in os.walk(xdg[key]):
                for name in files:
                    path = os.path.join(root, name)
                    with open(path, "rb") as f:
                        data = f.read()
                    found = leaks(data.decode("utf-8", "replace"))
                    check(not found, f"{os.path.relpath(path, work)} holds {found}")
                    if name.endswith(".json") and b'"destination"' in data:
                        records.append(path)
        check(len(records) == 1, f"{len(records)} run records in the history, not 1")
        for record in records:
            for fmt in ("json", "csv", "md", "html"):
                done = run(cli, env, "report", "--format", fmt, record)
                check(done.returncode == 0, f"report --format {fmt} exit {done.returncode}")
                check(not leaks(done.stdout), f"report --format {fmt} shows the password")
            done = run(cli, env, "report", "--format", "json", record)
            check(REDACTED in done.stdout, f"the record does not name {REDACTED}")

        # A record from before, with the password in it: listed and
        # exported without it all the same.
        for record in records:
            with open(record) as f:
                text = f.read()
            with open(record, "w") as f:
                f.write(text.replace(REDACTED, f"smb://{USER}:{PASSWORD_ESCAPED}@nas/share"))
            done = run(cli, env, "history")
            check(REDACTED in done.stdout, f"history does not name {REDACTED} for an old record")
            for fmt in ("json", "md", "html"):
                done = run(cli, env, "report", "--format", fmt, record)
                check(done.returncode == 0 and not leaks(done.stdout),
                      f"report --format {fmt} of an old record shows the password")
    finally:
        shutil.rmtree(work, ignore_errors=True)

    if failures:
        print(f"{len(failures)} failure(s)", file=sys.stderr)
        return 1
    print("ok: the password logged in and was kept nowhere")
    return 0


if __name__ == "__main__":
    sys.exit(main())

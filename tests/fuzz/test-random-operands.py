#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Random operands through copyscope-cli copy and move, against an oracle.

Small random trees (files, folders, symbolic links to files and to folders,
dangling and looping links, hard links, a setuid file) and random operand
lists (the same path twice, trailing slashes, a link and its target, a
folder and its child, two sources with the same name, a destination inside
the tree) go through `copyscope-cli copy` and `move` (--no-history, a few
thread counts), as root and as nobody (setpriv). The oracle is independent
of the engine: it reads the trees before and after with os.lstat and
hashes, and knows only what cp -a and mv promise (docs/RELIABILITY.md,
rules 8 and 18):

- every byte of every file is afterwards at its path or, for a source, at
  its destination path; a destination file is replaced only by the copy of
  a different file (never by a link to itself);
- nothing outside the destination changed, except sources a move removed,
  which are at their destination;
- no setuid or setgid file that the run made belongs to a user or group
  that did not own such a file in the source;
- the exit status is what was reported: 0 and no failed item, 1 and failed
  items (or a message), 3 only when nothing changed and the job had a
  reason to refuse as a whole (the same path twice, a source that does not
  resolve, a destination inside a source or that is a source, several
  sources and no folder to put them in);
- with exit 0 every source is at its destination (a move: and gone).

Each case prints, on failure, its seed and the shell commands that
reproduce it. Usage:

    test-random-operands.py --cli copyscope-cli [--seed N] [--count N] [--budget S]
"""

import argparse
import grp
import hashlib
import os
import pwd
import random
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import time

NAMES = ["x", "y", "data", "cur", "IMG_0001.JPG"]
WORDS = ["alpha", "beta", "gamma", "delta"]
STAMPS = [1600000000, 1700000000]


class Case:
    """One random tree, operand list and run, with its reproducer."""

    def __init__(self, seed, cli, as_nobody):
        self.seed = seed
        self.cli = cli
        self.rng = random.Random(seed)
        self.as_nobody = as_nobody
        self.shell = []          # the reproducer, relative to $base
        self.problems = []
        self.shapes = []

    # ---- Building the tree -------------------------------------------------

    def sh(self, *words):
        self.shell.append(" ".join(shlex.quote(str(w)) for w in words))

    def make_file(self, rel):
        rng = self.rng
        word = rng.choice(WORDS) + str(rng.randrange(100))
        size = rng.choice([0, 1, 17, 600, 5000])
        data = ((word + "\n") * (size // (len(word) + 1) + 1))[:size].encode()
        path = os.path.join(self.base, rel)
        with open(path, "wb") as f:
            f.write(data)
        self.shell.append(f"yes {shlex.quote(word)} | head -c {size} > {shlex.quote(rel)}")
        if rng.random() < 0.5:
            stamp = rng.choice(STAMPS)
            os.utime(path, (stamp, stamp))
            self.sh("touch", "-d", f"@{stamp}", rel)
        return rel

    def build(self):
        rng = self.rng
        os.mkdir(os.path.join(self.base, "src"))
        os.mkdir(os.path.join(self.base, "dst"))
        self.sh("mkdir", "src", "dst")
        folders = ["src"]
        files, links, entries = [], [], []
        for _ in range(rng.randrange(1, 4)):
            parent = rng.choice(folders)
            rel = os.path.join(parent, rng.choice(NAMES) if rng.random() < 0.5 else
                               f"d{len(folders)}")
            if os.path.lexists(os.path.join(self.base, rel)):
                continue
            os.mkdir(os.path.join(self.base, rel))
            self.sh("mkdir", rel)
            folders.append(rel)
        for _ in range(rng.randrange(1, 6)):
            rel = os.path.join(rng.choice(folders), rng.choice(NAMES) if rng.random() < 0.6
                               else f"f{len(files)}")
            if os.path.lexists(os.path.join(self.base, rel)):
                continue
            files.append(self.make_file(rel))
        kinds = ["file", "folder", "dangling", "loop", "setuid"]
        for _ in range(rng.randrange(0, 5)):
            kind = rng.choice(kinds)
            parent = rng.choice(folders)
            rel = os.path.join(parent, rng.choice(NAMES) if rng.random() < 0.4
                               else f"l{len(links)}")
            path = os.path.join(self.base, rel)
            if os.path.lexists(path):
                continue
            if kind == "file" and files:
                target = os.path.relpath(rng.choice(files), parent)
            elif kind == "folder":
                target = os.path.relpath(rng.choice(folders), parent)
            elif kind == "dangling":
                target = "nowhere"
            elif kind == "loop":
                target = os.path.basename(rel)
            elif kind == "setuid":
                self.make_file(rel)
                os.chmod(path, 0o4755)
                self.sh("chmod", "4755", rel)
                files.append(rel)
                continue
            else:
                continue
            os.symlink(target, path)
            self.sh("ln", "-s", target, rel)
            links.append(rel)
        # Hard links, recorded with the file they share.
        for _ in range(rng.randrange(0, 2)):
            if not files:
                break
            first = rng.choice(files)
            rel = os.path.join(rng.choice(folders), rng.choice(NAMES) if rng.random() < 0.5
                               else f"h{len(files)}")
            if os.path.lexists(os.path.join(self.base, rel)):
                continue
            os.link(os.path.join(self.base, first), os.path.join(self.base, rel))
            self.sh("ln", first, rel)
            files.append(rel)
        # Now and then a destination that already holds names the sources
        # have: a file where a folder lands, a folder where a file does.
        if rng.random() < 0.3:
            for name in rng.sample(NAMES, 2):
                rel = os.path.join("dst", name)
                if rng.random() < 0.5:
                    os.mkdir(os.path.join(self.base, rel))
                    self.sh("mkdir", rel)
                else:
                    self.make_file(rel)
        entries = [e for e in folders[1:] + files + links]
        return folders, files, links, entries

    def give_to_nobody(self, files):
        """nobody owns the tree and the destination; a setuid file and,
        sometimes, one it cannot read stay root's."""
        for root, dirs, names in os.walk(self.base):
            for name in dirs + names:
                path = os.path.join(root, name)
                st = os.lstat(path)
                if st.st_mode & stat.S_ISUID:
                    continue
                os.lchown(path, NOBODY, NOGROUP)
        self.sh("find", "src", "dst", "!", "-perm", "-4000", "-exec", "chown", "-h",
                "nobody:nogroup", "{}", "+")
        plain = [f for f in files if not os.lstat(os.path.join(self.base, f)).st_mode & stat.S_ISUID]
        if plain and self.rng.random() < 0.3:
            secret = self.rng.choice(plain)
            os.chown(os.path.join(self.base, secret), 0, 0)
            os.chmod(os.path.join(self.base, secret), 0o600)
            self.sh("chown", "root:root", secret)
            self.sh("chmod", "600", secret)

    # ---- Operands ----------------------------------------------------------

    def choose_operands(self, folders, files, links, entries):
        rng = self.rng
        ops = []
        for _ in range(rng.randrange(1, 4)):
            if entries:
                ops.append(rng.choice(entries))
        if not ops:
            ops.append(files[0] if files else "src")
        # The shapes users make: each now and then.
        if rng.random() < 0.15:
            ops.append(rng.choice(ops))
        if links and rng.random() < 0.3:
            link = rng.choice(links)
            target = os.path.normpath(os.path.join(os.path.dirname(link),
                                                   os.readlink(os.path.join(self.base, link))))
            ops += [link, target] if rng.random() < 0.5 else [target, link]
        if len(folders) > 1 and rng.random() < 0.2:
            folder = rng.choice(folders[1:])
            children = [e for e in entries if e.startswith(folder + "/")]
            if children:
                ops += [folder, rng.choice(children)]
        by_name = {}
        for e in entries:
            by_name.setdefault(os.path.basename(e), []).append(e)
        twins = [v for v in by_name.values() if len(v) > 1]
        if twins and rng.random() < 0.3:
            ops += rng.sample(rng.choice(twins), 2)
        ops = [o + "/" if rng.random() < 0.2 else o for o in ops]
        rng.shuffle(ops)
        return ops[:5]

    def choose_destination(self, ops, entries):
        rng = self.rng
        r = rng.random()
        if r < 0.55:
            return "dst/" if rng.random() < 0.3 else "dst"
        if r < 0.7 and self.shm is not None:
            return self.shm
        if r < 0.8 and len(ops) == 1:
            return "dst/new"
        if entries:
            return rng.choice(entries)
        return "dst"

    def opposites(self, ops):
        """In the destination, what stands where a source lands is of the
        other kind: a file for a folder, a folder for a file."""
        for operand in self.rng.sample(ops, min(2, len(ops))):
            name = os.path.basename(operand.rstrip("/"))
            rel = os.path.join("dst", name)
            if os.path.lexists(os.path.join(self.base, rel)):
                continue
            if os.path.isdir(os.path.join(self.base, operand)):
                self.make_file(rel)
            else:
                os.mkdir(os.path.join(self.base, rel))
                self.sh("mkdir", rel)

    # ---- The oracle --------------------------------------------------------

    def snapshot(self):
        shot = {}
        for area in self.areas:
            for root, dirs, names in os.walk(area):
                for name in dirs + names:
                    path = os.path.join(root, name)
                    shot[path] = describe(path)
        return shot

    def resolve(self, operand):
        """(kind, root, target): the source's root as the copy sees it
        (a link followed for "link/"), where it lands; kind None when it
        does not resolve."""
        stripped = operand.rstrip("/") or "/"
        absolute = os.path.join(self.base, stripped)
        try:
            if operand.endswith("/"):
                st = os.stat(os.path.join(self.base, operand))
                if not stat.S_ISDIR(st.st_mode):
                    return None, None, None
                root, kind = os.path.realpath(absolute), "dir"
            else:
                st = os.lstat(absolute)
                root = os.path.join(os.path.realpath(os.path.dirname(absolute)),
                                    os.path.basename(absolute))
                kind = ("dir" if stat.S_ISDIR(st.st_mode) else
                        "link" if stat.S_ISLNK(st.st_mode) else "file")
        except OSError:
            return None, None, None
        return kind, root, None

    def plan(self, ops, dest):
        """Every source item and where cp -a would put it."""
        dest_abs = os.path.join(self.base, dest)
        dest_is_dir = os.path.isdir(dest_abs)
        self.refusal_reasons = []
        self.mapping = {}      # source path -> [destination paths]
        self.roots = []
        self.unresolved = []
        normalized = [os.path.normpath(o) for o in ops]
        if len(set(normalized)) < len(normalized):
            self.refusal_reasons.append("the same source twice")
        if len(ops) > 1 and not dest_is_dir:
            self.refusal_reasons.append("several sources and no folder to hold them")
        if dest_is_dir:
            dest_dir = os.path.realpath(dest_abs)
        else:
            parent = os.path.dirname(dest_abs.rstrip("/"))
            if not os.path.isdir(parent):
                self.refusal_reasons.append("no folder to make the destination in")
            dest_dir = None
        for operand in ops:
            kind, root, _ = self.resolve(operand)
            name = os.path.basename(operand.rstrip("/"))
            if kind is None:
                self.unresolved.append(operand)
                self.refusal_reasons.append(f"{operand} does not resolve")
                # "file/", "dangling/": not what cp reads (ENOTDIR, ENOENT),
                # reported as such; where the item itself would have gone
                # is no less the destination, so that nothing else is said
                # of a run that took it without its slash.
                kind, root, _ = self.resolve(operand.rstrip("/"))
                if kind is None:
                    continue
            if dest_dir is not None:
                target = os.path.join(dest_dir, name)
            else:
                target = os.path.join(os.path.realpath(os.path.dirname(dest_abs.rstrip("/"))),
                                      os.path.basename(dest_abs.rstrip("/")))
            self.roots.append((operand, kind, root, target))
            if kind == "dir":
                real_target = target
                if real_target == root or real_target.startswith(root + "/"):
                    self.refusal_reasons.append(f"the destination is inside {operand}")
                    continue
                self.add(root, target)
                for top, dirs, names in os.walk(root):
                    for n in dirs + names:
                        path = os.path.join(top, n)
                        self.add(path, os.path.join(target, os.path.relpath(path, root)))
            else:
                self.add(root, target)
                if os.path.lexists(target) and same_file(root, target):
                    self.refusal_reasons.append(f"{operand} is its destination")
            if dest_dir is None and os.path.lexists(target):
                if os.path.islink(target):
                    self.refusal_reasons.append("the destination is a symbolic link")
                elif kind == "dir" and not os.path.isdir(target):
                    self.refusal_reasons.append("a folder onto a file")
        self.dest_roots = sorted({t for _, _, _, t in self.roots})
        self.note_shapes(ops)

    def note_shapes(self, ops):
        """The shapes of issue 37 this operand list has, said with a
        failure to help find its cause (the oracle does not use them)."""
        shapes = self.shapes = []
        for operand, kind, root, target in self.roots:
            absolute = os.path.join(self.base, operand.rstrip("/"))
            if operand.endswith("/") and os.path.islink(absolute):
                shapes.append(f"case 2: {operand} is a link to a folder, with a slash")
            if kind == "link" and os.path.lexists(target) and same_file(root, target):
                shapes.append(f"case 1: {operand} is a link to its destination")
            if kind == "dir" and os.path.islink(target) is False and os.path.isfile(target):
                shapes.append(f"case 6: the folder {operand} onto the file {self.rel(target)}")
        targets = {}
        for operand, _, _, target in self.roots:
            targets.setdefault(target, []).append(operand)
        for target, named in targets.items():
            if len({os.path.normpath(o) for o in named}) > 1:
                shapes.append(f"case 3: {', '.join(named)} land on {self.rel(target)}")
        inodes = {}
        for operand, kind, root, _ in self.roots:
            if kind == "file":
                st = os.lstat(root)
                inodes.setdefault((st.st_dev, st.st_ino), set()).add(os.path.normpath(operand))
        if any(len(v) > 1 for v in inodes.values()):
            shapes.append("case 5: hard links of one file among the sources")
        for operand in self.unresolved:
            shapes.append(f"{operand}: a trailing slash on what is no folder (not cases 1-8)")

    def add(self, source, target):
        self.mapping.setdefault(source, [])
        if target not in self.mapping[source]:
            self.mapping[source].append(target)

    def in_destination(self, path):
        return any(path == t or path.startswith(t + "/") for t in self.dest_roots)

    def fail(self, text):
        self.problems.append(text)

    def check(self, op, before, after, rc, log, stderr):
        # The exit status and what was reported.
        failed_items = [l for l in log.splitlines() if l.startswith("failed\t")]
        messages = [l for l in stderr.splitlines() if l.strip()]
        if rc not in (0, 1, 3):
            self.fail(f"exit {rc}")
        if rc == 0 and self.unresolved:
            self.fail(f"exit 0 though {', '.join(self.unresolved)} does not resolve "
                      f"(a trailing slash on what is no folder: cp and mv say ENOTDIR/ENOENT)")
        if rc == 0 and failed_items:
            self.fail(f"exit 0 with {len(failed_items)} failed items: {failed_items[:3]}")
        if rc == 1 and not failed_items and not messages:
            self.fail("exit 1 and nothing reported")
        changed = sorted(p for p in set(before) | set(after) if not same(before.get(p), after.get(p)))
        if rc == 3:
            if changed:
                self.fail(f"exit 3 (nothing could start) but changed: {changed[:5]}")
            if not self.refusal_reasons:
                self.fail(f"exit 3: the whole job refused with no reason to: {messages[-3:]}")
        # Bytes: at their path or at their destination.
        for path, old in before.items():
            if old["type"] != "file":
                continue
            if has_bytes(after.get(path), old):
                continue
            if any(has_bytes(after.get(t), old) for t in self.destinations_of(path)):
                continue
            replaced_by = self.replaced_by(path, before, after)
            if replaced_by is not None:
                continue
            now = after.get(path)
            self.fail(f"the bytes of {self.rel(path)} are lost (now "
                      f"{now['type'] if now else 'absent'}"
                      f"{' -> ' + now['target'] if now and now['type'] == 'link' else ''})")
        # Nothing outside the destination changed, but what a move took.
        for path in changed:
            if self.in_destination(path):
                continue
            old, new = before.get(path), after.get(path)
            if old is None:
                self.fail(f"{self.rel(path)} made outside the destination")
                continue
            if new is not None and old["type"] == "dir" and new["type"] == "dir":
                continue   # a folder a move emptied
            if op == "move" and new is None and path in self.mapping_all():
                if any(equivalent(after.get(t), old) for t in self.destinations_of(path)):
                    continue
                self.fail(f"move removed {self.rel(path)}, which is not at its destination")
                continue
            self.fail(f"{self.rel(path)} outside the destination changed: {old} -> {new}")
        # Privileges: a setuid or setgid file made by the run.
        for path, new in after.items():
            if new["type"] != "file" or same(before.get(path), new):
                continue
            for bit, key, what in ((stat.S_ISUID, "uid", "setuid"), (stat.S_ISGID, "gid", "setgid")):
                if new["mode"] & bit and not any(
                        o["type"] == "file" and o["mode"] & bit and o[key] == new[key]
                        and o["hash"] == new["hash"] for o in before.values()):
                    self.fail(f"{self.rel(path)} is {what} for {key} {new[key]}, "
                              f"which owned no such file")
        # Exit 0: everything arrived (where nothing stood before).
        if rc == 0:
            for source, targets in self.mapping.items():
                old = before.get(source)
                if old is None:
                    continue
                fresh = [t for t in targets if t not in before]
                if op == "copy":
                    for t in fresh:
                        if not equivalent(after.get(t), old):
                            self.fail(f"exit 0 but {self.rel(source)} is not at {self.rel(t)}")
                # Named both itself and inside a named folder, it may have
                # gone to either place, as with mv: the first named wins.
                elif fresh and not any(equivalent(after.get(t), old) for t in targets):
                    self.fail(f"exit 0 but {self.rel(source)} was not moved to "
                              f"{', '.join(self.rel(t) for t in fresh)}")

    def mapping_all(self):
        return self.mapping

    def destinations_of(self, path):
        """Where the copy of @path may be: its own mapping, and that of any
        folder above it a source was (hard links have each their own)."""
        return self.mapping.get(path, [])

    def replaced_by(self, path, before, after):
        """The different source whose copy now stands at @path, a file the
        destination had; None when there is none."""
        old = before[path]
        for source, targets in self.mapping.items():
            if path not in targets or source == path:
                continue
            src = before.get(source)
            if src is None:
                continue
            if src["type"] == "link":
                resolved = os.path.normpath(os.path.join(os.path.dirname(source), src["target"]))
                if resolved == path or (os.path.exists(resolved) and
                                        os.stat(resolved).st_ino == old["ino"]):
                    continue   # a link to the file itself: the same file
            if src.get("ino") == old["ino"] and src.get("dev") == old["dev"]:
                continue
            if equivalent(after.get(path), src):
                return source
        return None

    def rel(self, path):
        if path.startswith(self.base + "/"):
            return os.path.relpath(path, self.base)
        return path

    # ---- Running -----------------------------------------------------------

    def run(self, keep=False):
        rng = self.rng
        self.base = os.path.realpath(tempfile.mkdtemp(prefix="cs-operands-"))
        os.chmod(self.base, 0o755)
        self.shm = None
        self.aux = tempfile.mkdtemp(prefix="cs-operands-aux-")
        os.chmod(self.aux, 0o777)
        try:
            if rng.random() < 0.2 and os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
                self.shm = os.path.realpath(tempfile.mkdtemp(prefix="cs-operands-shm-",
                                                             dir="/dev/shm"))
                os.chmod(self.shm, 0o755)
            folders, files, links, entries = self.build()
            op = rng.choice(["copy", "move"])
            threads = rng.choice([1, 2, 4, 8])
            ops = self.choose_operands(folders, files, links, entries)
            dest = self.choose_destination(ops, entries)
            # A link given with the file it points to as the destination.
            to_files = [l for l in links
                        if os.path.isfile(os.path.join(self.base, l))
                        and not os.path.isdir(os.path.join(self.base, l))]
            if to_files and rng.random() < 0.1:
                link = rng.choice(to_files)
                ops = [link]
                dest = os.path.relpath(os.path.realpath(os.path.join(self.base, link)), self.base)
            if dest.rstrip("/") == "dst" and rng.random() < 0.35:
                self.opposites(ops)
            if self.as_nobody:
                self.give_to_nobody(files)
                if self.shm is not None:
                    os.chown(self.shm, NOBODY, NOGROUP)
            self.areas = [os.path.join(self.base, "src"), os.path.join(self.base, "dst")]
            if self.shm is not None:
                self.areas.append(self.shm)
            before = self.snapshot()
            self.plan(ops, dest)
            log = os.path.join(self.aux, "items.log")
            argv = [op, "--no-history", "--threads", str(threads), "--retries", "0",
                    "--log", log, *ops, dest]
            prefix = (["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
                      if self.as_nobody else [])
            env = dict(os.environ)
            for key in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
                env[key] = os.path.join(self.aux, key.lower())
            env["HOME"] = self.aux
            env.pop("COPYSCOPE_SMB_PASSWORD", None)
            self.command = prefix + ["copyscope-cli"] + argv
            try:
                done = subprocess.run(prefix + [self.cli] + argv, cwd=self.base, env=env,
                                      capture_output=True, text=True, timeout=60)
                rc, stdout, stderr = done.returncode, done.stdout, done.stderr
            except subprocess.TimeoutExpired as e:
                rc, stdout, stderr = "timeout", e.stdout or "", e.stderr or ""
                self.fail("no exit within 60 s")
            after = self.snapshot()
            try:
                with open(log, encoding="utf-8", errors="replace") as f:
                    log_text = f.read()
            except OSError:
                log_text = ""
            if rc != "timeout":
                self.check(op, before, after, rc, log_text, stderr)
            self.rc, self.stderr, self.log = rc, stderr, log_text
        finally:
            if keep and self.problems:
                print(f"# kept: {self.base} {self.aux}")
            else:
                shutil.rmtree(self.base, ignore_errors=True)
                shutil.rmtree(self.aux, ignore_errors=True)
                if self.shm is not None:
                    shutil.rmtree(self.shm, ignore_errors=True)
        return not self.problems

    def reproducer(self):
        lines = ["base=$(mktemp -d) && chmod 755 \"$base\" && cd \"$base\""]
        if self.shm is not None:
            lines.append(f"mkdir -p {shlex.quote(self.shm)}"
                         + (f" && chown nobody:nogroup {shlex.quote(self.shm)}"
                            if self.as_nobody else ""))
        lines += self.shell
        cmd = " ".join(shlex.quote(w) for w in self.command).replace(
            "--log " + shlex.quote(os.path.join(self.aux, "items.log")), "--log -")
        lines.append(cmd + "; echo exit $?")
        return "\n".join("    " + l for l in lines)


def describe(path):
    st = os.lstat(path)
    d = {"mode": stat.S_IMODE(st.st_mode), "uid": st.st_uid, "gid": st.st_gid,
         "ino": st.st_ino, "dev": st.st_dev}
    if stat.S_ISLNK(st.st_mode):
        d.update(type="link", target=os.readlink(path))
    elif stat.S_ISDIR(st.st_mode):
        d.update(type="dir")
    elif stat.S_ISREG(st.st_mode):
        h = hashlib.sha256()
        with open(path, "rb") as f:
            h.update(f.read())
        d.update(type="file", hash=h.hexdigest(), size=st.st_size, mtime=st.st_mtime_ns)
    else:
        d.update(type="other")
    return d


def same(a, b):
    """Unchanged, for the oracle: folders by type, mode and owner; files
    and links by their contents too (inodes may change under a rename)."""
    if a is None or b is None:
        return a is b
    keys = ["type", "mode", "uid", "gid"]
    if a["type"] == "file":
        keys += ["hash", "mtime"]
    elif a["type"] == "link":
        keys = ["type", "target", "uid", "gid"]
    return all(a.get(k) == b.get(k) for k in keys)


def has_bytes(now, old):
    return now is not None and now["type"] == "file" and now["hash"] == old["hash"]


def equivalent(now, old):
    if now is None or old is None or now["type"] != old["type"]:
        return False
    if old["type"] == "file":
        return now["hash"] == old["hash"]
    if old["type"] == "link":
        return now["target"] == old["target"]
    return True


def same_file(a, b):
    try:
        sa, sb = os.stat(a), os.stat(b)
    except OSError:
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def main():
    global NOBODY, NOGROUP
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--budget", type=float, default=15.0,
                        help="stop starting cases after this many seconds")
    parser.add_argument("--keep", action="store_true", help="keep the trees of failed cases")
    args = parser.parse_args()

    root = os.geteuid() == 0
    nobody_ok = root and shutil.which("setpriv") is not None
    if nobody_ok:
        try:
            NOBODY = pwd.getpwnam("nobody").pw_uid
            NOGROUP = grp.getgrnam("nogroup").gr_gid
        except KeyError:
            nobody_ok = False
    cli = os.path.realpath(args.cli)
    private = None
    if nobody_ok and not runs_as_nobody(cli):
        # A build folder nobody may not enter (under /root): a copy of the
        # CLI where it may.
        private = tempfile.mkdtemp(prefix="cs-operands-cli-")
        os.chmod(private, 0o755)
        shutil.copy2(cli, os.path.join(private, "copyscope-cli"))
        cli = os.path.join(private, "copyscope-cli")
        if not runs_as_nobody(cli):
            print("# nobody cannot run copyscope-cli here: the cases run as root only")
            nobody_ok = False
    try:
        return run_cases(args, cli, root, nobody_ok)
    finally:
        if private is not None:
            shutil.rmtree(private, ignore_errors=True)


def runs_as_nobody(cli):
    done = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                           cli, "--version"], capture_output=True, cwd="/")
    return done.returncode == 0


def run_cases(args, cli, root, nobody_ok):
    start = time.monotonic()
    ran = failed = 0
    for seed in range(args.seed, args.seed + args.count):
        if time.monotonic() - start > args.budget:
            break
        as_nobody = nobody_ok and random.Random(seed * 7919).random() < 0.4
        case = Case(seed, cli, as_nobody)
        ok = case.run(keep=args.keep)
        ran += 1
        if not ok:
            failed += 1
            who = "nobody" if as_nobody else ("root" if root else "this user")
            print(f"FAIL seed {seed} (as {who}, exit {case.rc}):")
            for p in case.problems:
                print(f"  - {p}")
            if any("setuid" in p or "setgid" in p for p in case.problems):
                case.shapes.append("case 4: a copy keeps a privilege its owner lost")
            for shape in case.shapes:
                print(f"  shape: {shape}")
            if case.stderr.strip():
                print("  stderr: " + case.stderr.strip().replace("\n", "\n          "))
            print("  reproduce (as root; a fresh tree):")
            print(case.reproducer())
            sys.stdout.flush()
    print(f"{ran} cases from seed {args.seed} in {time.monotonic() - start:.1f} s, "
          f"{failed} failed")
    return 1 if failed else 0


NOBODY = NOGROUP = None

if __name__ == "__main__":
    sys.exit(main())

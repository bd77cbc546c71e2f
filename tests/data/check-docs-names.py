#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks that the documents name only source files and functions that exist.

Usage: check-docs-names.py SOURCE_ROOT [DOCUMENT ...]

Without documents it reads docs/ARCHITECTURE.md, docs/RELIABILITY.md,
docs/SMB.md and README.md. In each code span (`...`) outside code blocks:

- a path with a slash ending in .c, .h, .ui, .py or .sh must exist: from the
  top of the tree when its first folder is one there (src/, tests/ ...),
  else as the end of some file's path (copy/cs-job.c);
- a bare file name with those endings (cs-job.c, test-cli.c) must be a file
  somewhere under src/, ui/, tests/, tools/, bench/ or data/;
- a function: every cs_* or _cs_* name, with or without "()", and any other
  name written as a call ("publish_item ()"), must be defined in a .c file
  under src/ or tests/, as the code's GNU style writes a definition: the
  name at the start of a line, after its return type's line. Names of the
  libraries below (g_*, json_*, smbc_* ...) and of the C library's calls
  are not ours and are left alone.

A * in a name is a wildcard (cs-cli-*.c, publish_*): something must match it.
A <placeholder> (src/app/cs-<name>.c) is an example, not a name, and is
skipped.

In the rows of the table under "Where to change what", a function named with
a file must be defined in that file: each cell is read in clauses (split at
';'), and a function belongs to the first file named after it in its clause
when the words before that file end in "in" ("walk_dir () and claim_name ()
in cs-scanner.c"), or else to the file just before it whose parenthesis it
stands in ("cs-copy.c (_cs_copy_item and what it calls)"). A header
stands for itself and the .c of the same name beside it.

The documents are written against the tree as it is: when a file is split or
a function moves, this says which names to correct.
"""

import fnmatch
import os
import re
import sys

DOCUMENTS = ['docs/ARCHITECTURE.md', 'docs/RELIABILITY.md', 'docs/SMB.md', 'README.md']
FILE_ENDINGS = ('.c', '.h', '.ui', '.py', '.sh')
# Where a bare file name may live.
BARE_ROOTS = ('src', 'ui', 'tests', 'tools', 'bench', 'data')
# Where functions are defined.
FUNCTION_ROOTS = ('src', 'tests')
TABLE_HEADING = 'where to change what'

# Functions of the libraries Copyscope uses, by prefix, and the C library's
# calls the documents name: not defined here, and not ours to check.
EXTERNAL_PREFIXES = ('g_', 'gtk_', 'gdk_', 'adw_', 'json_', 'smbc_', 'secret_', 'cairo_',
                     'pango_', 'XXH', 'io_uring_', 'posix_', 'atk_', 'Atspi', 'pthread_')
LIBC = {
    'open', 'openat', 'close', 'read', 'write', 'pread', 'pwrite', 'fstat', 'fstatat', 'stat',
    'lstat', 'statx', 'rename', 'renameat', 'renameat2', 'link', 'linkat', 'unlink', 'unlinkat',
    'mkdir', 'mkdirat', 'rmdir', 'fsync', 'fdatasync', 'syncfs', 'sync', 'ftruncate',
    'fallocate', 'copy_file_range', 'ioctl', 'flock', 'fcntl', 'getdents64', 'readlinkat',
    'symlinkat', 'fchmod', 'fchmodat', 'fchown', 'fchownat', 'utimensat', 'futimens',
    'fgetxattr', 'fsetxattr', 'flistxattr', 'getxattr', 'setxattr', 'listxattr', 'lseek',
    'mmap', 'munmap', 'madvise', 'posix_fadvise', 'fadvise', 'sendfile', 'splice', 'dup',
    'kill', 'fork', 'exec', 'execve', 'waitpid', 'malloc', 'free', 'realloc', 'strtod',
    'printf', 'setlocale', 'dlopen', 'dlsym', 'nice', 'setpriority', 'sched_setscheduler',
    'statfs', 'fstatfs', 'access', 'faccessat', 'chmod', 'chown', 'truncate', 'umask',
    'getrusage', 'clock_gettime', 'select', 'poll', 'epoll_wait', 'sysconf', 'abort', 'exit',
    'main', 'open_tree', 'name_to_handle_at',
}

FENCE = re.compile(r'^\s{0,3}(```|~~~)')
CODE_SPAN = re.compile(r'(`+)(.+?)\1')
HEADING = re.compile(r'^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$')
# A function as the documents write one: name, name (), name(), name ().
CALL = re.compile(r'^([A-Za-z_][A-Za-z0-9_*]*)\s*\(\s*\)$')
IDENT = re.compile(r'^_?cs_[A-Za-z0-9_*]+$')
PATH = re.compile(r'^[A-Za-z0-9_.*+-]+(?:/[A-Za-z0-9_.*+-]+)*$')
G_DEFINE_TYPE = re.compile(r'\bG_DEFINE_(?:FINAL_|ABSTRACT_)?TYPE(?:_WITH_\w+)?\s*\(\s*\w+\s*,\s*(\w+)')
G_DEFINE_QUARK = re.compile(r'\bG_DEFINE_QUARK\s*\(\s*[^,]+,\s*(\w+)\s*\)')
G_DEFINE_BOXED = re.compile(r'\bG_DEFINE_BOXED_TYPE\s*\(\s*\w+\s*,\s*(\w+)')
DEFINITION = re.compile(r'^([A-Za-z_][A-Za-z0-9_]*)\s*\(', re.M)


def tree_files(root):
    """Every file of the source tree, as a path from its top."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        # Hidden folders, and a meson build folder inside the tree whatever its name.
        dirnames[:] = sorted(d for d in dirnames
                             if not d.startswith('.')
                             and not os.path.isdir(os.path.join(dirpath, d, 'meson-private'))
                             and os.path.normpath(os.path.join(rel, d)) != 'bench/work')
        for name in filenames:
            found.append(os.path.normpath(os.path.join(rel, name)))
    return found


def definitions(root, files):
    """{function name: set of files defining it} for the .c files under FUNCTION_ROOTS."""
    defined = {}
    for path in files:
        if not path.endswith('.c') or not path.startswith(tuple(r + os.sep for r in FUNCTION_ROOTS)):
            continue
        with open(os.path.join(root, path), encoding='utf-8', errors='replace') as f:
            text = f.read()
        names = set(DEFINITION.findall(text))
        names.update(n + '_get_type' for n in G_DEFINE_TYPE.findall(text))
        names.update(n + '_get_type' for n in G_DEFINE_BOXED.findall(text))
        names.update(n + '_quark' for n in G_DEFINE_QUARK.findall(text))
        for name in names:
            defined.setdefault(name, set()).add(path)
    return defined


def spans(path):
    """(line number, heading, table row or None, text of each code span) of a document."""
    heading = ''
    in_fence = False
    with open(path, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            if in_fence:
                continue
            m = HEADING.match(line)
            if m:
                heading = m.group(2)
                continue
            row = line if line.lstrip().startswith('|') else None
            for m in CODE_SPAN.finditer(line):
                yield number, heading, row, m.group(2).strip()


def is_file_name(text):
    return text.endswith(FILE_ENDINGS) and PATH.match(text) is not None \
        and os.path.basename(text) not in FILE_ENDINGS


def function_name(text):
    """The function a code span names, or None."""
    m = CALL.match(text)
    if m:
        name = m.group(1)
    elif IDENT.match(text):
        name = text
    else:
        return None
    if name.startswith(EXTERNAL_PREFIXES) or name in LIBC:
        return None
    return name


def matching(pattern, names):
    if '*' in pattern:
        return [n for n in names if fnmatch.fnmatchcase(n, pattern)]
    return [pattern] if pattern in names else []


class Checker:
    def __init__(self, root):
        self.root = root
        self.files = tree_files(root)
        self.file_set = set(self.files)
        self.defined = definitions(root, self.files)
        self.problems = []
        self.n_files = 0
        self.n_functions = 0
        self.n_placed = 0

    def files_named(self, text):
        """The files of the tree a file name in a document stands for."""
        if '/' in text:
            top = text.split('/', 1)[0]
            if os.path.isdir(os.path.join(self.root, top)):
                return [f for f in self.files if fnmatch.fnmatchcase(f, text)]
            return [f for f in self.files if fnmatch.fnmatchcase(f, '*/' + text)]
        return [f for f in self.files
                if f.startswith(tuple(r + os.sep for r in BARE_ROOTS))
                and fnmatch.fnmatchcase(os.path.basename(f), text)]

    def check_file(self, where, text):
        if '<' in text or '>' in text:
            return
        self.n_files += 1
        if not self.files_named(text):
            if '/' in text:
                self.problems.append(f'{where}: `{text}` names no file of the tree')
            else:
                self.problems.append(f'{where}: `{text}` is no file under '
                                     + ', '.join(r + '/' for r in BARE_ROOTS))

    def check_function(self, where, name):
        self.n_functions += 1
        if not matching(name, self.defined):
            self.problems.append(f'{where}: `{name}` is defined nowhere under '
                                 + ' or '.join(r + '/' for r in FUNCTION_ROOTS))

    def check_row(self, where, row):
        """A function named with a file in a row of "Where to change what"."""
        for cell in row.strip().strip('|').split('|'):
            for clause in cell.split(';'):
                items = []
                for m in CODE_SPAN.finditer(clause):
                    text = m.group(2).strip()
                    if is_file_name(text) and '<' not in text:
                        items.append(('file', text, m.start(), m.end()))
                    else:
                        name = function_name(text)
                        if name is not None:
                            items.append(('function', name, m.start(), m.end()))
                for i, (kind, name, start, end) in enumerate(items):
                    if kind == 'function':
                        file = self.file_of(clause, items, i)
                        if file is not None:
                            self.check_function_in(where, name, file)

    @staticmethod
    def file_of(clause, items, i):
        """The file the i-th item of a clause is said to be in, or None."""
        for kind, text, start, end in items[i + 1:]:
            if kind == 'file':
                # "a, b and c in `file`", "`fn` and what it calls in `file`"
                if re.search(r'\bin\s*$', clause[items[i][3]:start]):
                    return text
                break
        for kind, text, start, end in reversed(items[:i]):
            if kind == 'file':
                # "`file` (`fn` and what it calls)"
                between = clause[end:items[i][2]]
                if between.count('(') > between.count(')'):
                    return text
                break
        return None

    def check_function_in(self, where, name, file):
        self.n_placed += 1
        places = set(self.files_named(file))
        if not places:
            return  # said already, by check_file
        for place in list(places):
            if place.endswith('.h'):
                places.add(place[:-2] + '.c')
        defining = set()
        for n in matching(name, self.defined):
            defining |= self.defined[n]
        if not defining:
            return  # said once already, by check_function
        if not defining & places:
            self.problems.append(f'{where}: `{name}` is not defined in `{file}` but in '
                                 + ', '.join(f'`{p}`' for p in sorted(defining)))

    def check_document(self, document):
        path = os.path.join(self.root, document)
        for number, heading, row, text in spans(path):
            where = f'{document}:{number}'
            if is_file_name(text):
                self.check_file(where, text)
                continue
            name = function_name(text)
            if name is not None:
                self.check_function(where, name)
        seen_rows = set()
        for number, heading, row, text in spans(path):
            if row is None or TABLE_HEADING not in heading.lower() or number in seen_rows:
                continue
            seen_rows.add(number)
            self.check_row(f'{document}:{number}', row)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    documents = sys.argv[2:] or DOCUMENTS
    checker = Checker(root)
    for document in documents:
        checker.check_document(document)
    for problem in checker.problems:
        print(problem)
    if checker.problems:
        print(f'{len(checker.problems)} names in the documents do not match the tree; '
              'correct the document (or the name, if the code moved)')
        return 1
    print(f'{checker.n_files} file names and {checker.n_functions} function names in '
          f'{", ".join(documents)} exist; {checker.n_placed} functions are defined in the '
          'file their row names')
    return 0


if __name__ == '__main__':
    sys.exit(main())

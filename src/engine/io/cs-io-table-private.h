/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * What a backend of the I/O table is: the calls it answers, kept apart from
 * the seam that counts them and picks the backend (cs-io-private.h), so a
 * backend such as cs-io-smb.c needs nothing of the seam, and the seam can
 * name its backends without the two including each other.
 *
 * A backend hands out its own handles for open files and folders (the POSIX
 * backend's are file descriptors), and every call names a file by a folder
 * handle and a name, the way the *at() calls do: a name is resolved in the
 * folder the scanner opened, so a folder renamed or replaced above it cannot
 * redirect a copy. CS_IO_AT_LOCATION as the folder takes the name as a
 * location instead (an absolute path, or a URL whose scheme a backend
 * claims); that is how a job gets its first handles.
 *
 * A backend's handles fit in CS_IO_HANDLE_BITS (cs-io-private.h): the seam
 * puts the backend's number above them.
 */

#include <fcntl.h>
#include <glib.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>

G_BEGIN_DECLS

#define CS_IO_AT_LOCATION AT_FDCWD

typedef struct {
  const char *name;     /* "posix": what the run record calls the backend */
  const char *scheme;   /* the locations it takes, "smb://"; NULL for paths */
  /* fsync and syncfs succeed but reach no disk: the backend has no flush
   * (libsmbclient 4.17 has none), and a job that asked for one says so once. */
  gboolean cannot_flush;
  /* No rename that fails on an existing name and no hard link, and a rename
   * over an existing name is a try that does not replace, a delete of the
   * name and the rename again (libsmbclient 4.17): the engine publishes new
   * files by a claim from the first one on, and deletes a name it replaces
   * itself, which saves the failed try. */
  gboolean replace_deletes_first;
  int     (*openat)          (int dirfd, const char *path, int flags, mode_t mode);
  int     (*close)           (int fd);
  ssize_t (*pread)           (int fd, void *buf, size_t count, off_t offset);
  ssize_t (*pwrite)          (int fd, const void *buf, size_t count, off_t offset);
  ssize_t (*copy_file_range) (int fd_in, off_t *off_in, int fd_out, off_t *off_out,
                              size_t len, unsigned int flags);
  int     (*clone)           (int dst_fd, int src_fd);   /* ioctl (FICLONE) */
  int     (*fsync)           (int fd);
  int     (*fstat)           (int fd, struct stat *st);
  int     (*fstat_mode)      (int fd, mode_t *mode);     /* statx (STATX_MODE) */
  int     (*statx)           (int dirfd, const char *path, int flags, unsigned int mask,
                              struct statx *stx);
  int     (*fstatat)         (int dirfd, const char *path, struct stat *st, int flags);
  int     (*mkdirat)         (int dirfd, const char *path, mode_t mode);
  int     (*renameat2)       (int olddirfd, const char *oldpath, int newdirfd,
                              const char *newpath, unsigned int flags);
  int     (*linkat)          (int olddirfd, const char *oldpath, int newdirfd,
                              const char *newpath, int flags);
  int     (*unlinkat)        (int dirfd, const char *path, int flags);
  int     (*fchmod)          (int fd, mode_t mode);
  int     (*fchown)          (int fd, uid_t uid, gid_t gid);
  int     (*futimens)        (int fd, const struct timespec times[2]);
  int     (*utimensat)       (int dirfd, const char *path, const struct timespec times[2],
                              int flags);
  int     (*fchownat)        (int dirfd, const char *path, uid_t uid, gid_t gid, int flags);
  int     (*ftruncate)       (int fd, off_t length);
  off_t   (*lseek)           (int fd, off_t offset, int whence);
  ssize_t (*readlinkat)      (int dirfd, const char *path, char *buf, size_t size);
  int     (*symlinkat)       (const char *target, int newdirfd, const char *linkpath);
  int     (*mknodat)         (int dirfd, const char *path, mode_t mode, dev_t dev);
  int     (*fchmodat)        (int dirfd, const char *path, mode_t mode, int flags);
  ssize_t (*getdents)        (int fd, void *buf, size_t size);
  /* The folder @fd's entries, each with what a stat of it says, in one
   * listing (SMB's directory query returns every entry's size, times and
   * type): CsIoListed appended to @entries, "." and ".." left out. Its
   * st_ino may number a file otherwise than a stat does: never compared.
   * May be NULL: the backend lists names only (ENOTSUP). */
  int     (*readdirplus)     (int fd, GPtrArray *entries);
  /* The folder @path in @dirfd opened as openat (…, O_DIRECTORY) opens it,
   * and listed as readdirplus lists it, where the listing itself shows
   * that a folder is there (a share: opening a folder asks about it first,
   * a stat by name). @out_listed FALSE where it was opened but not listed.
   * May be NULL: openat, then readdirplus. */
  int     (*openat_listed)   (int dirfd, const char *path, int flags, GPtrArray *entries,
                              gboolean *out_listed);
  int     (*syncfs)          (int fd);
  ssize_t (*flistxattr)      (int fd, char *list, size_t size);
  ssize_t (*fgetxattr)       (int fd, const char *name, void *value, size_t size);
  int     (*fsetxattr)       (int fd, const char *name, const void *value, size_t size, int flags);
  int     (*fremovexattr)    (int fd, const char *name);  /* NULL: not kept (ENOTSUP) */
  int     (*mount_root)      (int dirfd, const char *path);  /* 1: a mount's root, 0: not, -1: errno */
  int     (*fstatfs)         (int fd, struct statfs *sfs);
  int     (*fadvise)         (int fd, off_t offset, off_t len, int advice);
  /* A partial's lock, for a resume journal (cs-resume.c): taken without
   * waiting on @fd, the partial open in @dirfd, or as @name in @dirfd where
   * the backend cannot lock an open file; EBUSY while another holds it. @fd
   * may be -1: only a lock by name is asked for (one left behind). Returns
   * 0 for a lock on @fd (it goes when @fd closes), 1 for one by @name (@fd
   * may close first: a share renames no open file). Released by unlock,
   * and where the backend can, by the holder's end. May be NULL: no
   * partial is then kept, the file copied whole. */
  int     (*lock)            (int fd, int dirfd, const char *name);
  int     (*unlock)          (int fd, int dirfd, const char *name);
  /* This thread's connection to the server of @path in @dirfd set up now,
   * before its first call needs it: a thread that will soon talk to the
   * server pays the set-up while it would otherwise wait. 0, or -1 with
   * errno, which nobody reports: the first call that needs the connection
   * says why. May be NULL: nothing to set up. */
  int     (*connect)         (int dirfd, const char *path);
  /* What the run record calls a location of this backend's (none: the
   * filesystem it is mounted from); may be NULL. */
  char   *(*describe)        (const char *location);
  /* Why a location that does not exist cannot: the root it would be in (an
   * SMB share) is not on the server. NULL where the root is there, or the
   * backend has no such roots; may be NULL. */
  char   *(*explain_missing) (const char *location);
} CsIoTable;

/* What getdents64 fills @buf with: records of d_reclen bytes each. */
struct linux_dirent64 {
  guint64        d_ino;
  gint64         d_off;
  unsigned short d_reclen;
  unsigned char  d_type;
  char           d_name[];
};

/* One entry of a readdirplus listing: one allocation, freed with g_free. */
typedef struct {
  struct stat st;
  char        name[];
} CsIoListed;

CsIoListed *_cs_io_listed_new (const char *name, const struct stat *st);

G_END_DECLS

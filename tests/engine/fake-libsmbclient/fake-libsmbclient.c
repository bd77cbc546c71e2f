/* SPDX-License-Identifier: GPL-3.0-or-later */

/*
 * A stand-in for libsmbclient.so.0, for tests of how the engine sets its
 * connections up (test-smb-connect.c): the engine opens whatever
 * libsmbclient.so.0 the loader finds first, so the test puts this folder
 * first in LD_LIBRARY_PATH. A context connects on its first call to a
 * share, which takes a while, and the library counts the set-ups made
 * beside another. What real libsmbclient 4.17 sometimes does when two are
 * set up together (fails one, ENOMEM) this one does when told to. Served:
 * stat (a folder at a share's root, a file anywhere else), and a listing
 * of any folder, the same FAKE_SMB_LISTED entries (test-smb-connect.c's
 * listing tests).
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <libsmbclient.h>

#include "fake-libsmbclient.h"

/* libsamba-util.so.0's, linked as libsmbclient links it: the engine looks
 * for it among the libraries already loaded. A reference keeps the link. */
int smb_thread_set_functions (const void *functions);
static int (*const needs_samba_util) (const void *) __attribute__ ((used)) = smb_thread_set_functions;

#define CONNECT_NS (30 * 1000 * 1000L)

typedef struct {
  SMBCCTX public;  /* the library's own header gives the context's fields */
  char   *share;   /* connected to */
  int     failed;  /* a set-up of this context failed */
} Context;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FakeSmbCounts counts;
static smbc_debug_callback_fn log_fn;
static void *log_data;
static int connecting;
static int fail_together;
static char *refused;

void
fake_smb_reset (int         failures_together,
                const char *refused_share)
{
  pthread_mutex_lock (&lock);
  memset (&counts, 0, sizeof counts);
  fail_together = failures_together;
  free (refused);
  refused = refused_share != NULL ? strdup (refused_share) : NULL;
  pthread_mutex_unlock (&lock);
}

void
fake_smb_get_counts (FakeSmbCounts *out)
{
  pthread_mutex_lock (&lock);
  *out = counts;
  pthread_mutex_unlock (&lock);
}

/* "smb://[user@]host[:port]/share" of @url, or NULL. */
static char *
share_of (const char *url)
{
  const char *host = strstr (url, "://");
  const char *slash, *end;

  if (host == NULL || (slash = strchr (host + 3, '/')) == NULL || slash[1] == '\0')
    return NULL;
  end = strchr (slash + 1, '/');
  return end == NULL ? strdup (url) : strndup (url, (size_t) (end - url));
}

/* Sets @ctx up for @share: 0, or -1 with errno. */
static int
set_up (Context *ctx,
        char    *share)
{
  struct timespec wait = { 0, CONNECT_NS };
  int beside, started, fail = 0, deny;

  pthread_mutex_lock (&lock);
  beside = connecting > 0;
  started = ++counts.set_ups;
  connecting++;
  if (connecting > counts.most_at_once)
    counts.most_at_once = connecting;
  deny = refused != NULL && strcmp (share, refused) == 0;
  pthread_mutex_unlock (&lock);

  nanosleep (&wait, NULL);

  pthread_mutex_lock (&lock);
  connecting--;
  /* Beside another: one was under way when this began, or began since. */
  beside = beside || counts.set_ups != started;
  if (!beside)
    counts.set_ups_alone++;
  if (deny)
    counts.refusals++;
  else if (beside && fail_together > 0)
    {
      fail_together--;
      counts.failed_together++;
      fail = 1;
    }
  else if (ctx->failed && !beside)
    counts.again_alone++;
  pthread_mutex_unlock (&lock);

  /* What libsmbclient 4.17 logs then, at level 0: on standard output,
   * unless a log callback was set. */
  if (fail)
    {
      static const char *lines[] = { "convert_string_talloc: out of memory!\n",
                                     "ntlmssp_client_initial: failed to generate ntlmssp negotiate packet\n" };

      for (int i = 0; i < 2; i++)
        if (log_fn != NULL)
          log_fn (log_data, 0, lines[i]);
        else
          {
            fputs (lines[i], stdout);
            fflush (stdout);
          }
    }
  if (deny || fail)
    {
      ctx->failed = 1;
      free (share);
      errno = deny ? EACCES : ENOMEM;
      return -1;
    }
  free (ctx->share);
  ctx->share = share;
  return 0;
}

static int
fake_stat (SMBCCTX     *public,
           const char  *url,
           struct stat *st)
{
  Context *ctx = (Context *) public;
  char *share = share_of (url);
  const char *rest;

  if (share == NULL)
    {
      errno = EINVAL;
      return -1;
    }
  if (ctx->share == NULL || strcmp (ctx->share, share) != 0)
    {
      if (set_up (ctx, share) != 0)
        return -1;
    }
  else
    free (share);
  pthread_mutex_lock (&lock);
  counts.stats++;
  pthread_mutex_unlock (&lock);
  memset (st, 0, sizeof *st);
  rest = url + strlen (ctx->share);
  st->st_mode = rest[0] == '\0' || strcmp (rest, "/") == 0 ? S_IFDIR | 0755 : S_IFREG | 0644;
  st->st_nlink = 1;
  return 0;
}

/* ---- Listings ------------------------------------------------------------ */

static int listing_otherwise;

/* Entry @i's DOS attributes: folders, read-only, hidden and system files
 * among plain ones. */
static uint16_t
listed_attrs (int i)
{
  static const uint16_t first[] = { SMBC_DOS_MODE_DIRECTORY, SMBC_DOS_MODE_DIRECTORY,
                                    SMBC_DOS_MODE_DIRECTORY, SMBC_DOS_MODE_ARCHIVE,
                                    SMBC_DOS_MODE_ARCHIVE | SMBC_DOS_MODE_READONLY,
                                    SMBC_DOS_MODE_ARCHIVE | SMBC_DOS_MODE_HIDDEN,
                                    SMBC_DOS_MODE_SYSTEM, 0,
                                    SMBC_DOS_MODE_DIRECTORY | SMBC_DOS_MODE_READONLY | SMBC_DOS_MODE_HIDDEN };

  return i < (int) (sizeof first / sizeof first[0]) ? first[i] : SMBC_DOS_MODE_ARCHIVE;
}

static void
listed_info (int                      i,
             struct libsmb_file_info *info,
             char                    *name,
             size_t                   len)
{
  memset (info, 0, sizeof *info);
  if (i == 0 || i == 1)
    snprintf (name, len, "%s", i == 0 ? "." : "..");
  else
    snprintf (name, len, "entry-%02d", i);
  info->name = name;
  info->attrs = listed_attrs (i);
  info->size = (info->attrs & SMBC_DOS_MODE_DIRECTORY) ? 0 : (uint64_t) i * 1000 + 7;
  info->uid = 4242;   /* the server's: setup_stat does not use it */
  info->gid = 4242;
  info->mtime_ts = (struct timespec) { 1700000000 + i, i * 100 };
  info->ctime_ts = (struct timespec) { 1700000100 + i, i * 100 + 1 };
  info->atime_ts = (struct timespec) { 1700000200 + i, i * 100 + 2 };
  info->btime_ts = (struct timespec) { 1600000000, 0 };
}

/* libsmbclient 4.17's setup_stat, as readdirplus2 calls it. */
static void
listed_stat (const struct libsmb_file_info *info,
             int                            i,
             struct stat                   *st)
{
  int folder = (info->attrs & SMBC_DOS_MODE_DIRECTORY) != 0;

  memset (st, 0, sizeof *st);
  st->st_mode = folder ? S_IFDIR | 0555 : S_IFREG | 0444;
  if (info->attrs & SMBC_DOS_MODE_ARCHIVE)
    st->st_mode |= S_IXUSR;
  if (info->attrs & SMBC_DOS_MODE_SYSTEM)
    st->st_mode |= S_IXGRP;
  if (info->attrs & SMBC_DOS_MODE_HIDDEN)
    st->st_mode |= S_IXOTH;
  if (!(info->attrs & SMBC_DOS_MODE_READONLY))
    st->st_mode |= S_IWUSR;
  if (listing_otherwise)
    st->st_mode = folder ? S_IFDIR | 0755 : S_IFREG | 0644;
  st->st_size = (off_t) info->size;
  st->st_blksize = 512;
  st->st_blocks = (blkcnt_t) ((info->size + 511) / 512);
  st->st_uid = getuid ();
  st->st_gid = getgid ();
  st->st_nlink = folder ? 2 : 1;
  st->st_ino = (ino_t) (5000 + i);
  st->st_dev = 0x1234;
  st->st_atim = info->atime_ts;
  st->st_ctim = info->ctime_ts;
  st->st_mtim = info->mtime_ts;
}

void
fake_smb_set_listing (int otherwise)
{
  pthread_mutex_lock (&lock);
  listing_otherwise = otherwise;
  pthread_mutex_unlock (&lock);
}

const char *
fake_smb_listed (int          i,
                 struct stat *st)
{
  static char names[FAKE_SMB_LISTED][16];
  struct libsmb_file_info info;

  listed_info (i, &info, names[i], sizeof names[i]);
  pthread_mutex_lock (&lock);
  listed_stat (&info, i, st);
  pthread_mutex_unlock (&lock);
  return names[i];
}

/* A folder being listed: where its listing is. */
typedef struct {
  int                     next;
  struct libsmb_file_info info;
  char                    name[16];
} Listing;

static SMBCFILE *
fake_opendir (SMBCCTX    *c,
              const char *url)
{
  return (SMBCFILE *) calloc (1, sizeof (Listing));
}

static int
fake_closedir (SMBCCTX  *c,
               SMBCFILE *dir)
{
  free (dir);
  return 0;
}

static const struct libsmb_file_info *
fake_readdirplus (SMBCCTX  *c,
                  SMBCFILE *dir)
{
  Listing *l = (Listing *) dir;

  if (l->next >= FAKE_SMB_LISTED)
    return NULL;
  listed_info (l->next++, &l->info, l->name, sizeof l->name);
  pthread_mutex_lock (&lock);
  counts.listed_plus++;
  pthread_mutex_unlock (&lock);
  return &l->info;
}

static const struct libsmb_file_info *
fake_readdirplus2 (SMBCCTX     *c,
                   SMBCFILE    *dir,
                   struct stat *st)
{
  Listing *l = (Listing *) dir;
  int i = l->next;

  if (i >= FAKE_SMB_LISTED)
    return NULL;
  listed_info (l->next++, &l->info, l->name, sizeof l->name);
  pthread_mutex_lock (&lock);
  listed_stat (&l->info, i, st);
  counts.listed_plus2++;
  pthread_mutex_unlock (&lock);
  return &l->info;
}

smbc_opendir_fn smbc_getFunctionOpendir (SMBCCTX *c) { return fake_opendir; }
smbc_closedir_fn smbc_getFunctionClosedir (SMBCCTX *c) { return fake_closedir; }
smbc_readdirplus_fn smbc_getFunctionReaddirPlus (SMBCCTX *c) { return fake_readdirplus; }
smbc_readdirplus2_fn smbc_getFunctionReaddirPlus2 (SMBCCTX *c) { return fake_readdirplus2; }

/* ---- The rest of what the engine looks up ------------------------------- */

SMBCCTX *
smbc_new_context (void)
{
  return calloc (1, sizeof (Context));
}

SMBCCTX *
smbc_init_context (SMBCCTX *ctx)
{
  return ctx;
}

int
smbc_free_context (SMBCCTX *ctx,
                   int      shutdown_ctx)
{
  free (((Context *) ctx)->share);
  free (ctx);
  return 0;
}

const char *
smbc_version (void)
{
  return "fake";
}

void smbc_setFunctionAuthDataWithContext (SMBCCTX *c, smbc_get_auth_data_with_context_fn fn) {}
void smbc_setOptionFallbackAfterKerberos (SMBCCTX *c, smbc_bool b) {}
void smbc_setOptionNoAutoAnonymousLogin (SMBCCTX *c, smbc_bool b) {}
void smbc_setOptionUseKerberos (SMBCCTX *c, smbc_bool b) {}
void smbc_setUser (SMBCCTX *c, const char *user) {}

/* Global, as the library's: the last one set. */
void
smbc_setLogCallback (SMBCCTX *c, void *private_ptr, smbc_debug_callback_fn fn)
{
  pthread_mutex_lock (&lock);
  log_fn = fn;
  log_data = private_ptr;
  pthread_mutex_unlock (&lock);
}

smbc_stat_fn smbc_getFunctionStat (SMBCCTX *c) { return fake_stat; }

/* Never called by the tests: found, so that the library counts as loaded. */
smbc_close_fn smbc_getFunctionClose (SMBCCTX *c) { return NULL; }
smbc_fstat_fn smbc_getFunctionFstat (SMBCCTX *c) { return NULL; }
smbc_ftruncate_fn smbc_getFunctionFtruncate (SMBCCTX *c) { return NULL; }
smbc_lseek_fn smbc_getFunctionLseek (SMBCCTX *c) { return NULL; }
smbc_mkdir_fn smbc_getFunctionMkdir (SMBCCTX *c) { return NULL; }
smbc_open_fn smbc_getFunctionOpen (SMBCCTX *c) { return NULL; }
smbc_read_fn smbc_getFunctionRead (SMBCCTX *c) { return NULL; }
smbc_readdir_fn smbc_getFunctionReaddir (SMBCCTX *c) { return NULL; }
smbc_rename_fn smbc_getFunctionRename (SMBCCTX *c) { return NULL; }
smbc_rmdir_fn smbc_getFunctionRmdir (SMBCCTX *c) { return NULL; }
smbc_splice_fn smbc_getFunctionSplice (SMBCCTX *c) { return NULL; }
smbc_unlink_fn smbc_getFunctionUnlink (SMBCCTX *c) { return NULL; }
smbc_utimes_fn smbc_getFunctionUtimes (SMBCCTX *c) { return NULL; }
smbc_write_fn smbc_getFunctionWrite (SMBCCTX *c) { return NULL; }

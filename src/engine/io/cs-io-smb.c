/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-io-smb"

#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libsmbclient.h>
#include <pthread.h>
#include <linux/magic.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <glib/gi18n-lib.h>

#include "cs-io-table-private.h"
#include "cs-io-smb-private.h"
#include "cs-smb.h"
#include "cs-smb-credentials-private.h"

/*
 * The backend for smb:// locations, through libsmbclient (the library GVfs
 * uses): each worker thread talks to the server on a connection of its own,
 * so more threads put more requests in flight, where everything through
 * GVfs funnels into one.
 *
 * A context belongs to the thread that made it, and lives until that thread
 * ends: a thread the engine stops closes its connection, a new one opens
 * one. libsmbclient 4.17 does not export smbc_thread_posix, so making and
 * freeing contexts (which touch the library's globals) take one lock. A
 * handle keeps its context; a call on it from another thread than the one
 * that opened it waits for that context's lock rather than sharing it.
 *
 * Every libsmbclient call also keeps a stack of temporary memory, which is
 * one for the whole process until the library is given thread-local
 * storage: two threads in calls at once then free each other's frames
 * ("Freed frame …, expected …"). smbc_thread_posix is what gives it, and
 * all it does is hand pthread functions to smb_thread_set_functions in
 * libsamba-util, which libsmbclient loads and which Debian exports; so
 * that is called here, with the functions smbc_thread_impl documents.
 * Where it is missing, one lock lets a single call run at a time: correct,
 * with one request in flight.
 *
 * Names are whatever the share allows, joined into a URL: SMB paths have no
 * PATH_MAX of the client's, the server refuses what is too long for it.
 */

typedef struct {
  int    (*create_mutex)  (const char *name, void **lock, const char *location);
  void   (*destroy_mutex) (void *lock, const char *location);
  int    (*lock_mutex)    (void *lock, int lock_type, const char *location);
  int    (*create_tls)    (const char *name, void **key, const char *location);
  void   (*destroy_tls)   (void **key, const char *location);
  int    (*set_tls)       (void *key, const void *value, const char *location);
  void  *(*get_tls)       (void *key, const char *location);
} ThreadFunctions;

static int
create_mutex (const char *name, void **lock, const char *location)
{
  pthread_mutex_t *m = g_new (pthread_mutex_t, 1);

  pthread_mutex_init (m, NULL);
  *lock = m;
  return 0;
}

static void
destroy_mutex (void *lock, const char *location)
{
  pthread_mutex_destroy (lock);
  g_free (lock);
}

/* 1 locks, 2 unlocks (smbc_thread_impl's lock_type). */
static int
lock_mutex (void *lock, int lock_type, const char *location)
{
  return lock_type == 1 ? pthread_mutex_lock (lock) : pthread_mutex_unlock (lock);
}

static int
create_tls (const char *name, void **key, const char *location)
{
  pthread_key_t *k = g_new (pthread_key_t, 1);
  int r = pthread_key_create (k, NULL);

  if (r != 0)
    {
      g_free (k);
      return r;
    }
  *key = k;
  return 0;
}

static void
destroy_tls (void **key, const char *location)
{
  pthread_key_delete (*(pthread_key_t *) *key);
  g_clear_pointer (key, g_free);
}

static int
set_tls (void *key, const void *value, const char *location)
{
  return key != NULL ? pthread_setspecific (*(pthread_key_t *) key, value) : EINVAL;
}

/* The library asks before it made its key: nothing is stored yet. */
static void *
get_tls (void *key, const char *location)
{
  return key != NULL ? pthread_getspecific (*(pthread_key_t *) key) : NULL;
}

static const ThreadFunctions thread_functions = {
  create_mutex, destroy_mutex, lock_mutex, create_tls, destroy_tls, set_tls, get_tls,
};

/* libsmbclient is opened on the first smb:// location, not linked: it
 * brings some 140 libraries, which cost every start of the window and the
 * CLI about 0.3 s (copyscope-cli --version: 0.05 → 0.35 s linked). */
static struct {
  __typeof__ (smbc_free_context) *smbc_free_context;
  __typeof__ (smbc_getFunctionClose) *smbc_getFunctionClose;
  __typeof__ (smbc_getFunctionClosedir) *smbc_getFunctionClosedir;
  __typeof__ (smbc_getFunctionFstat) *smbc_getFunctionFstat;
  __typeof__ (smbc_getFunctionFtruncate) *smbc_getFunctionFtruncate;
  __typeof__ (smbc_getFunctionLseek) *smbc_getFunctionLseek;
  __typeof__ (smbc_getFunctionMkdir) *smbc_getFunctionMkdir;
  __typeof__ (smbc_getFunctionOpen) *smbc_getFunctionOpen;
  __typeof__ (smbc_getFunctionOpendir) *smbc_getFunctionOpendir;
  __typeof__ (smbc_getFunctionRead) *smbc_getFunctionRead;
  __typeof__ (smbc_getFunctionReaddir) *smbc_getFunctionReaddir;
  __typeof__ (smbc_getFunctionRename) *smbc_getFunctionRename;
  __typeof__ (smbc_getFunctionRmdir) *smbc_getFunctionRmdir;
  __typeof__ (smbc_getFunctionSplice) *smbc_getFunctionSplice;
  __typeof__ (smbc_getFunctionStat) *smbc_getFunctionStat;
  __typeof__ (smbc_getFunctionUnlink) *smbc_getFunctionUnlink;
  __typeof__ (smbc_getFunctionUtimes) *smbc_getFunctionUtimes;
  __typeof__ (smbc_getFunctionWrite) *smbc_getFunctionWrite;
  __typeof__ (smbc_init_context) *smbc_init_context;
  __typeof__ (smbc_new_context) *smbc_new_context;
  __typeof__ (smbc_setFunctionAuthDataWithContext) *smbc_setFunctionAuthDataWithContext;
  __typeof__ (smbc_setOptionFallbackAfterKerberos) *smbc_setOptionFallbackAfterKerberos;
  __typeof__ (smbc_setOptionNoAutoAnonymousLogin) *smbc_setOptionNoAutoAnonymousLogin;
  __typeof__ (smbc_setOptionUseKerberos) *smbc_setOptionUseKerberos;
  __typeof__ (smbc_setUser) *smbc_setUser;
  __typeof__ (smbc_version) *smbc_version;
} lib;

static gboolean
load (void       *library,
      const char *name,
      void      **symbol)
{
  *symbol = dlsym (library, name);
  return *symbol != NULL;
}

static gboolean library_loaded;

static gboolean
load_library (void)
{
  void *library = dlopen ("libsmbclient.so.0", RTLD_NOW | RTLD_LOCAL);

  if (library == NULL
      || !load (library, "smbc_free_context", (void **) &lib.smbc_free_context)
      || !load (library, "smbc_getFunctionClose", (void **) &lib.smbc_getFunctionClose)
      || !load (library, "smbc_getFunctionClosedir", (void **) &lib.smbc_getFunctionClosedir)
      || !load (library, "smbc_getFunctionFstat", (void **) &lib.smbc_getFunctionFstat)
      || !load (library, "smbc_getFunctionFtruncate", (void **) &lib.smbc_getFunctionFtruncate)
      || !load (library, "smbc_getFunctionLseek", (void **) &lib.smbc_getFunctionLseek)
      || !load (library, "smbc_getFunctionMkdir", (void **) &lib.smbc_getFunctionMkdir)
      || !load (library, "smbc_getFunctionOpen", (void **) &lib.smbc_getFunctionOpen)
      || !load (library, "smbc_getFunctionOpendir", (void **) &lib.smbc_getFunctionOpendir)
      || !load (library, "smbc_getFunctionRead", (void **) &lib.smbc_getFunctionRead)
      || !load (library, "smbc_getFunctionReaddir", (void **) &lib.smbc_getFunctionReaddir)
      || !load (library, "smbc_getFunctionRename", (void **) &lib.smbc_getFunctionRename)
      || !load (library, "smbc_getFunctionRmdir", (void **) &lib.smbc_getFunctionRmdir)
      || !load (library, "smbc_getFunctionSplice", (void **) &lib.smbc_getFunctionSplice)
      || !load (library, "smbc_getFunctionStat", (void **) &lib.smbc_getFunctionStat)
      || !load (library, "smbc_getFunctionUnlink", (void **) &lib.smbc_getFunctionUnlink)
      || !load (library, "smbc_getFunctionUtimes", (void **) &lib.smbc_getFunctionUtimes)
      || !load (library, "smbc_getFunctionWrite", (void **) &lib.smbc_getFunctionWrite)
      || !load (library, "smbc_init_context", (void **) &lib.smbc_init_context)
      || !load (library, "smbc_new_context", (void **) &lib.smbc_new_context)
      || !load (library, "smbc_setFunctionAuthDataWithContext", (void **) &lib.smbc_setFunctionAuthDataWithContext)
      || !load (library, "smbc_setOptionFallbackAfterKerberos", (void **) &lib.smbc_setOptionFallbackAfterKerberos)
      || !load (library, "smbc_setOptionNoAutoAnonymousLogin", (void **) &lib.smbc_setOptionNoAutoAnonymousLogin)
      || !load (library, "smbc_setOptionUseKerberos", (void **) &lib.smbc_setOptionUseKerberos)
      || !load (library, "smbc_setUser", (void **) &lib.smbc_setUser)
      || !load (library, "smbc_version", (void **) &lib.smbc_version))
    {
      g_message ("smb:// locations need libsmbclient: %s", library == NULL ? dlerror () : "a function is missing");
      return FALSE;
    }
  return TRUE;
}

/* Taken by every call where the library could not be given threads. */
static GMutex one_call_lock;
static gboolean one_call_at_a_time;

static gpointer
give_threads (gpointer data)
{
  void *util;
  int (*set_functions) (const ThreadFunctions *) = NULL;

  if (!(library_loaded = load_library ()))
    return NULL;
  /* Loaded with libsmbclient, which needs it. */
  util = dlopen ("libsamba-util.so.0", RTLD_NOW | RTLD_NOLOAD);
  if (util != NULL)
    set_functions = dlsym (util, "smb_thread_set_functions");

  if (set_functions == NULL || set_functions (&thread_functions) != 0)
    {
      g_warning ("libsmbclient has no thread support here: one SMB request at a time");
      one_call_at_a_time = TRUE;
    }
  return NULL;
}

typedef struct {
  SMBCCTX *ctx;
  GMutex   lock;
  gint     refs;
  gboolean connected;     /* a first call went through */
  gboolean connecting;    /* the first call holds contexts_lock */
} Conn;

typedef struct {
  Conn                *conn;
  char                *url;
  SMBCFILE            *file;      /* a file, or a folder being listed */
  gboolean             folder;
  off_t                pos;       /* where the server's file offset is */
  struct smbc_dirent  *pending;   /* listed, did not fit the last buffer */
  gboolean             written;
  gboolean             has_times; /* times to set once the file is closed */
  struct timespec      times[2];
} Handle;

static GMutex contexts_lock;
static atomic_int n_connections;
static atomic_int most_connections;

static GMutex handles_lock;
static GPtrArray *handles;

guint
_cs_io_smb_connections (void)
{
  return (guint) atomic_load (&n_connections);
}

/* The user comes from the URL, which libsmbclient passes in as the hint,
 * or else from the context (the default user), unless the server has a
 * login of its own (cs-smb-credentials.c). */
static void
auth (SMBCCTX    *ctx,
      const char *server,
      const char *share,
      char       *workgroup,
      int         workgroup_len,
      char       *user,
      int         user_len,
      char       *pw,
      int         pw_len)
{
  _cs_smb_credentials_fill (server, workgroup, workgroup_len, user, user_len, pw, pw_len);
}

static void
conn_unref (gpointer data)
{
  Conn *conn = data;

  if (conn == NULL || !g_atomic_int_dec_and_test (&conn->refs))
    return;
  g_mutex_lock (&contexts_lock);
  lib.smbc_free_context (conn->ctx, 1);
  g_mutex_unlock (&contexts_lock);
  g_mutex_clear (&conn->lock);
  atomic_fetch_sub (&n_connections, 1);
  g_free (conn);
}

static GPrivate thread_conn = G_PRIVATE_INIT (conn_unref);

static Conn *
conn_of_thread (void)
{
  static GOnce threads_once = G_ONCE_INIT;
  Conn *conn = g_private_get (&thread_conn);
  SMBCCTX *ctx;

  if (conn != NULL)
    return conn;

  g_once (&threads_once, give_threads, NULL);
  if (!library_loaded)
    {
      errno = ENOPROTOOPT;
      return NULL;
    }

  g_mutex_lock (&contexts_lock);
  ctx = lib.smbc_new_context ();
  if (ctx != NULL)
    {
      g_autofree char *user = _cs_smb_credentials_dup_default_user ();

      lib.smbc_setFunctionAuthDataWithContext (ctx, auth);
      lib.smbc_setOptionUseKerberos (ctx, FALSE);
      lib.smbc_setOptionFallbackAfterKerberos (ctx, TRUE);
      lib.smbc_setOptionNoAutoAnonymousLogin (ctx, TRUE);
      if (user != NULL)
        lib.smbc_setUser (ctx, user);
      if (lib.smbc_init_context (ctx) == NULL)
        {
          lib.smbc_free_context (ctx, 0);
          ctx = NULL;
        }
    }
  g_mutex_unlock (&contexts_lock);
  if (ctx == NULL)
    {
      errno = ENOMEM;
      return NULL;
    }

  conn = g_new0 (Conn, 1);
  conn->ctx = ctx;
  conn->refs = 1;
  g_mutex_init (&conn->lock);
  for (int n = atomic_fetch_add (&n_connections, 1) + 1, most = atomic_load (&most_connections);
       n > most && !atomic_compare_exchange_weak (&most_connections, &most, n);)
    ;
  g_private_set (&thread_conn, conn);
  return conn;
}

/* ---- Handles ------------------------------------------------------------- */

static int
handle_add (Handle *h)
{
  int n = -1;

  g_mutex_lock (&handles_lock);
  if (handles == NULL)
    handles = g_ptr_array_new ();
  for (guint i = 0; i < handles->len; i++)
    if (g_ptr_array_index (handles, i) == NULL)
      {
        handles->pdata[i] = h;
        n = (int) i;
        break;
      }
  if (n < 0)
    {
      n = (int) handles->len;
      g_ptr_array_add (handles, h);
    }
  g_mutex_unlock (&handles_lock);
  return n;
}

static Handle *
handle_get (int n)
{
  Handle *h = NULL;

  g_mutex_lock (&handles_lock);
  if (handles != NULL && n >= 0 && (guint) n < handles->len)
    h = g_ptr_array_index (handles, n);
  g_mutex_unlock (&handles_lock);
  if (h == NULL)
    errno = EBADF;
  return h;
}

static Handle *
handle_take (int n)
{
  Handle *h = handle_get (n);

  if (h != NULL)
    {
      g_mutex_lock (&handles_lock);
      handles->pdata[n] = NULL;
      g_mutex_unlock (&handles_lock);
    }
  return h;
}

/* The URL of @name in the folder @dirfd, or @name itself as a location.
 * Each part of a relative name is escaped: libsmbclient decodes %XX. */
static char *
url_at (int         dirfd,
        const char *name)
{
  g_autoptr(GString) url = NULL;
  g_auto(GStrv) parts = NULL;
  Handle *dir;

  if (dirfd == CS_IO_AT_LOCATION)
    return g_strdup (name);
  if ((dir = handle_get (dirfd)) == NULL)
    return NULL;
  url = g_string_new (dir->url);
  if (name[0] == '\0')
    return g_string_free (g_steal_pointer (&url), FALSE);
  parts = g_strsplit (name, "/", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      g_autofree char *part = NULL;

      /* "." is the folder itself, which smbc_opendir refuses (EINVAL) when
       * it ends a URL: the scanner lists a destination folder as ".". */
      if (strcmp (parts[i], ".") == 0 || parts[i][0] == '\0')
        continue;
      part = g_uri_escape_string (parts[i], NULL, TRUE);
      if (url->len > 0 && url->str[url->len - 1] != '/')
        g_string_append_c (url, '/');
      g_string_append (url, part);
    }
  return g_string_free (g_steal_pointer (&url), FALSE);
}

/* A context's first call connects and logs in, through caches the library
 * keeps in files for the whole process, whose locks do not tell threads
 * apart: with connections set up together, a thread's call sometimes ended
 * in ECONNABORTED (1 rerun in 3 of the smb-native test). So first calls
 * take the lock contexts are made under; after that, calls run at once. */
static void
conn_lock (Conn *conn)
{
  if (one_call_at_a_time)
    g_mutex_lock (&one_call_lock);
  g_mutex_lock (&conn->lock);
  if (!conn->connected)
    {
      g_mutex_lock (&contexts_lock);
      conn->connecting = TRUE;
    }
}

static void
conn_unlock (Conn *conn)
{
  if (conn->connecting)
    {
      conn->connecting = FALSE;
      conn->connected = TRUE;
      g_mutex_unlock (&contexts_lock);
    }
  g_mutex_unlock (&conn->lock);
  if (one_call_at_a_time)
    g_mutex_unlock (&one_call_lock);
}

/* Runs the statement after it with @conn's lock held. */
#define WITH_CONN(conn) for (gboolean _once = (conn_lock (conn), TRUE); _once; \
                             _once = FALSE, conn_unlock (conn))

/* Runs @call on this thread's context with @url made from @dirfd and @name. */
#define BY_NAME(dirfd, name, call) ({                                      \
    g_autofree char *url = url_at (dirfd, name);                           \
    Conn *conn = url != NULL ? conn_of_thread () : NULL;                   \
    int _r = -1;                                                           \
    if (conn != NULL)                                                      \
      WITH_CONN (conn)                                                     \
        _r = (call);                                                       \
    _r;                                                                    \
  })

/* SMB reports no blocks; a file is never sparse here, so the copy never
 * looks for holes the server would not keep anyway. Nor owners: libsmbclient
 * gives every file the caller's uid, so on a share what a killed run of ours
 * left is told by its name and its run being gone, not by its owner. */
static void
fix_stat (struct stat *st)
{
  st->st_blocks = (st->st_size + 511) / 512;
  if (st->st_blksize == 0)
    st->st_blksize = 64 * 1024;
}

/* ---- The table ------------------------------------------------------------ */

static int
smb_openat (int dirfd, const char *path, int flags, mode_t mode)
{
  g_autofree char *url = NULL;
  Conn *conn;
  Handle *h;
  SMBCFILE *file = NULL;
  struct stat st;
  int r = 0;

  if ((flags & O_TMPFILE) == O_TMPFILE)
    {
      errno = EOPNOTSUPP;
      return -1;
    }
  if ((url = url_at (dirfd, path)) == NULL || (conn = conn_of_thread ()) == NULL)
    return -1;

  WITH_CONN (conn)
    {
      if (flags & O_DIRECTORY)
        {
          r = lib.smbc_getFunctionStat (conn->ctx) (conn->ctx, url, &st);
          if (r == 0 && !S_ISDIR (st.st_mode))
            {
              errno = ENOTDIR;
              r = -1;
            }
        }
      else
        {
          int open_flags = flags & (O_ACCMODE | O_CREAT | O_EXCL | O_TRUNC);
          /* A file opened only for writing may not read its own attributes,
           * and each fstat then asks by name (three requests, not one): a new
           * file is opened for reading too, where the share lets it. */
          gboolean also_read = (open_flags & O_ACCMODE) == O_WRONLY && (open_flags & O_CREAT);

          if (also_read)
            file = lib.smbc_getFunctionOpen (conn->ctx) (conn->ctx, url,
                                                     (open_flags & ~O_ACCMODE) | O_RDWR, mode);
          if (!also_read || (file == NULL && errno == EACCES))
            file = lib.smbc_getFunctionOpen (conn->ctx) (conn->ctx, url, open_flags, mode);
          r = file != NULL ? 0 : -1;
        }
    }
  if (r != 0)
    return -1;

  h = g_new0 (Handle, 1);
  h->conn = conn;
  g_atomic_int_inc (&conn->refs);
  h->url = g_steal_pointer (&url);
  h->file = file;
  h->folder = (flags & O_DIRECTORY) != 0;
  return handle_add (h);
}

static int
set_times (Conn                  *conn,
           const char            *url,
           const struct timespec  times[2])
{
  struct stat st;
  struct timeval tv[2];

  /* UTIME_OMIT and UTIME_NOW ask for what the file has, or the clock. */
  for (int i = 0; i < 2; i++)
    {
      if (times[i].tv_nsec == UTIME_OMIT)
        {
          if (lib.smbc_getFunctionStat (conn->ctx) (conn->ctx, url, &st) != 0)
            return -1;
          tv[i].tv_sec = i == 0 ? st.st_atim.tv_sec : st.st_mtim.tv_sec;
          tv[i].tv_usec = (i == 0 ? st.st_atim.tv_nsec : st.st_mtim.tv_nsec) / 1000;
        }
      else if (times[i].tv_nsec == UTIME_NOW)
        gettimeofday (&tv[i], NULL);
      else
        {
          tv[i].tv_sec = times[i].tv_sec;
          tv[i].tv_usec = times[i].tv_nsec / 1000;
        }
    }
  return lib.smbc_getFunctionUtimes (conn->ctx) (conn->ctx, url, tv);
}

static int
smb_close (int fd)
{
  Handle *h = handle_take (fd);
  int r = 0;

  if (h == NULL)
    return -1;
  if (h->file != NULL)
    WITH_CONN (h->conn)
      {
        if (h->folder)
          r = lib.smbc_getFunctionClosedir (h->conn->ctx) (h->conn->ctx, h->file);
        else
          r = lib.smbc_getFunctionClose (h->conn->ctx) (h->conn->ctx, h->file);
        if (r == 0 && h->has_times)
          r = set_times (h->conn, h->url, h->times);
      }
  conn_unref (h->conn);
  g_free (h->pending);
  g_free (h->url);
  g_free (h);
  return r;
}

/* Moves the server's offset only when it is not where the last call left it. */
static gboolean
seek_to (Handle *h,
         off_t   offset)
{
  if (h->pos == offset)
    return TRUE;
  if (lib.smbc_getFunctionLseek (h->conn->ctx) (h->conn->ctx, h->file, offset, SEEK_SET) < 0)
    return FALSE;
  h->pos = offset;
  return TRUE;
}

/* A read or a write at @offset, from the offset the last one left. */
static ssize_t
transfer (int         fd,
          void       *buf,
          size_t      count,
          off_t       offset,
          gboolean    writing)
{
  Handle *h = handle_get (fd);
  ssize_t n = -1;

  if (h == NULL || h->folder)
    {
      errno = h == NULL ? EBADF : EISDIR;
      return -1;
    }
  WITH_CONN (h->conn)
    if (seek_to (h, offset))
      {
        SMBCCTX *ctx = h->conn->ctx;

        n = writing ? lib.smbc_getFunctionWrite (ctx) (ctx, h->file, buf, count)
                    : lib.smbc_getFunctionRead (ctx) (ctx, h->file, buf, count);
        h->pos = n >= 0 ? offset + n : -1;
        h->written |= writing && n > 0;
      }
  return n;
}

static ssize_t
smb_pread (int fd, void *buf, size_t count, off_t offset)
{
  return transfer (fd, buf, count, offset, FALSE);
}

/* The buffer is only read: smbc_write takes it as const. */
static ssize_t
smb_pwrite (int fd, const void *buf, size_t count, off_t offset)
{
  return transfer (fd, (void *) buf, count, offset, TRUE);
}

static off_t
smb_lseek (int fd, off_t offset, int whence)
{
  Handle *h = handle_get (fd);
  off_t r = -1;

  if (h == NULL)
    return -1;
  if (h->folder || (whence != SEEK_SET && whence != SEEK_CUR && whence != SEEK_END))
    {
      errno = EINVAL;
      return -1;
    }
  WITH_CONN (h->conn)
    {
      r = lib.smbc_getFunctionLseek (h->conn->ctx) (h->conn->ctx, h->file, offset, whence);
      h->pos = r;
    }
  return r;
}

static int
smb_fstat (int fd, struct stat *st)
{
  Handle *h = handle_get (fd);
  int r = -1;

  if (h == NULL)
    return -1;
  /* A file opened only for writing may not read its own attributes (the
   * server says EINVAL): then they are asked by name, as lstat asks. */
  WITH_CONN (h->conn)
    {
      if (!h->folder)
        r = lib.smbc_getFunctionFstat (h->conn->ctx) (h->conn->ctx, h->file, st);
      if (r != 0)
        r = lib.smbc_getFunctionStat (h->conn->ctx) (h->conn->ctx, h->url, st);
    }
  if (r == 0)
    fix_stat (st);
  return r;
}

static int
smb_fstat_mode (int fd, mode_t *mode)
{
  struct stat st;

  if (smb_fstat (fd, &st) != 0)
    return -1;
  *mode = st.st_mode;
  return 0;
}

static int
smb_fstatat (int dirfd, const char *path, struct stat *st, int flags)
{
  int r;

  if ((flags & AT_EMPTY_PATH) && path[0] == '\0' && dirfd != CS_IO_AT_LOCATION)
    return smb_fstat (dirfd, st);
  r = BY_NAME (dirfd, path, lib.smbc_getFunctionStat (conn->ctx) (conn->ctx, url, st));
  if (r == 0)
    fix_stat (st);
  return r;
}

static void
statx_timestamp (struct statx_timestamp *t,
                 const struct timespec  *ts)
{
  t->tv_sec = ts->tv_sec;
  t->tv_nsec = (guint32) ts->tv_nsec;
}

static int
smb_statx (int dirfd, const char *path, int flags, unsigned int mask, struct statx *stx)
{
  struct stat st;

  if (smb_fstatat (dirfd, path, &st, flags & AT_EMPTY_PATH) != 0)
    return -1;
  memset (stx, 0, sizeof *stx);
  stx->stx_mask = STATX_BASIC_STATS;
  stx->stx_mode = (guint16) st.st_mode;
  stx->stx_nlink = (guint32) st.st_nlink;
  stx->stx_uid = st.st_uid;
  stx->stx_gid = st.st_gid;
  stx->stx_ino = st.st_ino;
  stx->stx_size = (guint64) st.st_size;
  stx->stx_blocks = (guint64) st.st_blocks;
  stx->stx_blksize = (guint32) st.st_blksize;
  stx->stx_dev_major = major (st.st_dev);
  stx->stx_dev_minor = minor (st.st_dev);
  statx_timestamp (&stx->stx_atime, &st.st_atim);
  statx_timestamp (&stx->stx_mtime, &st.st_mtim);
  statx_timestamp (&stx->stx_ctime, &st.st_ctim);
  return 0;
}

static int
smb_mkdirat (int dirfd, const char *path, mode_t mode)
{
  return BY_NAME (dirfd, path, lib.smbc_getFunctionMkdir (conn->ctx) (conn->ctx, url, mode));
}

/* smbc_rename replaces an existing name (on EEXIST it deletes the target and
 * tries again), so a rename that must not replace is not offered: the engine
 * then publishes by claiming the name with an exclusive create first. */
static int
smb_renameat2 (int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
               unsigned int flags)
{
  g_autofree char *from = NULL;
  g_autofree char *to = NULL;
  Conn *conn;
  int r = -1;

  if (flags != 0)
    {
      errno = EINVAL;
      return -1;
    }
  if ((from = url_at (olddirfd, oldpath)) == NULL || (to = url_at (newdirfd, newpath)) == NULL
      || (conn = conn_of_thread ()) == NULL)
    return -1;
  WITH_CONN (conn)
    {
      r = lib.smbc_getFunctionRename (conn->ctx) (conn->ctx, from, conn->ctx, to);
      /* libsmbclient replaces a name with a rename that does not replace,
       * then, on EEXIST, a delete of the name and the rename again; when one
       * of those two fails it says EEXIST, the first attempt's answer,
       * whatever the cause, and the engine takes the name for another's.
       * Seen when the server's process ends between them: smbd 4.17 panics
       * now and then in closing the deleted name ("Could not store share
       * mode data"; 1,000 files at 8 threads on the lab Samba with 1 ms
       * per request: 2 to 6 files a copy failed so). Asked again, the
       * library connects anew where the connection was lost and finishes
       * the rename, or answers as it finds the names now. */
      if (r != 0 && errno == EEXIST)
        r = lib.smbc_getFunctionRename (conn->ctx) (conn->ctx, from, conn->ctx, to);
    }
  return r;
}

static int
smb_unlinkat (int dirfd, const char *path, int flags)
{
  if (flags & AT_REMOVEDIR)
    return BY_NAME (dirfd, path, lib.smbc_getFunctionRmdir (conn->ctx) (conn->ctx, url));
  return BY_NAME (dirfd, path, lib.smbc_getFunctionUnlink (conn->ctx) (conn->ctx, url));
}

static int
smb_futimens (int fd, const struct timespec times[2])
{
  Handle *h = handle_get (fd);
  int r = -1;

  if (h == NULL)
    return -1;
  /* smbc_utimes sets them by name, on a handle of its own; the server then
   * stamps the write time of the handle that wrote the data when that one
   * closes, or two seconds after its first write (Samba's delayed write
   * time), whichever comes after ours: set on a written file, the times
   * are set once it is closed. */
  if (!h->folder && h->written)
    {
      memcpy (h->times, times, sizeof h->times);
      h->has_times = TRUE;
      return 0;
    }
  WITH_CONN (h->conn)
    r = set_times (h->conn, h->url, times);
  return r;
}

static int
smb_utimensat (int dirfd, const char *path, const struct timespec times[2], int flags)
{
  if (path == NULL || path[0] == '\0')
    return smb_futimens (dirfd, times);
  return BY_NAME (dirfd, path, set_times (conn, url, times));
}

static int
smb_ftruncate (int fd, off_t length)
{
  Handle *h = handle_get (fd);
  int r = -1;

  if (h == NULL)
    return -1;
  WITH_CONN (h->conn)
    r = lib.smbc_getFunctionFtruncate (h->conn->ctx) (h->conn->ctx, h->file, length);
  return r;
}

static unsigned char
dirent_type (unsigned int smbc_type)
{
  switch (smbc_type)
    {
    case SMBC_DIR:
      return DT_DIR;
    case SMBC_FILE:
      return DT_REG;
    case SMBC_LINK:
      return DT_LNK;
    default:
      return DT_UNKNOWN;
    }
}

/* Puts @d into @buf as getdents64 would; FALSE when it does not fit. */
static gboolean
put_dirent (const struct smbc_dirent *d,
            char                     *buf,
            size_t                    size,
            size_t                   *used)
{
  struct linux_dirent64 *out = (struct linux_dirent64 *) (buf + *used);
  size_t len = strlen (d->name);
  size_t reclen = (offsetof (struct linux_dirent64, d_name) + len + 1 + 7) & ~(size_t) 7;

  if (*used + reclen > size)
    return FALSE;
  memset (out, 0, reclen);
  out->d_ino = 1;  /* SMB has no inode numbers in a listing; 0 would mean "deleted" */
  out->d_off = 0;
  out->d_reclen = (unsigned short) reclen;
  out->d_type = dirent_type (d->smbc_type);
  memcpy (out->d_name, d->name, len + 1);
  *used += reclen;
  return TRUE;
}

static ssize_t
smb_getdents (int fd, void *buf, size_t size)
{
  Handle *h = handle_get (fd);
  size_t used = 0;
  ssize_t r = 0;

  if (h == NULL)
    return -1;
  if (!h->folder)
    {
      errno = ENOTDIR;
      return -1;
    }
  WITH_CONN (h->conn)
    {
      struct smbc_dirent *d;

      if (h->file == NULL)
        h->file = lib.smbc_getFunctionOpendir (h->conn->ctx) (h->conn->ctx, h->url);
      if (h->file == NULL)
        r = -1;
      else if (h->pending != NULL && !put_dirent (h->pending, buf, size, &used))
        {
          errno = EINVAL;
          r = -1;
        }
      else
        {
          g_clear_pointer (&h->pending, g_free);
          while ((d = lib.smbc_getFunctionReaddir (h->conn->ctx) (h->conn->ctx, h->file)) != NULL)
            if (!put_dirent (d, buf, size, &used))
              {
                h->pending = g_memdup2 (d, d->dirlen);
                break;
              }
          r = (ssize_t) used;
        }
    }
  return r;
}

static int
unsupported (void)
{
  errno = EOPNOTSUPP;
  return -1;
}

/* The length of "smb://[user@]server[:port]/share" in @url. */
static gsize
share_prefix_len (const char *url)
{
  const char *p = strchr (url + strlen ("smb://"), '/');

  if (p == NULL)
    return strlen (url);
  p = strchr (p + 1, '/');
  return p != NULL ? (gsize) (p - url) : strlen (url);
}

static int
splice_go_on (off_t  n,
              void  *data)
{
  return 1;
}

/*
 * A copy the server makes itself (SMB2 copy-chunk, as Windows Explorer asks
 * for one), where both files are on one share: no byte crosses the network.
 * libsmbclient does it for two files open in one context on one tree
 * connection; else it would copy through the client, which the engine's
 * own reads and writes do already, counted.
 */
static ssize_t
smb_copy_file_range (int fd_in, off_t *off_in, int fd_out, off_t *off_out, size_t len,
                     unsigned int flags)
{
  Handle *in = handle_get (fd_in);
  Handle *out = handle_get (fd_out);
  gsize prefix;
  off_t n = -1;

  if (in == NULL || out == NULL)
    return -1;
  /* Files on two shares stay so for the whole job; two connections (a big
   * file's temporary opened by another worker) the copy chain avoids. */
  prefix = share_prefix_len (in->url);
  if (in->folder || out->folder || off_in == NULL || off_out == NULL || in->conn != out->conn
      || prefix != share_prefix_len (out->url) || strncmp (in->url, out->url, prefix) != 0)
    return unsupported ();

  WITH_CONN (in->conn)
    if (seek_to (in, *off_in) && seek_to (out, *off_out))
      {
        SMBCCTX *ctx = in->conn->ctx;

        n = lib.smbc_getFunctionSplice (ctx) (ctx, in->file, out->file, (off_t) len,
                                             splice_go_on, NULL);
        in->pos = n >= 0 ? *off_in + n : -1;
        out->pos = n >= 0 ? *off_out + n : -1;
        out->written |= n > 0;
      }
  if (n > 0)
    {
      *off_in += n;
      *off_out += n;
    }
  return n;
}

static int
smb_clone (int dst_fd, int src_fd)
{
  return unsupported ();
}

/* libsmbclient has no flush; the server has the bytes once a write returns,
 * and a close ends the handle's caching on the server's side. */
static int
smb_fsync (int fd)
{
  return handle_get (fd) != NULL ? 0 : -1;
}

static int
smb_syncfs (int fd)
{
  return smb_fsync (fd);
}

static int
smb_linkat (int olddirfd, const char *oldpath, int newdirfd, const char *newpath, int flags)
{
  return unsupported ();
}

/* Modes and owners are the server's business: SMB shares map them from
 * their own ACLs and users. Saying so lets the engine report it once. */
static int
smb_fchmod (int fd, mode_t mode)
{
  return unsupported ();
}

static int
smb_fchown (int fd, uid_t uid, gid_t gid)
{
  return unsupported ();
}

static int
smb_fchownat (int dirfd, const char *path, uid_t uid, gid_t gid, int flags)
{
  return unsupported ();
}

static int
smb_fchmodat (int dirfd, const char *path, mode_t mode, int flags)
{
  return unsupported ();
}

static ssize_t
smb_readlinkat (int dirfd, const char *path, char *buf, size_t size)
{
  errno = EINVAL;
  return -1;
}

static int
smb_symlinkat (const char *target, int newdirfd, const char *linkpath)
{
  return unsupported ();
}

static int
smb_mknodat (int dirfd, const char *path, mode_t mode, dev_t dev)
{
  return unsupported ();
}

static ssize_t
smb_flistxattr (int fd, char *list, size_t size)
{
  return unsupported ();
}

static ssize_t
smb_fgetxattr (int fd, const char *name, void *value, size_t size)
{
  return unsupported ();
}

static int
smb_fsetxattr (int fd, const char *name, const void *value, size_t size, int flags)
{
  return unsupported ();
}

/* A share is one tree: nothing is mounted inside it as far as a client sees. */
static int
smb_mount_root (int dirfd, const char *path)
{
  return 0;
}

/* The engine asks what the filesystem is to learn that each create and
 * rename is a round trip to another machine. */
static int
smb_fstatfs (int fd, struct statfs *sfs)
{
  if (handle_get (fd) == NULL)
    return -1;
  memset (sfs, 0, sizeof *sfs);
  sfs->f_type = SMB2_SUPER_MAGIC;
  sfs->f_bsize = 4096;
  sfs->f_namelen = 255;
  return 0;
}

static int
smb_fadvise (int fd, off_t offset, off_t len, int advice)
{
  return 0;
}

/* "smb://127.0.0.1:445 (libsmbclient 4.17.12, 8 connections)": the server
 * without the user, and how many connections the run had at most. The
 * dialect stays out: libsmbclient does not say which one it negotiated. */
static char *
smb_describe (const char *location)
{
  g_autoptr(GUri) uri = g_uri_parse (location, G_URI_FLAGS_NON_DNS, NULL);
  g_autofree char *server = NULL;
  int most = atomic_load (&most_connections);

  if (uri == NULL || g_uri_get_host (uri) == NULL)
    server = g_strdup ("smb://?");
  else if (g_uri_get_port (uri) > 0)
    server = g_strdup_printf ("smb://%s:%d", g_uri_get_host (uri), g_uri_get_port (uri));
  else
    server = g_strdup_printf ("smb://%s", g_uri_get_host (uri));
  return g_strdup_printf ("%s (libsmbclient %s, %d %s)", server,
                          library_loaded ? lib.smbc_version () : "not loaded", most,
                          most == 1 ? "connection" : "connections");
}

/* A missing share reads as ENOENT, like a missing folder in it: ask for
 * smb://host/share itself, so the message can name what is really missing. */
static char *
smb_explain_missing (const char *location)
{
  g_autoptr(GUri) uri = g_uri_parse (location, G_URI_FLAGS_NON_DNS, NULL);
  g_autofree char *root = NULL;
  g_autofree char *share = NULL;
  const char *start, *end;
  struct stat st;

  if (uri == NULL || g_uri_get_host (uri) == NULL)
    return NULL;
  /* The share is the first segment after the authority, as written. */
  start = strchr (location + strlen ("smb://"), '/');
  if (start == NULL)
    return NULL;
  while (*start == '/')
    start++;
  end = strchrnul (start, '/');
  if (end == start)
    return NULL;
  root = g_strndup (location, (gsize) (end - location));
  if (smb_fstatat (CS_IO_AT_LOCATION, root, &st, 0) == 0 || errno != ENOENT)
    return NULL;
  share = g_uri_unescape_segment (start, end, NULL);
  return g_strdup_printf (_("The server %s has no share named “%s”"), g_uri_get_host (uri),
                          share != NULL ? share : root);
}

/* ---- A partial's lock ----------------------------------------------------
 *
 * libsmbclient 4.17's public API has no lock: no smbc_lock or byte-range
 * call, and smbc_open takes no share mode, so an open file cannot be held
 * against another client. The lock is therefore a file, @name, created with
 * O_EXCL (an exclusive create on the server: of two clients, one wins),
 * holding who took it: host name, boot id, PID namespace, PID and the
 * process's start time. unlock removes it. A holder killed with SIGKILL
 * cannot, so a lock is stale, and taken over, when it names this host,
 * boot and PID namespace and no process of that PID and start time runs.
 * A lock of another host, boot or namespace is never judged from here: it
 * is held, and that file is copied whole, until its own host's next run
 * takes it over, or someone removes it. One whose text is not a lock's
 * (its holder was killed between the create and the write) is held for
 * STALE_UNREADABLE_SEC after its last change, then stale. Taking a stale
 * lock over (read, judge, remove) is serialised among this host's
 * processes by flock(2) on a file in the user's runtime folder, so two of
 * them cannot both remove it and each create their own. */

#define LOCK_MAGIC "copyscope-lock 1\n"
#define STALE_UNREADABLE_SEC (10 * 60)

static char *
read_small (const char *path)
{
  char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return g_strdup ("");
  g_strstrip (text);
  return text;
}

/* The field after the command's closing parenthesis: field 22, starttime. */
static char *
start_time_of (const char *pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%s/stat", pid);
  g_autofree char *stat = NULL;
  g_auto(GStrv) fields = NULL;
  const char *after;

  if (!g_file_get_contents (path, &stat, NULL, NULL) || (after = strrchr (stat, ')')) == NULL)
    return NULL;
  fields = g_strsplit (after + 2, " ", 0);
  return g_strv_length (fields) > 19 ? g_strdup (fields[19]) : NULL;
}

/* "host H\nboot B\npidns N\n": the part of a holder's identity that says
 * whether this process can judge it. */
static char *
lock_place (void)
{
  g_autofree char *boot = read_small ("/proc/sys/kernel/random/boot_id");
  char ns[64] = "";
  ssize_t n = readlink ("/proc/self/ns/pid", ns, sizeof ns - 1);

  ns[MAX (n, 0)] = '\0';
  return g_strdup_printf ("host %s\nboot %s\npidns %s\n", g_get_host_name (), boot, ns);
}

static char *
lock_text (void)
{
  g_autofree char *place = lock_place ();
  g_autofree char *pid = g_strdup_printf ("%d", (int) getpid ());
  g_autofree char *start = start_time_of (pid);

  return g_strdup_printf (LOCK_MAGIC "%spid %s\nstart %s\n", place, pid, start != NULL ? start : "?");
}

/* Whether the lock @text, last changed at @mtime, is stale (see above). */
static gboolean
lock_is_stale (const char *text,
               time_t      mtime)
{
  g_autofree char *place = lock_place ();
  g_auto(GStrv) lines = NULL;
  g_autofree char *start = NULL;
  const char *pid = NULL, *their_start = NULL;

  if (!g_str_has_prefix (text, LOCK_MAGIC) || !g_str_has_prefix (text + strlen (LOCK_MAGIC), place))
    {
      /* Another place's lock, or no lock's text at all. */
      if (g_str_has_prefix (text, LOCK_MAGIC) && strstr (text, "\nstart ") != NULL)
        return FALSE;
      return time (NULL) - mtime > STALE_UNREADABLE_SEC;
    }
  lines = g_strsplit (text + strlen (LOCK_MAGIC) + strlen (place), "\n", 0);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "pid "))
      pid = lines[i] + 4;
    else if (g_str_has_prefix (lines[i], "start "))
      their_start = lines[i] + 6;
  if (pid == NULL || their_start == NULL || *pid == '\0' || strspn (pid, "0123456789") != strlen (pid))
    return time (NULL) - mtime > STALE_UNREADABLE_SEC;
  start = start_time_of (pid);
  return start == NULL || g_strcmp0 (start, their_start) != 0;
}

/* The lock's text and time, or FALSE with errno (ENOENT: gone meanwhile). */
static gboolean
read_lock (int         dirfd,
           const char *name,
           char      **out_text,
           time_t     *out_mtime)
{
  char buf[1024];
  struct stat st;
  ssize_t n;
  int fd = smb_openat (dirfd, name, O_RDONLY, 0), code;

  if (fd < 0)
    return FALSE;
  n = smb_pread (fd, buf, sizeof buf - 1, 0);
  code = errno;
  if (n >= 0 && smb_fstat (fd, &st) != 0)
    {
      code = errno;
      n = -1;
    }
  smb_close (fd);
  if (n < 0)
    {
      errno = code;
      return FALSE;
    }
  buf[n] = '\0';
  *out_text = g_strdup (buf);
  *out_mtime = st.st_mtime;
  return TRUE;
}

/* Removes the lock if it still says @stale_text; with the host's takeover
 * lock held. */
static void
take_over (int         dirfd,
           const char *name,
           const char *stale_text)
{
  g_autofree char *path = g_build_filename (g_get_user_runtime_dir (), "copyscope-smb-lock-takeover", NULL);
  g_autofree char *text = NULL;
  time_t mtime;
  int local = open (path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

  if (local < 0 || flock (local, LOCK_EX) != 0)
    {
      if (local >= 0)
        close (local);
      return;
    }
  if (read_lock (dirfd, name, &text, &mtime) && strcmp (text, stale_text) == 0)
    smb_unlinkat (dirfd, name, 0);
  close (local);
}

static int
smb_lock (int fd, int dirfd, const char *name)
{
  g_autofree char *mine = lock_text ();

  /* Twice: a stale lock taken over leaves the name free for one create. */
  for (int attempt = 0; attempt < 2; attempt++)
    {
      g_autofree char *text = NULL;
      time_t mtime;
      int lock_fd = smb_openat (dirfd, name, O_WRONLY | O_CREAT | O_EXCL, 0600);

      if (lock_fd >= 0)
        {
          ssize_t n = smb_pwrite (lock_fd, mine, strlen (mine), 0);
          int code = errno;

          if (smb_close (lock_fd) != 0 && n == (ssize_t) strlen (mine))
            {
              code = errno;
              n = -1;
            }
          if (n == (ssize_t) strlen (mine))
            return 1;
          smb_unlinkat (dirfd, name, 0);
          errno = code != 0 ? code : EIO;
          return -1;
        }
      if (errno != EEXIST)
        return -1;
      if (!read_lock (dirfd, name, &text, &mtime))
        {
          if (errno == ENOENT)
            continue;
          return -1;
        }
      if (!lock_is_stale (text, mtime))
        break;
      take_over (dirfd, name, text);
    }
  errno = EBUSY;
  return -1;
}

static int
smb_unlock (int fd, int dirfd, const char *name)
{
  return smb_unlinkat (dirfd, name, 0);
}

const CsIoTable _cs_io_smb = {
  .name = "smb",
  .cannot_flush = TRUE,
  .scheme = "smb://",
  .openat = smb_openat,
  .close = smb_close,
  .pread = smb_pread,
  .pwrite = smb_pwrite,
  .copy_file_range = smb_copy_file_range,
  .clone = smb_clone,
  .fsync = smb_fsync,
  .fstat = smb_fstat,
  .fstat_mode = smb_fstat_mode,
  .statx = smb_statx,
  .fstatat = smb_fstatat,
  .mkdirat = smb_mkdirat,
  .renameat2 = smb_renameat2,
  .linkat = smb_linkat,
  .unlinkat = smb_unlinkat,
  .fchmod = smb_fchmod,
  .fchown = smb_fchown,
  .futimens = smb_futimens,
  .utimensat = smb_utimensat,
  .fchownat = smb_fchownat,
  .ftruncate = smb_ftruncate,
  .lseek = smb_lseek,
  .readlinkat = smb_readlinkat,
  .symlinkat = smb_symlinkat,
  .mknodat = smb_mknodat,
  .fchmodat = smb_fchmodat,
  .getdents = smb_getdents,
  .syncfs = smb_syncfs,
  .flistxattr = smb_flistxattr,
  .fgetxattr = smb_fgetxattr,
  .fsetxattr = smb_fsetxattr,
  .mount_root = smb_mount_root,
  .explain_missing = smb_explain_missing,
  .fstatfs = smb_fstatfs,
  .fadvise = smb_fadvise,
  .lock = smb_lock,
  .unlock = smb_unlock,
  .describe = smb_describe,
};

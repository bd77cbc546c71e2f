/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-io-smb"

#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "cs-io-smb-conn-private.h"
#include "cs-io-table-private.h"
#include "cs-smb-credentials-private.h"
#include "cs-tsan-private.h"

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
CsIoSmbLib _cs_io_smb_lib;

static gboolean
load (void       *library,
      const char *name,
      void      **symbol)
{
  *symbol = dlsym (library, name);
  return *symbol != NULL;
}

static gboolean library_loaded;

/* libsmbclient's own messages, at its level 0 on standard output unless
 * taken: "convert_string_talloc: out of memory!" from a set-up that failed
 * beside another and is then made again alone (connect_together below), in
 * the middle of a CLI's output and of its --json on standard output. What
 * fails reaches the user by its errno; the library's words are the debug
 * log's (G_MESSAGES_DEBUG=cs-io-smb). */
static void
library_says (void       *data,
              int         level,
              const char *message)
{
  g_autofree char *line = g_strchomp (g_strdup (message));

  g_debug ("libsmbclient (level %d): %s", level, line);
}

static gboolean
load_library (void)
{
  void *library = dlopen ("libsmbclient.so.0", RTLD_NOW | RTLD_LOCAL);

  if (library == NULL
      || !load (library, "smbc_free_context", (void **) &_cs_io_smb_lib.smbc_free_context)
      || !load (library, "smbc_getFunctionClose", (void **) &_cs_io_smb_lib.smbc_getFunctionClose)
      || !load (library, "smbc_getFunctionClosedir", (void **) &_cs_io_smb_lib.smbc_getFunctionClosedir)
      || !load (library, "smbc_getFunctionFstat", (void **) &_cs_io_smb_lib.smbc_getFunctionFstat)
      || !load (library, "smbc_getFunctionFtruncate", (void **) &_cs_io_smb_lib.smbc_getFunctionFtruncate)
      || !load (library, "smbc_getFunctionLseek", (void **) &_cs_io_smb_lib.smbc_getFunctionLseek)
      || !load (library, "smbc_getFunctionMkdir", (void **) &_cs_io_smb_lib.smbc_getFunctionMkdir)
      || !load (library, "smbc_getFunctionOpen", (void **) &_cs_io_smb_lib.smbc_getFunctionOpen)
      || !load (library, "smbc_getFunctionOpendir", (void **) &_cs_io_smb_lib.smbc_getFunctionOpendir)
      || !load (library, "smbc_getFunctionRead", (void **) &_cs_io_smb_lib.smbc_getFunctionRead)
      || !load (library, "smbc_getFunctionReaddir", (void **) &_cs_io_smb_lib.smbc_getFunctionReaddir)
      || !load (library, "smbc_getFunctionRename", (void **) &_cs_io_smb_lib.smbc_getFunctionRename)
      || !load (library, "smbc_getFunctionRmdir", (void **) &_cs_io_smb_lib.smbc_getFunctionRmdir)
      || !load (library, "smbc_getFunctionSplice", (void **) &_cs_io_smb_lib.smbc_getFunctionSplice)
      || !load (library, "smbc_getFunctionStat", (void **) &_cs_io_smb_lib.smbc_getFunctionStat)
      || !load (library, "smbc_getFunctionUnlink", (void **) &_cs_io_smb_lib.smbc_getFunctionUnlink)
      || !load (library, "smbc_getFunctionUtimes", (void **) &_cs_io_smb_lib.smbc_getFunctionUtimes)
      || !load (library, "smbc_getFunctionWrite", (void **) &_cs_io_smb_lib.smbc_getFunctionWrite)
      || !load (library, "smbc_init_context", (void **) &_cs_io_smb_lib.smbc_init_context)
      || !load (library, "smbc_new_context", (void **) &_cs_io_smb_lib.smbc_new_context)
      || !load (library, "smbc_setFunctionAuthDataWithContext", (void **) &_cs_io_smb_lib.smbc_setFunctionAuthDataWithContext)
      || !load (library, "smbc_setOptionFallbackAfterKerberos", (void **) &_cs_io_smb_lib.smbc_setOptionFallbackAfterKerberos)
      || !load (library, "smbc_setOptionNoAutoAnonymousLogin", (void **) &_cs_io_smb_lib.smbc_setOptionNoAutoAnonymousLogin)
      || !load (library, "smbc_setOptionUseKerberos", (void **) &_cs_io_smb_lib.smbc_setOptionUseKerberos)
      || !load (library, "smbc_setUser", (void **) &_cs_io_smb_lib.smbc_setUser)
      || !load (library, "smbc_version", (void **) &_cs_io_smb_lib.smbc_version))
    {
      g_message ("smb:// locations need libsmbclient: %s", library == NULL ? dlerror () : "a function is missing");
      return FALSE;
    }
  /* Optional: without it a rerun asks about each file by name. */
  load (library, "smbc_getFunctionReaddirPlus2", (void **) &_cs_io_smb_lib.smbc_getFunctionReaddirPlus2);
  load (library, "smbc_getFunctionReaddirPlus", (void **) &_cs_io_smb_lib.smbc_getFunctionReaddirPlus);
  load (library, "smbc_setLogCallback", (void **) &_cs_io_smb_lib.smbc_setLogCallback);
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

  /* Released for the threads g_once lets on, which TSan cannot see. */
  if (!(library_loaded = load_library ()))
    {
      CS_TSAN_RELEASE (&library_loaded);
      return NULL;
    }
  /* Loaded with libsmbclient, which needs it. */
  util = dlopen ("libsamba-util.so.0", RTLD_NOW | RTLD_NOLOAD);
  if (util != NULL)
    set_functions = dlsym (util, "smb_thread_set_functions");

  if (set_functions == NULL || set_functions (&thread_functions) != 0)
    {
      g_warning ("libsmbclient has no thread support here: one SMB request at a time");
      one_call_at_a_time = TRUE;
    }
  CS_TSAN_RELEASE (&library_loaded);
  return NULL;
}

/* Held while a context is made or freed, and while a connection is set up
 * alone. Making a context sets the library's log level (smbc_new_context
 * calls smbc_setDebug): calls on other connections read it meanwhile, as
 * they always did, and so do connections being set up together. */
static GMutex contexts_lock;

/* Held to write while a connection is set up alone, to read while
 * connections to a share one already reached are set up together (see
 * _cs_io_smb_conn_for). */
static pthread_rwlock_t setup_lock = PTHREAD_RWLOCK_INITIALIZER;

/* A pthread lock, which ThreadSanitizer sees, as it does not GLib's GRWLock. */
static void
setup_write_lock (void)
{
  _cs_mutex_lock (&contexts_lock);
  pthread_rwlock_wrlock (&setup_lock);
}

static void
setup_write_unlock (void)
{
  pthread_rwlock_unlock (&setup_lock);
  _cs_mutex_unlock (&contexts_lock);
}
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

void
_cs_io_smb_conn_unref (gpointer data)
{
  CsSmbConn *conn = data;

  if (conn == NULL || !g_atomic_int_dec_and_test (&conn->refs))
    return;
  _cs_mutex_lock (&contexts_lock);
  _cs_io_smb_lib.smbc_free_context (conn->ctx, 1);
  _cs_mutex_unlock (&contexts_lock);
  g_mutex_clear (&conn->lock);
  g_clear_pointer (&conn->shares, g_ptr_array_unref);
  atomic_fetch_sub (&n_connections, 1);
  g_free (conn);
}

static GPrivate thread_conn = G_PRIVATE_INIT (_cs_io_smb_conn_unref);

static CsSmbConn *
conn_of_thread (void)
{
  static GOnce threads_once = G_ONCE_INIT;
  CsSmbConn *conn = g_private_get (&thread_conn);
  SMBCCTX *ctx;

  if (conn != NULL)
    return conn;

  g_once (&threads_once, give_threads, NULL);
  CS_TSAN_ACQUIRE (&library_loaded);
  if (!library_loaded)
    {
      errno = ENOPROTOOPT;
      return NULL;
    }

  _cs_mutex_lock (&contexts_lock);
  ctx = _cs_io_smb_lib.smbc_new_context ();
  if (ctx != NULL)
    {
      g_autofree char *user = _cs_smb_credentials_dup_default_user ();

      _cs_io_smb_lib.smbc_setFunctionAuthDataWithContext (ctx, auth);
      if (_cs_io_smb_lib.smbc_setLogCallback != NULL)
        _cs_io_smb_lib.smbc_setLogCallback (ctx, NULL, library_says);
      _cs_io_smb_lib.smbc_setOptionUseKerberos (ctx, FALSE);
      _cs_io_smb_lib.smbc_setOptionFallbackAfterKerberos (ctx, TRUE);
      _cs_io_smb_lib.smbc_setOptionNoAutoAnonymousLogin (ctx, TRUE);
      if (user != NULL)
        _cs_io_smb_lib.smbc_setUser (ctx, user);
      if (_cs_io_smb_lib.smbc_init_context (ctx) == NULL)
        {
          _cs_io_smb_lib.smbc_free_context (ctx, 0);
          ctx = NULL;
        }
    }
  _cs_mutex_unlock (&contexts_lock);
  if (ctx == NULL)
    {
      errno = ENOMEM;
      return NULL;
    }

  conn = g_new0 (CsSmbConn, 1);
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

int
_cs_io_smb_handle_add (CsSmbHandle *h)
{
  int n = -1;

  _cs_mutex_lock (&handles_lock);
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
  _cs_mutex_unlock (&handles_lock);
  return n;
}

CsSmbHandle *
_cs_io_smb_handle_get (int n)
{
  CsSmbHandle *h = NULL;

  _cs_mutex_lock (&handles_lock);
  if (handles != NULL && n >= 0 && (guint) n < handles->len)
    h = g_ptr_array_index (handles, n);
  _cs_mutex_unlock (&handles_lock);
  if (h == NULL)
    errno = EBADF;
  return h;
}

CsSmbHandle *
_cs_io_smb_handle_take (int n)
{
  CsSmbHandle *h = _cs_io_smb_handle_get (n);

  if (h != NULL)
    {
      _cs_mutex_lock (&handles_lock);
      handles->pdata[n] = NULL;
      _cs_mutex_unlock (&handles_lock);
    }
  return h;
}

/* The URL of @name in the folder @dirfd, or @name itself as a location.
 * Each part of a relative name is escaped: libsmbclient decodes %XX. */
char *
_cs_io_smb_url_at (int         dirfd,
                   const char *name)
{
  g_autoptr(GString) url = NULL;
  g_auto(GStrv) parts = NULL;
  CsSmbHandle *dir;

  if (dirfd == CS_IO_AT_LOCATION)
    return g_strdup (name);
  if ((dir = _cs_io_smb_handle_get (dirfd)) == NULL)
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

/* A context's first call connects and logs in, and two threads connecting
 * at once sometimes fail where one at a time never does: libsmbclient 4.17
 * shares state between contexts while it sets a connection up (its
 * character-set converters among them: "convert_string_talloc: out of
 * memory!", no NTLMSSP negotiate made). Measured with 32 threads
 * connecting again and again to the lab Samba: 6 set-ups in 9,600 failed
 * so; in the smb-native test's reruns it was an ECONNABORTED now and then.
 * One at a time, sixteen set-ups behind 1 ms per request took 0.45 s, all
 * together 0.13 s. So the first connection to a share is set up alone;
 * once one reached it, the others are set up together by a stat of the
 * share's root (one request, harmless to repeat), and one that fails so is
 * set up again alone. A call on a connection not set up so (a share that
 * refused, a location naming no share) connects alone itself. */

/* "smb://[user@]host[:port]/share/" of @url, or NULL where it names no share. */
static char *
share_of (const char *url)
{
  const char *host = strstr (url, "://");
  const char *slash, *end;

  if (host == NULL || (slash = strchr (host + 3, '/')) == NULL || slash[1] == '\0' || slash[1] == '/')
    return NULL;
  end = strchr (slash + 1, '/');
  if (end == NULL)
    return g_strconcat (url, "/", NULL);
  return g_strndup (url, (gsize) (end - url) + 1);
}

typedef enum { SHARE_UNTRIED, SHARE_REACHED, SHARE_REFUSED } ShareState;

typedef struct {
  ShareState state;
  gint64     since;       /* monotonic µs */
  guint      generation;  /* of the logins, when it was set */
} Share;

/* A share that refused a connection is tried first again once a login
 * changed (the window asked for a password and the user typed it), or
 * after this long. Until then its connections are set up one at a time,
 * as each call connects. */
#define REFUSED_FOR_US (10 * G_USEC_PER_SEC)

static GMutex shares_lock;
static GHashTable *shares;   /* share URL → Share, the process's first connections */

static ShareState
share_state (const char *share)
{
  ShareState state = SHARE_UNTRIED;
  Share *s;

  _cs_mutex_lock (&shares_lock);
  if (shares != NULL && (s = g_hash_table_lookup (shares, share)) != NULL)
    {
      state = s->state;
      if (state == SHARE_REFUSED
          && (g_get_monotonic_time () - s->since >= REFUSED_FOR_US
              || s->generation != _cs_smb_credentials_generation ()))
        state = SHARE_UNTRIED;
    }
  _cs_mutex_unlock (&shares_lock);
  return state;
}

static void
share_set_state (const char *share,
                 ShareState  state)
{
  Share *s = g_new (Share, 1);

  s->state = state;
  s->since = g_get_monotonic_time ();
  s->generation = _cs_smb_credentials_generation ();
  _cs_mutex_lock (&shares_lock);
  if (shares == NULL)
    shares = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_hash_table_insert (shares, g_strdup (share), s);
  _cs_mutex_unlock (&shares_lock);
}

/* Whether @conn was set up for @share: a copy from one share to another
 * connects each thread's context to both. */
static gboolean
set_up_for (CsSmbConn  *conn,
            const char *share)
{
  gboolean found = FALSE;

  _cs_mutex_lock (&conn->lock);
  for (guint i = 0; conn->shares != NULL && i < conn->shares->len && !found; i++)
    found = strcmp (g_ptr_array_index (conn->shares, i), share) == 0;
  _cs_mutex_unlock (&conn->lock);
  return found;
}

/* Connects @conn by a stat of @share's root: alone, or beside other
 * connections to a share one reached before. */
static gboolean
connect_by_stat (CsSmbConn  *conn,
                 const char *share,
                 gboolean    alone)
{
  struct stat st;
  int r;

  if (one_call_at_a_time)
    _cs_mutex_lock (&one_call_lock);
  _cs_mutex_lock (&conn->lock);
  if (alone)
    setup_write_lock ();
  else
    pthread_rwlock_rdlock (&setup_lock);
  r = _cs_io_smb_lib.smbc_getFunctionStat (conn->ctx) (conn->ctx, share, &st);
  if (r == 0)
    {
      conn->connected = TRUE;
      if (conn->shares == NULL)
        conn->shares = g_ptr_array_new_with_free_func (g_free);
      g_ptr_array_add (conn->shares, g_strdup (share));
    }
  if (alone)
    setup_write_unlock ();
  else
    pthread_rwlock_unlock (&setup_lock);
  _cs_mutex_unlock (&conn->lock);
  if (one_call_at_a_time)
    _cs_mutex_unlock (&one_call_lock);
  return r == 0;
}

/* Beside the other connections to @share; one that fails so connects
 * again alone. */
static void
connect_together (CsSmbConn  *conn,
                  const char *share)
{
  if (connect_by_stat (conn, share, FALSE))
    return;
  g_debug ("a connection set up beside others failed (%s): connecting again alone",
           g_strerror (errno));
  connect_by_stat (conn, share, TRUE);
}

/* The first connection to @share, alone; connections that waited for it
 * meanwhile connect beside each other once it reached the share. */
static void
connect_first (CsSmbConn  *conn,
               const char *share)
{
  static GMutex first_lock;
  ShareState state;

  _cs_mutex_lock (&first_lock);
  if ((state = share_state (share)) == SHARE_UNTRIED)
    {
      state = connect_by_stat (conn, share, TRUE) ? SHARE_REACHED : SHARE_REFUSED;
      share_set_state (share, state);
    }
  _cs_mutex_unlock (&first_lock);
  if (state == SHARE_REACHED && !set_up_for (conn, share))
    connect_together (conn, share);
}

CsSmbConn *
_cs_io_smb_conn_for (const char *url)
{
  CsSmbConn *conn = conn_of_thread ();
  g_autofree char *share = NULL;
  int saved_errno = errno;

  if (conn == NULL)
    return NULL;
  /* A location naming no share: its call connects, alone if it is the
   * connection's first. */
  if ((share = share_of (url)) == NULL || set_up_for (conn, share))
    return conn;
  switch (share_state (share))
    {
    case SHARE_REACHED:
      connect_together (conn, share);
      break;
    case SHARE_UNTRIED:
      connect_first (conn, share);
      break;
    case SHARE_REFUSED:
    default:
      /* The call itself connects, alone: its own error is the one to
       * report, and a server that refused a login is not asked again
       * before each call. */
      break;
    }
  errno = saved_errno;
  return conn;
}

void
_cs_io_smb_conn_lock (CsSmbConn *conn)
{
  if (one_call_at_a_time)
    _cs_mutex_lock (&one_call_lock);
  _cs_mutex_lock (&conn->lock);
  if (!conn->connected)
    {
      setup_write_lock ();
      conn->connecting = TRUE;
    }
}

gboolean
_cs_io_smb_conn_connected (CsSmbConn *conn)
{
  gboolean connected;

  _cs_mutex_lock (&conn->lock);
  connected = conn->connected;
  _cs_mutex_unlock (&conn->lock);
  return connected;
}

void
_cs_io_smb_conn_unlock (CsSmbConn *conn)
{
  if (conn->connecting)
    {
      conn->connecting = FALSE;
      conn->connected = TRUE;
      setup_write_unlock ();
    }
  _cs_mutex_unlock (&conn->lock);
  if (one_call_at_a_time)
    _cs_mutex_unlock (&one_call_lock);
}

/* SMB reports no blocks; a file is never sparse here, so the copy never
 * looks for holes the server would not keep anyway. Nor owners: libsmbclient
 * gives every file the caller's uid, so on a share what a killed run of ours
 * left is told by its name and its run being gone, not by its owner. */
void
_cs_io_smb_fix_stat (struct stat *st)
{
  st->st_blocks = (st->st_size + 511) / 512;
  if (st->st_blksize == 0)
    st->st_blksize = 64 * 1024;
}

/* "smb://127.0.0.1:445 (libsmbclient 4.17.12, 8 connections)": the server
 * without the user, and how many connections the run had at most. The
 * dialect stays out: libsmbclient does not say which one it negotiated. */
char *
_cs_io_smb_describe (const char *location)
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
                          library_loaded ? _cs_io_smb_lib.smbc_version () : "not loaded", most,
                          most == 1 ? "connection" : "connections");
}

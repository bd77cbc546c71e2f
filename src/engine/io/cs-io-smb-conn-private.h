/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * The SMB backend's connections: libsmbclient, opened on the first smb://
 * location; a context (a connection) per thread; the handles the table hands
 * out, each keeping the context it was opened on; and the URL of a name in a
 * folder handle. The table's calls (cs-io-smb.c) run on these.
 */

#include <glib.h>
#include <libsmbclient.h>
#include <sys/stat.h>

G_BEGIN_DECLS

/* libsmbclient's functions, looked up when it is opened (dlopen). */
typedef struct {
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
  /* NULL before libsmbclient 4.12: folders are then listed by name only. */
  __typeof__ (smbc_getFunctionReaddirPlus2) *smbc_getFunctionReaddirPlus2;
  /* Optional as well: without it each entry comes from readdirplus2. */
  __typeof__ (smbc_getFunctionReaddirPlus) *smbc_getFunctionReaddirPlus;
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
  /* NULL before libsmbclient 4.4: its messages then go to standard output. */
  __typeof__ (smbc_setLogCallback) *smbc_setLogCallback;
  __typeof__ (smbc_setUser) *smbc_setUser;
  __typeof__ (smbc_version) *smbc_version;
} CsIoSmbLib;

extern CsIoSmbLib _cs_io_smb_lib;

typedef struct {
  SMBCCTX *ctx;
  GMutex   lock;
  gint     refs;
  gboolean connected;     /* a first call went through */
  gboolean connecting;    /* the first call holds the lock set-ups take alone */
  GPtrArray *shares;      /* the shares it was set up for (by a stat of the root) */
} CsSmbConn;

typedef struct {
  CsSmbConn           *conn;
  char                *url;
  SMBCFILE            *file;      /* a file, or a folder being listed */
  gboolean             folder;
  off_t                pos;       /* where the server's file offset is */
  struct smbc_dirent  *pending;   /* listed, did not fit the last buffer */
  gboolean             written;
  gboolean             has_times; /* times to set once the file is closed */
  struct timespec      times[2];
} CsSmbHandle;

/* This thread's connection, connected where it can be to the share of
 * @url (see cs-io-smb-conn.c), or NULL with errno. */
CsSmbConn   *_cs_io_smb_conn_for      (const char  *url);
void         _cs_io_smb_conn_unref    (gpointer     conn);
/* Holds @conn for one call; the first call on it, which connects, is taken
 * one at a time (see cs-io-smb-conn.c). */
void         _cs_io_smb_conn_lock     (CsSmbConn   *conn);
void         _cs_io_smb_conn_unlock   (CsSmbConn   *conn);
/* The table's handles: a number for @h, @n's handle, and @n's taken back. */
int          _cs_io_smb_handle_add    (CsSmbHandle *h);
CsSmbHandle *_cs_io_smb_handle_get    (int          n);
CsSmbHandle *_cs_io_smb_handle_take   (int          n);
/* The URL of @name in the folder @dirfd, or @name itself as a location. */
char        *_cs_io_smb_url_at        (int          dirfd,
                                       const char  *name);
/* What a stat from the server lacks (blocks, a block size), filled in. */
void         _cs_io_smb_fix_stat      (struct stat *st);
/* How many connections to servers are open: one per thread that used one. */
guint        _cs_io_smb_connections   (void);
/* The table's describe: the server, the library, the most connections. */
char        *_cs_io_smb_describe      (const char  *location);

/* Whether @conn has made its first call, which connects under a lock all
 * first calls take (_cs_io_smb_conn_lock). */
gboolean     _cs_io_smb_conn_connected (CsSmbConn *conn);

/* Runs the statement after it with @conn's lock held. */
#define WITH_CONN(conn) for (gboolean _once = (_cs_io_smb_conn_lock (conn), TRUE); _once; \
                             _once = FALSE, _cs_io_smb_conn_unlock (conn))

/* Runs @call on this thread's context with @url made from @dirfd and @name. */
#define BY_NAME(dirfd, name, call) ({                                      \
    g_autofree char *url = _cs_io_smb_url_at (dirfd, name);                \
    CsSmbConn *conn = url != NULL ? _cs_io_smb_conn_for (url) : NULL;      \
    int _r = -1;                                                           \
    if (conn != NULL)                                                      \
      WITH_CONN (conn)                                                     \
        _r = (call);                                                       \
    _r;                                                                    \
  })

G_END_DECLS

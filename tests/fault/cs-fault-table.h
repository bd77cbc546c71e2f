/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * A programmable CsIoTable for in-process fault injection. Rules name an
 * operation and the file it concerns — by the source file's base name, which
 * also covers the temporary written for it — and say which matching call to
 * hit (the Nth), how many times, and how: an errno, a short count, EINTR, a 0
 * return, or a hook that runs just before the real call.
 */

#include <glib.h>

#include "cs-io-private.h"

G_BEGIN_DECLS

typedef enum {
  CS_FAULT_OPEN,          /* openat without O_CREAT */
  CS_FAULT_CREATE,        /* openat with O_CREAT: the temporaries */
  CS_FAULT_READ,          /* pread */
  CS_FAULT_WRITE,         /* pwrite */
  CS_FAULT_COPY_RANGE,    /* copy_file_range */
  CS_FAULT_CLONE,         /* ioctl (FICLONE) */
  CS_FAULT_FSYNC,
  CS_FAULT_FSTAT,
  CS_FAULT_RENAME,        /* renameat2, any flags */
  CS_FAULT_RENAME_NOREPLACE,
  CS_FAULT_RENAME_REPLACE,  /* renameat2 without RENAME_NOREPLACE: may replace the name */
  CS_FAULT_LINK,
  CS_FAULT_CHMOD,         /* fchmod of a temporary */
  CS_FAULT_SETXATTR,      /* fsetxattr of a temporary */
  CS_FAULT_SYMLINK,       /* symlinkat: the links' temporaries */
  CS_FAULT_CLOSE_STAMP,   /* a close of a created file stamps the time of the close
                           * on it, as Samba behind GVfs does (an errno rule only:
                           * the close itself succeeds) */
  CS_FAULT_ANY_DEST,      /* every call on a descriptor or path in the destination */
  CS_FAULT_STAT,          /* fstatat of a name outside the destination (the source) */
  CS_FAULT_STAT_DEST,     /* fstatat of a name in the destination */
  CS_FAULT_STATX_DEST,    /* statx of a name in the destination (a time read back) */
  CS_FAULT_N_OPS
} CsFaultOp;

typedef enum {
  CS_FAULT_ERRNO,         /* return -1 with the rule's errno */
  CS_FAULT_SHORT,         /* read or write at most a third of what was asked, at least 1 byte */
  CS_FAULT_EINTR,         /* return -1/EINTR */
  CS_FAULT_ZERO,          /* return 0 (copy_file_range: "nothing more") */
  CS_FAULT_HOOK,          /* call the hook, then the real call */
} CsFaultAction;

typedef void (*CsFaultHook) (const char *name, gpointer data);

typedef struct {
  CsFaultOp     op;
  const char   *name;     /* base name of the source file, or NULL for any */
  guint         nth;      /* the first matching call hit, from 1 */
  int           times;    /* how many calls from there; -1: every one */
  CsFaultAction action;
  int           error;
  CsFaultHook   hook;
  gpointer      hook_data;
} CsFaultRule;

/* Installs the table with no rules; @dest_root names the destination tree for
 * CS_FAULT_ANY_DEST. */
void   cs_fault_install     (const char        *dest_root);
void   cs_fault_add         (const CsFaultRule *rule);
void   cs_fault_remove      (void);
/* How many calls a rule hit (its index in the order of cs_fault_add). */
guint  cs_fault_hits        (guint              rule);
/* How many calls of @op were made for @name (NULL: any) since install. */
guint  cs_fault_calls       (CsFaultOp          op,
                             const char        *name);
/* Total faults injected by every table since the program started. */
guint  cs_fault_total       (void);

G_END_DECLS

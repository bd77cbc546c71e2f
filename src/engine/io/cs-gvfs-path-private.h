/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* An SMB share as GVfs mounted it, from the name of its folder on
 * gvfsd-fuse's mount: "smb-share:server=S,share=SH[,port=P][,user=U][,domain=D]". */
typedef struct {
  char  *server;
  char  *share;
  char  *user;      /* NULL: the mount names none */
  char  *domain;    /* NULL: the mount names none */
  guint  port;      /* 0: the default */
  char  *root_url;  /* smb://[domain;user@]server[:port]/share */
  char  *url;       /* root_url/sub/folder */
  char  *path;      /* sub/folder, unescaped; "" at the share's root */
} CsGvfsShare;

/* The share and folder @path names where it lies in an SMB share's folder on
 * a gvfsd-fuse mount, else NULL (a local path costs a string search). */
CsGvfsShare *_cs_gvfs_share_of_path (const char  *path);
/* The same read from @path's name alone, the mount not looked at (a unit
 * test's, and _cs_gvfs_share_of_path's first half): @out_mount gets the
 * folder that must be gvfsd-fuse's mount for @path to be in the share. */
CsGvfsShare *_cs_gvfs_share_parse_path (const char  *path,
                                        char       **out_mount);
/* The share an smb://[domain;user@]server[:port]/share/path URL names, its
 * url the URL as given; NULL for anything else. */
CsGvfsShare *_cs_gvfs_share_of_url  (const char  *url);
void         _cs_gvfs_share_free    (CsGvfsShare *share);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CsGvfsShare, _cs_gvfs_share_free)

G_END_DECLS

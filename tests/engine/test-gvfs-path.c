/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-gvfs-path"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "cs-gvfs-path-private.h"
#include "cs-test-tree.h"

/*
 * cs-gvfs-path.c alone: the SMB share and folder that a path on gvfsd-fuse's
 * mount names ($XDG_RUNTIME_DIR/gvfs/smb-share:server=…,share=…/folder), and
 * the one an smb:// URL names, each as the URL libsmbclient takes. That the
 * folder must really be on gvfsd-fuse's mount is checked here only the other
 * way (a local folder of such a name is a folder); the real mount is
 * tests/labnas/test-gvfs-native.sh's.
 */

#define GVFS "/run/user/1000/gvfs/"

typedef struct {
  const char *server;
  const char *share;
  const char *user;
  const char *domain;
  guint       port;
  const char *root_url;
  const char *url;
  const char *path;
} Expected;

static void
assert_share (const CsGvfsShare *share,
              const Expected    *e)
{
  g_assert_nonnull (share);
  g_assert_cmpstr (share->server, ==, e->server);
  g_assert_cmpstr (share->share, ==, e->share);
  g_assert_cmpstr (share->user, ==, e->user);
  g_assert_cmpstr (share->domain, ==, e->domain);
  g_assert_cmpuint (share->port, ==, e->port);
  g_assert_cmpstr (share->root_url, ==, e->root_url);
  g_assert_cmpstr (share->url, ==, e->url);
  g_assert_cmpstr (share->path, ==, e->path);
}

/* ---- Paths on gvfsd-fuse's mount ------------------------------------------ */

static void
test_path_parse (void)
{
  const struct {
    const char *path;
    Expected    e;
  } cases[] = {
    { GVFS "smb-share:server=nas,share=photos",
      { "nas", "photos", NULL, NULL, 0, "smb://nas/photos", "smb://nas/photos", "" } },
    { GVFS "smb-share:server=nas,share=photos/",
      { "nas", "photos", NULL, NULL, 0, "smb://nas/photos", "smb://nas/photos", "" } },
    { GVFS "smb-share:server=nas,share=photos/2024/trip//day 1/",
      { "nas", "photos", NULL, NULL, 0, "smb://nas/photos",
        "smb://nas/photos/2024/trip/day%201", "2024/trip/day 1" } },
    /* A user, then a domain and a port too: GVfs sorts the keys. */
    { GVFS "smb-share:server=nas,share=photos,user=anna/a",
      { "nas", "photos", "anna", NULL, 0, "smb://anna@nas/photos", "smb://anna@nas/photos/a", "a" } },
    { GVFS "smb-share:domain=WORK,port=4455,server=nas.local,share=my%20docs,user=j%20doe/x",
      { "nas.local", "my docs", "j doe", "WORK", 4455, "smb://WORK;j%20doe@nas.local:4455/my%20docs",
        "smb://WORK;j%20doe@nas.local:4455/my%20docs/x", "x" } },
    { GVFS "smb-share:port=65535,server=nas,share=s",
      { "nas", "s", NULL, NULL, 65535, "smb://nas:65535/s", "smb://nas:65535/s", "" } },
    /* GVfs escapes an IPv6 address's brackets and colons; the URL has them. */
    { GVFS "smb-share:server=%5Bfe80%3A%3A1%5D,share=s/a",
      { "[fe80::1]", "s", NULL, NULL, 0, "smb://[fe80::1]/s", "smb://[fe80::1]/s/a", "a" } },
    /* Names: UTF-8 stays, what a URL reserves is escaped, bytes that are not
     * UTF-8 are escaped one by one. */
    { GVFS "smb-share:server=nas,share=partag%C3%A9/été/a#b?c%d;e",
      { "nas", "partagé", NULL, NULL, 0, "smb://nas/partagé",
        "smb://nas/partagé/été/a%23b%3Fc%25d%3Be", "été/a#b?c%d;e" } },
    { GVFS "smb-share:server=nas,share=s/\xff\xfe/x",
      { "nas", "s", NULL, NULL, 0, "smb://nas/s", "smb://nas/s/%FF%FE/x", "\xff\xfe/x" } },
    /* "." and ".." are resolved before the share is read. */
    { GVFS "smb-share:server=nas,share=s/a/./b/../c",
      { "nas", "s", NULL, NULL, 0, "smb://nas/s", "smb://nas/s/a/c", "a/c" } },
    /* The first such folder is the mount; a folder of the share may have its name. */
    { GVFS "smb-share:server=nas,share=s/smb-share:server=other,share=t",
      { "nas", "s", NULL, NULL, 0, "smb://nas/s", "smb://nas/s/smb-share%3Aserver%3Dother%2Cshare%3Dt",
        "smb-share:server=other,share=t" } },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *mount = NULL;
      g_autoptr(CsGvfsShare) share = _cs_gvfs_share_parse_path (cases[i].path, &mount);

      assert_share (share, &cases[i].e);
      g_assert_cmpstr (mount, ==, GVFS);
    }
}

static void
test_path_parse_long (void)
{
  g_autofree char *share_name = g_strnfill (255, 's');
  g_autofree char *segment = g_strnfill (255, 'f');
  g_autoptr(GString) path = g_string_new (GVFS "smb-share:server=nas,share=");
  g_autoptr(GString) below = g_string_new (NULL);
  g_autoptr(CsGvfsShare) share = NULL;

  g_string_append (path, share_name);
  for (guint i = 0; i < 40; i++)
    {
      g_string_append_printf (path, "/%s", segment);
      g_string_append_printf (below, "%s%s", i > 0 ? "/" : "", segment);
    }
  share = _cs_gvfs_share_parse_path (path->str, NULL);
  g_assert_nonnull (share);
  g_assert_cmpstr (share->share, ==, share_name);
  g_assert_cmpstr (share->path, ==, below->str);
  g_assert_cmpuint (strlen (share->url), ==, strlen ("smb://nas/") + 255 + below->len + 1);
}

static void
test_path_parse_relative (void)
{
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *expected_mount = g_str_has_suffix (cwd, "/") ? g_strdup (cwd) : g_strconcat (cwd, "/", NULL);
  g_autofree char *mount = NULL;
  g_autoptr(CsGvfsShare) share = _cs_gvfs_share_parse_path ("smb-share:server=nas,share=s/a", &mount);

  g_assert_nonnull (share);
  g_assert_cmpstr (share->path, ==, "a");
  g_assert_cmpstr (mount, ==, expected_mount);
}

static void
test_path_refused (void)
{
  const char *paths[] = {
    "", "/", "//", "/home/anna/photos", "relative/folder",
    GVFS, GVFS "sftp:host=nas,user=anna/smb-share", GVFS "afp-volume:host=nas,volume=v",
    /* Only a whole folder name is a mount's. */
    GVFS "my-smb-share:server=nas,share=s", GVFS "xsmb-share:server=nas,share=s",
    /* Its keys: server and share needed, each once, known, not empty, unescaped. */
    GVFS "smb-share:", GVFS "smb-share:/a", GVFS "smb-share:server=nas",
    GVFS "smb-share:share=s", GVFS "smb-share:server=,share=s", GVFS "smb-share:server=nas,share=",
    GVFS "smb-share:server=nas,share", GVFS "smb-share:server=nas,,share=s",
    GVFS "smb-share:server=nas,server=other,share=s", GVFS "smb-share:server=nas,share=s,share=t",
    GVFS "smb-share:server=nas,share=s,user=a,user=b", GVFS "smb-share:domain=a,domain=b,server=nas,share=s",
    GVFS "smb-share:port=445,port=446,server=nas,share=s",
    GVFS "smb-share:prefix=%2Fsub,server=nas,share=s", GVFS "smb-share:server=nas,share=s,zzz=1",
    GVFS "smb-share:server=n%zzas,share=s", GVFS "smb-share:server=n%00as,share=s",
    GVFS "smb-share:server=nas,share=s%",
    /* A port is a number from 1 to 65535. */
    GVFS "smb-share:port=0,server=nas,share=s", GVFS "smb-share:port=65536,server=nas,share=s",
    GVFS "smb-share:port=445x,server=nas,share=s", GVFS "smb-share:port=-1,server=nas,share=s",
    GVFS "smb-share:port=99999999999999999999,server=nas,share=s",
    /* Resolved away: the share's folder is left. */
    GVFS "smb-share:server=nas,share=s/..",
  };

  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autofree char *mount = NULL;
      g_autoptr(CsGvfsShare) share = _cs_gvfs_share_parse_path (paths[i], &mount);

      if (share != NULL)
        g_error ("%s read as smb share %s", paths[i], share->root_url);
      g_assert_null (mount);
    }
}

/* A folder named like a share's mount anywhere but on gvfsd-fuse's mount is
 * an ordinary folder, and so is anything else. */
static void
test_path_not_on_mount (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *lookalike = g_build_filename (root, "smb-share:server=127.0.0.1,share=s", NULL);
  g_autofree char *inside = g_build_filename (lookalike, "folder", NULL);
  g_autoptr(CsGvfsShare) parsed = NULL;

  g_assert_cmpint (g_mkdir_with_parents (inside, 0755), ==, 0);
  /* Its name alone would read as a share... */
  parsed = _cs_gvfs_share_parse_path (inside, NULL);
  g_assert_nonnull (parsed);
  g_assert_cmpstr (parsed->path, ==, "folder");
  /* ...but it is not on gvfsd-fuse's mount. */
  g_assert_null (_cs_gvfs_share_of_path (lookalike));
  g_assert_null (_cs_gvfs_share_of_path (inside));
  g_assert_null (_cs_gvfs_share_of_path (GVFS "smb-share:server=nas,share=s/none"));
  /* /proc is a mount, but not gvfsd-fuse's. */
  g_assert_null (_cs_gvfs_share_of_path ("/proc/smb-share:server=nas,share=s/folder"));
  g_assert_null (_cs_gvfs_share_of_path (root));
  g_assert_null (_cs_gvfs_share_of_path ("/"));
  g_assert_null (_cs_gvfs_share_of_path (""));

  cs_test_tree_remove (root);
}

/* ---- smb:// URLs ---------------------------------------------------------------- */

static void
test_url (void)
{
  const struct {
    const char *url;
    Expected    e;
  } cases[] = {
    { "smb://nas/photos",
      { "nas", "photos", NULL, NULL, 0, "smb://nas/photos", NULL, "" } },
    { "smb://nas/photos/",
      { "nas", "photos", NULL, NULL, 0, "smb://nas/photos", NULL, "" } },
    { "smb://nas/photos/2024/trip/",
      { "nas", "photos", NULL, NULL, 0, "smb://nas/photos", NULL, "2024/trip" } },
    { "smb://nas//photos//2024/./trip",
      { "nas", "photos", NULL, NULL, 0, "smb://nas/photos", NULL, "2024/trip" } },
    /* A user, a domain and a port; a password stays out of all but the URL. */
    { "smb://anna@nas/photos/a",
      { "nas", "photos", "anna", NULL, 0, "smb://anna@nas/photos", NULL, "a" } },
    { "smb://WORK;anna@nas:4455/photos/my%20docs",
      { "nas", "photos", "anna", "WORK", 4455, "smb://WORK;anna@nas:4455/photos", NULL, "my docs" } },
    { "smb://WORK;anna:s3cret@nas/photos",
      { "nas", "photos", "anna", "WORK", 0, "smb://WORK;anna@nas/photos", NULL, "" } },
    { "smb://anna:p@ss@nas/photos",
      { "nas", "photos", "anna", NULL, 0, "smb://anna@nas/photos", NULL, "" } },
    { "smb://;anna@nas/s",
      { "nas", "s", "anna", NULL, 0, "smb://anna@nas/s", NULL, "" } },
    { "smb://@nas/s",
      { "nas", "s", NULL, NULL, 0, "smb://nas/s", NULL, "" } },
    { "smb://j%20doe@nas/s",
      { "nas", "s", "j doe", NULL, 0, "smb://j%20doe@nas/s", NULL, "" } },
    { "smb://nas:65535/s",
      { "nas", "s", NULL, NULL, 65535, "smb://nas:65535/s", NULL, "" } },
    { "smb://[fe80::1]/s",
      { "[fe80::1]", "s", NULL, NULL, 0, "smb://[fe80::1]/s", NULL, "" } },
    { "smb://[fe80::1]:445/s/a",
      { "[fe80::1]", "s", NULL, NULL, 445, "smb://[fe80::1]:445/s", NULL, "a" } },
    /* Names: escapes undone; a "%" that starts none, and a space, as typed. */
    { "smb://nas/s/%41%C3%A9",
      { "nas", "s", NULL, NULL, 0, "smb://nas/s", NULL, "Aé" } },
    { "smb://nas/s/100%/50%zz",
      { "nas", "s", NULL, NULL, 0, "smb://nas/s", NULL, "100%/50%zz" } },
    { "smb://nas/s/a b",
      { "nas", "s", NULL, NULL, 0, "smb://nas/s", NULL, "a b" } },
    { "smb://nas/partagé/été",
      { "nas", "partagé", NULL, NULL, 0, "smb://nas/partagé", NULL, "été" } },
    { "smb://nas/s/%FF%FE",
      { "nas", "s", NULL, NULL, 0, "smb://nas/s", NULL, "\xff\xfe" } },
    { "smb://nas/s/\xff",
      { "nas", "s", NULL, NULL, 0, "smb://nas/s", NULL, "\xff" } },
    { "smb://n%61s/s",
      { "nas", "s", NULL, NULL, 0, "smb://nas/s", NULL, "" } },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(CsGvfsShare) share = _cs_gvfs_share_of_url (cases[i].url);
      Expected e = cases[i].e;

      /* The URL itself, as given: password and all. */
      e.url = cases[i].url;
      assert_share (share, &e);
    }
}

static void
test_url_long (void)
{
  g_autofree char *share_name = g_strnfill (255, 's');
  g_autofree char *segment = g_strnfill (255, 'f');
  g_autoptr(GString) url = g_string_new ("smb://nas/");
  g_autoptr(GString) below = g_string_new (NULL);
  g_autoptr(CsGvfsShare) share = NULL;

  g_string_append (url, share_name);
  for (guint i = 0; i < 40; i++)
    {
      g_string_append_printf (url, "/%s", segment);
      g_string_append_printf (below, "%s%s", i > 0 ? "/" : "", segment);
    }
  share = _cs_gvfs_share_of_url (url->str);
  g_assert_nonnull (share);
  g_assert_cmpstr (share->share, ==, share_name);
  g_assert_cmpstr (share->path, ==, below->str);
  g_assert_cmpstr (share->url, ==, url->str);
}

static void
test_url_refused (void)
{
  const char *urls[] = {
    "", "/", "nas/s", "smb:", "smb:/", "smb:/nas/s", "smb://", "smb:///", "smb:///s",
    "smb://nas", "smb://nas/", "smb://nas//", "smb://nas/./", "smb://anna@nas",
    "http://nas/s", "sftp://nas/s", "file:///home/s",
    GVFS "smb-share:server=nas,share=s",
    /* The host: not empty, an IPv6 address closed and then a port or the end. */
    "smb://:445/s", "smb://@/s", "smb://[fe80::1/s", "smb://[::1]x/s", "smb://[::1]x:445/s",
    /* A port is a number from 1 to 65535. */
    "smb://nas:/s", "smb://nas:0/s", "smb://nas:65536/s", "smb://nas:x/s", "smb://nas:445x/s",
    "smb://nas:-1/s", "smb://[::1]:/s", "smb://[::1]:0/s",
  };

  for (guint i = 0; i < G_N_ELEMENTS (urls); i++)
    {
      g_autoptr(CsGvfsShare) share = _cs_gvfs_share_of_url (urls[i]);

      if (share != NULL)
        g_error ("%s read as smb share %s", urls[i], share->root_url);
    }
}

/* What a path on the mount reads as and the URL of the same folder read as
 * are one share: the engine takes either. */
static void
test_path_and_url_agree (void)
{
  g_autoptr(CsGvfsShare) from_path =
    _cs_gvfs_share_parse_path (GVFS "smb-share:domain=WORK,port=4455,server=nas,share=my%20docs,user=anna/été/a b",
                               NULL);
  g_autoptr(CsGvfsShare) from_url = NULL;

  g_assert_nonnull (from_path);
  from_url = _cs_gvfs_share_of_url (from_path->url);
  g_assert_nonnull (from_url);
  g_assert_cmpstr (from_url->server, ==, from_path->server);
  g_assert_cmpstr (from_url->share, ==, from_path->share);
  g_assert_cmpstr (from_url->user, ==, from_path->user);
  g_assert_cmpstr (from_url->domain, ==, from_path->domain);
  g_assert_cmpuint (from_url->port, ==, from_path->port);
  g_assert_cmpstr (from_url->root_url, ==, from_path->root_url);
  g_assert_cmpstr (from_url->path, ==, from_path->path);
}

static void
test_free_null (void)
{
  _cs_gvfs_share_free (NULL);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/gvfs-path/path/parse", test_path_parse);
  g_test_add_func ("/gvfs-path/path/parse-long", test_path_parse_long);
  g_test_add_func ("/gvfs-path/path/parse-relative", test_path_parse_relative);
  g_test_add_func ("/gvfs-path/path/refused", test_path_refused);
  g_test_add_func ("/gvfs-path/path/not-on-mount", test_path_not_on_mount);
  g_test_add_func ("/gvfs-path/url/parse", test_url);
  g_test_add_func ("/gvfs-path/url/long", test_url_long);
  g_test_add_func ("/gvfs-path/url/refused", test_url_refused);
  g_test_add_func ("/gvfs-path/path-and-url-agree", test_path_and_url_agree);
  g_test_add_func ("/gvfs-path/free-null", test_free_null);

  return g_test_run ();
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-report"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "cs-history.h"
#include "cs-json-io.h"
#include "cs-report.h"

/*
 * The list is read from an index beside the records: for each record its
 * name, size, inode and change time, and its header (cs_run_to_header_json
 * ()), a few kilobytes instead of the record. A record whose name, size,
 * inode or time differ from its entry is read again and its entry made anew,
 * so whatever writes the folder (the CLI, the window, a copy of files) the
 * list stays true; entries of records gone are dropped. The index is written
 * whole under a temporary name and renamed, so two programs listing at once
 * each leave a consistent index, the one renamed last. Its name does not end
 * in ".json": no reader of the folder takes it for a record.
 */
#define INDEX_NAME        ".index"
#define INDEX_VERSION     1
#define INDEX_MAX_SIZE    ((gsize) 128 * 1024 * 1024)

void
cs_history_entry_free (CsHistoryEntry *entry)
{
  if (entry == NULL)
    return;

  g_free (entry->path);
  g_clear_pointer (&entry->run, cs_run_unref);
  g_free (entry);
}

char *
cs_history_get_dir (void)
{
  return g_build_filename (g_get_user_data_dir (), "copyscope", "runs", NULL);
}

static char *
file_name_for (CsRun *run)
{
  g_autoptr(GDateTime) dt = NULL;
  g_autofree char *stamp = NULL;

  dt = g_date_time_new_from_unix_utc (cs_run_get_started (run) / G_USEC_PER_SEC);
  stamp = dt != NULL ? g_date_time_format (dt, "%Y%m%dT%H%M%SZ") : g_strdup ("00000000T000000Z");

  return g_strdup_printf ("%s-%s.json", stamp, cs_run_get_id (run));
}

/* The id becomes part of a file name: only a UUID may pass. */
static gboolean
check_id (const char  *id,
          GError     **error)
{
  if (id != NULL && g_uuid_string_is_valid (id))
    return TRUE;

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
               "“%s” is not a run id", id != NULL ? id : "");
  return FALSE;
}

static char *
find_path (const char  *id,
           GError     **error)
{
  g_autofree char *dir_path = cs_history_get_dir ();
  g_autofree char *suffix = NULL;
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (!check_id (id, error))
    return NULL;

  suffix = g_strdup_printf ("-%s.json", id);
  dir = g_dir_open (dir_path, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      if (g_str_has_suffix (name, suffix))
        return g_build_filename (dir_path, name, NULL);
    }

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "No saved run with id %s", id);
  return NULL;
}

char *
cs_history_save (CsRun   *run,
                 GError **error)
{
  g_autofree char *dir = cs_history_get_dir ();
  g_autofree char *name = NULL;
  g_autofree char *path = NULL;

  g_return_val_if_fail (run != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Cannot create %s: %s", dir, g_strerror (saved));
      return NULL;
    }

  /* The name comes from the run's start time and id, which never change, so
   * saving a run again replaces its own file. No folder scan: with thousands
   * of saved runs, reading the folder cost more than writing the summary. */
  name = file_name_for (run);
  path = g_build_filename (dir, name, NULL);

  if (!cs_run_save (run, path, error))
    return NULL;

  return g_steal_pointer (&path);
}

struct _CsHistorySlot {
  int   fd;     /* an unnamed file in the history folder, or -1 */
  char *path;   /* the name it will get */
};

CsHistorySlot *
cs_history_reserve (CsRun *run)
{
  CsHistorySlot *slot = g_new0 (CsHistorySlot, 1);
  g_autofree char *dir = cs_history_get_dir ();
  g_autofree char *name = NULL;
  struct stat st;

  g_return_val_if_fail (run != NULL, slot);

  slot->fd = -1;
  if (g_mkdir_with_parents (dir, 0755) != 0)
    return slot;
  name = file_name_for (run);
  slot->path = g_build_filename (dir, name, NULL);
  slot->fd = open (dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
  /* Looking the name up now reads the folder block it will go in. */
  if (slot->fd >= 0)
    (void) stat (slot->path, &st);

  return slot;
}

/* The unnamed file gets @path; FALSE if it cannot (a name taken, no /proc). */
static gboolean
link_unnamed (int         fd,
              const char *path)
{
  g_autofree char *proc = NULL;

  /* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc/self/fd works for anyone. */
  if (linkat (fd, "", AT_FDCWD, path, AT_EMPTY_PATH) == 0)
    return TRUE;
  proc = g_strdup_printf ("/proc/self/fd/%d", fd);
  return linkat (AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0;
}

char *
cs_history_commit (CsHistorySlot  *slot,
                   CsRun          *run,
                   GError        **error)
{
  g_autofree char *data = NULL;
  g_autofree char *name = NULL;

  g_return_val_if_fail (run != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (slot == NULL || slot->fd < 0)
    return cs_history_save (run, error);

  /* The run could have been given another start or id since. */
  name = file_name_for (run);
  if (!g_str_has_suffix (slot->path, name))
    return cs_history_save (run, error);

  data = cs_run_to_json_string (run, TRUE);
  if (!cs_report_write_all (slot->fd, data, strlen (data)))
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Cannot write %s: %s", slot->path, g_strerror (saved));
      return NULL;
    }
  /* As cs_run_save (): not flushed, a summary is not the copy. */
  if (!link_unnamed (slot->fd, slot->path))
    return cs_history_save (run, error);

  return g_strdup (slot->path);
}

void
cs_history_slot_free (CsHistorySlot *slot)
{
  if (slot == NULL)
    return;

  if (slot->fd >= 0)
    close (slot->fd);
  g_free (slot->path);
  g_free (slot);
}

static int
compare_newest_first (gconstpointer a,
                      gconstpointer b)
{
  const CsHistoryEntry *ea = *(CsHistoryEntry * const *) a;
  const CsHistoryEntry *eb = *(CsHistoryEntry * const *) b;
  gint64 sa = cs_run_get_started (ea->run);
  gint64 sb = cs_run_get_started (eb->run);

  if (sa != sb)
    return sa < sb ? 1 : -1;

  return g_strcmp0 (eb->path, ea->path);
}

static gboolean
is_sweep_name (const char *name)
{
  return g_str_has_prefix (name, CS_HISTORY_SWEEP_PREFIX);
}

/* What tells a record changed: its entry in the index holds the same. */
typedef struct {
  gint64  size;
  guint64 inode;
  gint64  ctime_ns;
} FileStamp;

static gboolean
stamp_of (const char *path,
          FileStamp  *stamp)
{
  struct stat st;

  if (stat (path, &st) != 0 || !S_ISREG (st.st_mode))
    return FALSE;
  stamp->size = st.st_size;
  stamp->inode = st.st_ino;
  /* The change time, not the modification time: a record copied in with its
   * old time kept still reads as new. */
  stamp->ctime_ns = (gint64) st.st_ctim.tv_sec * G_GINT64_CONSTANT (1000000000) + st.st_ctim.tv_nsec;

  return TRUE;
}

static const CsJsonLimits index_limits = {
  .what = "history index",
  .max_size = INDEX_MAX_SIZE,
  .max_depth = 32,
  .max_values = 32 * 1000 * 1000,
};

/* The entries of the index by record name, each a JsonObject; empty when
 * there is none or it cannot be read (it is only rebuilt then). */
static GHashTable *
index_read (const char *dir_path,
            JsonNode  **out_root)
{
  g_autofree char *path = g_build_filename (dir_path, INDEX_NAME, NULL);
  GHashTable *entries = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GError) error = NULL;
  JsonObject *root;
  JsonArray *list;

  *out_root = cs_json_load_file (path, &index_limits, &error);
  if (*out_root == NULL)
    {
      if (!g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        g_debug ("Rebuilding the history index: %s", error->message);
      return entries;
    }
  if (!JSON_NODE_HOLDS_OBJECT (*out_root))
    return entries;
  root = json_node_get_object (*out_root);
  if (json_object_get_int_member_with_default (root, "version", 0) != INDEX_VERSION ||
      json_object_get_int_member_with_default (root, "schema_version", 0) != CS_RUN_SCHEMA_VERSION)
    return entries;
  list = json_object_get_array_member (root, "records");
  for (guint i = 0; list != NULL && i < json_array_get_length (list); i++)
    {
      JsonNode *node = json_array_get_element (list, i);
      const char *name;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      name = json_object_get_string_member_with_default (json_node_get_object (node), "name", NULL);
      if (name != NULL)
        g_hash_table_insert (entries, (gpointer) name, json_node_get_object (node));
    }

  return entries;
}

static gboolean
entry_matches (JsonObject      *entry,
               const FileStamp *stamp)
{
  return json_object_get_int_member_with_default (entry, "size", -1) == stamp->size &&
         (guint64) json_object_get_int_member_with_default (entry, "inode", -1) == stamp->inode &&
         json_object_get_int_member_with_default (entry, "ctime_ns", -1) == stamp->ctime_ns;
}

static void
index_write (const char *dir_path,
             GPtrArray  *records)
{
  g_autofree char *path = g_build_filename (dir_path, INDEX_NAME, NULL);
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "version");
  json_builder_add_int_value (builder, INDEX_VERSION);
  json_builder_set_member_name (builder, "schema_version");
  json_builder_add_int_value (builder, CS_RUN_SCHEMA_VERSION);
  json_builder_set_member_name (builder, "records");
  json_builder_begin_array (builder);
  for (guint i = 0; i < records->len; i++)
    json_builder_add_value (builder, json_node_ref (g_ptr_array_index (records, i)));
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  text = cs_json_to_string (root, FALSE);

  /* Atomic, not flushed: a lost index is only built again. */
  if (!g_file_set_contents_full (path, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0644, &error))
    g_debug ("Cannot write the history index: %s", error->message);
}

static JsonNode *
index_entry (const char      *name,
             const FileStamp *stamp,
             CsRun           *run)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "name");
  json_builder_add_string_value (builder, name);
  json_builder_set_member_name (builder, "size");
  json_builder_add_int_value (builder, stamp->size);
  json_builder_set_member_name (builder, "inode");
  json_builder_add_int_value (builder, (gint64) stamp->inode);
  json_builder_set_member_name (builder, "ctime_ns");
  json_builder_add_int_value (builder, stamp->ctime_ns);
  /* null: the record cannot be read, and is not tried again until it changes. */
  json_builder_set_member_name (builder, "run");
  if (run != NULL)
    json_builder_add_value (builder, cs_run_to_header_json (run));
  else
    json_builder_add_null_value (builder);
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

GPtrArray *
cs_history_list (guint   *n_skipped,
                 GError **error)
{
  g_autofree char *dir_path = cs_history_get_dir ();
  g_autoptr(GPtrArray) entries = NULL;
  g_autoptr(GPtrArray) records = NULL;
  g_autoptr(GHashTable) indexed = NULL;
  g_autoptr(JsonNode) index_root = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GDir) dir = NULL;
  gboolean changed = FALSE;
  guint skipped = 0;
  const char *name;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  entries = g_ptr_array_new_with_free_func ((GDestroyNotify) cs_history_entry_free);

  dir = g_dir_open (dir_path, 0, &local_error);
  if (dir == NULL)
    {
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        {
          if (n_skipped != NULL)
            *n_skipped = 0;
          return g_steal_pointer (&entries);
        }
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }

  indexed = index_read (dir_path, &index_root);
  records = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = NULL;
      g_autoptr(GError) load_error = NULL;
      g_autoptr(CsRun) run = NULL;
      CsHistoryEntry *entry;
      JsonObject *cached;
      FileStamp stamp;

      /* Temporaries of an interrupted atomic write end in a random suffix. */
      if (!g_str_has_suffix (name, ".json"))
        continue;

      /* Sweeps are kept in the same folder but are no runs: loading them as
       * runs would fail and count every sweep as an unreadable file. */
      if (is_sweep_name (name))
        continue;

      path = g_build_filename (dir_path, name, NULL);
      if (!stamp_of (path, &stamp))
        {
          skipped++;
          continue;
        }

      cached = g_hash_table_lookup (indexed, name);
      if (cached != NULL && entry_matches (cached, &stamp))
        {
          JsonNode *header = json_object_get_member (cached, "run");

          if (header == NULL || JSON_NODE_HOLDS_NULL (header))
            {
              /* Unreadable when it was indexed, and unchanged since. */
              g_ptr_array_add (records, json_node_init_object (json_node_alloc (), cached));
              skipped++;
              continue;
            }
          run = cs_run_new_from_json (header, &load_error);
          if (run != NULL)
            g_ptr_array_add (records, json_node_init_object (json_node_alloc (), cached));
          else
            g_debug ("The index entry of %s is unreadable: %s", name, load_error->message);
          g_clear_error (&load_error);
        }

      if (run == NULL)
        {
          g_autoptr(CsRun) full = cs_run_load (path, &load_error);
          JsonNode *fresh;

          changed = TRUE;
          fresh = index_entry (name, &stamp, full);
          g_ptr_array_add (records, fresh);
          if (full == NULL)
            {
              g_debug ("Skipping %s: %s", path, load_error->message);
              skipped++;
              continue;
            }
          /* The list holds headers alone, however they came. */
          run = cs_run_new_from_json (json_object_get_member (json_node_get_object (fresh), "run"), NULL);
          if (run == NULL)
            run = g_steal_pointer (&full);
        }

      entry = g_new0 (CsHistoryEntry, 1);
      entry->path = g_steal_pointer (&path);
      entry->run = g_steal_pointer (&run);
      g_ptr_array_add (entries, entry);
    }

  /* Records gone since. */
  if (records->len != g_hash_table_size (indexed))
    changed = TRUE;
  if (changed)
    index_write (dir_path, records);

  g_ptr_array_sort (entries, compare_newest_first);

  if (n_skipped != NULL)
    *n_skipped = skipped;

  return g_steal_pointer (&entries);
}

static int
compare_names_newest_first (gconstpointer a,
                            gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) b, *(const char * const *) a);
}

GPtrArray *
cs_history_list_sweeps (void)
{
  g_autofree char *dir_path = cs_history_get_dir ();
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      if (is_sweep_name (name) && g_str_has_suffix (name, ".json"))
        g_ptr_array_add (paths, g_build_filename (dir_path, name, NULL));
    }

  /* Named by their start time, so the names sort by age. */
  g_ptr_array_sort (paths, compare_names_newest_first);

  return g_steal_pointer (&paths);
}

CsRun *
cs_history_load (const char  *id,
                 GError     **error)
{
  g_autofree char *path = NULL;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  path = find_path (id, error);
  if (path == NULL)
    return NULL;

  return cs_run_load (path, error);
}

gboolean
cs_history_set_label (const char  *id,
                      const char  *label,
                      GError     **error)
{
  g_autofree char *path = NULL;
  g_autoptr(CsRun) run = NULL;

  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  path = find_path (id, error);
  if (path == NULL)
    return FALSE;

  run = cs_run_load (path, error);
  if (run == NULL)
    return FALSE;

  cs_run_set_label (run, label);

  return cs_run_save (run, path, error);
}

gboolean
cs_history_delete (const char  *id,
                   GError     **error)
{
  g_autofree char *path = NULL;

  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  path = find_path (id, error);
  if (path == NULL)
    return FALSE;

  if (g_unlink (path) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Cannot delete %s: %s", path, g_strerror (saved));
      return FALSE;
    }

  return TRUE;
}

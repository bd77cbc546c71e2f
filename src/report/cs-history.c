/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-report"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "cs-history.h"
#include "cs-report.h"

/*
 * The list is read from an index beside the records: for each record its
 * name, size, inode and change time, and its summary (cs_run_to_summary ()),
 * what the list shows. A record whose name, size, inode or time differ from
 * its entry is read again and its entry made anew, so whatever writes the
 * folder (the CLI, the window, a copy of files) the list stays true; entries
 * of records gone are dropped. The index is written whole under a temporary
 * name and renamed, so two programs listing at once each leave a consistent
 * index, the one renamed last, and a reader's mapping of the one before stays
 * whole. Its name does not end in ".json": no reader of the folder takes it
 * for a record.
 *
 * It is a GVariant, mapped and read in place: listing 1,000 runs parsed a
 * 3.6 MB JSON index for most of its time (bench/RESULTS.md, "Long copies").
 * Read as untrusted data, a damaged index gives wrong entries at worst, which
 * fail cs_run_new_from_summary () or their stamps and are read again.
 */
#define INDEX_NAME        ".index"
#define INDEX_VERSION     4   /* 3: summaries count notes apart from failures; 4: and
                                 * name the checksum list */
#define INDEX_MAX_SIZE    ((gsize) 128 * 1024 * 1024)
/* version, run schema, and per record: name, size, inode, change time and
 * its summary, or nothing when it could not be read. */
#define INDEX_ENTRY_TYPE  "(sxtxm" CS_RUN_SUMMARY_TYPE ")"
#define INDEX_TYPE        "(uua" INDEX_ENTRY_TYPE ")"

/* Logs set aside for an Undo, or being written under a temporary name; hidden,
 * and without ".json", so no listing takes them for records. */
#define LOG_ASIDE_PREFIX  ".log-"
#define LOG_ASIDE_DAYS    1

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

/* The record's name is this with ".json", its log's with ".log". */
static char *
name_for (CsRun      *run,
          const char *extension)
{
  g_autoptr(GDateTime) dt = NULL;
  g_autofree char *stamp = NULL;

  dt = g_date_time_new_from_unix_utc (cs_run_get_started (run) / G_USEC_PER_SEC);
  stamp = dt != NULL ? g_date_time_format (dt, "%Y%m%dT%H%M%SZ") : g_strdup ("00000000T000000Z");

  return g_strdup_printf ("%s-%s%s", stamp, cs_run_get_id (run), extension);
}

static char *
file_name_for (CsRun *run)
{
  return name_for (run, ".json");
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

typedef struct {
  GMappedFile *file;
  GVariant    *root;
  GHashTable  *entries;   /* record name → its entry, borrowed from root */
} Index;

static void
index_clear (Index *index)
{
  g_clear_pointer (&index->entries, g_hash_table_unref);
  g_clear_pointer (&index->root, g_variant_unref);
  g_clear_pointer (&index->file, g_mapped_file_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Index, index_clear)

/* The entries of the index by record name; none when there is no index or it
 * cannot be read (it is only rebuilt then). */
static void
index_read (const char *dir_path,
            Index      *index)
{
  g_autofree char *path = g_build_filename (dir_path, INDEX_NAME, NULL);
  g_autoptr(GVariant) records = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  guint32 version = 0, schema = 0;

  index->entries = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) g_variant_unref);
  index->file = g_mapped_file_new (path, FALSE, &error);
  if (index->file == NULL)
    {
      if (!g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        g_debug ("Rebuilding the history index: %s", error->message);
      return;
    }
  if (g_mapped_file_get_length (index->file) > INDEX_MAX_SIZE)
    return;

  bytes = g_mapped_file_get_bytes (index->file);
  index->root = g_variant_ref_sink (g_variant_new_from_bytes (G_VARIANT_TYPE (INDEX_TYPE), bytes, FALSE));
  g_variant_get (index->root, "(uu@a" INDEX_ENTRY_TYPE ")", &version, &schema, &records);
  if (version != INDEX_VERSION || schema != CS_RUN_SCHEMA_VERSION)
    return;

  for (gsize i = 0, n = g_variant_n_children (records); i < n; i++)
    {
      GVariant *entry = g_variant_get_child_value (records, i);
      const char *name = NULL;

      /* The name lies in the mapped file, which stays while the index does. */
      g_variant_get_child (entry, 0, "&s", &name);
      if (name[0] != '\0')
        g_hash_table_replace (index->entries, (gpointer) name, entry);
      else
        g_variant_unref (entry);
    }
}

static gboolean
entry_matches (GVariant        *entry,
               const FileStamp *stamp)
{
  gint64 size = 0, ctime_ns = 0;
  guint64 inode = 0;

  g_variant_get (entry, "(&sxtx@m" CS_RUN_SUMMARY_TYPE ")", NULL, &size, &inode, &ctime_ns, NULL);

  return size == stamp->size && inode == stamp->inode && ctime_ns == stamp->ctime_ns;
}

static void
index_write (const char *dir_path,
             GPtrArray  *records)
{
  g_autofree char *path = g_build_filename (dir_path, INDEX_NAME, NULL);
  g_autoptr(GVariant) root = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;

  root = g_variant_ref_sink (g_variant_new ("(uu@a" INDEX_ENTRY_TYPE ")", INDEX_VERSION,
                                            CS_RUN_SCHEMA_VERSION,
                                            g_variant_new_array (G_VARIANT_TYPE (INDEX_ENTRY_TYPE),
                                                                 (GVariant **) records->pdata,
                                                                 records->len)));
  bytes = g_variant_get_data_as_bytes (root);

  /* Atomic, not flushed: a lost index is only built again. */
  if (!g_file_set_contents_full (path, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                                 G_FILE_SET_CONTENTS_CONSISTENT, 0644, &error))
    g_debug ("Cannot write the history index: %s", error->message);
}

static GVariant *
index_entry (const char      *name,
             const FileStamp *stamp,
             CsRun           *run)
{
  GVariant *summary = run != NULL ? cs_run_to_summary (run) : NULL;

  return g_variant_ref_sink (g_variant_new ("(sxtx@m" CS_RUN_SUMMARY_TYPE ")", name, stamp->size,
                                            stamp->inode, stamp->ctime_ns,
                                            g_variant_new_maybe (G_VARIANT_TYPE (CS_RUN_SUMMARY_TYPE),
                                                                 summary)));
}

/* A log set aside for an Undo is put back or deleted within seconds; one
 * being written without O_TMPFILE is locked by its writer however long the
 * copy waits. One a day old and not locked was left by a program that ended. */
static void
remove_if_stale (const char *dir_path,
                 const char *name)
{
  g_autofree char *path = g_build_filename (dir_path, name, NULL);
  struct stat st;
  int fd;

  if (lstat (path, &st) != 0 || !S_ISREG (st.st_mode) ||
      (gint64) st.st_ctime >= g_get_real_time () / G_USEC_PER_SEC - LOG_ASIDE_DAYS * 86400)
    return;

  fd = open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return;
  if (flock (fd, LOCK_EX | LOCK_NB) == 0)
    (void) g_unlink (path);
  close (fd);
}

GPtrArray *
cs_history_list (guint   *n_skipped,
                 GError **error)
{
  g_autofree char *dir_path = cs_history_get_dir ();
  g_autoptr(GPtrArray) entries = NULL;
  g_autoptr(GPtrArray) records = NULL;
  g_auto(Index) index = { 0 };
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

  index_read (dir_path, &index);
  records = g_ptr_array_new_with_free_func ((GDestroyNotify) g_variant_unref);

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = NULL;
      g_autoptr(GError) load_error = NULL;
      g_autoptr(CsRun) run = NULL;
      CsHistoryEntry *entry;
      GVariant *cached;
      FileStamp stamp;

      if (g_str_has_prefix (name, LOG_ASIDE_PREFIX))
        {
          remove_if_stale (dir_path, name);
          continue;
        }

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

      cached = g_hash_table_lookup (index.entries, name);
      if (cached != NULL && entry_matches (cached, &stamp))
        {
          g_autoptr(GVariant) maybe = g_variant_get_child_value (cached, 4);
          g_autoptr(GVariant) summary = g_variant_get_maybe (maybe);

          if (summary == NULL)
            {
              /* Unreadable when it was indexed, and unchanged since. */
              g_ptr_array_add (records, g_variant_ref (cached));
              skipped++;
              continue;
            }
          run = cs_run_new_from_summary (summary, &load_error);
          if (run != NULL)
            g_ptr_array_add (records, g_variant_ref (cached));
          else
            g_debug ("The index entry of %s is unreadable: %s", name, load_error->message);
          g_clear_error (&load_error);
        }

      if (run == NULL)
        {
          g_autoptr(CsRun) full = cs_run_load (path, &load_error);
          g_autoptr(GVariant) maybe = NULL;
          g_autoptr(GVariant) summary = NULL;
          GVariant *fresh;

          changed = TRUE;
          fresh = index_entry (name, &stamp, full);
          g_ptr_array_add (records, fresh);
          if (full == NULL)
            {
              g_debug ("Skipping %s: %s", path, load_error->message);
              skipped++;
              continue;
            }
          /* The list holds summaries alone, however they came. */
          maybe = g_variant_get_child_value (fresh, 4);
          summary = g_variant_get_maybe (maybe);
          run = cs_run_new_from_summary (summary, NULL);
          if (run == NULL)
            run = g_steal_pointer (&full);
        }

      entry = g_new0 (CsHistoryEntry, 1);
      entry->path = g_steal_pointer (&path);
      entry->run = g_steal_pointer (&run);
      g_ptr_array_add (entries, entry);
    }

  /* Records gone since. */
  if (records->len != g_hash_table_size (index.entries))
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

/* The log beside the record at @record_path. */
static char *
log_path_of (const char *record_path)
{
  gsize len = strlen (record_path);

  g_assert (g_str_has_suffix (record_path, ".json"));
  return g_strdup_printf ("%.*s.log", (int) (len - strlen (".json")), record_path);
}

/* "Cannot @doing @path: <errno's text>" */
static gboolean
set_errno_error (GError     **error,
                 const char  *doing,
                 const char  *path)
{
  int saved = errno;
  g_autofree char *display = g_filename_display_name (path);

  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "Cannot %s %s: %s", doing,
               display, g_strerror (saved));
  return FALSE;
}

gboolean
cs_history_delete (const char  *id,
                   GError     **error)
{
  return cs_history_delete_full (id, NULL, error);
}

gboolean
cs_history_delete_full (const char  *id,
                        char       **log_aside,
                        GError     **error)
{
  g_autofree char *path = NULL;
  g_autofree char *log = NULL;
  g_autofree char *aside = NULL;

  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (log_aside != NULL)
    *log_aside = NULL;

  path = find_path (id, error);
  if (path == NULL)
    return FALSE;

  /* The log first: a record never loses its log while it stays. */
  log = log_path_of (path);
  if (log_aside != NULL)
    {
      g_autofree char *dir = g_path_get_dirname (log);
      g_autofree char *base = g_path_get_basename (log);
      g_autofree char *hidden = g_strconcat (LOG_ASIDE_PREFIX, base, NULL);

      aside = g_build_filename (dir, hidden, NULL);
      if (g_rename (log, aside) != 0)
        {
          if (errno != ENOENT)
            return set_errno_error (error, "set aside", log);
          g_clear_pointer (&aside, g_free);
        }
    }
  else if (g_unlink (log) != 0 && errno != ENOENT)
    return set_errno_error (error, "delete", log);

  if (g_unlink (path) != 0)
    {
      set_errno_error (error, "delete", path);
      if (aside != NULL)
        (void) g_rename (aside, log);
      return FALSE;
    }

  /* The window's checksum list goes with its run: set aside for an Undo as
   * the log is (a listing removes it a day later), or deleted. */
  for (CsManifestAlgo algo = CS_MANIFEST_XXH128; algo <= CS_MANIFEST_SHA256; algo++)
    {
      g_autofree char *dir = g_path_get_dirname (path);
      g_autofree char *name = g_strconcat (id, ".", cs_manifest_algo_to_string (algo), NULL);
      g_autofree char *hidden = g_strconcat (LOG_ASIDE_PREFIX, name, NULL);
      g_autofree char *list = g_build_filename (dir, name, NULL);
      g_autofree char *list_aside = g_build_filename (dir, hidden, NULL);

      if (log_aside != NULL)
        (void) g_rename (list, list_aside);
      else
        (void) g_unlink (list);
    }

  if (log_aside != NULL)
    *log_aside = g_steal_pointer (&aside);
  return TRUE;
}

gboolean
cs_history_restore_manifest (CsRun *run)
{
  g_autofree char *dir = cs_history_get_dir ();
  gboolean restored = FALSE;

  g_return_val_if_fail (run != NULL, FALSE);

  if (!check_id (cs_run_get_id (run), NULL))
    return FALSE;
  for (CsManifestAlgo algo = CS_MANIFEST_XXH128; algo <= CS_MANIFEST_SHA256; algo++)
    {
      g_autofree char *name = g_strconcat (cs_run_get_id (run), ".", cs_manifest_algo_to_string (algo), NULL);
      g_autofree char *hidden = g_strconcat (LOG_ASIDE_PREFIX, name, NULL);
      g_autofree char *list = g_build_filename (dir, name, NULL);
      g_autofree char *list_aside = g_build_filename (dir, hidden, NULL);

      restored |= g_rename (list_aside, list) == 0;
    }
  return restored;
}

gboolean
cs_history_restore_log (const char  *log_aside,
                        CsRun       *run,
                        GError     **error)
{
  g_autofree char *dir = cs_history_get_dir ();
  g_autofree char *name = NULL;
  g_autofree char *path = NULL;

  g_return_val_if_fail (log_aside != NULL, FALSE);
  g_return_val_if_fail (run != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  name = name_for (run, ".log");
  path = g_build_filename (dir, name, NULL);
  if (g_rename (log_aside, path) != 0)
    return set_errno_error (error, "put back", path);

  return TRUE;
}

char *
cs_history_find_log (CsRun *run)
{
  g_autofree char *dir = cs_history_get_dir ();
  g_autofree char *name = NULL;
  g_autofree char *path = NULL;

  g_return_val_if_fail (run != NULL, NULL);

  if (!check_id (cs_run_get_id (run), NULL))
    return NULL;
  name = name_for (run, ".log");
  path = g_build_filename (dir, name, NULL);
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return NULL;

  return g_steal_pointer (&path);
}

char *
cs_history_manifest_path (CsRun          *run,
                          CsManifestAlgo  algo)
{
  g_autofree char *dir = cs_history_get_dir ();
  g_autofree char *name = NULL;

  g_return_val_if_fail (run != NULL, NULL);

  if (!check_id (cs_run_get_id (run), NULL) || g_mkdir_with_parents (dir, 0755) != 0)
    return NULL;
  name = g_strconcat (cs_run_get_id (run), ".", cs_manifest_algo_to_string (algo), NULL);
  return g_build_filename (dir, name, NULL);
}

struct _CsHistoryLog {
  int       fd;
  char     *temporary;  /* its name without O_TMPFILE, else NULL */
  gboolean  committed;
};

CsHistoryLog *
cs_history_log_new (GError **error)
{
  g_autofree char *dir = cs_history_get_dir ();
  g_autoptr(CsHistoryLog) log = g_new0 (CsHistoryLog, 1);

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  log->fd = -1;
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      set_errno_error (error, "create", dir);
      return NULL;
    }

  log->fd = open (dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
  if (log->fd < 0)
    {
      /* A filesystem without O_TMPFILE: a hidden name until the commit. */
      log->temporary = g_build_filename (dir, LOG_ASIDE_PREFIX "XXXXXX", NULL);
      log->fd = g_mkstemp_full (log->temporary, O_WRONLY | O_CLOEXEC, 0644);
      if (log->fd < 0)
        {
          set_errno_error (error, "create a log in", dir);
          g_clear_pointer (&log->temporary, g_free);
          return NULL;
        }
      /* Held while the fd is open: no listing takes it for left behind. */
      (void) flock (log->fd, LOCK_SH);
    }

  return g_steal_pointer (&log);
}

int
cs_history_log_get_fd (CsHistoryLog *log)
{
  g_return_val_if_fail (log != NULL, -1);

  return log->fd;
}

char *
cs_history_log_commit (CsHistoryLog  *log,
                       CsRun         *run,
                       GError       **error)
{
  g_autofree char *dir = cs_history_get_dir ();
  g_autofree char *name = NULL;
  g_autofree char *path = NULL;
  gboolean named;

  g_return_val_if_fail (log != NULL && log->fd >= 0 && !log->committed, NULL);
  g_return_val_if_fail (run != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  name = name_for (run, ".log");
  path = g_build_filename (dir, name, NULL);
  if (log->temporary != NULL)
    named = g_rename (log->temporary, path) == 0;
  else
    named = link_unnamed (log->fd, path);
  if (!named)
    {
      set_errno_error (error, "name the log", path);
      return NULL;
    }

  /* As the record: not flushed, a log is not the copy. */
  log->committed = TRUE;
  return g_steal_pointer (&path);
}

void
cs_history_log_free (CsHistoryLog *log)
{
  if (log == NULL)
    return;

  if (log->fd >= 0)
    close (log->fd);
  if (log->temporary != NULL && !log->committed)
    (void) g_unlink (log->temporary);
  g_free (log->temporary);
  g_free (log);
}

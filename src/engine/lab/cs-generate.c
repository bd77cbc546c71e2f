/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-generate"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "cs-generate.h"
#include "cs-task-private.h"
#include "cs-tsan-private.h"

/*
 * Sizes follow the seeds (docs/ARCHITECTURE.md), which come from Windows:
 * Explorer and Robocopy print "KB" and "MB" for 1024 and 1024² bytes. So the
 * help-desk article's "12 KB" file is 12 KiB = 12,288 bytes here, "400–600 KB" is 400–600 KiB and "7–8 MB" is
 * 7–8 MiB. Reports still state MB = 10^6 bytes; only the generated sizes are binary.
 */
#define KIB ((guint64) 1024)
#define MIB (KIB * KIB)
#define GIB (MIB * KIB)

/*
 * Contents are slices of one random block made once per seed. Slices start at
 * pseudo-random offsets, so no two files (and no two chunks of the big file) line
 * up the same way, and writing stays as cheap as memcpy. The block has a tail
 * that repeats its head, so a chunk starting anywhere in it is contiguous.
 */
#define BLOCK_SIZE  (4 * MIB)
#define CHUNK_SIZE  (1 * MIB)

/* Every file starts with its own 8 bytes, so same-sized files never end up equal. */
#define STAMP_SIZE  8

/* 2024-01-01T00:00:00Z: file i gets this plus i seconds, folders get it as is. */
#define BASE_MTIME  G_GINT64_CONSTANT (1704067200)

#define PROGRESS_INTERVAL_US (G_USEC_PER_SEC / 10)
#define MAX_WORKERS 4

#define IMAGES_PER_FOLDER 500
#define MANY_PER_FOLDER   100

typedef enum {
  LAYOUT_BIG,
  LAYOUT_IMAGES,
  LAYOUT_TEXT,
  LAYOUT_SMALL,
  LAYOUT_MANY,
  LAYOUT_CUSTOM,
} LayoutKind;

typedef struct {
  LayoutKind kind;
  guint64    n_files;
  guint64    min_size;
  guint64    max_size;
  guint64    salt;        /* keeps sizes and offsets apart between layouts */
  guint      name_width;  /* digits in custom file names */
} Layout;

typedef struct {
  const Layout *layout;
  const char   *root;
  const guint8 *block;     /* BLOCK_SIZE + CHUNK_SIZE bytes, read-only */
  guint64       seed;
  GCancellable  *cancellable;

  atomic_uint_fast64_t next_index;
  atomic_uint_fast64_t files_done;
  atomic_uint_fast64_t bytes_done;
  atomic_int           stop;

  GMutex        lock;
  GCond         cond;
  guint         n_running;  /* under lock */
  GError       *error;      /* under lock; the first failure */
} GenContext;

static const struct {
  const char *name;
  const char *description;
} scenario_info[CS_N_SCENARIOS] = {
  [CS_SCENARIO_BIG]    = { "big",    N_("1 file of 2 GiB") },
  [CS_SCENARIO_IMAGES] = { "images", N_("270 files of 7–8 MB in folders of 500") },
  [CS_SCENARIO_TEXT]   = { "text",   N_("4,386 files of 400–600 KB") },
  [CS_SCENARIO_SMALL]  = { "small",  N_("20,000 files of 12 KB") },
  [CS_SCENARIO_MANY]   = { "many",   N_("100,000 files of 0–2 KB in a tree 3 levels deep") },
};

const char *
cs_scenario_to_string (CsScenario scenario)
{
  g_return_val_if_fail (scenario < CS_N_SCENARIOS, NULL);

  return scenario_info[scenario].name;
}

gboolean
cs_scenario_from_string (const char *str,
                         CsScenario *out_scenario)
{
  g_return_val_if_fail (str != NULL, FALSE);

  for (guint i = 0; i < CS_N_SCENARIOS; i++)
    {
      if (g_ascii_strcasecmp (str, scenario_info[i].name) == 0)
        {
          if (out_scenario != NULL)
            *out_scenario = (CsScenario) i;
          return TRUE;
        }
    }

  return FALSE;
}

const char *
cs_scenario_describe (CsScenario scenario)
{
  g_return_val_if_fail (scenario < CS_N_SCENARIOS, NULL);

  return scenario_info[scenario].description;
}

/* splitmix64's finaliser: a cheap, well-mixed 64-bit hash. */
static inline guint64
mix64 (guint64 x)
{
  x += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  x = (x ^ (x >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  x = (x ^ (x >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return x ^ (x >> 31);
}

static inline guint64
hash3 (guint64 a,
       guint64 b,
       guint64 c)
{
  return mix64 (a ^ mix64 (b ^ mix64 (c)));
}

static inline guint64
rotl64 (guint64 x,
        int     k)
{
  return (x << k) | (x >> (64 - k));
}

static guint64
scaled_count (guint64 base,
              double  scale)
{
  double n = nearbyint ((double) base * scale);

  if (n < 1.0)
    return 1;
  if (n >= (double) G_MAXUINT64)
    return G_MAXUINT64;
  return (guint64) n;
}

static gboolean
scale_is_valid (double scale)
{
  return isfinite (scale) && scale > 0.0;
}

static void
layout_for_scenario (CsScenario  scenario,
                     double      scale,
                     Layout     *layout)
{
  memset (layout, 0, sizeof *layout);
  layout->salt = mix64 (0xc0c0 + (guint64) scenario);

  switch (scenario)
    {
    case CS_SCENARIO_BIG:
      layout->kind = LAYOUT_BIG;
      layout->n_files = 1;
      layout->min_size = layout->max_size = scaled_count (2 * GIB, scale);
      break;

    case CS_SCENARIO_IMAGES:
      layout->kind = LAYOUT_IMAGES;
      layout->n_files = scaled_count (270, scale);
      layout->min_size = 7 * MIB;
      layout->max_size = 8 * MIB;
      break;

    case CS_SCENARIO_TEXT:
      layout->kind = LAYOUT_TEXT;
      layout->n_files = scaled_count (4386, scale);
      layout->min_size = 400 * KIB;
      layout->max_size = 600 * KIB;
      break;

    case CS_SCENARIO_SMALL:
      layout->kind = LAYOUT_SMALL;
      layout->n_files = scaled_count (20000, scale);
      layout->min_size = layout->max_size = 12 * KIB;
      break;

    case CS_SCENARIO_MANY:
      layout->kind = LAYOUT_MANY;
      layout->n_files = scaled_count (100000, scale);
      layout->min_size = 0;
      layout->max_size = 2 * KIB;
      break;

    case CS_N_SCENARIOS:
    default:
      g_assert_not_reached ();
    }
}

/*
 * Sizes and names depend on the layout and the index but not on the seed: the
 * estimate is then exact, and trees made with different seeds hold the same
 * shape with different bytes.
 */
static guint64
layout_file_size (const Layout *layout,
                  guint64       index)
{
  guint64 span = layout->max_size - layout->min_size;

  if (span == 0)
    return layout->min_size;

  return layout->min_size + hash3 (layout->salt, index, 0x517e) % (span + 1);
}

/* Relative folder of file @index, or "" for the top folder. */
static void
layout_folder (const Layout *layout,
               guint64       index,
               char         *buf,
               gsize         len)
{
  guint64 leaf;

  switch (layout->kind)
    {
    case LAYOUT_IMAGES:
      g_snprintf (buf, len, "%03" G_GUINT64_FORMAT, index / IMAGES_PER_FOLDER);
      break;

    case LAYOUT_MANY:
      /* 10 × 10 × 10 folders of 100 files at full scale; the top level widens
       * beyond that, so a bigger scale keeps the tree 3 levels deep. */
      leaf = index / MANY_PER_FOLDER;
      g_snprintf (buf, len, "d%02" G_GUINT64_FORMAT "/d%" G_GUINT64_FORMAT "/d%" G_GUINT64_FORMAT,
                  leaf / 100, (leaf / 10) % 10, leaf % 10);
      break;

    case LAYOUT_BIG:
    case LAYOUT_TEXT:
    case LAYOUT_SMALL:
    case LAYOUT_CUSTOM:
    default:
      buf[0] = '\0';
      break;
    }
}

static void
layout_file_name (const Layout *layout,
                  guint64       index,
                  char         *buf,
                  gsize         len)
{
  switch (layout->kind)
    {
    case LAYOUT_BIG:
      g_strlcpy (buf, "big.bin", len);
      break;

    case LAYOUT_IMAGES:
      g_snprintf (buf, len, "IMG_%05" G_GUINT64_FORMAT ".jpg", index);
      break;

    case LAYOUT_TEXT:
      g_snprintf (buf, len, "doc_%05" G_GUINT64_FORMAT ".txt", index);
      break;

    case LAYOUT_SMALL:
      g_snprintf (buf, len, "file_%05" G_GUINT64_FORMAT ".dat", index);
      break;

    case LAYOUT_MANY:
      g_snprintf (buf, len, "f%02" G_GUINT64_FORMAT ".dat", index % MANY_PER_FOLDER);
      break;

    case LAYOUT_CUSTOM:
    default:
      g_snprintf (buf, len, "file-%0*" G_GUINT64_FORMAT ".bin", (int) layout->name_width, index + 1);
      break;
    }
}

static guint64
layout_total_bytes (const Layout *layout)
{
  guint64 total = 0;

  if (layout->min_size == layout->max_size)
    return layout->n_files * layout->min_size;

  for (guint64 i = 0; i < layout->n_files; i++)
    total += layout_file_size (layout, i);

  return total;
}

void
cs_scenario_estimate (CsScenario  scenario,
                      double      scale,
                      guint64    *out_files,
                      guint64    *out_bytes)
{
  Layout layout;

  g_return_if_fail (scenario < CS_N_SCENARIOS);
  g_return_if_fail (scale_is_valid (scale));

  layout_for_scenario (scenario, scale, &layout);

  if (out_files != NULL)
    *out_files = layout.n_files;
  if (out_bytes != NULL)
    *out_bytes = layout_total_bytes (&layout);
}

/*
 * xoshiro256** seeded through splitmix64. Zero bytes become another value so
 * no stretch of a file can look like a hole to a tool that detects zeros.
 */
static guint8 *
make_block (guint64 seed)
{
  guint8 *block = g_malloc (BLOCK_SIZE + CHUNK_SIZE);
  guint64 s[4];
  guint64 x = seed;

  for (guint i = 0; i < 4; i++)
    {
      x += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
      s[i] = mix64 (x);
    }

  for (gsize off = 0; off < BLOCK_SIZE; off += 8)
    {
      guint64 r = rotl64 (s[1] * 5, 7) * 9;
      guint64 t = s[1] << 17;

      s[2] ^= s[0];
      s[3] ^= s[1];
      s[1] ^= s[2];
      s[0] ^= s[3];
      s[2] ^= t;
      s[3] = rotl64 (s[3], 45);

      for (guint b = 0; b < 8; b++)
        {
          guint8 v = (guint8) (r >> (8 * b));
          block[off + b] = v != 0 ? v : 0xa5;
        }
    }

  memcpy (block + BLOCK_SIZE, block, CHUNK_SIZE);

  return block;
}

static void
set_error_from_errno (GError     **error,
                      int          saved_errno,
                      const char  *format,
                      const char  *path)
{
  g_autofree char *display = g_filename_display_name (path);
  g_autofree char *message = g_strdup_printf (format, display);

  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
               "%s: %s", message, g_strerror (saved_errno));
}

static gboolean
write_all (int           fd,
           const guint8 *data,
           gsize         len)
{
  while (len > 0)
    {
      ssize_t n = write (fd, data, len);

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return FALSE;
        }
      if (n == 0)
        {
          errno = ENOSPC;
          return FALSE;
        }

      data += n;
      len -= (gsize) n;
    }

  return TRUE;
}

static gboolean
stop_requested (GenContext *ctx)
{
  return atomic_load_explicit (&ctx->stop, memory_order_relaxed) != 0 ||
         g_cancellable_is_cancelled (ctx->cancellable);
}

/* any thread */
static void
context_fail (GenContext *ctx,
              GError     *error)
{
  _cs_mutex_lock (&ctx->lock);
  if (ctx->error == NULL)
    ctx->error = error;
  else
    g_error_free (error);
  atomic_store (&ctx->stop, 1);
  g_cond_broadcast (&ctx->cond);
  _cs_mutex_unlock (&ctx->lock);
}

/* worker thread */
static gboolean
write_one (GenContext *ctx,
           guint64     index,
           guint8     *head,
           GError    **error)
{
  const Layout *layout = ctx->layout;
  char folder[64];
  char name[64];
  char path[4096];
  guint64 size = layout_file_size (layout, index);
  guint64 stamp = hash3 (ctx->seed, layout->salt ^ 0x57a3b, index);
  guint64 written = 0;
  struct timespec times[2];
  int fd;

  layout_folder (layout, index, folder, sizeof folder);
  layout_file_name (layout, index, name, sizeof name);
  if (folder[0] != '\0')
    g_snprintf (path, sizeof path, "%s/%s/%s", ctx->root, folder, name);
  else
    g_snprintf (path, sizeof path, "%s/%s", ctx->root, name);

  do
    fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0644);
  while (fd < 0 && errno == EINTR);

  if (fd < 0)
    {
      set_error_from_errno (error, errno, _("Could not create “%s”"), path);
      return FALSE;
    }

  for (guint64 chunk = 0; written < size; chunk++)
    {
      gsize len = (gsize) MIN (CHUNK_SIZE, size - written);
      gsize offset = (gsize) (hash3 (ctx->seed, layout->salt ^ index, chunk) % BLOCK_SIZE);
      const guint8 *data = ctx->block + offset;

      if (chunk > 0 && stop_requested (ctx))
        {
          g_cancellable_set_error_if_cancelled (ctx->cancellable, error);
          close (fd);
          g_unlink (path);
          return FALSE;
        }

      if (chunk == 0)
        {
          memcpy (head, data, len);
          for (guint b = 0; b < STAMP_SIZE && b < len; b++)
            {
              guint8 v = (guint8) (stamp >> (8 * b));
              head[b] = v != 0 ? v : 0x5a;
            }
          data = head;
        }

      if (!write_all (fd, data, len))
        {
          int saved_errno = errno;

          set_error_from_errno (error, saved_errno, _("Could not write “%s”"), path);
          close (fd);
          g_unlink (path);
          return FALSE;
        }

      written += len;
      atomic_fetch_add_explicit (&ctx->bytes_done, len, memory_order_relaxed);
    }

  times[0].tv_sec = times[1].tv_sec = (time_t) (BASE_MTIME + (gint64) index);
  times[0].tv_nsec = times[1].tv_nsec = 0;
  if (futimens (fd, times) < 0)
    {
      int saved_errno = errno;

      set_error_from_errno (error, saved_errno, _("Could not set the times of “%s”"), path);
      close (fd);
      return FALSE;
    }

  /* A network filesystem may only report a failed write when the file closes. */
  if (close (fd) < 0 && errno != EINTR)
    {
      set_error_from_errno (error, errno, _("Could not write “%s”"), path);
      g_unlink (path);
      return FALSE;
    }

  atomic_fetch_add_explicit (&ctx->files_done, 1, memory_order_relaxed);

  return TRUE;
}

/* worker thread */
static gpointer
worker_main (gpointer data)
{
  GenContext *ctx = data;
  g_autofree guint8 *head = g_malloc (CHUNK_SIZE);

  while (!stop_requested (ctx))
    {
      g_autoptr(GError) error = NULL;
      guint64 index = atomic_fetch_add (&ctx->next_index, 1);

      if (index >= ctx->layout->n_files)
        break;

      if (!write_one (ctx, index, head, &error))
        {
          if (error != NULL)
            context_fail (ctx, g_steal_pointer (&error));
          break;
        }
    }

  _cs_mutex_lock (&ctx->lock);
  ctx->n_running--;
  g_cond_broadcast (&ctx->cond);
  _cs_mutex_unlock (&ctx->lock);

  return NULL;
}

static gboolean
make_folder (const char  *path,
             GError     **error)
{
  if (g_mkdir (path, 0755) == 0 || errno == EEXIST)
    return TRUE;

  set_error_from_errno (error, errno, _("Could not create the folder “%s”"), path);
  return FALSE;
}

/* The folders of the layout below the top one, parents before children. */
static GPtrArray *
layout_folders (const Layout *layout)
{
  GPtrArray *folders = g_ptr_array_new_with_free_func (g_free);
  guint64 n_leaves;

  switch (layout->kind)
    {
    case LAYOUT_IMAGES:
      n_leaves = (layout->n_files + IMAGES_PER_FOLDER - 1) / IMAGES_PER_FOLDER;
      for (guint64 leaf = 0; leaf < n_leaves; leaf++)
        g_ptr_array_add (folders, g_strdup_printf ("%03" G_GUINT64_FORMAT, leaf));
      break;

    case LAYOUT_MANY:
      n_leaves = (layout->n_files + MANY_PER_FOLDER - 1) / MANY_PER_FOLDER;
      for (guint64 leaf = 0; leaf < n_leaves; leaf++)
        {
          guint64 a = leaf / 100, b = (leaf / 10) % 10, c = leaf % 10;

          if (b == 0 && c == 0)
            g_ptr_array_add (folders, g_strdup_printf ("d%02" G_GUINT64_FORMAT, a));
          if (c == 0)
            g_ptr_array_add (folders, g_strdup_printf ("d%02" G_GUINT64_FORMAT "/d%" G_GUINT64_FORMAT,
                                                       a, b));
          g_ptr_array_add (folders,
                           g_strdup_printf ("d%02" G_GUINT64_FORMAT "/d%" G_GUINT64_FORMAT
                                            "/d%" G_GUINT64_FORMAT, a, b, c));
        }
      break;

    case LAYOUT_BIG:
    case LAYOUT_TEXT:
    case LAYOUT_SMALL:
    case LAYOUT_CUSTOM:
    default:
      break;
    }

  return folders;
}

static void
set_folder_time (const char *path)
{
  struct timespec times[2] = {
    { .tv_sec = (time_t) BASE_MTIME, .tv_nsec = 0 },
    { .tv_sec = (time_t) BASE_MTIME, .tv_nsec = 0 },
  };

  /* Only reproducibility depends on it; a folder whose time cannot be set is
   * still a usable source. */
  if (utimensat (AT_FDCWD, path, times, 0) < 0)
    g_debug ("Could not set the times of %s: %s", path, g_strerror (errno));
}

static void
report_progress (GenContext             *ctx,
                 guint64                 bytes_total,
                 CsGenerateProgressFunc  progress,
                 gpointer                user_data)
{
  if (progress != NULL)
    progress (atomic_load (&ctx->files_done), ctx->layout->n_files,
              atomic_load (&ctx->bytes_done), bytes_total, user_data);
}

static gboolean
generate_layout (const Layout            *layout,
                 const char              *dir,
                 guint64                  seed,
                 CsGenerateProgressFunc   progress,
                 gpointer                 user_data,
                 GCancellable            *cancellable,
                 GError                 **error)
{
  g_autoptr(GPtrArray) folders = NULL;
  g_autoptr(GPtrArray) threads = NULL;
  g_autofree guint8 *block = NULL;
  guint64 bytes_total = layout_total_bytes (layout);
  guint n_workers;
  GenContext ctx;
  gboolean ok;

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;

  if (g_mkdir_with_parents (dir, 0755) < 0)
    {
      set_error_from_errno (error, errno, _("Could not create the folder “%s”"), dir);
      return FALSE;
    }

  folders = layout_folders (layout);
  for (guint i = 0; i < folders->len; i++)
    {
      g_autofree char *path = g_build_filename (dir, g_ptr_array_index (folders, i), NULL);

      if (!make_folder (path, error))
        return FALSE;
    }

  block = make_block (seed);

  memset (&ctx, 0, sizeof ctx);
  ctx.layout = layout;
  ctx.root = dir;
  ctx.block = block;
  ctx.seed = seed;
  ctx.cancellable = cancellable;
  atomic_init (&ctx.next_index, 0);
  atomic_init (&ctx.files_done, 0);
  atomic_init (&ctx.bytes_done, 0);
  atomic_init (&ctx.stop, 0);
  g_mutex_init (&ctx.lock);
  g_cond_init (&ctx.cond);

  /* Creating many small files is bound by per-file system calls, which a few
   * threads overlap well; more than that only contends on the folder locks. */
  n_workers = (guint) CLAMP (g_get_num_processors (), 2, MAX_WORKERS);
  n_workers = (guint) MIN ((guint64) n_workers, layout->n_files);

  threads = g_ptr_array_new ();
  _cs_mutex_lock (&ctx.lock);
  for (guint i = 0; i < n_workers; i++)
    {
      GThread *thread = g_thread_try_new ("cs-generate", worker_main, &ctx, NULL);

      if (thread == NULL)
        break;
      g_ptr_array_add (threads, thread);
      ctx.n_running++;
    }
  _cs_mutex_unlock (&ctx.lock);

  /* Without a thread the caller does the work itself. */
  if (threads->len == 0)
    {
      ctx.n_running = 1;
      worker_main (&ctx);
    }

  _cs_mutex_lock (&ctx.lock);
  while (ctx.n_running > 0)
    {
      gint64 deadline = g_get_monotonic_time () + PROGRESS_INTERVAL_US;

      while (ctx.n_running > 0 && _cs_cond_wait_until (&ctx.cond, &ctx.lock, deadline))
        ;

      /* Once stopped, the writers are only finishing their chunk. */
      if (ctx.n_running > 0 && !stop_requested (&ctx))
        {
          _cs_mutex_unlock (&ctx.lock);
          report_progress (&ctx, bytes_total, progress, user_data);
          _cs_mutex_lock (&ctx.lock);
        }
    }
  _cs_mutex_unlock (&ctx.lock);

  for (guint i = 0; i < threads->len; i++)
    g_thread_join (g_ptr_array_index (threads, i));

  if (ctx.error == NULL)
    g_cancellable_set_error_if_cancelled (cancellable, &ctx.error);

  ok = ctx.error == NULL;
  if (ok)
    {
      /* Creating the files touched the folders; their times go last. */
      for (guint i = 0; i < folders->len; i++)
        {
          g_autofree char *path = g_build_filename (dir, g_ptr_array_index (folders, i), NULL);

          set_folder_time (path);
        }
      set_folder_time (dir);

      report_progress (&ctx, bytes_total, progress, user_data);
    }
  else
    {
      g_propagate_error (error, g_steal_pointer (&ctx.error));
    }

  g_mutex_clear (&ctx.lock);
  g_cond_clear (&ctx.cond);

  return ok;
}

gboolean
cs_generate_sync (CsScenario              scenario,
                  const char             *dir,
                  double                  scale,
                  guint64                 seed,
                  CsGenerateProgressFunc  progress,
                  gpointer                user_data,
                  GCancellable           *cancellable,
                  GError                **error)
{
  Layout layout;

  g_return_val_if_fail (scenario < CS_N_SCENARIOS, FALSE);
  g_return_val_if_fail (dir != NULL, FALSE);
  g_return_val_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!scale_is_valid (scale))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("The scale must be a number above 0"));
      return FALSE;
    }

  layout_for_scenario (scenario, scale, &layout);

  return generate_layout (&layout, dir, seed, progress, user_data, cancellable, error);
}

typedef struct {
  CsScenario              scenario;
  char                   *dir;
  double                  scale;
  guint64                 seed;
  CsGenerateProgressFunc  progress;
  gpointer                progress_data;
} GenerateTask;

static void
generate_task_free (gpointer data)
{
  GenerateTask *g = data;

  g_free (g->dir);
  g_free (g);
}

static gboolean
generate_task_run (gpointer       data,
                   GCancellable  *cancellable,
                   GError       **error)
{
  GenerateTask *g = data;

  return cs_generate_sync (g->scenario, g->dir, g->scale, g->seed, g->progress, g->progress_data,
                           cancellable, error);
}

void
cs_generate_async (CsScenario              scenario,
                   const char             *dir,
                   double                  scale,
                   guint64                 seed,
                   CsGenerateProgressFunc  progress,
                   gpointer                progress_data,
                   GCancellable           *cancellable,
                   GAsyncReadyCallback     callback,
                   gpointer                user_data)
{
  GenerateTask *g;

  g_return_if_fail (scenario < CS_N_SCENARIOS);
  g_return_if_fail (dir != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  g = g_new0 (GenerateTask, 1);
  *g = (GenerateTask) { scenario, g_strdup (dir), scale, seed, progress, progress_data };
  _cs_task_run_in_thread (cs_generate_async, g, generate_task_free, generate_task_run,
                          cancellable, callback, user_data);
}

gboolean
cs_generate_finish (GAsyncResult  *result,
                    GError       **error)
{
  return _cs_task_finish (result, cs_generate_async, error);
}

gboolean
cs_generate_files_sync (const char             *dir,
                        guint64                 n_files,
                        guint64                 file_size,
                        guint64                 seed,
                        CsGenerateProgressFunc  progress,
                        gpointer                user_data,
                        GCancellable           *cancellable,
                        GError                **error)
{
  Layout layout;
  g_autofree char *digits = NULL;

  g_return_val_if_fail (dir != NULL, FALSE);
  g_return_val_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (n_files == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("At least one file is needed"));
      return FALSE;
    }

  digits = g_strdup_printf ("%" G_GUINT64_FORMAT, n_files);

  memset (&layout, 0, sizeof layout);
  layout.kind = LAYOUT_CUSTOM;
  layout.n_files = n_files;
  layout.min_size = layout.max_size = file_size;
  layout.salt = mix64 (G_GUINT64_CONSTANT (0xc5f11e5));
  /* Names sort in creation order in a file manager and in `ls`. */
  layout.name_width = (guint) MAX (3, strlen (digits));

  return generate_layout (&layout, dir, seed, progress, user_data, cancellable, error);
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <glib/gi18n.h>

#include "cs-format.h"
#include "cs-kept.h"
#include "cs-resume-hint.h"

/*
 * A line under the destination, before Start: the big files an earlier copy
 * kept partial copies of, which this copy of the same sources into the same
 * destination goes on from ("big.bin will go on from 33.6 MB of 268.4 MB").
 * Looked for off the main thread (cs_kept_partials_find_async) whenever the
 * sources or the destination change, and when the page is shown again:
 * after a copy, what it kept or used up is different. Hidden when there is
 * nothing to go on from.
 */

/* Files named in the subtitle when several go on. */
#define MAX_NAMED 3

struct _CsResumeHint
{
  AdwActionRow   parent_instance;

  /* Owned */
  GListModel    *sources;
  GFile         *destination;
  GCancellable  *cancellable;
};

G_DEFINE_FINAL_TYPE (CsResumeHint, cs_resume_hint, ADW_TYPE_ACTION_ROW)

enum {
  PROP_0,
  PROP_DESTINATION,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* What the engine takes for @file: its path, or an smb:// URL. */
static char *
location_of (GFile *file)
{
  char *path = g_file_get_path (file);

  if (path == NULL && g_file_has_uri_scheme (file, "smb"))
    path = g_file_get_uri (file);
  return path;
}

static void
hide (CsResumeHint *self)
{
  /* Emptied too: a hidden row's text is nothing anyone should find. */
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self), "");
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self), "");
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
}

/* main thread */
static void
show (CsResumeHint *self,
      GPtrArray    *found)
{
  g_autofree char *title = NULL;
  g_autoptr(GString) names = g_string_new (NULL);
  guint64 kept = 0, size = 0;

  for (guint i = 0; i < found->len; i++)
    {
      CsKeptPartial *p = g_ptr_array_index (found, i);

      kept += cs_kept_partial_get_kept (p);
      size += cs_kept_partial_get_size (p);
      if (i < MAX_NAMED)
        g_string_append_printf (names, "%s%s", i > 0 ? "\n" : "", cs_kept_partial_get_path (p));
    }
  if (found->len > MAX_NAMED)
    g_string_append (names, "\n…");

  {
    g_autofree char *kept_text = _cs_format_bytes (kept);
    g_autofree char *size_text = _cs_format_bytes (size);

    if (found->len == 1)
      /* Translators: under the destination before a copy starts, like
       * "photos/video.mkv will go on from 17.9 GB of 20.0 GB, kept by an earlier copy" */
      title = g_strdup_printf (_("%s will go on from %s of %s, kept by an earlier copy"),
                               cs_kept_partial_get_path (g_ptr_array_index (found, 0)),
                               kept_text, size_text);
    else
      /* Translators: under the destination before a copy starts, like
       * "3 big files will go on from 17.9 GB of 20.0 GB, kept by an earlier copy";
       * their names follow below */
      title = g_strdup_printf (ngettext ("%u big file will go on from %s of %s, kept by an earlier copy",
                                         "%u big files will go on from %s of %s, kept by an earlier copy",
                                         found->len),
                               found->len, kept_text, size_text);
  }

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self), title);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self), found->len > 1 ? names->str : "");
  gtk_widget_set_visible (GTK_WIDGET (self), TRUE);
}

typedef struct {
  CsResumeHint *self;
  GCancellable *cancellable;  /* this lookup's: cancelled, it is not the latest */
} Lookup;

static void
lookup_free (Lookup *lookup)
{
  g_object_unref (lookup->self);
  g_object_unref (lookup->cancellable);
  g_free (lookup);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Lookup, lookup_free)

/* main thread */
static void
found_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(Lookup) lookup = user_data;
  CsResumeHint *self = lookup->self;
  g_autoptr(GPtrArray) found = NULL;
  g_autoptr(GError) error = NULL;

  found = cs_kept_partials_find_finish (result, &error);
  /* One finished just before a newer one was asked for says nothing either. */
  if (g_cancellable_is_cancelled (lookup->cancellable))
    return;
  if (self->cancellable == lookup->cancellable)
    g_clear_object (&self->cancellable);
  if (found == NULL || found->len == 0)
    hide (self);
  else
    show (self, found);
}

/* main thread: looks again, for the sources and destination as they are
 * now; the page calls it when it is shown again, as a copy that ran since
 * may have kept or used up partials. */
void
cs_resume_hint_refresh (CsResumeHint *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) sources = NULL;
  g_autofree char *destination = NULL;
  Lookup *lookup;
  guint n;

  g_return_if_fail (CS_IS_RESUME_HINT (self));

  n = self->sources != NULL ? g_list_model_get_n_items (self->sources) : 0;
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);

  if (self->destination != NULL)
    destination = location_of (self->destination);
  for (guint i = 0; i < n && destination != NULL; i++)
    {
      g_autoptr(GFile) file = g_list_model_get_item (self->sources, i);
      g_autofree char *location = location_of (file);

      if (location != NULL)
        g_strv_builder_add (builder, location);
    }
  sources = g_strv_builder_end (builder);
  if (destination == NULL || sources[0] == NULL)
    {
      hide (self);
      return;
    }

  self->cancellable = g_cancellable_new ();
  lookup = g_new0 (Lookup, 1);
  lookup->self = g_object_ref (self);
  lookup->cancellable = g_object_ref (self->cancellable);
  cs_kept_partials_find_async ((const char * const *) sources, destination, self->cancellable,
                               found_cb, lookup);
}

static void
sources_changed_cb (CsResumeHint *self)
{
  cs_resume_hint_refresh (self);
}

static void
cs_resume_hint_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  CsResumeHint *self = CS_RESUME_HINT (object);

  switch (prop_id)
    {
    case PROP_DESTINATION:
      g_value_set_object (value, self->destination);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cs_resume_hint_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  CsResumeHint *self = CS_RESUME_HINT (object);

  switch (prop_id)
    {
    case PROP_DESTINATION:
      cs_resume_hint_set_destination (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cs_resume_hint_dispose (GObject *object)
{
  CsResumeHint *self = CS_RESUME_HINT (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (self->sources != NULL)
    g_signal_handlers_disconnect_by_func (self->sources, sources_changed_cb, self);
  g_clear_object (&self->sources);
  g_clear_object (&self->destination);

  G_OBJECT_CLASS (cs_resume_hint_parent_class)->dispose (object);
}

static void
cs_resume_hint_class_init (CsResumeHintClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cs_resume_hint_dispose;
  object_class->get_property = cs_resume_hint_get_property;
  object_class->set_property = cs_resume_hint_set_property;

  /* The folder the sources are copied into. */
  properties[PROP_DESTINATION] =
    g_param_spec_object ("destination", NULL, NULL, G_TYPE_FILE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-resume-hint.ui");
}

static void
cs_resume_hint_init (CsResumeHint *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

/* The sources, a list of GFile, watched from now on. */
void
cs_resume_hint_set_sources (CsResumeHint *self,
                            GListModel   *sources)
{
  g_return_if_fail (CS_IS_RESUME_HINT (self));
  g_return_if_fail (sources == NULL || G_IS_LIST_MODEL (sources));

  if (self->sources == sources)
    return;
  if (self->sources != NULL)
    g_signal_handlers_disconnect_by_func (self->sources, sources_changed_cb, self);
  g_set_object (&self->sources, sources);
  if (sources != NULL)
    g_signal_connect_swapped (sources, "items-changed", G_CALLBACK (sources_changed_cb), self);
  cs_resume_hint_refresh (self);
}

GFile *
cs_resume_hint_get_destination (CsResumeHint *self)
{
  g_return_val_if_fail (CS_IS_RESUME_HINT (self), NULL);

  return self->destination;
}

void
cs_resume_hint_set_destination (CsResumeHint *self,
                                GFile        *destination)
{
  g_return_if_fail (CS_IS_RESUME_HINT (self));
  g_return_if_fail (destination == NULL || G_IS_FILE (destination));

  if (self->destination == destination
      || (self->destination != NULL && destination != NULL && g_file_equal (self->destination, destination)))
    return;
  g_set_object (&self->destination, destination);
  cs_resume_hint_refresh (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DESTINATION]);
}

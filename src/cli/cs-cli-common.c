/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-cli"

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gi18n.h>

#include "copyscope-engine.h"
#include "cs-cli.h"

void
cs_cli_usage_error (const char *command,
                    const char *format,
                    ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  g_printerr ("copyscope-cli %s: %s\n", command, message);
  g_printerr (_("Try “copyscope-cli %s --help”.\n"), command);
}

/* "50M", "50MB/s", "2.5G", "800k", "64Mi": decimal units as everywhere
 * (M = 10^6), binary ones with an "i", "B" and "/s" optional. */
gboolean
cs_cli_parse_rate (const char *text,
                   double     *out)
{
  static const struct { char letter; double decimal; double binary; } units[] = {
    { 'k', 1e3, 1024.0 }, { 'K', 1e3, 1024.0 }, { 'M', 1e6, 1048576.0 },
    { 'G', 1e9, 1073741824.0 }, { 'T', 1e12, 1099511627776.0 },
  };
  char *end = NULL;
  double v, scale = 1;

  if (text == NULL || !g_ascii_isdigit (text[0]))
    return FALSE;
  v = g_ascii_strtod (text, &end);
  if (end == text || !(v >= 0) || !isfinite (v))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (units) && *end != '\0'; i++)
    if (*end == units[i].letter)
      {
        end++;
        scale = *end == 'i' ? units[i].binary : units[i].decimal;
        if (*end == 'i')
          end++;
        break;
      }
  if (*end == 'B')
    end++;
  if (g_str_equal (end, "/s"))
    end += 2;
  if (*end != '\0')
    return FALSE;
  *out = v * scale;
  return *out < 1e15;
}

/* "500", "500/s", "2.5/s" */
gboolean
cs_cli_parse_files_rate (const char *text,
                         double     *out)
{
  char *end = NULL;
  double v;

  if (text == NULL || !g_ascii_isdigit (text[0]))
    return FALSE;
  v = g_ascii_strtod (text, &end);
  if (end == text || !(v >= 0) || !isfinite (v) || v > 1e9)
    return FALSE;
  if (g_str_equal (end, "/s"))
    end += 2;
  if (*end != '\0')
    return FALSE;
  *out = v;
  return TRUE;
}

/* A password typed into an smb:// location, "smb://user:secret@nas/share",
 * is taken for the login (cs_smb_location_take_password ()) and out of the
 * process's command line too, where ps shows it to every user of the
 * machine: the argument keeps the location without it. Before the options
 * are parsed, so that no copy of it is made. Said once, with what keeps it
 * out of the shell's history as well. */
void
cs_cli_take_smb_passwords (int    argc,
                           char **argv)
{
  gboolean said = FALSE;

  for (int i = 1; i < argc; i++)
    {
      g_autofree char *redacted = NULL;
      gboolean taken;
      gsize len;

      if (!g_str_has_prefix (argv[i], "smb://"))
        continue;
      redacted = cs_smb_location_take_password (argv[i], &taken);
      if (!taken)
        continue;
      len = strlen (argv[i]);
      explicit_bzero (argv[i], len);
      /* GUri may escape a space, making it longer than the argument. */
      if (strlen (redacted) <= len)
        memcpy (argv[i], redacted, strlen (redacted));
      else
        argv[i] = g_steal_pointer (&redacted);   /* the process's to the end */
      if (!said)
        g_printerr ("copyscope-cli: %s\n",
                    _("the password in the smb:// location is used to log in, and kept out of "
                      "the record, the log and every message; COPYSCOPE_SMB_PASSWORD, --auth-file "
                      "or the keyring keep it out of the shell's history as well"));
      said = TRUE;
    }
}

/* The password for smb:// locations, never from the command line (where
 * ps shows it): the environment, or a file in smbclient -A's format
 * ("username = …", "password = …", "domain = …"), which may give the user
 * for URLs that name none. */
gboolean
cs_cli_load_smb_credentials (const char  *auth_file,
                             GError     **error)
{
  g_autofree char *contents = NULL;
  g_autofree char *user = NULL;
  g_autofree char *password = NULL;
  g_auto(GStrv) lines = NULL;

  if (auth_file == NULL)
    {
      const char *env = g_getenv ("COPYSCOPE_SMB_PASSWORD");

      if (env != NULL)
        cs_smb_set_credentials (NULL, env);
      return TRUE;
    }
  if (!g_file_get_contents (auth_file, &contents, NULL, error))
    return FALSE;
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *eq = strchr (lines[i], '=');
      g_autofree char *key = NULL;

      if (eq == NULL)
        continue;
      key = g_strstrip (g_strndup (lines[i], (gsize) (eq - lines[i])));
      if (strcmp (key, "username") == 0)
        {
          g_free (user);
          user = g_strdup (g_strstrip (eq + 1));
        }
      else if (strcmp (key, "password") == 0)
        {
          g_free (password);
          password = g_strdup (g_strstrip (eq + 1));
        }
    }
  explicit_bzero (contents, strlen (contents));
  if (password == NULL)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   _("%s has no line “password = …”"), auth_file);
      return FALSE;
    }
  cs_smb_set_credentials (user, password);
  explicit_bzero (password, strlen (password));
  return TRUE;
}

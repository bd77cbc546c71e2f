/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * Names shown as plain text: the per-file log, the terminal, the history
 * list, the record's display form of a path and the reports' text. HTML,
 * CSV and Markdown add their own escaping on top (src/report); this one
 * says which bytes a name holds.
 *
 * CS_TEXT_ESCAPE_LINE: one line that says exactly which file, whatever bytes
 * it holds: a backslash is written "\\", a tab "\t", a newline "\n", a
 * carriage return "\r", and any other byte below 0x20, the byte 0x7f and
 * every byte that is not part of valid UTF-8 as "\xHH" (two lowercase hex
 * digits). Everything else is written as it is, so the text is valid UTF-8,
 * can drive no terminal and breaks no line, and cs_text_unescape () gives
 * the bytes back.
 *
 * CS_TEXT_ESCAPE_INVALID: valid UTF-8 as it is, only the bytes that are not
 * part of it as "\xHH", so two names that differ in such a byte do not read
 * alike (one U+FFFD for all would). For text that is escaped again after
 * (the run record's JSON), and beside the exact bytes.
 */
typedef enum {
  CS_TEXT_ESCAPE_LINE,
  CS_TEXT_ESCAPE_INVALID,
} CsTextEscape;

/* @bytes (filename encoding, or any bytes; @len -1 when NUL-terminated)
 * escaped as @what says; never NULL. */
char *cs_text_escape   (const char    *bytes,
                        gssize         len,
                        CsTextEscape   what);
/* The bytes a CS_TEXT_ESCAPE_LINE @text stands for, or NULL (with @error)
 * when it is not one: a stray backslash, a tab, a newline, or "\x00" (names
 * hold no NUL). */
char *cs_text_unescape (const char    *text,
                        GError       **error);

G_END_DECLS

/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * The engine's I/O errors are GIO's: the same domain ("g-io-error-quark")
 * and the same codes, so the window and any caller that links GIO match them
 * with G_IO_ERROR and GIOErrorEnum as before. The engine itself does not link
 * GIO (see cs-cancellable.h for why), so it names them here; a test checks
 * every value and the errno mapping against GIO's.
 */
#define CS_IO_ERROR (cs_io_error_quark ())

typedef enum {
  CS_IO_ERROR_FAILED              = 0,
  CS_IO_ERROR_NOT_FOUND           = 1,
  CS_IO_ERROR_EXISTS              = 2,
  CS_IO_ERROR_IS_DIRECTORY        = 3,
  CS_IO_ERROR_NOT_DIRECTORY       = 4,
  CS_IO_ERROR_NOT_EMPTY           = 5,
  CS_IO_ERROR_NOT_REGULAR_FILE    = 6,
  CS_IO_ERROR_NOT_SYMBOLIC_LINK   = 7,
  CS_IO_ERROR_NOT_MOUNTABLE_FILE  = 8,
  CS_IO_ERROR_FILENAME_TOO_LONG   = 9,
  CS_IO_ERROR_INVALID_FILENAME    = 10,
  CS_IO_ERROR_TOO_MANY_LINKS      = 11,
  CS_IO_ERROR_NO_SPACE            = 12,
  CS_IO_ERROR_INVALID_ARGUMENT    = 13,
  CS_IO_ERROR_PERMISSION_DENIED   = 14,
  CS_IO_ERROR_NOT_SUPPORTED       = 15,
  CS_IO_ERROR_NOT_MOUNTED         = 16,
  CS_IO_ERROR_ALREADY_MOUNTED     = 17,
  CS_IO_ERROR_CLOSED              = 18,
  CS_IO_ERROR_CANCELLED           = 19,
  CS_IO_ERROR_PENDING             = 20,
  CS_IO_ERROR_READ_ONLY           = 21,
  CS_IO_ERROR_CANT_CREATE_BACKUP  = 22,
  CS_IO_ERROR_WRONG_ETAG          = 23,
  CS_IO_ERROR_TIMED_OUT           = 24,
  CS_IO_ERROR_WOULD_RECURSE       = 25,
  CS_IO_ERROR_BUSY                = 26,
  CS_IO_ERROR_WOULD_BLOCK         = 27,
  CS_IO_ERROR_HOST_NOT_FOUND      = 28,
  CS_IO_ERROR_WOULD_MERGE         = 29,
  CS_IO_ERROR_FAILED_HANDLED      = 30,
  CS_IO_ERROR_TOO_MANY_OPEN_FILES = 31,
  CS_IO_ERROR_NOT_INITIALIZED     = 32,
  CS_IO_ERROR_ADDRESS_IN_USE      = 33,
  CS_IO_ERROR_PARTIAL_INPUT       = 34,
  CS_IO_ERROR_INVALID_DATA        = 35,
  CS_IO_ERROR_DBUS_ERROR          = 36,
  CS_IO_ERROR_HOST_UNREACHABLE    = 37,
  CS_IO_ERROR_NETWORK_UNREACHABLE = 38,
  CS_IO_ERROR_CONNECTION_REFUSED  = 39,
  CS_IO_ERROR_PROXY_FAILED        = 40,
  CS_IO_ERROR_PROXY_AUTH_FAILED   = 41,
  CS_IO_ERROR_PROXY_NEED_AUTH     = 42,
  CS_IO_ERROR_PROXY_NOT_ALLOWED   = 43,
  CS_IO_ERROR_BROKEN_PIPE         = 44,
  CS_IO_ERROR_NOT_CONNECTED       = 45,
  CS_IO_ERROR_MESSAGE_TOO_LARGE   = 46,
  CS_IO_ERROR_NO_SUCH_DEVICE      = 47,
} CsIOErrorEnum;

GQuark        cs_io_error_quark      (void);
/* g_io_error_from_errno (), for the errnos a copy meets */
CsIOErrorEnum cs_io_error_from_errno (int err_no);

G_END_DECLS

/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>

#include "cs-io-error.h"

GQuark
cs_io_error_quark (void)
{
  /* GIO's own domain string: g_quark_from_static_string () hands back the
   * quark G_IO_ERROR already has, or the one it will get. */
  return g_quark_from_static_string ("g-io-error-quark");
}

CsIOErrorEnum
cs_io_error_from_errno (int err_no)
{
  switch (err_no)
    {
    case EEXIST:       return CS_IO_ERROR_EXISTS;
    case EISDIR:       return CS_IO_ERROR_IS_DIRECTORY;
    case EACCES:       return CS_IO_ERROR_PERMISSION_DENIED;
    case ENAMETOOLONG: return CS_IO_ERROR_FILENAME_TOO_LONG;
    case ENOENT:       return CS_IO_ERROR_NOT_FOUND;
    case ENOTDIR:      return CS_IO_ERROR_NOT_DIRECTORY;
    case ENXIO:        return CS_IO_ERROR_NOT_REGULAR_FILE;
    case EROFS:        return CS_IO_ERROR_READ_ONLY;
    case ELOOP:        return CS_IO_ERROR_TOO_MANY_LINKS;
    case EMLINK:       return CS_IO_ERROR_TOO_MANY_LINKS;
    case ENOSPC:       return CS_IO_ERROR_NO_SPACE;
    case ENOMEM:       return CS_IO_ERROR_NO_SPACE;
    case EINVAL:       return CS_IO_ERROR_INVALID_ARGUMENT;
    case EPERM:        return CS_IO_ERROR_PERMISSION_DENIED;
    case ECANCELED:    return CS_IO_ERROR_CANCELLED;
    case ENOTEMPTY:    return CS_IO_ERROR_NOT_EMPTY;
    case ENOTSUP:      return CS_IO_ERROR_NOT_SUPPORTED;
    case EPROTONOSUPPORT:  return CS_IO_ERROR_NOT_SUPPORTED;
    case ESOCKTNOSUPPORT:  return CS_IO_ERROR_NOT_SUPPORTED;
    case EPFNOSUPPORT:     return CS_IO_ERROR_NOT_SUPPORTED;
    case EAFNOSUPPORT:     return CS_IO_ERROR_NOT_SUPPORTED;
    case ETIMEDOUT:    return CS_IO_ERROR_TIMED_OUT;
    case EBUSY:        return CS_IO_ERROR_BUSY;
    case EAGAIN:       return CS_IO_ERROR_WOULD_BLOCK;
    case EMFILE:       return CS_IO_ERROR_TOO_MANY_OPEN_FILES;
    case EADDRINUSE:   return CS_IO_ERROR_ADDRESS_IN_USE;
    case EHOSTUNREACH: return CS_IO_ERROR_HOST_UNREACHABLE;
    case ENETUNREACH:  return CS_IO_ERROR_NETWORK_UNREACHABLE;
    case ECONNREFUSED: return CS_IO_ERROR_CONNECTION_REFUSED;
    case EPIPE:        return CS_IO_ERROR_BROKEN_PIPE;
    case ECONNRESET:   return CS_IO_ERROR_BROKEN_PIPE;
    case ENOTCONN:     return CS_IO_ERROR_NOT_CONNECTED;
    case EMSGSIZE:     return CS_IO_ERROR_MESSAGE_TOO_LARGE;
    case ENOTSOCK:     return CS_IO_ERROR_INVALID_ARGUMENT;
    case ENODEV:       return CS_IO_ERROR_NO_SUCH_DEVICE;
    case ENFILE:       return CS_IO_ERROR_TOO_MANY_OPEN_FILES;
    case ETXTBSY:      return CS_IO_ERROR_BUSY;
    case ENOSYS:       return CS_IO_ERROR_NOT_SUPPORTED;
    case ENOMSG:       return CS_IO_ERROR_INVALID_DATA;
    case ENODATA:      return CS_IO_ERROR_INVALID_DATA;
    case EBADMSG:      return CS_IO_ERROR_INVALID_DATA;
    case ENETDOWN:     return CS_IO_ERROR_NETWORK_UNREACHABLE;
    default:           return CS_IO_ERROR_FAILED;
    }
}

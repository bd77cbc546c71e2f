/* SPDX-License-Identifier: GPL-3.0-or-later */

/* csnasfs: the lab NAS.  A FUSE passthrough of a backing folder that behaves
 * like a share across a network: every request waits a configurable round
 * trip, read and write bytes share one link-sized token bucket, and faults
 * (EIO at an offset, a full disk, failing fsync, a hang, a vanished server)
 * can be switched on at start or while mounted.
 *
 * Requests run on many threads and sleep inside the handler, so parallel
 * requests overlap the way they do against a real NAS: one thread sees the
 * full latency per request, eight threads keep eight requests in flight.
 *
 * Runtime control goes through a UNIX socket outside the mount (-o control=PATH,
 * client: csnasfs --control PATH COMMAND...).  A control file inside the mount
 * would be stuck behind the very hang it is meant to clear, and would show up
 * in every tree copied off the share.
 */

/* 3.12 for fuse_loop_cfg_set_max_threads (); Debian 12 ships 3.14. */
#define FUSE_USE_VERSION 312

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <fuse.h>
#include <fuse_lowlevel.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

#define NAS_MAX_EIO_RULES 16
#define NAS_CONTROL_MAX 4096
/* Sustained rate is the cap; this much may go out back to back first, like
 * the buffers of a switch port. */
#define NAS_BURST_NS 2000000

typedef enum
{
  OP_GETATTR,
  OP_READLINK,
  OP_MKNOD,
  OP_MKDIR,
  OP_UNLINK,
  OP_RMDIR,
  OP_SYMLINK,
  OP_RENAME,
  OP_LINK,
  OP_CHMOD,
  OP_CHOWN,
  OP_TRUNCATE,
  OP_OPEN,
  OP_READ,
  OP_WRITE,
  OP_STATFS,
  OP_FLUSH,
  OP_RELEASE,
  OP_FSYNC,
  OP_SETXATTR,
  OP_GETXATTR,
  OP_LISTXATTR,
  OP_REMOVEXATTR,
  OP_OPENDIR,
  OP_READDIR,
  OP_RELEASEDIR,
  OP_FSYNCDIR,
  OP_ACCESS,
  OP_CREATE,
  OP_UTIMENS,
  OP_FALLOCATE,
  OP_LSEEK,
  N_OPS
} NasOp;

static const char * const op_names[N_OPS] = {
  [OP_GETATTR] = "getattr",
  [OP_READLINK] = "readlink",
  [OP_MKNOD] = "mknod",
  [OP_MKDIR] = "mkdir",
  [OP_UNLINK] = "unlink",
  [OP_RMDIR] = "rmdir",
  [OP_SYMLINK] = "symlink",
  [OP_RENAME] = "rename",
  [OP_LINK] = "link",
  [OP_CHMOD] = "chmod",
  [OP_CHOWN] = "chown",
  [OP_TRUNCATE] = "truncate",
  [OP_OPEN] = "open",
  [OP_READ] = "read",
  [OP_WRITE] = "write",
  [OP_STATFS] = "statfs",
  [OP_FLUSH] = "flush",
  [OP_RELEASE] = "release",
  [OP_FSYNC] = "fsync",
  [OP_SETXATTR] = "setxattr",
  [OP_GETXATTR] = "getxattr",
  [OP_LISTXATTR] = "listxattr",
  [OP_REMOVEXATTR] = "removexattr",
  [OP_OPENDIR] = "opendir",
  [OP_READDIR] = "readdir",
  [OP_RELEASEDIR] = "releasedir",
  [OP_FSYNCDIR] = "fsyncdir",
  [OP_ACCESS] = "access",
  [OP_CREATE] = "create",
  [OP_UTIMENS] = "utimens",
  [OP_FALLOCATE] = "fallocate",
  [OP_LSEEK] = "lseek",
};

typedef struct
{
  char *glob;
  uint64_t offset;
  /* 0 fails forever (a bad sector); N fails N times, then reads and writes
   * go through again (a transient error a retry should survive). */
  unsigned int remaining;
  bool sticky;
  /* An unlink-fail rule: unlink of a matching name fails with EIO; the
   * offset is not used. */
  bool unlink;
} EioRule;

typedef struct
{
  /* Fixed after start */
  int backing_fd;
  char *backing_path;
  char *control_path;
  int control_fd;
  struct fuse *fuse;
  bool rename_noreplace;
  bool no_chown;
  long time_granularity_ns;

  /* Tunable at run time; read without a lock on every request */
  atomic_uint latency_us;
  atomic_uint bandwidth_kbps;   /* kB/s, 0 = unlimited */
  atomic_bool enospc;
  atomic_bool fsync_fail;
  atomic_bool hang;
  atomic_bool vanish;
  atomic_uint n_eio_rules;

  /* Protects eio_rules, the hang condition and the token bucket */
  pthread_mutex_t lock;
  pthread_cond_t unhang;
  EioRule eio_rules[NAS_MAX_EIO_RULES];
  uint64_t bucket_next_ns;

  atomic_uint_fast64_t op_count[N_OPS];
  atomic_uint_fast64_t bytes_read;
  atomic_uint_fast64_t bytes_written;
  atomic_uint_fast64_t faults_injected;
} Nas;

static Nas nas = {
  .backing_fd = -1,
  .control_fd = -1,
  .rename_noreplace = true,
  .time_granularity_ns = 1,
  .latency_us = 1000,
  .bandwidth_kbps = 110000,
  .lock = PTHREAD_MUTEX_INITIALIZER,
  .unhang = PTHREAD_COND_INITIALIZER,
};

/* ---- time ---------------------------------------------------------------- */

static uint64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* Absolute deadline, so a signal interrupting the sleep does not shorten
 * the simulated round trip. */
static void
sleep_until_ns (uint64_t deadline)
{
  struct timespec ts = {
    .tv_sec = (time_t) (deadline / 1000000000u),
    .tv_nsec = (long) (deadline % 1000000000u),
  };

  while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
    ;
}

static void
apply_latency (void)
{
  unsigned int us = atomic_load_explicit (&nas.latency_us, memory_order_relaxed);

  if (us > 0)
    sleep_until_ns (now_ns () + (uint64_t) us * 1000u);
}

/* One bucket for both directions: a gigabit link is shared by whatever is in
 * flight, not multiplied by the number of threads. */
static void
apply_bandwidth (size_t bytes)
{
  unsigned int kbps = atomic_load_explicit (&nas.bandwidth_kbps, memory_order_relaxed);
  uint64_t now, deadline;

  if (kbps == 0 || bytes == 0)
    return;

  now = now_ns ();
  pthread_mutex_lock (&nas.lock);
  if (nas.bucket_next_ns + NAS_BURST_NS < now)
    nas.bucket_next_ns = now - NAS_BURST_NS;
  nas.bucket_next_ns += (uint64_t) bytes * 1000000u / kbps;
  deadline = nas.bucket_next_ns;
  pthread_mutex_unlock (&nas.lock);

  if (deadline > now)
    sleep_until_ns (deadline);
}

static void
coarsen_timespec (struct timespec *ts)
{
  long g = nas.time_granularity_ns;

  if (g <= 1 || ts->tv_nsec == UTIME_NOW || ts->tv_nsec == UTIME_OMIT)
    return;
  if (g >= 1000000000L)
    {
      time_t gs = g / 1000000000L;

      ts->tv_sec -= ((ts->tv_sec % gs) + gs) % gs;
      ts->tv_nsec = 0;
    }
  else
    ts->tv_nsec -= ts->tv_nsec % g;
}

/* ---- faults -------------------------------------------------------------- */

static bool
session_exited (void)
{
  return nas.fuse != NULL && fuse_session_exited (fuse_get_session (nas.fuse));
}

static bool
op_is_setattr (NasOp op)
{
  return op == OP_CHMOD || op == OP_CHOWN || op == OP_TRUNCATE || op == OP_UTIMENS;
}

/* libfuse's high-level API answers one kernel request with several calls:
 * CREATE, MKDIR, MKNOD, SYMLINK and LINK are followed by a getattr for the
 * reply, and one SETATTR becomes chmod, chown, truncate and utimens in turn,
 * then a getattr.  A network round trip is paid once per request, so a call
 * that follows the previous one of its request on the same thread without a
 * pause is not delayed again, nor counted.  A fresh request reaching this
 * thread within the window would be let through early; with many idle
 * threads that is rare, and it only ever shortens a wait. */
#define NAS_FOLLOWUP_WINDOW_NS 250000

static __thread NasOp tl_last_op = N_OPS;
static __thread uint64_t tl_last_work_ns;

static bool
op_is_followup (NasOp op,
                uint64_t now)
{
  NasOp last = tl_last_op;

  if (now - tl_last_work_ns > NAS_FOLLOWUP_WINDOW_NS)
    return false;
  if (op == OP_GETATTR)
    return last == OP_CREATE || last == OP_MKDIR || last == OP_MKNOD || last == OP_SYMLINK
           || last == OP_LINK || op_is_setattr (last);
  return op_is_setattr (op) && op_is_setattr (last);
}

/* Every request passes here first.  A hang holds the request until the switch
 * is cleared, or the session ends so that unmounting never waits on it. */
static int
op_begin (NasOp op)
{
  if (op_is_followup (op, now_ns ()))
    {
      tl_last_op = op;
      tl_last_work_ns = now_ns ();
      return 0;
    }
  atomic_fetch_add_explicit (&nas.op_count[op], 1, memory_order_relaxed);

  if (atomic_load (&nas.hang))
    {
      pthread_mutex_lock (&nas.lock);
      while (atomic_load (&nas.hang) && !atomic_load (&nas.vanish) && !session_exited ())
        {
          struct timespec ts;

          clock_gettime (CLOCK_MONOTONIC, &ts);
          ts.tv_nsec += 100000000L;
          if (ts.tv_nsec >= 1000000000L)
            {
              ts.tv_sec++;
              ts.tv_nsec -= 1000000000L;
            }
          pthread_cond_timedwait (&nas.unhang, &nas.lock, &ts);
        }
      pthread_mutex_unlock (&nas.lock);
      if (session_exited ())
        return -EIO;
    }

  if (atomic_load (&nas.vanish))
    {
      atomic_fetch_add (&nas.faults_injected, 1);
      return -ENOTCONN;
    }

  apply_latency ();
  tl_last_op = op;
  tl_last_work_ns = now_ns ();
  return 0;
}

#define OP_BEGIN(op) \
  do { \
    int gate_ = op_begin (op); \
    if (gate_ < 0) \
      return gate_; \
  } while (0)

static int
fault_enospc (void)
{
  if (atomic_load (&nas.enospc))
    {
      atomic_fetch_add (&nas.faults_injected, 1);
      return -ENOSPC;
    }
  return 0;
}

static bool
eio_rule_matches (const EioRule *rule,
                  const char    *path)
{
  const char *base;

  /* A glob with a slash names a path in the share; without one, a file name
   * anywhere in it. */
  if (strchr (rule->glob, '/') != NULL)
    return fnmatch (rule->glob, path, FNM_PATHNAME | FNM_PERIOD) == 0;
  base = strrchr (path, '/');
  base = base != NULL ? base + 1 : path;
  return fnmatch (rule->glob, base, FNM_PERIOD) == 0;
}

static int
fault_eio (const char *path,
           off_t       offset,
           size_t      size)
{
  int ret = 0;

  if (atomic_load (&nas.n_eio_rules) == 0 || size == 0 || path == NULL)
    return 0;

  pthread_mutex_lock (&nas.lock);
  for (unsigned int i = 0; i < atomic_load (&nas.n_eio_rules); i++)
    {
      EioRule *rule = &nas.eio_rules[i];

      if (rule->unlink || (!rule->sticky && rule->remaining == 0))
        continue;
      if (rule->offset < (uint64_t) offset || rule->offset >= (uint64_t) offset + size)
        continue;
      if (!eio_rule_matches (rule, path))
        continue;
      if (!rule->sticky)
        rule->remaining--;
      ret = -EIO;
      break;
    }
  pthread_mutex_unlock (&nas.lock);

  if (ret != 0)
    atomic_fetch_add (&nas.faults_injected, 1);
  return ret;
}

/* An unlink-fail rule for @path: EIO, as a server whose disk refused to
 * remove the name, that many times. */
static int
fault_unlink (const char *path)
{
  int ret = 0;

  if (atomic_load (&nas.n_eio_rules) == 0)
    return 0;

  pthread_mutex_lock (&nas.lock);
  for (unsigned int i = 0; i < atomic_load (&nas.n_eio_rules); i++)
    {
      EioRule *rule = &nas.eio_rules[i];

      if (!rule->unlink || (!rule->sticky && rule->remaining == 0) || !eio_rule_matches (rule, path))
        continue;
      if (!rule->sticky)
        rule->remaining--;
      ret = -EIO;
      break;
    }
  pthread_mutex_unlock (&nas.lock);

  if (ret != 0)
    atomic_fetch_add (&nas.faults_injected, 1);
  return ret;
}

/* ---- control ------------------------------------------------------------- */

static void
eio_rules_clear_locked (void)
{
  for (unsigned int i = 0; i < atomic_load (&nas.n_eio_rules); i++)
    free (nas.eio_rules[i].glob);
  atomic_store (&nas.n_eio_rules, 0);
}

/* Removes the rules of one kind (eio-at or unlink-fail), keeping the others. */
static void
eio_rules_clear_kind_locked (bool unlink)
{
  unsigned int kept = 0;

  for (unsigned int i = 0; i < atomic_load (&nas.n_eio_rules); i++)
    if (nas.eio_rules[i].unlink == unlink)
      free (nas.eio_rules[i].glob);
    else
      nas.eio_rules[kept++] = nas.eio_rules[i];
  atomic_store (&nas.n_eio_rules, kept);
}

static bool
parse_uint (const char   *s,
            unsigned int *out)
{
  char *end;
  unsigned long v;

  if (s == NULL || *s == '\0' || *s == '-')
    return false;
  errno = 0;
  v = strtoul (s, &end, 10);
  if (errno != 0 || *end != '\0' || v > UINT_MAX)
    return false;
  *out = (unsigned int) v;
  return true;
}

static bool
parse_bool_value (const char *value,
                  bool       *out)
{
  if (value == NULL || strcmp (value, "1") == 0 || strcmp (value, "on") == 0)
    *out = true;
  else if (strcmp (value, "0") == 0 || strcmp (value, "off") == 0)
    *out = false;
  else
    return false;
  return true;
}

/* GLOB:OFFSET or GLOB:OFFSET:COUNT, split from the right so a glob may
 * itself contain colons. */
static int
add_eio_rule (const char *spec,
              char       *reply,
              size_t      reply_len)
{
  char *copy = strdup (spec);
  char *colon, *colon2;
  unsigned int count = 0;
  unsigned long long offset;
  char *end;
  EioRule *rule;

  if (copy == NULL)
    return -ENOMEM;

  colon = strrchr (copy, ':');
  if (colon == NULL)
    goto invalid;
  *colon = '\0';
  colon2 = strrchr (copy, ':');
  if (colon2 != NULL && colon2[1] != '\0' && strspn (colon2 + 1, "0123456789") == strlen (colon2 + 1))
    {
      if (!parse_uint (colon + 1, &count))
        goto invalid;
      *colon2 = '\0';
      colon = colon2;
    }
  if (copy[0] == '\0' || colon[1] == '\0' || colon[1] == '-')
    goto invalid;
  errno = 0;
  offset = strtoull (colon + 1, &end, 10);
  if (errno != 0 || *end != '\0')
    goto invalid;

  pthread_mutex_lock (&nas.lock);
  if (atomic_load (&nas.n_eio_rules) >= NAS_MAX_EIO_RULES)
    {
      pthread_mutex_unlock (&nas.lock);
      free (copy);
      snprintf (reply, reply_len, "too many eio-at rules (at most %d)", NAS_MAX_EIO_RULES);
      return -ENOSPC;
    }
  rule = &nas.eio_rules[atomic_load (&nas.n_eio_rules)];
  rule->glob = copy;
  rule->offset = offset;
  rule->remaining = count;
  rule->sticky = count == 0;
  rule->unlink = false;
  atomic_fetch_add (&nas.n_eio_rules, 1);
  pthread_mutex_unlock (&nas.lock);
  return 0;

invalid:
  free (copy);
  snprintf (reply, reply_len, "expected eio-at=GLOB:OFFSET[:COUNT]");
  return -EINVAL;
}

/* GLOB or GLOB:COUNT, the count split from the right. */
static int
add_unlink_rule (const char *spec,
                 char       *reply,
                 size_t      reply_len)
{
  char *copy = strdup (spec);
  char *colon;
  unsigned int count = 0;
  EioRule *rule;

  if (copy == NULL)
    return -ENOMEM;
  colon = strrchr (copy, ':');
  if (colon != NULL && colon[1] != '\0' && strspn (colon + 1, "0123456789") == strlen (colon + 1))
    {
      if (!parse_uint (colon + 1, &count))
        {
          free (copy);
          snprintf (reply, reply_len, "expected unlink-fail=GLOB[:COUNT]");
          return -EINVAL;
        }
      *colon = '\0';
    }
  if (copy[0] == '\0')
    {
      free (copy);
      snprintf (reply, reply_len, "expected unlink-fail=GLOB[:COUNT]");
      return -EINVAL;
    }

  pthread_mutex_lock (&nas.lock);
  if (atomic_load (&nas.n_eio_rules) >= NAS_MAX_EIO_RULES)
    {
      pthread_mutex_unlock (&nas.lock);
      free (copy);
      snprintf (reply, reply_len, "too many eio-at and unlink-fail rules (at most %d)", NAS_MAX_EIO_RULES);
      return -ENOSPC;
    }
  rule = &nas.eio_rules[atomic_load (&nas.n_eio_rules)];
  *rule = (EioRule) { .glob = copy, .remaining = count, .sticky = count == 0, .unlink = true };
  atomic_fetch_add (&nas.n_eio_rules, 1);
  pthread_mutex_unlock (&nas.lock);
  return 0;
}

static void
wake_hung_requests (void)
{
  pthread_mutex_lock (&nas.lock);
  pthread_cond_broadcast (&nas.unhang);
  pthread_mutex_unlock (&nas.lock);
}

static void
append (char       **buf,
        size_t      *left,
        const char  *fmt,
        ...) __attribute__ ((format (printf, 3, 4)));

static void
append (char       **buf,
        size_t      *left,
        const char  *fmt,
        ...)
{
  va_list ap;
  int n;

  if (*left == 0)
    return;
  va_start (ap, fmt);
  n = vsnprintf (*buf, *left, fmt, ap);
  va_end (ap);
  if (n < 0)
    return;
  if ((size_t) n >= *left)
    n = (int) *left - 1;
  *buf += n;
  *left -= (size_t) n;
}

static void
format_status (char   *buf,
               size_t  len)
{
  unsigned int kbps = atomic_load (&nas.bandwidth_kbps);
  uint64_t total = 0;

  append (&buf, &len, "latency-us=%u\n", atomic_load (&nas.latency_us));
  append (&buf, &len, "bandwidth-mbps=%u.%03u\n", kbps / 1000, kbps % 1000);
  append (&buf, &len, "enospc=%d\n", atomic_load (&nas.enospc));
  append (&buf, &len, "fsync-fail=%d\n", atomic_load (&nas.fsync_fail));
  append (&buf, &len, "hang=%d\n", atomic_load (&nas.hang));
  append (&buf, &len, "vanish=%d\n", atomic_load (&nas.vanish));
  pthread_mutex_lock (&nas.lock);
  for (unsigned int i = 0; i < atomic_load (&nas.n_eio_rules); i++)
    {
      const EioRule *rule = &nas.eio_rules[i];

      if (rule->unlink && rule->sticky)
        append (&buf, &len, "unlink-fail=%s\n", rule->glob);
      else if (rule->unlink)
        append (&buf, &len, "unlink-fail=%s:%u\n", rule->glob, rule->remaining);
      else if (rule->sticky)
        append (&buf, &len, "eio-at=%s:%" PRIu64 "\n", rule->glob, rule->offset);
      else
        append (&buf, &len, "eio-at=%s:%" PRIu64 ":%u\n", rule->glob, rule->offset,
                rule->remaining);
    }
  pthread_mutex_unlock (&nas.lock);
  for (int i = 0; i < N_OPS; i++)
    {
      uint64_t n = atomic_load (&nas.op_count[i]);

      total += n;
      if (n > 0)
        append (&buf, &len, "requests.%s=%" PRIu64 "\n", op_names[i], n);
    }
  append (&buf, &len, "requests=%" PRIu64 "\n", total);
  append (&buf, &len, "bytes-read=%" PRIu64 "\n", (uint64_t) atomic_load (&nas.bytes_read));
  append (&buf, &len, "bytes-written=%" PRIu64 "\n", (uint64_t) atomic_load (&nas.bytes_written));
  append (&buf, &len, "faults-injected=%" PRIu64 "\n",
          (uint64_t) atomic_load (&nas.faults_injected));
}

/* Applies one command; on error returns -errno with a message in @reply.
 * Used for -o options at start and for the control socket. */
static int
control_apply (const char *command,
               char       *reply,
               size_t      reply_len)
{
  char name[64];
  const char *eq = strchr (command, '=');
  const char *value = eq != NULL ? eq + 1 : NULL;
  size_t name_len = eq != NULL ? (size_t) (eq - command) : strlen (command);
  unsigned int u;
  bool b;

  reply[0] = '\0';
  if (name_len == 0 || name_len >= sizeof name)
    goto unknown;
  memcpy (name, command, name_len);
  name[name_len] = '\0';
  for (char *p = name; *p != '\0'; p++)
    if (*p == '_')
      *p = '-';

  if (strcmp (name, "status") == 0 && value == NULL)
    {
      format_status (reply, reply_len);
      return 0;
    }
  if (strcmp (name, "clear") == 0 && value == NULL)
    {
      atomic_store (&nas.enospc, false);
      atomic_store (&nas.fsync_fail, false);
      atomic_store (&nas.vanish, false);
      atomic_store (&nas.hang, false);
      pthread_mutex_lock (&nas.lock);
      eio_rules_clear_locked ();
      pthread_mutex_unlock (&nas.lock);
      wake_hung_requests ();
      return 0;
    }
  if (strcmp (name, "reset-counters") == 0 && value == NULL)
    {
      for (int i = 0; i < N_OPS; i++)
        atomic_store (&nas.op_count[i], 0);
      atomic_store (&nas.bytes_read, 0);
      atomic_store (&nas.bytes_written, 0);
      atomic_store (&nas.faults_injected, 0);
      return 0;
    }
  if (strcmp (name, "eio-at") == 0)
    {
      if (value == NULL)
        goto bad_value;
      if (strcmp (value, "0") == 0 || strcmp (value, "off") == 0)
        {
          pthread_mutex_lock (&nas.lock);
          eio_rules_clear_kind_locked (false);
          pthread_mutex_unlock (&nas.lock);
          return 0;
        }
      return add_eio_rule (value, reply, reply_len);
    }
  if (strcmp (name, "unlink-fail") == 0)
    {
      if (value == NULL)
        goto bad_value;
      if (strcmp (value, "0") == 0 || strcmp (value, "off") == 0)
        {
          pthread_mutex_lock (&nas.lock);
          eio_rules_clear_kind_locked (true);
          pthread_mutex_unlock (&nas.lock);
          return 0;
        }
      return add_unlink_rule (value, reply, reply_len);
    }
  if (strcmp (name, "latency-us") == 0)
    {
      if (!parse_uint (value, &u) || u > 10000000)
        goto bad_value;
      atomic_store (&nas.latency_us, u);
      return 0;
    }
  if (strcmp (name, "bandwidth-mbps") == 0)
    {
      double mbps;
      char *end;

      if (value == NULL || *value == '\0')
        goto bad_value;
      errno = 0;
      mbps = strtod (value, &end);
      if (errno != 0 || *end != '\0' || !(mbps >= 0.0) || mbps > 4000000.0)
        goto bad_value;
      /* Anything above zero keeps at least 1 kB/s, so a tiny cap never
       * turns into "unlimited". */
      u = (unsigned int) (mbps * 1000.0 + 0.5);
      if (mbps > 0.0 && u == 0)
        u = 1;
      atomic_store (&nas.bandwidth_kbps, u);
      return 0;
    }

  if (!parse_bool_value (value, &b))
    {
      if (strcmp (name, "enospc") == 0 || strcmp (name, "fsync-fail") == 0
          || strcmp (name, "hang") == 0 || strcmp (name, "vanish") == 0)
        goto bad_value;
      goto unknown;
    }
  if (strcmp (name, "enospc") == 0)
    atomic_store (&nas.enospc, b);
  else if (strcmp (name, "fsync-fail") == 0)
    atomic_store (&nas.fsync_fail, b);
  else if (strcmp (name, "vanish") == 0)
    {
      atomic_store (&nas.vanish, b);
      wake_hung_requests ();
    }
  else if (strcmp (name, "hang") == 0)
    {
      atomic_store (&nas.hang, b);
      if (!b)
        wake_hung_requests ();
    }
  else
    goto unknown;
  return 0;

bad_value:
  snprintf (reply, reply_len, "bad value for %s", name);
  return -EINVAL;

unknown:
  snprintf (reply, reply_len, "unknown command");
  return -EINVAL;
}

static void
control_serve_client (int fd)
{
  static char request[NAS_CONTROL_MAX + 1];
  static char reply[NAS_CONTROL_MAX * 4];
  char *out = reply;
  size_t out_left = sizeof reply;
  size_t got = 0;
  char *line, *save = NULL;

  for (;;)
    {
      ssize_t n = read (fd, request + got, NAS_CONTROL_MAX - got);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      got += (size_t) n;
      if (got == NAS_CONTROL_MAX)
        break;
    }
  request[got] = '\0';

  for (line = strtok_r (request, "\n", &save); line != NULL; line = strtok_r (NULL, "\n", &save))
    {
      char detail[NAS_CONTROL_MAX * 2];
      int ret;

      if (line[0] == '\0')
        continue;
      ret = control_apply (line, detail, sizeof detail);
      if (ret < 0)
        append (&out, &out_left, "error %s: %s\n", line, detail);
      else if (detail[0] != '\0')
        append (&out, &out_left, "%s", detail);
      else
        append (&out, &out_left, "ok %s\n", line);
    }

  for (size_t off = 0, len = strlen (reply); off < len;)
    {
      ssize_t n = write (fd, reply + off, len - off);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      off += (size_t) n;
    }
}

/* Serves one client at a time: commands are tiny and never block. */
static void *
control_thread (void *data)
{
  sigset_t all;

  /* FUSE's signal handlers must run on the loop threads, not here. */
  sigfillset (&all);
  pthread_sigmask (SIG_BLOCK, &all, NULL);

  for (;;)
    {
      struct timeval tv = { .tv_sec = 5 };
      int fd = accept4 (nas.control_fd, NULL, NULL, SOCK_CLOEXEC);

      if (fd < 0)
        {
          if (errno == EINTR || errno == ECONNABORTED)
            continue;
          break;
        }
      setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      setsockopt (fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
      control_serve_client (fd);
      close (fd);
    }
  return NULL;
}

static int
control_listen (const char *path)
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  int fd;

  if (strlen (path) >= sizeof addr.sun_path)
    {
      fprintf (stderr, "csnasfs: control socket path too long: %s\n", path);
      return -1;
    }
  strcpy (addr.sun_path, path);

  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    {
      perror ("csnasfs: socket");
      return -1;
    }
  unlink (path);
  if (bind (fd, (struct sockaddr *) &addr, sizeof addr) < 0 || chmod (path, 0600) < 0
      || listen (fd, 8) < 0)
    {
      fprintf (stderr, "csnasfs: control socket %s: %s\n", path, strerror (errno));
      close (fd);
      return -1;
    }
  return fd;
}

static int
control_client (const char  *path,
                int          n_commands,
                char       **commands)
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  struct timeval tv = { .tv_sec = 10 };
  char buf[4096];
  bool failed = false;
  bool at_line_start = true;
  int fd;

  if (strlen (path) >= sizeof addr.sun_path)
    {
      fprintf (stderr, "csnasfs: control socket path too long: %s\n", path);
      return 2;
    }
  strcpy (addr.sun_path, path);

  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || connect (fd, (struct sockaddr *) &addr, sizeof addr) < 0)
    {
      fprintf (stderr, "csnasfs: cannot reach %s: %s\n", path, strerror (errno));
      return 2;
    }
  setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt (fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);

  for (int i = 0; i < n_commands; i++)
    {
      if (strchr (commands[i], '\n') != NULL)
        {
          fprintf (stderr, "csnasfs: a command may not contain a newline\n");
          close (fd);
          return 2;
        }
      if (dprintf (fd, "%s\n", commands[i]) < 0)
        {
          fprintf (stderr, "csnasfs: sending to %s: %s\n", path, strerror (errno));
          close (fd);
          return 2;
        }
    }
  shutdown (fd, SHUT_WR);

  for (;;)
    {
      ssize_t n = read (fd, buf, sizeof buf);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          fprintf (stderr, "csnasfs: reading from %s: %s\n", path, strerror (errno));
          close (fd);
          return 2;
        }
      if (n == 0)
        break;
      for (ssize_t i = 0; i < n; i++)
        {
          if (at_line_start && n - i >= 6 && memcmp (buf + i, "error ", 6) == 0)
            failed = true;
          at_line_start = buf[i] == '\n';
        }
      fwrite (buf, 1, (size_t) n, stdout);
    }
  close (fd);
  return failed ? 1 : 0;
}

/* ---- helpers ------------------------------------------------------------- */

static const char *
rel (const char *path)
{
  while (*path == '/')
    path++;
  return *path != '\0' ? path : ".";
}

static char *
full_path (const char *path)
{
  char *ret = NULL;

  if (asprintf (&ret, "%s/%s", nas.backing_path, rel (path)) < 0)
    return NULL;
  return ret;
}

/* Running as root, the daemon would otherwise own every new file; a NAS
 * without root squash gives it to the caller. */
static void
give_to_caller (const char *path)
{
  struct fuse_context *ctx = fuse_get_context ();

  if (geteuid () != 0 || ctx == NULL || (ctx->uid == 0 && ctx->gid == 0))
    return;
  if (fchownat (nas.backing_fd, rel (path), ctx->uid, ctx->gid, AT_SYMLINK_NOFOLLOW) < 0)
    fprintf (stderr, "csnasfs: chown %s: %s\n", path, strerror (errno));
}

static void
coarsen_stat (struct stat *st)
{
  coarsen_timespec (&st->st_atim);
  coarsen_timespec (&st->st_mtim);
  coarsen_timespec (&st->st_ctim);
}

/* ---- operations ---------------------------------------------------------- */

static void *
nas_init (struct fuse_conn_info *conn,
          struct fuse_config    *cfg)
{
  /* Inode numbers, hard links and open-but-unlinked files behave as on the
   * backing folder, not through libfuse's path cache. */
  cfg->use_ino = 1;
  cfg->hard_remove = 1;
  /* The kernel queues at most this many background requests (readahead,
   * async writes); a NAS client keeps many in flight. */
  conn->max_background = 64;
  conn->congestion_threshold = 48;
  return NULL;
}

static int
nas_getattr (const char            *path,
             struct stat           *st,
             struct fuse_file_info *fi)
{
  int res;

  OP_BEGIN (OP_GETATTR);
  if (fi != NULL)
    res = fstat ((int) fi->fh, st);
  else
    res = fstatat (nas.backing_fd, rel (path), st, AT_SYMLINK_NOFOLLOW);
  if (res < 0)
    return -errno;
  coarsen_stat (st);
  return 0;
}

static int
nas_access (const char *path,
            int         mask)
{
  OP_BEGIN (OP_ACCESS);
  if (faccessat (nas.backing_fd, rel (path), mask, 0) < 0)
    return -errno;
  return 0;
}

static int
nas_readlink (const char *path,
              char       *buf,
              size_t      size)
{
  ssize_t n;

  OP_BEGIN (OP_READLINK);
  if (size == 0)
    return -EINVAL;
  n = readlinkat (nas.backing_fd, rel (path), buf, size - 1);
  if (n < 0)
    return -errno;
  buf[n] = '\0';
  return 0;
}

static int
nas_mknod (const char *path,
           mode_t      mode,
           dev_t       rdev)
{
  int res;

  OP_BEGIN (OP_MKNOD);
  if ((res = fault_enospc ()) < 0)
    return res;
  if (S_ISFIFO (mode))
    res = mkfifoat (nas.backing_fd, rel (path), mode);
  else
    res = mknodat (nas.backing_fd, rel (path), mode, rdev);
  if (res < 0)
    return -errno;
  give_to_caller (path);
  return 0;
}

static int
nas_mkdir (const char *path,
           mode_t      mode)
{
  int res;

  OP_BEGIN (OP_MKDIR);
  if ((res = fault_enospc ()) < 0)
    return res;
  if (mkdirat (nas.backing_fd, rel (path), mode) < 0)
    return -errno;
  give_to_caller (path);
  return 0;
}

static int
nas_unlink (const char *path)
{
  int res;

  OP_BEGIN (OP_UNLINK);
  if ((res = fault_unlink (path)) < 0)
    return res;
  if (unlinkat (nas.backing_fd, rel (path), 0) < 0)
    return -errno;
  return 0;
}

static int
nas_rmdir (const char *path)
{
  OP_BEGIN (OP_RMDIR);
  if (unlinkat (nas.backing_fd, rel (path), AT_REMOVEDIR) < 0)
    return -errno;
  return 0;
}

static int
nas_symlink (const char *target,
             const char *path)
{
  int res;

  OP_BEGIN (OP_SYMLINK);
  if ((res = fault_enospc ()) < 0)
    return res;
  if (symlinkat (target, nas.backing_fd, rel (path)) < 0)
    return -errno;
  give_to_caller (path);
  return 0;
}

static int
nas_rename (const char   *from,
            const char   *to,
            unsigned int  flags)
{
  OP_BEGIN (OP_RENAME);
  /* Like many network filesystems: no atomic exchange.  Without
   * rename_noreplace the share also lacks RENAME_NOREPLACE, so callers must
   * prove their fallback never clobbers. */
  if (flags & ~(unsigned int) RENAME_NOREPLACE)
    return -EINVAL;
  if ((flags & RENAME_NOREPLACE) && !nas.rename_noreplace)
    return -EINVAL;
  if (renameat2 (nas.backing_fd, rel (from), nas.backing_fd, rel (to), flags) < 0)
    return -errno;
  return 0;
}

static int
nas_link (const char *from,
          const char *to)
{
  int res;

  OP_BEGIN (OP_LINK);
  if ((res = fault_enospc ()) < 0)
    return res;
  if (linkat (nas.backing_fd, rel (from), nas.backing_fd, rel (to), 0) < 0)
    return -errno;
  return 0;
}

static int
nas_chmod (const char            *path,
           mode_t                 mode,
           struct fuse_file_info *fi)
{
  int res;

  OP_BEGIN (OP_CHMOD);
  if (fi != NULL)
    res = fchmod ((int) fi->fh, mode);
  else
    res = fchmodat (nas.backing_fd, rel (path), mode, 0);
  if (res < 0)
    return -errno;
  return 0;
}

static int
nas_chown (const char            *path,
           uid_t                  uid,
           gid_t                  gid,
           struct fuse_file_info *fi)
{
  int res;

  OP_BEGIN (OP_CHOWN);
  /* Like a share with root squash, or SFTP logged in as someone else. */
  if (nas.no_chown)
    return -EPERM;
  if (fi != NULL)
    res = fchown ((int) fi->fh, uid, gid);
  else
    res = fchownat (nas.backing_fd, rel (path), uid, gid, AT_SYMLINK_NOFOLLOW);
  if (res < 0)
    return -errno;
  return 0;
}

static int
nas_truncate (const char            *path,
              off_t                  size,
              struct fuse_file_info *fi)
{
  int fd, res, saved;

  OP_BEGIN (OP_TRUNCATE);
  if (fi != NULL)
    return ftruncate ((int) fi->fh, size) < 0 ? -errno : 0;

  fd = openat (nas.backing_fd, rel (path), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  res = ftruncate (fd, size);
  saved = errno;
  close (fd);
  return res < 0 ? -saved : 0;
}

static int
nas_utimens (const char            *path,
             const struct timespec  tv[2],
             struct fuse_file_info *fi)
{
  struct timespec times[2] = { tv[0], tv[1] };
  int res;

  OP_BEGIN (OP_UTIMENS);
  coarsen_timespec (&times[0]);
  coarsen_timespec (&times[1]);
  if (fi != NULL)
    res = futimens ((int) fi->fh, times);
  else
    res = utimensat (nas.backing_fd, rel (path), times, AT_SYMLINK_NOFOLLOW);
  if (res < 0)
    return -errno;
  return 0;
}

static int
nas_create (const char            *path,
            mode_t                 mode,
            struct fuse_file_info *fi)
{
  int fd, res;

  OP_BEGIN (OP_CREATE);
  if ((res = fault_enospc ()) < 0)
    return res;
  /* The caller's flags pass through, O_EXCL included: a temporary opened
   * exclusively must fail with EEXIST here too. */
  fd = openat (nas.backing_fd, rel (path), fi->flags | O_CREAT | O_CLOEXEC, mode);
  if (fd < 0)
    return -errno;
  give_to_caller (path);
  fi->fh = (uint64_t) fd;
  return 0;
}

static int
nas_open (const char            *path,
          struct fuse_file_info *fi)
{
  int fd;

  OP_BEGIN (OP_OPEN);
  fd = openat (nas.backing_fd, rel (path), fi->flags | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  fi->fh = (uint64_t) fd;
  return 0;
}

static int
nas_read (const char            *path,
          char                  *buf,
          size_t                 size,
          off_t                  offset,
          struct fuse_file_info *fi)
{
  ssize_t n;
  int res;

  OP_BEGIN (OP_READ);
  if ((res = fault_eio (path, offset, size)) < 0)
    return res;
  n = pread ((int) fi->fh, buf, size, offset);
  if (n < 0)
    return -errno;
  apply_bandwidth ((size_t) n);
  atomic_fetch_add (&nas.bytes_read, (uint64_t) n);
  return (int) n;
}

static int
nas_write (const char            *path,
           const char            *buf,
           size_t                 size,
           off_t                  offset,
           struct fuse_file_info *fi)
{
  ssize_t n;
  int res;

  OP_BEGIN (OP_WRITE);
  if ((res = fault_enospc ()) < 0)
    return res;
  if ((res = fault_eio (path, offset, size)) < 0)
    return res;
  apply_bandwidth (size);
  n = pwrite ((int) fi->fh, buf, size, offset);
  if (n < 0)
    return -errno;
  atomic_fetch_add (&nas.bytes_written, (uint64_t) n);
  return (int) n;
}

static int
nas_statfs (const char     *path,
            struct statvfs *st)
{
  OP_BEGIN (OP_STATFS);
  if (fstatvfs (nas.backing_fd, st) < 0)
    return -errno;
  if (atomic_load (&nas.enospc))
    {
      st->f_bfree = st->f_bavail = 0;
      st->f_ffree = st->f_favail = 0;
    }
  return 0;
}

static int
nas_flush (const char            *path,
           struct fuse_file_info *fi)
{
  int fd;

  OP_BEGIN (OP_FLUSH);
  /* Closing a duplicate reports deferred write errors without giving up the
   * handle, which stays open until release. */
  fd = dup ((int) fi->fh);
  if (fd < 0)
    return -errno;
  if (close (fd) < 0)
    return -errno;
  return 0;
}

static int
nas_release (const char            *path,
             struct fuse_file_info *fi)
{
  /* The handle is closed whatever the switches say, or a vanish would leak
   * descriptors on the backing folder. */
  op_begin (OP_RELEASE);
  close ((int) fi->fh);
  return 0;
}

static int
nas_fsync (const char            *path,
           int                    datasync,
           struct fuse_file_info *fi)
{
  int res;

  OP_BEGIN (OP_FSYNC);
  if (atomic_load (&nas.fsync_fail))
    {
      atomic_fetch_add (&nas.faults_injected, 1);
      return -EIO;
    }
  res = datasync ? fdatasync ((int) fi->fh) : fsync ((int) fi->fh);
  if (res < 0)
    return -errno;
  return 0;
}

static int
nas_fallocate (const char            *path,
               int                    mode,
               off_t                  offset,
               off_t                  length,
               struct fuse_file_info *fi)
{
  int res;

  OP_BEGIN (OP_FALLOCATE);
  if (!(mode & FALLOC_FL_PUNCH_HOLE) && (res = fault_enospc ()) < 0)
    return res;
  if (fallocate ((int) fi->fh, mode, offset, length) < 0)
    return -errno;
  return 0;
}

static off_t
nas_lseek (const char            *path,
           off_t                  off,
           int                    whence,
           struct fuse_file_info *fi)
{
  off_t res;

  OP_BEGIN (OP_LSEEK);
  res = lseek ((int) fi->fh, off, whence);
  if (res < 0)
    return -errno;
  return res;
}

static int
nas_setxattr (const char *path,
              const char *name,
              const char *value,
              size_t      size,
              int         flags)
{
  char *full;
  int res;

  OP_BEGIN (OP_SETXATTR);
  if ((res = fault_enospc ()) < 0)
    return res;
  full = full_path (path);
  if (full == NULL)
    return -ENOMEM;
  res = lsetxattr (full, name, value, size, flags) < 0 ? -errno : 0;
  free (full);
  return res;
}

static int
nas_getxattr (const char *path,
              const char *name,
              char       *value,
              size_t      size)
{
  char *full;
  ssize_t n;
  int res;

  OP_BEGIN (OP_GETXATTR);
  full = full_path (path);
  if (full == NULL)
    return -ENOMEM;
  n = lgetxattr (full, name, value, size);
  res = n < 0 ? -errno : (int) n;
  free (full);
  return res;
}

static int
nas_listxattr (const char *path,
               char       *list,
               size_t      size)
{
  char *full;
  ssize_t n;
  int res;

  OP_BEGIN (OP_LISTXATTR);
  full = full_path (path);
  if (full == NULL)
    return -ENOMEM;
  n = llistxattr (full, list, size);
  res = n < 0 ? -errno : (int) n;
  free (full);
  return res;
}

static int
nas_removexattr (const char *path,
                 const char *name)
{
  char *full;
  int res;

  OP_BEGIN (OP_REMOVEXATTR);
  full = full_path (path);
  if (full == NULL)
    return -ENOMEM;
  res = lremovexattr (full, name) < 0 ? -errno : 0;
  free (full);
  return res;
}

typedef struct
{
  DIR *dp;
  struct dirent *entry;
  off_t offset;
} NasDir;

static int
nas_opendir (const char            *path,
             struct fuse_file_info *fi)
{
  NasDir *d;
  int fd, saved;

  OP_BEGIN (OP_OPENDIR);
  fd = openat (nas.backing_fd, rel (path), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  d = calloc (1, sizeof *d);
  if (d == NULL)
    {
      close (fd);
      return -ENOMEM;
    }
  d->dp = fdopendir (fd);
  if (d->dp == NULL)
    {
      saved = errno;
      close (fd);
      free (d);
      return -saved;
    }
  fi->fh = (uint64_t) (uintptr_t) d;
  return 0;
}

/* Each call fills one kernel buffer, so a big directory costs one round trip
 * per chunk, as READDIR does on NFS and SMB. */
static int
nas_readdir (const char               *path,
             void                     *buf,
             fuse_fill_dir_t           filler,
             off_t                     offset,
             struct fuse_file_info    *fi,
             enum fuse_readdir_flags   flags)
{
  NasDir *d = (NasDir *) (uintptr_t) fi->fh;

  OP_BEGIN (OP_READDIR);
  if (offset != d->offset)
    {
      seekdir (d->dp, offset);
      d->entry = NULL;
      d->offset = offset;
    }

  for (;;)
    {
      enum fuse_fill_dir_flags fill_flags = 0;
      struct stat st;
      off_t next;

      if (d->entry == NULL)
        {
          errno = 0;
          d->entry = readdir (d->dp);
          if (d->entry == NULL)
            {
              if (errno != 0)
                return -errno;
              break;
            }
        }

      memset (&st, 0, sizeof st);
      if ((flags & FUSE_READDIR_PLUS)
          && fstatat (dirfd (d->dp), d->entry->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
        {
          coarsen_stat (&st);
          fill_flags |= FUSE_FILL_DIR_PLUS;
        }
      else
        {
          st.st_ino = d->entry->d_ino;
          st.st_mode = (mode_t) d->entry->d_type << 12;
        }

      next = telldir (d->dp);
      if (filler (buf, d->entry->d_name, &st, next, fill_flags) != 0)
        break;
      d->entry = NULL;
      d->offset = next;
    }
  return 0;
}

static int
nas_releasedir (const char            *path,
                struct fuse_file_info *fi)
{
  NasDir *d = (NasDir *) (uintptr_t) fi->fh;

  op_begin (OP_RELEASEDIR);
  closedir (d->dp);
  free (d);
  return 0;
}

static int
nas_fsyncdir (const char            *path,
              int                    datasync,
              struct fuse_file_info *fi)
{
  NasDir *d = (NasDir *) (uintptr_t) fi->fh;
  int res;

  OP_BEGIN (OP_FSYNCDIR);
  if (atomic_load (&nas.fsync_fail))
    {
      atomic_fetch_add (&nas.faults_injected, 1);
      return -EIO;
    }
  res = datasync ? fdatasync (dirfd (d->dp)) : fsync (dirfd (d->dp));
  if (res < 0)
    return -errno;
  return 0;
}

/* copy_file_range is left out on purpose: libfuse answers ENOSYS, and copy
 * tools must take their read/write fallback, as on most shares. */
static struct fuse_operations nas_ops = {
  .init = nas_init,
  .getattr = nas_getattr,
  .access = nas_access,
  .readlink = nas_readlink,
  .mknod = nas_mknod,
  .mkdir = nas_mkdir,
  .unlink = nas_unlink,
  .rmdir = nas_rmdir,
  .symlink = nas_symlink,
  .rename = nas_rename,
  .link = nas_link,
  .chmod = nas_chmod,
  .chown = nas_chown,
  .truncate = nas_truncate,
  .utimens = nas_utimens,
  .create = nas_create,
  .open = nas_open,
  .read = nas_read,
  .write = nas_write,
  .statfs = nas_statfs,
  .flush = nas_flush,
  .release = nas_release,
  .fsync = nas_fsync,
  .fallocate = nas_fallocate,
  .lseek = nas_lseek,
  .opendir = nas_opendir,
  .readdir = nas_readdir,
  .releasedir = nas_releasedir,
  .fsyncdir = nas_fsyncdir,
};

/* ---- command line -------------------------------------------------------- */

typedef struct
{
  char *backing;
  char *control;
  int n_positional;
  int show_help;
  int no_rename_noreplace;
  int no_chown;
  int xattr;
  unsigned int threads;
  long time_granularity_ns;
  bool option_error;
} NasOptions;

enum
{
  KEY_HELP,
  KEY_FAULT,
  KEY_SETTING,
};

#define NAS_OPT(t, p) { t, offsetof (NasOptions, p), 1 }

static const struct fuse_opt nas_opt_spec[] = {
  NAS_OPT ("control=%s", control),
  NAS_OPT ("no_rename_noreplace", no_rename_noreplace),
  NAS_OPT ("no_chown", no_chown),
  NAS_OPT ("threads=%u", threads),
  NAS_OPT ("xattr", xattr),
  NAS_OPT ("time_granularity_ns=%ld", time_granularity_ns),
  FUSE_OPT_KEY ("latency_us=", KEY_SETTING),
  FUSE_OPT_KEY ("bandwidth_mbps=", KEY_SETTING),
  FUSE_OPT_KEY ("enospc", KEY_FAULT),
  FUSE_OPT_KEY ("fsync_fail", KEY_FAULT),
  FUSE_OPT_KEY ("hang", KEY_FAULT),
  FUSE_OPT_KEY ("vanish", KEY_FAULT),
  FUSE_OPT_KEY ("eio_at=", KEY_FAULT),
  FUSE_OPT_KEY ("unlink_fail=", KEY_FAULT),
  FUSE_OPT_KEY ("-h", KEY_HELP),
  FUSE_OPT_KEY ("--help", KEY_HELP),
  FUSE_OPT_END
};

static int
nas_opt_proc (void             *data,
              const char       *arg,
              int               key,
              struct fuse_args *outargs)
{
  NasOptions *opts = data;
  char reply[256];

  switch (key)
    {
    case KEY_HELP:
      opts->show_help = 1;
      return 0;

    case KEY_FAULT:
    case KEY_SETTING:
      if (control_apply (arg, reply, sizeof reply) < 0)
        {
          fprintf (stderr, "csnasfs: -o %s: %s\n", arg, reply);
          opts->option_error = true;
        }
      return 0;

    case FUSE_OPT_KEY_NONOPT:
      /* The first plain argument is the backing folder, the second the
       * mount point, which fuse_parse_cmdline picks up. */
      if (opts->n_positional++ == 0)
        {
          opts->backing = strdup (arg);
          return 0;
        }
      return 1;

    default:
      return 1;
    }
}

static void
usage (const char *prog)
{
  printf ("usage: %s BACKING MOUNTPOINT [options]\n"
          "       %s --control SOCKET COMMAND...\n"
          "\n"
          "Lab NAS options:\n"
          "    -o latency_us=N          wait N µs in every request (default 1000)\n"
          "    -o bandwidth_mbps=N      cap reads + writes at N MB/s, 0 = none (default 110)\n"
          "    -o control=PATH          listen for control commands on a UNIX socket\n"
          "    -o threads=N             serve up to N requests at once (default 128)\n"
          "    -o time_granularity_ns=N keep timestamps only to N ns (default 1)\n"
          "    -o no_rename_noreplace   refuse RENAME_NOREPLACE with EINVAL\n"
          "    -o no_chown              refuse every chown with EPERM (owners not kept)\n"
          "    -o xattr                 pass extended attributes through (default: none,\n"
          "                             like most shares)\n"
          "    -o enospc | fsync_fail | hang | vanish | eio_at=GLOB:OFFSET[:COUNT]\n"
          "       | unlink_fail=GLOB[:COUNT]\n"
          "                             start with a fault switched on\n"
          "\n"
          "Control commands: status, clear, reset-counters, latency-us=N, bandwidth-mbps=N,\n"
          "enospc[=0|1], fsync-fail[=0|1], hang[=0|1], vanish[=0|1], eio-at=GLOB:OFFSET[:COUNT],\n"
          "eio-at=off, unlink-fail=GLOB[:COUNT], unlink-fail=off\n"
          "\n",
          prog, prog);
}

static bool
user_allow_other (void)
{
  FILE *f;
  char line[256];
  bool found = false;

  if (geteuid () == 0)
    return true;
  f = fopen ("/etc/fuse.conf", "re");
  if (f == NULL)
    return false;
  while (!found && fgets (line, sizeof line, f) != NULL)
    {
      line[strcspn (line, " \t\r\n")] = '\0';
      found = strcmp (line, "user_allow_other") == 0;
    }
  fclose (f);
  return found;
}

int
main (int    argc,
      char **argv)
{
  struct fuse_args args = FUSE_ARGS_INIT (argc, argv);
  struct fuse_cmdline_opts cmd = { 0 };
  struct fuse_loop_config *loop_config = NULL;
  NasOptions opts = { .time_granularity_ns = 1, .threads = 128 };
  pthread_t control_tid;
  struct fuse_session *se;
  int ret = 1;

  if (argc >= 2 && strcmp (argv[1], "--control") == 0)
    {
      if (argc < 4)
        {
          fprintf (stderr, "usage: %s --control SOCKET COMMAND...\n", argv[0]);
          return 2;
        }
      return control_client (argv[2], argc - 3, argv + 3);
    }

  /* Modes arrive from the kernel with the caller's umask already applied. */
  umask (0);

  if (fuse_opt_parse (&args, &opts, nas_opt_spec, nas_opt_proc) < 0 || opts.option_error)
    goto out;
  if (opts.show_help)
    {
      usage (argv[0]);
      fuse_cmdline_help ();
      fuse_lib_help (&args);
      ret = 0;
      goto out;
    }
  if (opts.time_granularity_ns < 1 || opts.time_granularity_ns > 3600L * 1000000000L)
    {
      fprintf (stderr, "csnasfs: time_granularity_ns must be between 1 and 3600000000000\n");
      goto out;
    }
  nas.time_granularity_ns = opts.time_granularity_ns;
  nas.rename_noreplace = !opts.no_rename_noreplace;
  nas.no_chown = opts.no_chown;

  /* In front, so that an -o fsname= from the command line still wins. */
  if (fuse_opt_insert_arg (&args, 1, "-osubtype=csnasfs,fsname=csnasfs,default_permissions") < 0
      || (user_allow_other () && fuse_opt_insert_arg (&args, 1, "-oallow_other") < 0))
    goto out;
  if (fuse_parse_cmdline (&args, &cmd) != 0)
    goto out;
  if (cmd.show_version)
    {
      printf ("csnasfs, FUSE library %s\n", fuse_pkgversion ());
      ret = 0;
      goto out;
    }
  if (opts.backing == NULL || cmd.mountpoint == NULL)
    {
      usage (argv[0]);
      goto out;
    }

  nas.backing_path = realpath (opts.backing, NULL);
  if (nas.backing_path == NULL)
    {
      fprintf (stderr, "csnasfs: %s: %s\n", opts.backing, strerror (errno));
      goto out;
    }
  nas.backing_fd = open (nas.backing_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (nas.backing_fd < 0)
    {
      fprintf (stderr, "csnasfs: %s: %s\n", nas.backing_path, strerror (errno));
      goto out;
    }

  if (opts.control != NULL)
    {
      /* Daemonizing changes directory to /, so keep the socket path absolute
       * for the unlink at exit. */
      if (opts.control[0] == '/')
        nas.control_path = strdup (opts.control);
      else
        {
          char *cwd = getcwd (NULL, 0);

          if (cwd == NULL || asprintf (&nas.control_path, "%s/%s", cwd, opts.control) < 0)
            nas.control_path = NULL;
          free (cwd);
        }
      if (nas.control_path == NULL)
        goto out;
      nas.control_fd = control_listen (nas.control_path);
      if (nas.control_fd < 0)
        goto out;
    }

  /* Most shares keep no Linux xattrs.  Without the operations the kernel
   * hears ENOSYS once and stops asking, instead of asking for
   * security.capability before every write. */
  if (opts.xattr)
    {
      nas_ops.setxattr = nas_setxattr;
      nas_ops.getxattr = nas_getxattr;
      nas_ops.listxattr = nas_listxattr;
      nas_ops.removexattr = nas_removexattr;
    }

  nas.fuse = fuse_new (&args, &nas_ops, sizeof nas_ops, NULL);
  if (nas.fuse == NULL)
    goto out;
  if (fuse_mount (nas.fuse, cmd.mountpoint) != 0)
    goto out_destroy;
  /* Daemonizing changes directory to /; everything is already absolute. */
  if (fuse_daemonize (cmd.foreground) != 0)
    goto out_unmount;

  se = fuse_get_session (nas.fuse);
  if (fuse_set_signal_handlers (se) != 0)
    goto out_unmount;

  if (nas.control_fd >= 0)
    {
      if (pthread_create (&control_tid, NULL, control_thread, NULL) != 0)
        goto out_signals;
      pthread_detach (control_tid);
    }

  if (cmd.singlethread)
    ret = fuse_loop (nas.fuse);
  else
    {
      loop_config = fuse_loop_cfg_create ();
      if (loop_config == NULL)
        goto out_signals;
      fuse_loop_cfg_set_clone_fd (loop_config, (unsigned int) cmd.clone_fd);
      if (cmd.max_idle_threads != UINT_MAX)
        fuse_loop_cfg_set_idle_threads (loop_config, cmd.max_idle_threads);
      /* libfuse's default of 10 would cap the requests in flight below the
       * thread counts the copy tools are measured at. */
      fuse_loop_cfg_set_max_threads (loop_config, opts.threads > 0 ? opts.threads : 1);
      ret = fuse_loop_mt (nas.fuse, loop_config);
    }
  ret = ret != 0 ? 1 : 0;

out_signals:
  fuse_remove_signal_handlers (se);
out_unmount:
  fuse_unmount (nas.fuse);
out_destroy:
  fuse_destroy (nas.fuse);
  nas.fuse = NULL;
out:
  if (nas.control_fd >= 0)
    {
      /* Wakes the control thread out of accept () as well. */
      shutdown (nas.control_fd, SHUT_RDWR);
      unlink (nas.control_path);
    }
  if (loop_config != NULL)
    fuse_loop_cfg_destroy (loop_config);
  free (nas.control_path);
  free (nas.backing_path);
  free (cmd.mountpoint);
  free (opts.backing);
  free (opts.control);
  fuse_opt_free_args (&args);
  return ret;
}

/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-counters"

#include "config.h"

#include <string.h>

#include "cs-counters.h"

#define N_(s) (s)

static const CsCounterInfo counter_info[CS_N_COUNTERS] = {
  { CS_COUNTER_REQUEST_RATE, "request_rate", N_("Request Rate"), N_("req/s"), CS_DIRECTION_MORE_IS_BETTER },
  { CS_COUNTER_DATA_REQUEST_RATE, "data_request_rate", N_("Data Request Rate"), N_("req/s"), CS_DIRECTION_MORE_IS_BETTER },
  { CS_COUNTER_READ_REQUEST_RATE, "read_request_rate", N_("Read Request Rate"), N_("req/s"), CS_DIRECTION_MORE_IS_BETTER },
  { CS_COUNTER_WRITE_REQUEST_RATE, "write_request_rate", N_("Write Request Rate"), N_("req/s"), CS_DIRECTION_MORE_IS_BETTER },
  { CS_COUNTER_DATA_TRANSFER_RATE, "data_transfer_rate", N_("Data Transfer Rate"), N_("MB/s"), CS_DIRECTION_MORE_IS_BETTER },
  { CS_COUNTER_READ_TRANSFER_RATE, "read_transfer_rate", N_("Read Transfer Rate"), N_("MB/s"), CS_DIRECTION_MORE_IS_BETTER },
  { CS_COUNTER_WRITE_TRANSFER_RATE, "write_transfer_rate", N_("Write Transfer Rate"), N_("MB/s"), CS_DIRECTION_MORE_IS_BETTER },
  { CS_COUNTER_FILE_RATE, "file_rate", N_("File Rate"), N_("files/s"), CS_DIRECTION_MORE_IS_BETTER },
  { CS_COUNTER_AVG_REQUEST_SIZE, "average_request_size", N_("Average Request Size"), N_("KB"), CS_DIRECTION_MORE_IS_BETTER },
  { CS_COUNTER_AVG_READ_REQUEST_SIZE, "average_read_request_size", N_("Average Read Request Size"), N_("KB"), CS_DIRECTION_MORE_IS_BETTER },
  { CS_COUNTER_AVG_WRITE_REQUEST_SIZE, "average_write_request_size", N_("Average Write Request Size"), N_("KB"), CS_DIRECTION_MORE_IS_BETTER },
  { CS_COUNTER_AVG_REQUEST_TIME, "average_request_time", N_("Average Request Time"), N_("ms"), CS_DIRECTION_LESS_IS_BETTER },
  { CS_COUNTER_AVG_READ_REQUEST_TIME, "average_read_request_time", N_("Average Read Request Time"), N_("ms"), CS_DIRECTION_LESS_IS_BETTER },
  { CS_COUNTER_AVG_WRITE_REQUEST_TIME, "average_write_request_time", N_("Average Write Request Time"), N_("ms"), CS_DIRECTION_LESS_IS_BETTER },
  { CS_COUNTER_CPU_USAGE, "cpu_usage", N_("CPU Usage"), "%", CS_DIRECTION_LESS_IS_BETTER },
  { CS_COUNTER_CPU_USAGE_SYSTEM, "cpu_usage_system", N_("CPU Usage System"), "%", CS_DIRECTION_LESS_IS_BETTER },
  { CS_COUNTER_PROCESS_CPU_USAGE, "process_cpu_usage", N_("Process CPU Usage"), "%", CS_DIRECTION_LESS_IS_BETTER },
  { CS_COUNTER_PROCESS_MEMORY, "process_memory", N_("Process Memory Used"), N_("MB"), CS_DIRECTION_LESS_IS_BETTER },
  { CS_COUNTER_THREADS, "threads", N_("Threads"), "", CS_DIRECTION_NONE },
  /* How fast a rerun decides what is already there. No direction: it is not
   * one of the seed reviews' counters, whose "N out of M tests" a comparison
   * keeps, and on a fresh copy it only repeats the file rate. Records from
   * before it have no such column: their value reads as none (NaN). */
  { CS_COUNTER_CHECK_RATE, "check_rate", N_("Check Rate"), N_("files/s"), CS_DIRECTION_NONE },
};

const CsCounterInfo *
cs_counter_get_info (CsCounter counter)
{
  g_return_val_if_fail (counter < CS_N_COUNTERS, NULL);

  return &counter_info[counter];
}

gboolean
cs_counter_from_key (const char *key,
                     CsCounter  *out_counter)
{
  g_return_val_if_fail (key != NULL, FALSE);

  for (guint i = 0; i < CS_N_COUNTERS; i++)
    {
      if (strcmp (counter_info[i].key, key) == 0)
        {
          if (out_counter != NULL)
            *out_counter = counter_info[i].id;
          return TRUE;
        }
    }

  return FALSE;
}

const char *
cs_direction_to_string (CsDirection direction)
{
  switch (direction)
    {
    case CS_DIRECTION_MORE_IS_BETTER:
      return N_("More is Better");
    case CS_DIRECTION_LESS_IS_BETTER:
      return N_("Less is Better");
    case CS_DIRECTION_NONE:
    default:
      return "";
    }
}

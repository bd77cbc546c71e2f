/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-report"

#include "config.h"

#include <json-glib/json-glib.h>

#include "cs-json-io.h"

#include "cs-report-private.h"
#include "cs-report-phases.h"

char *
_cs_report_render_json (CsCompare *compare)
{
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *verdict = NULL;
  g_autofree char *outcome = NULL;
  guint n = cs_compare_get_n_runs (compare);

  if (n == 1)
    {
      root = cs_run_to_json (cs_compare_get_run (compare, 0));
      _cs_report_phases_json (json_node_get_object (root), compare);
      return cs_json_to_string (root, TRUE);
    }

  /* A comparison keeps every run whole, so it can be imported again. */
  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "schema_version");
  json_builder_add_int_value (builder, CS_RUN_SCHEMA_VERSION);
  json_builder_set_member_name (builder, "kind");
  json_builder_add_string_value (builder, "comparison");

  json_builder_set_member_name (builder, "labels");
  json_builder_begin_array (builder);
  for (guint i = 0; i < n; i++)
    json_builder_add_string_value (builder, cs_compare_get_label (compare, i));
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "tests");
  json_builder_add_int_value (builder, cs_compare_get_n_tests (compare));
  json_builder_set_member_name (builder, "ties");
  json_builder_add_int_value (builder, cs_compare_get_n_ties (compare));
  json_builder_set_member_name (builder, "wins");
  json_builder_begin_array (builder);
  for (guint i = 0; i < n; i++)
    json_builder_add_int_value (builder, cs_compare_get_wins (compare, i));
  json_builder_end_array (builder);
  outcome = cs_compare_dup_outcome (compare);
  json_builder_set_member_name (builder, "outcome");
  json_builder_add_string_value (builder, outcome);
  verdict = cs_compare_dup_verdict (compare);
  json_builder_set_member_name (builder, "verdict");
  json_builder_add_string_value (builder, verdict);

  json_builder_set_member_name (builder, "counters");
  json_builder_begin_array (builder);
  for (guint c = 0; c < CS_N_COUNTERS; c++)
    {
      const CsCounterInfo *info = cs_counter_get_info (c);
      const CsCompareCounter *row = cs_compare_get_counter (compare, c);
      static const char * const stat_keys[] = { "avg", "min", "max" };

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "key");
      json_builder_add_string_value (builder, info->key);
      json_builder_set_member_name (builder, "label");
      json_builder_add_string_value (builder, info->label);
      json_builder_set_member_name (builder, "unit");
      json_builder_add_string_value (builder, info->unit);
      json_builder_set_member_name (builder, "direction");
      json_builder_add_string_value (builder, info->direction == CS_DIRECTION_MORE_IS_BETTER ? "more"
                                              : info->direction == CS_DIRECTION_LESS_IS_BETTER ? "less" : "none");
      json_builder_set_member_name (builder, "runs");
      json_builder_begin_array (builder);
      for (guint i = 0; i < n; i++)
        {
          if (!row->valid[i])
            {
              json_builder_add_null_value (builder);
              continue;
            }
          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "avg");
          json_builder_add_double_value (builder, row->stats[i].avg);
          json_builder_set_member_name (builder, "min");
          json_builder_add_double_value (builder, row->stats[i].min);
          json_builder_set_member_name (builder, "max");
          json_builder_add_double_value (builder, row->stats[i].max);
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);

      json_builder_set_member_name (builder, "best");
      json_builder_begin_object (builder);
      for (guint s = 0; s < CS_COMPARE_N_STATS; s++)
        {
          json_builder_set_member_name (builder, stat_keys[s]);
          if (row->best[s] >= 0)
            json_builder_add_int_value (builder, row->best[s]);
          else if (row->best[s] == CS_COMPARE_TIE)
            json_builder_add_string_value (builder, "tie");
          else
            json_builder_add_null_value (builder);
        }
      json_builder_end_object (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "runs");
  json_builder_begin_array (builder);
  for (guint i = 0; i < n; i++)
    json_builder_add_value (builder, cs_run_to_json (cs_compare_get_run (compare, i)));
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  _cs_report_phases_json (json_node_get_object (root), compare);

  return cs_json_to_string (root, TRUE);
}

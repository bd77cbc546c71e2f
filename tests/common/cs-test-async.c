/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include "cs-test-async.h"

void
cs_test_async_store (GObject      *source_object,
                     GAsyncResult *result,
                     gpointer      result_slot)
{
  GAsyncResult **slot = result_slot;

  g_assert_true (g_main_context_is_owner (g_main_context_default ()));
  g_assert_null (*slot);
  *slot = g_object_ref (result);
}

GAsyncResult *
cs_test_async_wait (GAsyncResult **result_slot)
{
  while (*result_slot == NULL)
    g_main_context_iteration (NULL, TRUE);
  return *result_slot;
}

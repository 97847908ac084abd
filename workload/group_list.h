/* group_list.h: the process-group list of a METADATA node, in every form
 * that Chakra writers put in its inputs.values, and the one orrery writes.
 *
 * Models: a list of groups, each an object with a "pg_name" (the group id:
 * a decimal string such as "3" or "3.0", or a JSON integer) and "ranks" (a
 * list of ranks; empty, null or absent means every rank, as PyTorch writes
 * the world group).  Other keys (pg_desc, backend_config, pg_size,
 * group_size, ...) are ignored.  The list comes
 *   - bare: [{"pg_name": "1", "ranks": [0, 1]}] (orrery before, hand-made
 *     traces);
 *   - as the PyTorch converter writes it: inputs.values is Python's str()
 *     of the execution trace's values, a list holding the JSON text as a
 *     string: ['[{"pg_name": "1", "ranks": [0, 1]}]'] (single quotes,
 *     Python escapes; several strings append their groups);
 *   - as a JSON list of such strings: ["[{\"pg_name\": \"1\", ...}]"];
 *   - as a Python literal of the objects themselves:
 *     [{'pg_name': '1', 'ranks': [0, 1]}] (True/False/None, tuples).
 * A string holding a list holding a string is as deep as wrapping goes.
 *
 * ASTRA-sim (Workload::issue_pytorch_pg_metadata) reads only the
 * converter's form: it drops the first two and last two characters and
 * parses the rest as JSON.  wl_group_list_wrap writes that form.
 *
 * Ownership: texts are borrowed; results are the caller's.
 *
 * Layer: workload.  May include: system, network, sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_GROUP_LIST_H
#define ORRERY_WORKLOAD_GROUP_LIST_H

#include <glib.h>

#include "chakra.pb-c.h"
#include "workload/node.h"

/* Whether node N carries a process-group list in inputs.values: a
 * METADATA node, or a node named "... process_group:init ..." (the
 * PyTorch converter wrote those as COMP_NODE until chakra 7750db3, Dec
 * 2024), whose values mention "pg_name". */
gboolean wl_group_list_node (const ChakraProtoMsg__Node *n);

/* Append the process groups of the list TEXT (any form above) to DEFS
 * (WlGroupDef).  NULL on success, else what is wrong (a static string;
 * DEFS may then hold the groups read before the fault).  Every JSON text
 * is depth-checked (sim/nesting.h) before it is parsed. */
const char *wl_group_defs_parse (const char *text, GArray *defs);

/* JSON, a bare group list, in the PyTorch converter's form: Python's
 * str() of a list holding it as one string, ['JSON'] (a backslash or
 * single quote in JSON escaped as Python escapes it).  A new string. */
char *wl_group_list_wrap (const char *json);

/* Write the groups of LIST (any form above) to PATH as ASTRA-sim's
 * comm-group JSON ({"ID": [ranks...], ...}, --comm-group-configuration;
 * orrery's --comm-groups), for a workload that carries no METADATA node.
 * FALSE with ERROR set (WL_ERROR, SIM_ERROR_INPUT, naming PATH) when LIST
 * does not parse or PATH cannot be written. */
gboolean wl_group_list_write_comm_groups (const char *list, const char *path, GError **error);

#endif /* ORRERY_WORKLOAD_GROUP_LIST_H */

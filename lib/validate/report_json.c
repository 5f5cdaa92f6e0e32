/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/validate/report_json.c: see report_json.h. */
#include "autoconf.h"
#include "lib/validate/report_json.h"

#include <errno.h>
#include <string.h>

static json_t *finding_json(const struct val_finding *f)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "code", val_code_name(f->code),
			      "severity", val_severity_name(f->sev), "subject", f->subject, "want",
			      f->want, "got", f->got, "what", val_code_what(f->code));

	if (o && f->line && json_object_set_new(o, "line", json_integer(f->line)) < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *val_report_json(const struct val_report *r)
{
	json_t *list = json_array(), *o;

	if (!list)
		return NULL;
	for (size_t i = 0; i < r->n; i++)
		if (json_array_append_new(list, finding_json(&r->f[i])) < 0) {
			json_decref(list);
			return NULL;
		}
	o = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o}",
		      "errors", (json_int_t)val_count(r, VAL_ERROR),
		      "warnings", (json_int_t)val_count(r, VAL_WARNING),
		      "cables", (json_int_t)r->cables, "cables_ok", (json_int_t)r->cables_ok,
		      "plan_nodes", (json_int_t)r->plan_nodes,
		      "nodes_matched", (json_int_t)r->nodes_matched,
		      "nodes", (json_int_t)r->nodes, "links", (json_int_t)r->links,
		      "findings", list);
	return o;
}

static const char *str_of(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? v : "";
}

int val_report_add_json(struct val_report *r, const json_t *findings)
{
	size_t i, n0 = r->n;
	json_t *f;

	json_array_foreach(findings, i, f) {
		enum val_code code = val_code_of(str_of(f, "code"));
		json_int_t line = json_integer_value(json_object_get(f, "line"));

		if (code == VAL_CODE_COUNT || !str_of(f, "subject")[0]) {
			r->n = n0;
			return -EINVAL;
		}
		if (val_add(r, code, line > 0 && line < 1000000000 ? (unsigned)line : 0,
			    str_of(f, "want"), str_of(f, "got"), "%s", str_of(f, "subject")) < 0) {
			r->n = n0;
			return -ENOMEM;
		}
	}
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/slurm/slurm_node.c: see slurm_node.h. */
#include "autoconf.h"
#include "lib/slurm/slurm_node.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The value of ` key=` in line [p, end): its start, or NULL. */
static const char *find_key(const char *p, const char *end, const char *key)
{
	size_t kl = strlen(key);

	for (const char *q = p; q + kl <= end; q++) {
		if ((q == p || q[-1] == ' ') && !strncmp(q, key, kl))
			return q + kl;
	}
	return NULL;
}

/* One word (up to a space or the line's end) into out; 0, or -1 too long. */
static int word(const char *v, const char *end, char *out, size_t len)
{
	size_t n = 0;

	while (v + n < end && v[n] != ' ')
		n++;
	if (n >= len)
		return -1;
	memcpy(out, v, n);
	out[n] = '\0';
	return 0;
}

/* At p (after " ["), a "USER@TIME]" mark (TIME starts with a digit, as
 * Slurm's time formats do): the length up to and with ']', or 0. */
static size_t mark_len(const char *p, const char *end)
{
	const char *q = p, *at = NULL;

	while (q < end && *q != ']' && *q != ' ' && *q != '[') {
		if (*q == '@' && !at)
			at = q;
		q++;
	}
	if (q >= end || *q != ']' || !at || at == p || at + 1 >= q ||
	    !isdigit((unsigned char)at[1]))
		return 0;
	return (size_t)(q - p + 1);
}

/* At p, " Key=" (a word of letters) or the line's end. */
static int key_or_end(const char *p, const char *end)
{
	if (p == end)
		return 1;
	if (*p != ' ')
		return 0;
	p++;
	if (p == end || !isalpha((unsigned char)*p))
		return 0;
	while (p < end && isalnum((unsigned char)*p))
		p++;
	return p < end && *p == '=';
}

static void reason_of(const char *v, const char *end, struct slurm_node *o)
{
	const char *stop = end, *by = NULL;
	size_t byl = 0, n;

	for (const char *q = v; q + 2 <= end; q++) {
		size_t ml;

		if (q[0] != ' ' || q[1] != '[' || !(ml = mark_len(q + 2, end)))
			continue;
		if (key_or_end(q + 2 + ml, end)) {
			stop = q;
			by = q + 2;
			byl = ml - 1;
			break;
		}
	}
	n = (size_t)(stop - v);
	if (n >= sizeof(o->reason))
		n = sizeof(o->reason) - 1;
	memcpy(o->reason, v, n);
	o->reason[n] = '\0';
	if (by) {
		if (byl >= sizeof(o->reason_by))
			byl = sizeof(o->reason_by) - 1;
		memcpy(o->reason_by, by, byl);
		o->reason_by[byl] = '\0';
	}
}

static int part_is(const char *state, const char *const *names)
{
	const char *p = state;

	while (*p) {
		size_t n = strcspn(p, "+");

		for (size_t i = 0; names[i]; i++)
			if (strlen(names[i]) == n && !strncmp(p, names[i], n))
				return 1;
		p += n;
		if (*p == '+')
			p++;
	}
	return 0;
}

int slurm_node_parse(const char *text, const char *name, struct slurm_node *o, char *err,
		     size_t errlen)
{
	static const char *const drain[] = { "DRAIN", "DRAINING", "DRAINED", NULL };
	static const char *const down[] = { "DOWN", "FAIL", "FAILING", NULL };
	const char *p = text;

	memset(o, 0, sizeof(*o));
	while (p && *p) {
		const char *end = strchr(p, '\n'), *v;

		if (!end)
			end = p + strlen(p);
		if (end > p && end[-1] == '\r')
			end--;
		if (!strncmp(p, "NodeName=", 9) && !word(p + 9, end, o->name, sizeof(o->name)) &&
		    !strcmp(o->name, name)) {
			if (!(v = find_key(p, end, "State=")) ||
			    word(v, end, o->state, sizeof(o->state)) < 0 || !o->state[0]) {
				snprintf(err, errlen, "node %.100s: no State= in scontrol's line", name);
				return -EINVAL;
			}
			if ((v = find_key(p, end, "Reason=")))
				reason_of(v, end, o);
			o->drained = part_is(o->state, drain);
			o->down = part_is(o->state, down);
			return 0;
		}
		p = *end ? strchr(end, '\n') : NULL;
		if (p)
			p++;
	}
	o->name[0] = '\0';
	/* scontrol: "Node NAME not found" */
	for (p = text; (p = strstr(p, "Node ")); p++) {
		size_t nl = strlen(name);

		if (!strncmp(p + 5, name, nl) && !strncmp(p + 5 + nl, " not found", 10)) {
			snprintf(err, errlen, "Node %.100s not found", name);
			return -ENOENT;
		}
	}
	snprintf(err, errlen, "node %.100s: no NodeName=%.100s line in scontrol's output: %.200s",
		 name, name, text[0] ? text : "(none)");
	for (char *e = err; *e; e++)
		if (*e == '\n' || *e == '\r')
			*e = ' ';
	return -EINVAL;
}

int slurm_node_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (!n || n > 63 || name[0] == '-')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && !strchr("._-", name[i]))
			return 0;
	return 1;
}

int slurm_node_reason_is_loom(const char *reason)
{
	return !strncmp(reason, "loom:", 5);
}

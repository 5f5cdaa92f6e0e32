/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/util/cmds_args.h: what a control command takes, declared with the
 * command in lib/util/commands.c and checked in one place before its
 * handler runs (daemon/core/ctl.c: from the socket and from ctl_call
 * alike): a key not in the list, or a value not of its type, is answered
 * bad-request naming the key (and, for an unknown key, the keys the
 * command takes); the handler never sees the request. Types: a string;
 * true/false (null refused); an integer from min to max (a real such as
 * 4660.0, a string "0x1234", or a value out of range refused); a number
 * (integer or real) from min to max. null stands for an absent string,
 * integer or number. What only the handler can judge (a name that must
 * exist, a key in use) stays its own. Pure: no socket, no request. */
#ifndef LOOM_CMDS_ARGS_H
#define LOOM_CMDS_ARGS_H

#include <stddef.h>

#include <jansson.h>

enum cmds_arg_type {
	CMDS_ARG_STRING,
	CMDS_ARG_BOOL,
	CMDS_ARG_INT,
	CMDS_ARG_NUMBER,
};
struct cmds_arg {
	const char *key;
	enum cmds_arg_type type;
	json_int_t min, max;          /* CMDS_ARG_INT, CMDS_ARG_NUMBER */
};
#define CMDS_ARG_S(k) { (k), CMDS_ARG_STRING, 0, 0 }
#define CMDS_ARG_B(k) { (k), CMDS_ARG_BOOL, 0, 0 }
#define CMDS_ARG_I(k, lo, hi) { (k), CMDS_ARG_INT, (lo), (hi) }
#define CMDS_ARG_N(k, lo, hi) { (k), CMDS_ARG_NUMBER, (lo), (hi) }
#define CMDS_ARG_END { NULL, CMDS_ARG_STRING, 0, 0 }
/* The entry of spec (ended by CMDS_ARG_END; NULL: none) named key, or NULL. */
const struct cmds_arg *cmds_arg_find(const struct cmds_arg *spec, const char *key);
/* The check itself, pure: 0, or -EINVAL with the message in err. args
 * must be an object (the protocol's parser sees to it). */
int cmds_args_check(const char *cmd, const struct cmds_arg *spec, const json_t *args,
		    char *err, size_t errlen);

#endif

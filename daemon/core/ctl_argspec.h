/* daemon/core/ctl_argspec.h: what a control command takes, declared with
 * the command (ctl.h's ctl_register_args, ctl_set_args) and checked in one
 * place before its handler runs, from the socket and from ctl_call alike
 * (ctl.c): a key not in the list, or a value not of its type, is answered
 * bad-request naming the key (and, for an unknown key, the keys the
 * command takes); the handler never sees the request. Types: a string;
 * true/false (null refused); an integer from min to max (a real such as
 * 4660.0, a string "0x1234", or a value out of range refused); a number
 * (integer or real) from min to max. null stands for an absent string,
 * integer or number. What only the handler can judge (a name that must
 * exist, a key in use) stays its own. Pure: no socket, no request. */
#ifndef LOOMD_CTL_ARGSPEC_H
#define LOOMD_CTL_ARGSPEC_H

#include <stddef.h>

#include <jansson.h>

enum ctl_arg_type {
	CTL_ARG_STRING,
	CTL_ARG_BOOL,
	CTL_ARG_INT,
	CTL_ARG_NUMBER,
};
struct ctl_arg {
	const char *key;
	enum ctl_arg_type type;
	json_int_t min, max;          /* CTL_ARG_INT, CTL_ARG_NUMBER */
};
#define CTL_ARG_S(k) { (k), CTL_ARG_STRING, 0, 0 }
#define CTL_ARG_B(k) { (k), CTL_ARG_BOOL, 0, 0 }
#define CTL_ARG_I(k, lo, hi) { (k), CTL_ARG_INT, (lo), (hi) }
#define CTL_ARG_N(k, lo, hi) { (k), CTL_ARG_NUMBER, (lo), (hi) }
#define CTL_ARG_END { NULL, CTL_ARG_STRING, 0, 0 }
/* The check itself, pure: 0, or -EINVAL with the message in err. args
 * must be an object (the protocol's parser sees to it). */
int ctl_args_check(const char *cmd, const struct ctl_arg *spec, const json_t *args, char *err,
		   size_t errlen);

#endif

/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/walker.h: the SMP walk of a subnet, run in a short-lived child
 * process (loomd itself, started as `loomd --walk ...`).
 *
 * Why a process: libibnetdisc (rdma-core 44) leaks 64 bytes per switch port
 * that has a LID on every walk, harmless to the one-shot ibnetdiscover but
 * tens of MB a day in a daemon sweeping a large fabric every few minutes;
 * and a crash or hang inside the MAD libraries must not take loomd down.
 * The child walks, writes the fabric to a pipe (lib/fabric/fabric_wire.h) and
 * exits; everything it allocated goes with it.
 *
 * The M_Key (disc_ib_params.m_key) is a secret: it never goes on the
 * child's command line, which /proc/PID/cmdline shows every local user, nor
 * in its environment. The parent writes its 8 bytes into a pipe whose read
 * end the child inherits as fd WALKER_MKEY_FD; the environment variable
 * WALKER_MKEY_ENV only says that the fd is there ("3"). The child reads the
 * key before anything else, closes the fd and forgets the variable. A
 * child started by hand (tests, bench) without the variable has no key. */
#ifndef LOOMD_WALKER_H
#define LOOMD_WALKER_H

#include <stddef.h>
#include <stdio.h>

#include "daemon/ib/discovery_ib.h"

#define WALKER_MKEY_FD 3
#define WALKER_MKEY_ENV "LOOMD_MKEY_FD"

/* Which walk a child's full sweep uses (disc_ib_params.walker): the parent
 * names it in the child's environment, WALKER_WALKER_ENV "loom" or
 * "ibnetdisc"; a child started by hand without it walks with loom's walk,
 * the default. */
#define WALKER_WALKER_ENV "LOOMD_WALKER"
/* p->walker from WALKER_WALKER_ENV: 0, or -EINVAL for another value. */
int walker_child_walker(struct disc_ib_params *p);
/* In a child: the M_Key handed on WALKER_MKEY_FD into p->m_key (0 when
 * WALKER_MKEY_ENV is not set). 0, or -errno with err (a pipe that does not
 * hold 8 bytes). walker_child_main calls it. */
int walker_child_mkey(struct disc_ib_params *p, char *err, size_t errlen);

/* Remember the executable to start, at startup (before any chdir). */
void walker_init(const char *argv0);

/* disc_ib_sweep() in a child process; same contract. Blocking: call it from
 * a worker thread. *max_rss_kb (if not NULL) gets the child's peak memory. */
struct fab *walker_sweep(const struct disc_ib_params *p, long *max_rss_kb,
			 char *err, size_t errlen);

/* Kill every child under way (SIGKILL) and start no more: loomd's
 * shutdown, before it waits for its workers. Their walker_run() returns
 * "the walker died of signal 9". Any thread. */
void walker_stop_all(void);

/* For tests: run exe instead of loomd's own executable, and give a child
 * `seconds` (0: the normal 600) before it is killed as hung. */
void walker_set_child(const char *exe, unsigned seconds);

/* Start `loomd MODE SUBNET CA PORT TIMEOUT_MS RETRIES MAX_SMPS` (MODE
 * "--walk" or another child mode such as "--read-lfts") and collect its
 * stdout. 0 with a new buffer in *out when the child exited 0 (*len bytes,
 * and a NUL after them, so a text answer is a string); else -errno
 * and err says why (the child's own one-line error when it gave one).
 * Blocking: call it from a worker thread. */
int walker_run(const char *mode, const struct disc_ib_params *p, char **out, size_t *len,
	       long *max_rss_kb, char *err, size_t errlen);
/* walker_run with arguments of the mode's own after MAX_SMPS: extra[0..n_extra-1]
 * (at most 8). The child finds them at argv[7..]. */
int walker_run_extra(const char *mode, const struct disc_ib_params *p,
		     const char *const *extra, size_t n_extra, char **out, size_t *len,
		     long *max_rss_kb, char *err, size_t errlen);
/* walker_run, with the fabric handed to the child on its stdin (in
 * fab_wire's form, behind a last argument WALKER_FABRIC_STDIN) instead of
 * the child walking the subnet: for a mode that only needs to know the
 * fabric, such as the counters reader. The child reads all of its stdin
 * before it writes (walker_child_main does), as the parent writes all of
 * it before it reads. */
#define WALKER_FABRIC_STDIN "-"
struct fab;
int walker_run_fabric(const char *mode, const struct disc_ib_params *p, const struct fab *fab,
		      char **out, size_t *len, char *err, size_t errlen);
/* walker_run_fabric, and more_len bytes of the mode's own after the
 * fabric on the child's stdin: the child finds them with
 * walker_child_more(). */
int walker_run_fabric_more(const char *mode, const struct disc_ib_params *p,
			   const struct fab *fab, const void *more, size_t more_len, char **out,
			   size_t *len, char *err, size_t errlen);
/* In a child handed the fabric on stdin: the bytes after it (NUL-ended),
 * or NULL with *len 0. */
const char *walker_child_more(size_t *len);
/* The child's arguments (argv[0] is the mode) into p; -EINVAL (said on
 * stderr) when they are not what walker_run passes. */
int walker_parse_args(int argc, char **argv, struct disc_ib_params *p);

/* What a child mode does with the subnet it has just swept: write its
 * answer to `out`. 0, or -errno with one line in err. */
typedef int (*walker_child_fn)(const struct disc_ib_params *p, const struct fab *fab,
			       FILE *out, char *err, size_t errlen);

/* The main of a child mode (--walk, --read-lfts, --read-pkeys, ...):
 * parse the arguments, sweep the subnet, run `fn` into memory, then write
 * its answer to stdout whole (exit 0), or one line of error instead (exit
 * 1); 2 on bad arguments, 3 when stdout fails. `ident` names the child in
 * its log lines, which go to stderr: the parent reads stdout to its end. */
int walker_child_main(int argc, char **argv, const char *ident, walker_child_fn fn);

/* One line of a child's JSON-lines answer: {"KEY": v} (steals v). 0 or
 * -EIO. */
struct json_t;
int walker_put_line(const char *key, struct json_t *v, FILE *out);
/* A child's JSON-lines answer (len bytes of buf): every {"KEY": {...}} line
 * into a new array *items, in order, up to the {"done": {...}} line that
 * ends it, into *done. -EPROTO with err ("WHAT was cut short or
 * malformed") when no done line ends the whole buffer; -ENOMEM. */
int walker_parse_lines(const char *buf, size_t len, const char *key, const char *what,
		       struct json_t **done, struct json_t **items, char *err, size_t errlen);

/* The child's side: `loomd --walk SUBNET CA PORT TIMEOUT_MS RETRIES MAX_SMPS`
 * (argv[0] is "--walk"). Returns the exit status: 0 with the fabric on
 * stdout, 1 with one line of error on stdout, 2 on bad arguments. */
int walker_main(int argc, char **argv);

#endif

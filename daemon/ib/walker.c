/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/ib/walker.c: see walker.h. */
#include "autoconf.h"
#include "daemon/ib/walker.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "lib/fabric/fabric_wire.h"

#include "lib/util/log.h"

/* The longest a child may take: far above a 10000-node walk (seconds), so
 * only a hang meets it. */
#define WALKER_MAX_S 600

extern char **environ;

static char exe_path[PATH_MAX];
static unsigned max_s = WALKER_MAX_S;

/* The children under way, so that loomd's shutdown need not wait for one
 * that hangs (a MAD library blocked on a port that went away): at most
 * one per worker thread. */
#define WALKER_MAX_RUNNING 64
static pthread_mutex_t running_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t running[WALKER_MAX_RUNNING];
static int stopping;

/* Remember pid; kill it at once when the shutdown has begun. A child past
 * the table's room is only not killed early. */
static void running_add(pid_t pid)
{
	pthread_mutex_lock(&running_lock);
	for (size_t i = 0; !stopping && i < WALKER_MAX_RUNNING; i++)
		if (!running[i]) {
			running[i] = pid;
			break;
		}
	if (stopping)
		kill(pid, SIGKILL);
	pthread_mutex_unlock(&running_lock);
}

static void running_remove(pid_t pid)
{
	pthread_mutex_lock(&running_lock);
	for (size_t i = 0; i < WALKER_MAX_RUNNING; i++)
		if (running[i] == pid)
			running[i] = 0;
	pthread_mutex_unlock(&running_lock);
}

void walker_stop_all(void)
{
	pthread_mutex_lock(&running_lock);
	stopping = 1;
	for (size_t i = 0; i < WALKER_MAX_RUNNING; i++)
		if (running[i])
			kill(running[i], SIGKILL);
	pthread_mutex_unlock(&running_lock);
}

void walker_set_child(const char *exe, unsigned seconds)
{
	snprintf(exe_path, sizeof(exe_path), "%s", exe);
	max_s = seconds ? seconds : WALKER_MAX_S;
}

void walker_init(const char *argv0)
{
	/* /proc/self/exe survives the daemon's chdir("/"); argv0 is the
	 * fallback where /proc is not mounted. */
	ssize_t n = readlink("/proc/self/exe", exe_path, sizeof(exe_path) - 1);

	if (n > 0)
		exe_path[n] = '\0';
	else
		snprintf(exe_path, sizeof(exe_path), "%s", argv0);
}

/* Read fd to its end, waiting at most max_s in all: -ETIMEDOUT
 * after that (a child hung in the MAD libraries must not hold its caller,
 * and loomd's shutdown, for ever). */
static int read_all(int fd, char **out, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	struct timespec t0, t;

	if (!buf)
		return -ENOMEM;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		long left_ms;
		ssize_t r;
		int ready;

		clock_gettime(CLOCK_MONOTONIC, &t);
		left_ms = (long)max_s * 1000L - ((t.tv_sec - t0.tv_sec) * 1000L +
						  (t.tv_nsec - t0.tv_nsec) / 1000000L);
		ready = left_ms > 0 ? poll(&pfd, 1, (int)left_ms) : 0;
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready == 0) {
			free(buf);
			return -ETIMEDOUT;
		}

		if (n + 1 >= cap) {  /* room for the terminating NUL */
			char *bigger = realloc(buf, cap * 2);

			if (!bigger) {
				free(buf);
				return -ENOMEM;
			}
			buf = bigger;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(buf);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}


/* Write input (n bytes) to fd, a socket (no SIGPIPE when the child is
 * gone): 0 or -errno. */
static int send_all(int fd, const void *input, size_t n)
{
	const char *b = input;

	while (n) {
		ssize_t w = send(fd, b, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

static int parse_int(const char *s, int lo, int hi, int *out);

/* The child's environment: loomd's, without any WALKER_MKEY_ENV or
 * WALKER_WALKER_ENV of its own, plus WALKER_WALKER_ENV naming the walker
 * and, with_key, WALKER_MKEY_ENV=WALKER_MKEY_FD. 0 or -ENOMEM; free *env
 * (not its strings). */
static int child_env(int walker, int with_key, char ***env)
{
	static char key_var[] = WALKER_MKEY_ENV "=" "3";
	static char loom_var[] = WALKER_WALKER_ENV "=loom";
	static char ibnd_var[] = WALKER_WALKER_ENV "=ibnetdisc";
	size_t n = 0;

	_Static_assert(WALKER_MKEY_FD == 3, "key_var names fd 3");
	for (char **e = environ; *e; e++)
		n++;
	if (!(*env = calloc(n + 3, sizeof(**env))))
		return -ENOMEM;
	n = 0;
	for (char **e = environ; *e; e++)
		if (strncmp(*e, WALKER_MKEY_ENV "=", sizeof(WALKER_MKEY_ENV)) != 0 &&
		    strncmp(*e, WALKER_WALKER_ENV "=", sizeof(WALKER_WALKER_ENV)) != 0)
			(*env)[n++] = *e;
	(*env)[n++] = walker == DISC_IB_WALKER_LOOM ? loom_var : ibnd_var;
	if (with_key)
		(*env)[n] = key_var;
	return 0;
}

/* The M_Key's pipe for a child (walker.h): *rfd the read end, the key
 * already in it (8 bytes fit any pipe's buffer). 0 or -errno. */
static int mkey_pipe(uint64_t key, int *rfd)
{
	uint8_t b[8];
	int k[2];

	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(key >> (56 - 8 * i));
	if (pipe2(k, O_CLOEXEC) < 0)
		return -errno;
	if (write(k[1], b, sizeof(b)) != (ssize_t)sizeof(b)) {
		close(k[0]);
		close(k[1]);
		return -EIO;
	}
	explicit_bzero(b, sizeof(b));
	close(k[1]);
	*rfd = k[0];
	return 0;
}

int walker_child_mkey(struct disc_ib_params *p, char *err, size_t errlen)
{
	const char *v = getenv(WALKER_MKEY_ENV);
	uint8_t b[8];
	size_t got = 0;
	int fd, rc = 0;

	p->m_key = 0;
	if (!v)
		return 0;
	fd = parse_int(v, 3, INT_MAX, &fd) == 0 ? fd : -1;  /* never stdin, out, err */
	unsetenv(WALKER_MKEY_ENV);
	if (fd < 0) {
		snprintf(err, errlen, "%s is not a file descriptor above 2", WALKER_MKEY_ENV);
		return -EINVAL;
	}
	while (got < sizeof(b)) {
		ssize_t r = read(fd, b + got, sizeof(b) - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = r < 0 ? -errno : -EPROTO;
			break;
		}
		got += (size_t)r;
	}
	close(fd);
	if (rc < 0) {
		snprintf(err, errlen, "cannot read the M_Key loomd hands on fd %d: %s", fd,
			 rc == -EPROTO ? "fewer than 8 bytes" : strerror(-rc));
		return rc;
	}
	for (int i = 0; i < 8; i++)
		p->m_key = p->m_key << 8 | b[i];
	explicit_bzero(b, sizeof(b));
	return 0;
}

int walker_child_walker(struct disc_ib_params *p)
{
	const char *v = getenv(WALKER_WALKER_ENV);

	if (!v || strcmp(v, "loom") == 0)
		p->walker = DISC_IB_WALKER_LOOM;
	else if (strcmp(v, "ibnetdisc") == 0)
		p->walker = DISC_IB_WALKER_IBNETDISC;
	else
		return -EINVAL;
	return 0;
}

/* walker_run_extra, and with input (NULL: none) on the child's stdin. */
static int spawn_run(const char *mode, const struct disc_ib_params *p,
		     const char *const *extra, size_t n_extra, const void *input,
		     size_t input_len, char **out, size_t *len, long *max_rss_kb, char *err,
		     size_t errlen)
{
	struct rusage ru;
	char port[16], timeout[16], retries[16], smps[16];
	char *argv[8 + 8 + 1] = { exe_path, (char *)mode, (char *)p->subnet,
				  (char *)(p->ca ? p->ca : ""), port, timeout, retries, smps, NULL };
	posix_spawn_file_actions_t fa;
	int fds[2], in[2] = { -1, -1 }, key = -1, status = 0, rc;
	char **env = NULL;
	pid_t pid;

	*out = NULL;
	*len = 0;
	if (n_extra > 8) {
		snprintf(err, errlen, "cannot start the walker: %zu arguments of its own, at most 8",
			 n_extra);
		return -EINVAL;
	}
	for (size_t i = 0; i < n_extra; i++)
		argv[8 + i] = (char *)extra[i];
	snprintf(port, sizeof(port), "%d", p->port);
	snprintf(timeout, sizeof(timeout), "%d", p->timeout_ms);
	snprintf(retries, sizeof(retries), "%d", p->retries);
	snprintf(smps, sizeof(smps), "%d", p->max_smps);
	if (child_env(p->walker, p->m_key != 0, &env) < 0) {
		snprintf(err, errlen, "cannot start the walker: out of memory");
		return -ENOMEM;
	}
	if (p->m_key && (rc = mkey_pipe(p->m_key, &key)) < 0) {
		snprintf(err, errlen, "cannot start the walker: the M_Key's pipe: %s",
			 strerror(-rc));
		free(env);
		return rc;
	}
	if (pipe2(fds, O_CLOEXEC) < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot start the walker: pipe: %s", strerror(-rc));
		goto fail_key;
	}
	if (input && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) < 0) {
		rc = -errno;
		close(fds[0]);
		close(fds[1]);
		snprintf(err, errlen, "cannot start the walker: socketpair: %s", strerror(-rc));
		goto fail_key;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	if (input)
		posix_spawn_file_actions_adddup2(&fa, in[1], STDIN_FILENO);
	if (key >= 0)
		posix_spawn_file_actions_adddup2(&fa, key, WALKER_MKEY_FD);
	rc = posix_spawn(&pid, exe_path, &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (input)
		close(in[1]);
	if (key >= 0)
		close(key);
	free(env);
	if (rc != 0) {
		snprintf(err, errlen, "cannot start the walker %s: %s", exe_path, strerror(rc));
		close(fds[0]);
		if (input)
			close(in[0]);
		return -rc;
	}
	running_add(pid);
	/* The child reads all of its input before it writes anything. A child
	 * that died early shows in its exit status, below. */
	if (input) {
		send_all(in[0], input, input_len);
		close(in[0]);
	}
	rc = read_all(fds[0], out, len);
	close(fds[0]);
	if (rc == -ETIMEDOUT)
		kill(pid, SIGKILL);
	/* Forgotten once it has exited but before it is reaped, so that
	 * walker_stop_all() never signals a reused pid. */
	while (waitid(P_PID, (id_t)pid, &(siginfo_t){ 0 }, WEXITED | WNOWAIT) < 0 &&
	       errno == EINTR)
		;
	running_remove(pid);
	memset(&ru, 0, sizeof(ru));
	while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
		;
	if (max_rss_kb)
		*max_rss_kb = ru.ru_maxrss;
	if (rc < 0) {
		if (rc == -ETIMEDOUT)
			snprintf(err, errlen, "the walker gave no answer within %u s: killed",
				 max_s);
		else
			snprintf(err, errlen, "reading the walker's answer: %s", strerror(-rc));
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		return 0;
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 1 && *len > 0) {
		/* One line of error, as the child decided it. */
		snprintf(err, errlen, "%.*s", (int)((*out)[*len - 1] == '\n' ? *len - 1 : *len),
			 *out);
		rc = -EIO;
	} else if (WIFSIGNALED(status)) {
		snprintf(err, errlen, "the walker died of signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
		rc = -EIO;
	} else {
		snprintf(err, errlen, "the walker failed (exit status %d)",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		rc = -EIO;
	}
	free(*out);
	*out = NULL;
	*len = 0;
	return rc;
fail_key:
	if (key >= 0)
		close(key);
	free(env);
	return rc;
}

int walker_run(const char *mode, const struct disc_ib_params *p, char **out, size_t *len,
	       long *max_rss_kb, char *err, size_t errlen)
{
	return spawn_run(mode, p, NULL, 0, NULL, 0, out, len, max_rss_kb, err, errlen);
}

int walker_run_extra(const char *mode, const struct disc_ib_params *p,
		     const char *const *extra, size_t n_extra, char **out, size_t *len,
		     long *max_rss_kb, char *err, size_t errlen)
{
	return spawn_run(mode, p, extra, n_extra, NULL, 0, out, len, max_rss_kb, err, errlen);
}

int walker_run_fabric(const char *mode, const struct disc_ib_params *p, const struct fab *fab,
		      char **out, size_t *len, char *err, size_t errlen)
{
	return walker_run_fabric_more(mode, p, fab, NULL, 0, out, len, err, errlen);
}

int walker_run_fabric_more(const char *mode, const struct disc_ib_params *p,
			   const struct fab *fab, const void *more, size_t more_len, char **out,
			   size_t *len, char *err, size_t errlen)
{
	static const char *const on_stdin[] = { WALKER_FABRIC_STDIN };
	char *wire = NULL;
	size_t n = 0;
	FILE *mem = open_memstream(&wire, &n);
	int rc;

	*out = NULL;
	*len = 0;
	if (!mem) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = fab_wire_write(fab, mem);
	if (rc == 0 && more_len && fwrite(more, 1, more_len, mem) != more_len)
		rc = -ENOMEM;
	if (fclose(mem) != 0 && rc == 0)
		rc = -ENOMEM;
	if (rc < 0) {
		snprintf(err, errlen, "cannot hand the fabric to the child: %s", strerror(-rc));
		free(wire);
		return rc;
	}
	rc = spawn_run(mode, p, on_stdin, 1, wire, n, out, len, NULL, err, errlen);
	free(wire);
	return rc;
}

struct fab *walker_sweep(const struct disc_ib_params *p, long *max_rss_kb,
			 char *err, size_t errlen)
{
	struct fab *fab = NULL;
	char *out;
	size_t len;

	if (walker_run("--walk", p, &out, &len, max_rss_kb, err, errlen) == 0)
		fab = fab_wire_read(out, len, err, errlen);
	free(out);
	return fab;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

int walker_parse_args(int argc, char **argv, struct disc_ib_params *p)
{
	memset(p, 0, sizeof(*p));
	if (argc != 7 || parse_int(argv[3], 0, 254, &p->port) < 0 ||
	    parse_int(argv[4], 0, 600000, &p->timeout_ms) < 0 ||
	    parse_int(argv[5], 0, 100, &p->retries) < 0 ||
	    parse_int(argv[6], 0, 4096, &p->max_smps) < 0) {
		fprintf(stderr, "loomd %s: bad arguments (this mode is for loomd itself)\n",
			argv[0]);
		return -EINVAL;
	}
	p->subnet = argv[1];
	p->ca = argv[2];
	return 0;
}

int walker_put_line(const char *key, json_t *v, FILE *out)
{
	json_t *line = json_pack("{s:o}", key, v);
	int rc = line && json_dumpf(line, out, JSON_COMPACT) == 0 && fputc('\n', out) != EOF ?
		 0 : -EIO;

	json_decref(line);
	return rc;
}

int walker_parse_lines(const char *buf, size_t len, const char *key, const char *what,
		       json_t **done, json_t **items, char *err, size_t errlen)
{
	json_t *arr = json_array(), *last = NULL;
	size_t at = 0;

	*done = *items = NULL;
	if (!arr) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	while (at < len && !last) {
		const char *nl = memchr(buf + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (buf + at)) : len - at;
		json_t *line = json_loadb(buf + at, n, 0, NULL), *v;

		at += n + (nl ? 1 : 0);
		if (!line)
			break;
		if ((v = json_object_get(line, key)) && json_is_object(v))
			json_array_append(arr, v);
		else if ((v = json_object_get(line, "done")) && json_is_object(v))
			last = json_incref(v);
		json_decref(line);
	}
	if (!last || at != len) {
		snprintf(err, errlen, "%s was cut short or malformed (%zu bytes)", what, len);
		json_decref(last);
		json_decref(arr);
		return -EPROTO;
	}
	*done = last;
	*items = arr;
	return 0;
}

/* What a child was handed on stdin after the fabric (walker_child_more). */
static char *child_more;
static size_t child_more_len;

const char *walker_child_more(size_t *len)
{
	*len = child_more_len;
	return child_more;
}

/* The fabric loomd hands a child on stdin, read whole; what follows it is
 * kept for walker_child_more. */
static struct fab *fabric_from_stdin(char *err, size_t errlen)
{
	char *buf = NULL;
	size_t n = 0, used = 0;
	struct fab *fab;
	int rc;

	/* read_all's limit is the walker's time, which the alarm keeps too. */
	if ((rc = read_all(STDIN_FILENO, &buf, &n)) < 0) {
		snprintf(err, errlen, "cannot read the fabric on stdin: %s", strerror(-rc));
		return NULL;
	}
	fab = fab_wire_read_prefix(buf, n, &used, err, errlen);
	if (fab && used < n) {
		memmove(buf, buf + used, n - used);
		child_more = buf;
		child_more_len = n - used;
		child_more[child_more_len] = '\0';  /* read_all left room for it */
		return fab;
	}
	free(buf);
	return fab;
}

static int write_fabric(const struct disc_ib_params *p, const struct fab *fab, FILE *out,
			char *err, size_t errlen);

int walker_child_main(int argc, char **argv, const char *ident, walker_child_fn fn)
{
	struct disc_ib_params p;
	int from_stdin = 0;
	char err[1024] = "", *text = NULL;
	size_t len = 0;
	struct fab *fab;
	FILE *mem;
	int rc;

	/* A last argument WALKER_FABRIC_STDIN: the fabric comes on stdin
	 * (walker_run_fabric), no walk. */
	if (argc == 8 && strcmp(argv[7], WALKER_FABRIC_STDIN) == 0) {
		from_stdin = 1;
		argc = 7;
	}
	if (walker_parse_args(argc, argv, &p) < 0)
		return 2;
	if (walker_child_mkey(&p, err, sizeof(err)) < 0) {
		printf("%s\n", err);
		return 1;
	}
	p.read_sms = fn == write_fabric;  /* the sweep proper (--walk) reads the SMs too */
	if ((rc = walker_child_walker(&p)) < 0) {
		printf("%s=%s: neither loom nor ibnetdisc\n", WALKER_WALKER_ENV,
		       getenv(WALKER_WALKER_ENV));
		return 2;
	}
	/* Never outlive loomd (killed with -9, its children would stay,
	 * blocked in a MAD library on a port that went away), nor the time
	 * loomd gives a child. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		return 1;
	alarm(WALKER_MAX_S + 30);
	log_init(ident, LOG_LVL_WARNING, LOG_TARGET_STDERR);
	if (!(fab = from_stdin ? fabric_from_stdin(err, sizeof(err))
			       : disc_ib_sweep(&p, err, sizeof(err)))) {
		rc = -EIO;
	} else if (!(mem = open_memstream(&text, &len))) {
		rc = -ENOMEM;
		snprintf(err, sizeof(err), "out of memory");
	} else {
		rc = fn(&p, fab, mem, err, sizeof(err));
		if (fclose(mem) != 0 && rc == 0) {
			rc = -ENOMEM;
			snprintf(err, sizeof(err), "out of memory");
		}
	}
	fab_free(fab);
	/* Whole or nothing on stdout: a failure is one line of error. */
	if (rc < 0)
		printf("%s\n", err);
	else
		fwrite(text, 1, len, stdout);
	free(text);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: cannot write to stdout: %s\n", ident, strerror(errno));
		return 3;
	}
	return rc < 0 ? 1 : 0;
}

static int write_fabric(const struct disc_ib_params *p, const struct fab *fab, FILE *out,
			char *err, size_t errlen)
{
	int rc = fab_wire_write(fab, out);

	(void)p;
	if (rc < 0)
		snprintf(err, errlen, "cannot write the fabric: %s", strerror(-rc));
	return rc;
}

int walker_main(int argc, char **argv)
{
	return walker_child_main(argc, argv, "loomd-walk", write_fabric);
}

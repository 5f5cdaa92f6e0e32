/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/core/test_sandbox.c: daemon/core/sandbox.h, from inside.
 * Each test forks a grandchild that enters the sandbox with one temporary
 * directory readable, tries what the HTTP front end must not do (write or
 * create a file, read one elsewhere or another process's /proc, create a
 * socket, exec, signal its parent, regain root) and what it must still do
 * (read beneath the directory, signal itself), and sends what happened
 * back through a pipe; the test asserts in the test process. The same
 * probes run without the sandbox succeed (the control test), so each
 * assertion can fail. Where the kernel has no Landlock, the documented
 * fallback is asserted instead: every open refused, the directory too. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/core/sandbox.h"
#include "tests/unit/fixtures/check_run.h"

#ifdef __SANITIZE_ADDRESS__
#define ASAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN_BUILD 1
#endif
#endif

/* What the grandchild saw: 0 = the call worked, else its errno. */
struct probe {
	int enter_rc;
	char err[256];
	struct sandbox_report rep;
	int read_inside, write_inside, create_inside, read_outside, read_etc;
	int proc_parent, proc_self;
	int sock, exec, kill_parent, tgkill_parent, raise_self, self_signal_seen;
	int new_userns, thread, fork, tiocsti;
	int nnp, seccomp_mode;
	uid_t uid;
	int setuid0;
};

static char dir[64], inside[96], outside[64];

static void setup(void)
{
	int fd;

	strcpy(dir, "/tmp/loom-sandbox-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	/* 0777/0666: when the test runs as root, the grandchild becomes
	 * nobody, and file modes must not be what refuses it: only the
	 * sandbox may (EACCES from Landlock or the filter). */
	ck_assert_int_eq(chmod(dir, 0777), 0);
	snprintf(inside, sizeof(inside), "%s/inside.txt", dir);
	fd = open(inside, O_WRONLY | O_CREAT | O_EXCL, 0666);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fchmod(fd, 0666), 0);
	ck_assert_int_eq(write(fd, "in\n", 3), 3);
	close(fd);
	strcpy(outside, "/tmp/loom-sandbox-out-XXXXXX");
	fd = mkstemp(outside);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fchmod(fd, 0644), 0);
	close(fd);
}

static void teardown(void)
{
	char created[128];

	snprintf(created, sizeof(created), "%s/created.txt", dir);
	unlink(created);
	unlink(inside);
	unlink(outside);
	rmdir(dir);
}

static int open_errno(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0644);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int rc_errno(int rc)
{
	return rc < 0 ? errno : 0;
}

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	got_usr1 = 1;
}

static void *thread_main(void *arg)
{
	return arg;
}

/* 0 if a child created with these clone flags ran, else errno. */
static int clone_errno(unsigned long flags)
{
	long pid = syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
	int status;

	if (pid < 0)
		return errno;
	if (pid == 0)
		_exit(0);
	return waitpid((pid_t)pid, &status, 0) == pid && WIFEXITED(status) ? 0 : ECHILD;
}

static void probe_all(struct probe *p, int try_exec)
{
	char path[128];
	int fd;

	p->read_inside = open_errno(inside, O_RDONLY);
	p->write_inside = open_errno(inside, O_WRONLY);
	snprintf(path, sizeof(path), "%s/created.txt", dir);
	p->create_inside = open_errno(path, O_WRONLY | O_CREAT | O_EXCL);
	p->read_outside = open_errno(outside, O_RDONLY);
	p->read_etc = open_errno("/etc/passwd", O_RDONLY);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)getppid());
	p->proc_parent = open_errno(path, O_RDONLY);
	p->proc_self = open_errno("/proc/self/status", O_RDONLY);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	p->sock = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	/* A successful exec is the failure it is: run() sees EOF. */
	if (try_exec) {
		char *const argv[] = { "true", NULL };
		char *const envp[] = { NULL };

		execve("/bin/true", argv, envp);
		p->exec = errno;
	}
	p->kill_parent = rc_errno(kill(getppid(), 0));
	p->tgkill_parent = rc_errno((int)syscall(SYS_tgkill, getppid(), getppid(), 0));
	p->new_userns = clone_errno(CLONE_NEWUSER);
	p->tiocsti = rc_errno(ioctl(-1, TIOCSTI, "x"));
	p->fork = clone_errno(0);
	{
		pthread_t t;
		void *ret = NULL;

		p->thread = pthread_create(&t, NULL, thread_main, p);
		if (p->thread == 0 && (pthread_join(t, &ret) || ret != p))
			p->thread = -1;
	}
	signal(SIGUSR1, on_usr1);
	p->raise_self = raise(SIGUSR1) ? errno : 0;
	p->self_signal_seen = got_usr1;
	p->nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	p->seccomp_mode = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
	p->uid = getuid();
	p->setuid0 = setuid(0) < 0 ? errno : 0;
}

/* Run probe_all() in a fresh grandchild, inside the sandbox when enter. */
static struct probe run(int enter, const char *const *read_dirs)
{
	const char *const dirs[] = { dir, NULL };
	struct sandbox_spec spec = { .user = NULL, .read_dirs = read_dirs ? read_dirs : dirs };
	struct probe p;
	int fds[2], status;
	pid_t pid;
	ssize_t n;

	memset(&p, 0, sizeof(p));
	ck_assert_int_eq(pipe(fds), 0);
	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		if (enter)
			p.enter_rc = sandbox_enter(&spec, &p.rep, p.err, sizeof(p.err));
		if (p.enter_rc == 0)
			probe_all(&p, enter);
		if (write(fds[1], &p, sizeof(p)) != (ssize_t)sizeof(p))
			_exit(2);
#ifdef ASAN_BUILD
		/* Without Landlock every open is refused, LeakSanitizer's of
		 * /proc/self/maps too (docs/sandbox.md, ASan builds). */
		if (enter && p.rep.landlock_abi == 0)
			_exit(0);
#endif
		/* exit(), not _exit(): in an ASan build LeakSanitizer runs now,
		 * inside the sandbox, and a failure shows in the status. */
		exit(0);
	}
	close(fds[1]);
	n = read(fds[0], &p, sizeof(p));
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(n == (ssize_t)sizeof(p), "grandchild sent %zd bytes (exec succeeded?)", n);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "grandchild status 0x%x", (unsigned)status);
	return p;
}

static struct probe run_sandboxed(void)
{
	struct probe p = run(1, NULL);

	ck_assert_msg(p.enter_rc == 0, "sandbox_enter: %d %s", p.enter_rc, p.err);
	return p;
}

START_TEST(the_probes_succeed_outside_the_sandbox)
{
	struct probe p = run(0, NULL);

	ck_assert_int_eq(p.read_inside, 0);
	ck_assert_int_eq(p.write_inside, 0);
	ck_assert_int_eq(p.create_inside, 0);
	ck_assert_int_eq(p.read_outside, 0);
	ck_assert_int_eq(p.read_etc, 0);
	ck_assert_int_eq(p.proc_parent, 0);
	ck_assert_int_eq(p.proc_self, 0);
	ck_assert_int_eq(p.sock, 0);
	ck_assert_int_eq(p.kill_parent, 0);
	ck_assert_int_eq(p.tgkill_parent, 0);
	ck_assert_int_eq(p.raise_self, 0);
	if (geteuid() == 0) /* unprivileged user namespaces may be off */
		ck_assert_int_eq(p.new_userns, 0);
	ck_assert_int_eq(p.fork, 0);
	ck_assert_int_eq(p.thread, 0);
	ck_assert_int_eq(p.tiocsti, EBADF);
	/* (no_new_privs and seccomp mode: whatever the test runner runs
	 * under, systemd's NoNewPrivileges= for one) */
	/* (exec is not tried here: it would replace the grandchild) */
}
END_TEST

START_TEST(the_read_dir_is_readable_only_with_landlock)
{
	struct probe p = run_sandboxed();

	/* Without Landlock the filter refuses every open (docs/sandbox.md). */
	ck_assert_int_eq(p.read_inside, p.rep.landlock_abi > 0 ? 0 : EACCES);
}
END_TEST

START_TEST(no_file_can_be_written_created_or_read_elsewhere)
{
	struct probe p = run_sandboxed();

	ck_assert_int_eq(p.write_inside, EACCES);
	ck_assert_int_eq(p.create_inside, EACCES);
	ck_assert_int_eq(p.read_outside, EACCES);
	ck_assert_int_eq(p.read_etc, EACCES);
}
END_TEST

START_TEST(another_process_proc_files_are_closed)
{
	struct probe p = run_sandboxed();

	ck_assert_int_eq(p.proc_parent, EACCES);
#ifndef ASAN_BUILD
	/* ASan builds may read their own /proc/<pid> (LeakSanitizer) */
	ck_assert_int_eq(p.proc_self, EACCES);
#endif
}
END_TEST

START_TEST(no_socket_no_exec_no_signal_to_another_process_no_namespace)
{
	struct probe p = run_sandboxed();

	if (!p.rep.seccomp)
		return; /* an arch without the filter (not x86_64, aarch64) */
	ck_assert_int_eq(p.sock, EACCES);
	ck_assert_int_eq(p.exec, EACCES);
	ck_assert_int_eq(p.kill_parent, EACCES);
	ck_assert_int_eq(p.tgkill_parent, EACCES);
	ck_assert_int_eq(p.new_userns, EACCES);
	ck_assert_int_eq(p.tiocsti, EACCES);
}
END_TEST

START_TEST(threads_and_forks_still_work)
{
	struct probe p = run_sandboxed();

	/* pthread_create: glibc's clone3 gets ENOSYS and falls back to clone */
	ck_assert_int_eq(p.thread, 0);
	ck_assert_int_eq(p.fork, 0);
}
END_TEST

START_TEST(the_process_may_still_signal_itself)
{
	struct probe p = run_sandboxed();

	ck_assert_int_eq(p.raise_self, 0);
	ck_assert_int_eq(p.self_signal_seen, 1);
}
END_TEST

START_TEST(no_new_privs_and_a_seccomp_filter_are_in_force)
{
	struct probe p = run_sandboxed();

	ck_assert_int_eq(p.rep.no_new_privs, 1);
	ck_assert_int_eq(p.nnp, 1);
	ck_assert_int_eq(p.rep.seccomp, 1);
	ck_assert_int_eq(p.seccomp_mode, 2); /* SECCOMP_MODE_FILTER */
}
END_TEST

START_TEST(root_becomes_nobody_for_good)
{
	struct passwd *pw;
	struct probe p;

	if (geteuid() != 0)
		return; /* only root can drop root */
	pw = getpwnam("nobody");
	ck_assert_ptr_nonnull(pw);
	p = run_sandboxed();
	ck_assert_int_eq(p.rep.uid_dropped, 1);
	ck_assert_uint_eq(p.uid, pw->pw_uid);
	ck_assert_int_ne(p.setuid0, 0);
}
END_TEST

START_TEST(a_missing_read_dir_is_refused_by_name)
{
	const char *const missing[] = { "/nonexistent/loom-web", NULL };
	struct probe p = run(1, missing);

	ck_assert_int_eq(p.enter_rc, -ENOENT);
	ck_assert_ptr_nonnull(strstr(p.err, "/nonexistent/loom-web"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sandbox");
	TCase *tc = tcase_create("sandbox");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, the_probes_succeed_outside_the_sandbox);
	tcase_add_test(tc, the_read_dir_is_readable_only_with_landlock);
	tcase_add_test(tc, no_file_can_be_written_created_or_read_elsewhere);
	tcase_add_test(tc, another_process_proc_files_are_closed);
	tcase_add_test(tc, no_socket_no_exec_no_signal_to_another_process_no_namespace);
	tcase_add_test(tc, the_process_may_still_signal_itself);
	tcase_add_test(tc, threads_and_forks_still_work);
	tcase_add_test(tc, no_new_privs_and_a_seccomp_filter_are_in_force);
	tcase_add_test(tc, root_becomes_nobody_for_good);
	tcase_add_test(tc, a_missing_read_dir_is_refused_by_name);
	suite_add_tcase(s, tc);
	return check_run(s);
}

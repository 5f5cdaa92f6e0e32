/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/sandbox.c: sandbox_enter(), in this order, each step the one the
 * next relies on: (1) the user is looked up while NSS can still open its
 * files and sockets; (2) as root, the groups, gid and uid are dropped for
 * good (checked: setuid(0) must fail), otherwise the capabilities the process
 * may hold are; (3) PR_SET_NO_NEW_PRIVS, so no exec or filter can give rights
 * back, and PR_SET_DUMPABLE 0; (4) Landlock: every filesystem right the
 * kernel knows is handled and only reading beneath spec->read_dirs allowed,
 * TCP bind/connect handled with no rule (ABI 4), abstract unix sockets and
 * signals scoped to the sandbox (ABI 6); (5) a seccomp denylist in classic
 * BPF (EACCES), which also refuses every open when Landlock is unavailable.
 * Raw syscalls only: no libseccomp, no liblandlock. Linux only. */
#include "autoconf.h"
#include "daemon/core/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>

/* ---- Landlock constants the build's headers may lack (Debian 12's are
 * Linux 6.1: ABI 2). They are kernel ABI, so defining them here lets a binary
 * built on old headers use a newer kernel's rights. */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)        /* ABI 2 */
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)     /* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)    /* ABI 5 */
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)     /* ABI 4 */
#endif
#ifndef LANDLOCK_ACCESS_NET_CONNECT_TCP
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)  /* ABI 4 */
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#endif
#ifndef LANDLOCK_SCOPE_SIGNAL
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)            /* ABI 6 */
#endif
/* The 13 rights of ABI 1: EXECUTE (bit 0) through MAKE_SYM (bit 12). */
#define SB_FS_ABI1 ((1ULL << 13) - 1)

/* struct landlock_ruleset_attr as of ABI 6; the kernel takes any prefix
 * that ends on a field, so the size passed says which fields it reads. */
struct sb_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

/* Threads that exist now would keep their rights: Landlock and seccomp
 * confine the calling thread (and what it creates later) only. */
static int count_threads(void)
{
	char line[128];
	FILE *f = fopen("/proc/self/status", "re");
	int n = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* ---- (2) ids and capabilities ---------------------------------------------- */

static int drop_root(const struct passwd *pw, char *err, size_t errlen)
{
	uid_t r, e, s;
	gid_t rg, eg, sg;

	if (setgroups(0, NULL) < 0)
		return fail(err, errlen, -errno, "setgroups: %s", strerror(errno));
	if (setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) < 0)
		return fail(err, errlen, -errno, "setresgid %u: %s", (unsigned)pw->pw_gid,
			    strerror(errno));
	if (setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) < 0)
		return fail(err, errlen, -errno, "setresuid %u: %s", (unsigned)pw->pw_uid,
			    strerror(errno));
	if (getresuid(&r, &e, &s) < 0 || r != pw->pw_uid || e != pw->pw_uid || s != pw->pw_uid ||
	    getresgid(&rg, &eg, &sg) < 0 || rg != pw->pw_gid || eg != pw->pw_gid || sg != pw->pw_gid)
		return fail(err, errlen, -EPERM, "ids not dropped to %u:%u", (unsigned)pw->pw_uid,
			    (unsigned)pw->pw_gid);
	/* The proof that root is gone for good: with all three uids non-zero
	 * and no SECBIT_KEEP_CAPS, the kernel has cleared every capability. */
	if (setuid(0) == 0 || setgid(0) == 0)
		return fail(err, errlen, -EPERM, "could regain root after dropping to %s",
			    pw->pw_name);
	return 0;
}

/* Not root, but maybe started with capabilities (ambient ones from a unit
 * file, file capabilities): the front end needs none. Dropping is always
 * permitted. The bounding set needs CAP_SETPCAP to change and matters only
 * for exec, which the filter refuses. */
static int drop_caps(char *err, size_t errlen)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	memset(d, 0, sizeof(d));
	(void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); /* EINVAL before 4.3 */
	if (syscall(SYS_capset, &h, d) < 0)
		return fail(err, errlen, -errno, "capset: %s", strerror(errno));
	return 0;
}

/* ---- (4) Landlock -------------------------------------------------------------- */

static uint64_t fs_rights(int abi)
{
	uint64_t fs = SB_FS_ABI1;

	if (abi >= 2)
		fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return fs;
}

#ifdef __SANITIZE_ADDRESS__
#define SB_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SB_ASAN 1
#endif
#endif

static int allow_read(int ruleset, const char *dir, char *err, size_t errlen)
{
	struct landlock_path_beneath_attr pb = {
		.allowed_access = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR,
	};
	int rc = 0;

	pb.parent_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (pb.parent_fd < 0)
		return fail(err, errlen, -errno, "read_dir %s: %s", dir, strerror(errno));
	if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0)
		rc = fail(err, errlen, -errno, "landlock_add_rule %s: %s", dir, strerror(errno));
	close(pb.parent_fd);
	return rc;
}

/* 0 with *abi set (0: Landlock unavailable, nothing done), or -errno. */
static int landlock_enter(const char *const *read_dirs, int *abi, char *err, size_t errlen)
{
	struct sb_ruleset_attr attr = { 0 };
	size_t size = sizeof(attr.handled_access_fs);
	int v, ruleset, rc = 0;

	*abi = 0;
	v = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (v < 0) {
		/* ENOSYS: not built in (or a container's filter says so);
		 * EOPNOTSUPP: not in lsm= at boot; EPERM: a container's
		 * filter (Docker's default answer), since the kernel never
		 * refuses the version query itself. */
		if (errno == ENOSYS || errno == EOPNOTSUPP || errno == EPERM)
			return 0;
		return fail(err, errlen, -errno, "landlock ABI version: %s", strerror(errno));
	}
	attr.handled_access_fs = fs_rights(v);
	if (v >= 4) {
		/* Handled with no rule: no TCP bind or connect at all. */
		attr.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP;
		size = offsetof(struct sb_ruleset_attr, scoped);
	}
	if (v >= 6) {
		/* No connecting to abstract unix sockets nor signalling
		 * processes outside this sandbox (the filter refuses kill(2)
		 * too; this also covers the rest: sigqueue, pidfd, ...). */
		attr.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL;
		size = sizeof(attr);
	}
	ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	if (ruleset < 0)
		return fail(err, errlen, -errno, "landlock_create_ruleset (ABI %d): %s", v,
			    strerror(errno));
	for (const char *const *d = read_dirs; d && *d && rc == 0; d++)
		rc = allow_read(ruleset, *d, err, errlen);
#ifdef SB_ASAN
	/* LeakSanitizer reads /proc/self/maps and /proc/self/task at exit, and
	 * ASan's reports read the maps: an ASan build may read its own
	 * /proc/<pid> (never another process's). Not in release builds. */
	if (rc == 0)
		rc = allow_read(ruleset, "/proc/self/", err, errlen);
#endif
	if (rc == 0 && syscall(SYS_landlock_restrict_self, ruleset, 0) < 0)
		rc = fail(err, errlen, -errno, "landlock_restrict_self: %s", strerror(errno));
	close(ruleset);
	if (rc == 0)
		*abi = v;
	return rc;
}

/* ---- (5) seccomp ----------------------------------------------------------------- */

#if defined(__x86_64__)
#define SB_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SB_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#ifdef SB_AUDIT_ARCH

/* A denylist, not an allowlist: glibc, OpenSSL, libevent, jansson and ASan's
 * runtime use syscalls that change from version to version (clone3, rseq,
 * statx, getrandom, newfstatat, futex_waitv...), and an allowlist that
 * misses one kills the front end on some distribution's next update. The
 * rights that matter, files, sockets, other processes and ids, are closed by
 * Landlock and by this list; what stays allowed works on what the process
 * already holds (its memory, its fds, its threads). */
static const int denied[] = {
	/* network: the listeners and the core's socketpair are inherited;
	 * accept(2)/accept4(2) stay allowed */
	__NR_socket, __NR_connect, __NR_bind, __NR_listen,
	/* programs */
	__NR_execve,
#ifdef __NR_execveat
	__NR_execveat,
#endif
	/* other processes (kill: below; tgkill: own pid only, below) */
#ifndef SB_ASAN
	__NR_ptrace, /* ASan builds: LeakSanitizer ptraces its own threads at exit */
#endif
	__NR_process_vm_readv, __NR_process_vm_writev, __NR_kill, __NR_tkill,
	__NR_rt_sigqueueinfo, __NR_rt_tgsigqueueinfo,
#ifdef __NR_pidfd_send_signal
	__NR_pidfd_send_signal,
#endif
#ifdef __NR_pidfd_getfd
	__NR_pidfd_getfd,
#endif
#ifdef __NR_process_madvise
	__NR_process_madvise,
#endif
	/* kernel attack surface the front end does not need */
#ifdef __NR_io_uring_setup
	__NR_io_uring_setup, __NR_io_uring_enter, __NR_io_uring_register,
#endif
	__NR_bpf, __NR_userfaultfd, __NR_perf_event_open,
	__NR_keyctl, __NR_add_key, __NR_request_key,
	/* namespaces and mounts */
	__NR_setns, __NR_unshare, __NR_mount, __NR_umount2, __NR_pivot_root, __NR_chroot,
#ifdef __NR_open_tree
	__NR_open_tree, __NR_move_mount, __NR_fsopen, __NR_fsconfig, __NR_fsmount, __NR_fspick,
#endif
#ifdef __NR_mount_setattr
	__NR_mount_setattr,
#endif
	/* the filesystem's names and modes (Landlock refuses them too, where
	 * it exists; ftruncate stays: harmless on the process's own fds) */
#ifdef __NR_mknod
	__NR_mknod,
#endif
	__NR_mknodat,
#ifdef __NR_link
	__NR_link,
#endif
	__NR_linkat,
#ifdef __NR_symlink
	__NR_symlink,
#endif
	__NR_symlinkat,
#ifdef __NR_unlink
	__NR_unlink,
#endif
	__NR_unlinkat,
#ifdef __NR_rename
	__NR_rename,
#endif
#ifdef __NR_renameat
	__NR_renameat,
#endif
#ifdef __NR_renameat2
	__NR_renameat2,
#endif
#ifdef __NR_mkdir
	__NR_mkdir,
#endif
	__NR_mkdirat,
#ifdef __NR_rmdir
	__NR_rmdir,
#endif
#ifdef __NR_chmod
	__NR_chmod,
#endif
	__NR_fchmod, __NR_fchmodat,
#ifdef __NR_fchmodat2
	__NR_fchmodat2,
#endif
#ifdef __NR_chown
	__NR_chown,
#endif
#ifdef __NR_lchown
	__NR_lchown,
#endif
	__NR_fchown, __NR_fchownat, __NR_truncate,
	__NR_name_to_handle_at, __NR_open_by_handle_at,
	/* ids: root is gone, and no id may change again */
	__NR_setuid, __NR_setgid, __NR_setreuid, __NR_setregid, __NR_setresuid, __NR_setresgid,
	__NR_setgroups, __NR_setfsuid, __NR_setfsgid,
};

/* Refused only where Landlock is unavailable: then no file may be opened. */
static const int denied_opens[] = {
#ifdef __NR_open
	__NR_open,
#endif
#ifdef __NR_creat
	__NR_creat,
#endif
	__NR_openat,
#ifdef __NR_openat2
	__NR_openat2,
#endif
};

#define SB_CLONE_NS (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | \
		     CLONE_NEWPID | CLONE_NEWNET)
#define SB_DENY (SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA))
#define SB_LD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define SB_RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
/* if (A == k) return v; */
#define SB_IF_RET(k, v) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), 0, 1), SB_RET(v)
/* The low 32 bits of argument i (pids, flags and ioctl requests are ints). */
#define SB_ARG_LO(i) (offsetof(struct seccomp_data, args[i]) + (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? 4 : 0))
/* if (nr == NR) return (args[i] OP k) ? hit : miss; (else A still holds nr) */
#define SB_ARG_RULE(NR, i, OP, k, hit, miss) \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (NR), 0, 4), \
	SB_LD(SB_ARG_LO(i)), \
	BPF_JUMP(BPF_JMP | (OP) | BPF_K, (k), 0, 1), \
	SB_RET(hit), SB_RET(miss)

static int seccomp_enter(int refuse_opens, char *err, size_t errlen)
{
	enum { N = 64 + 2 * (sizeof(denied) / sizeof(denied[0]) +
			     sizeof(denied_opens) / sizeof(denied_opens[0])) };
	struct sock_filter f[N];
	struct sock_fprog prog = { .filter = f };
	unsigned n = 0;
	uint32_t self = (uint32_t)getpid();

#define EMIT(...) do { \
		const struct sock_filter ins_[] = { __VA_ARGS__ }; \
		memcpy(f + n, ins_, sizeof(ins_)); \
		n += sizeof(ins_) / sizeof(ins_[0]); \
	} while (0)
	/* Another arch's syscall numbers would mean other syscalls: kill. */
	EMIT(SB_LD(offsetof(struct seccomp_data, arch)),
	     BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SB_AUDIT_ARCH, 1, 0),
	     SB_RET(SECCOMP_RET_KILL_PROCESS),
	     SB_LD(offsetof(struct seccomp_data, nr)));
#ifdef __x86_64__
	/* x32 syscalls share the arch but carry this bit: another numbering. */
	EMIT(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, __X32_SYSCALL_BIT, 0, 1),
	     SB_RET(SECCOMP_RET_KILL_PROCESS));
#endif
	for (size_t i = 0; i < sizeof(denied) / sizeof(denied[0]); i++)
		EMIT(SB_IF_RET((uint32_t)denied[i], SB_DENY));
	for (size_t i = 0; refuse_opens && i < sizeof(denied_opens) / sizeof(denied_opens[0]); i++)
		EMIT(SB_IF_RET((uint32_t)denied_opens[i], SB_DENY));
	/* clone3 passes its flags in memory the filter cannot read: ENOSYS
	 * makes glibc fall back to clone(2), whose flags it can. */
#ifdef __NR_clone3
	EMIT(SB_IF_RET(__NR_clone3, SECCOMP_RET_ERRNO | ENOSYS));
#endif
	/* clone(2): threads and forks yes, new namespaces no. */
	EMIT(SB_ARG_RULE(__NR_clone, 0, BPF_JSET, SB_CLONE_NS, SB_DENY, SECCOMP_RET_ALLOW));
	/* tgkill(2): only to a thread of this process (raise(3), abort(3),
	 * pthread_kill(3)); the pid is this process's, taken now. */
	EMIT(SB_ARG_RULE(__NR_tgkill, 0, BPF_JEQ, self, SECCOMP_RET_ALLOW, SB_DENY));
	/* ioctl(2): no TIOCSTI, typing into a terminal the process inherited. */
	EMIT(SB_ARG_RULE(__NR_ioctl, 1, BPF_JEQ, TIOCSTI, SB_DENY, SECCOMP_RET_ALLOW));
	EMIT(SB_RET(SECCOMP_RET_ALLOW));
#undef EMIT
	prog.len = (unsigned short)n;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
		return fail(err, errlen, -errno, "seccomp: %s", strerror(errno));
	return 1;
}

#else /* another arch: no filter (numbers and arch differ), reported as seccomp 0 */

static int seccomp_enter(int refuse_opens, char *err, size_t errlen)
{
	return 0;
}

#endif

int sandbox_enter(const struct sandbox_spec *s, struct sandbox_report *rep, char *err,
		  size_t errlen)
{
	struct sandbox_report r = { 0 };
	const char *user = s && s->user && *s->user ? s->user : "nobody";
	struct passwd *pw = NULL;
	int threads, rc;

	if (err && errlen)
		err[0] = '\0';
	/* Refused before anything irreversible is done. */
	for (const char *const *d = s ? s->read_dirs : NULL; d && *d; d++) {
		int fd = open(*d, O_PATH | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0)
			return fail(err, errlen, -errno, "read_dir %s: %s", *d, strerror(errno));
		close(fd);
	}
	threads = count_threads();
	if (threads > 1)
		return fail(err, errlen, -EBUSY, "%d threads: enter the sandbox before any starts",
			    threads);
	/* (1) NSS may need /etc/nsswitch.conf, libnss_*.so, a socket to sssd
	 * or nscd: all refused later. */
	if (geteuid() == 0) {
		errno = 0;
		pw = getpwnam(user);
		if (!pw)
			return fail(err, errlen, errno ? -errno : -ENOENT, "user %s: %s", user,
				    errno ? strerror(errno) : "no such user");
		if (pw->pw_uid == 0)
			return fail(err, errlen, -EINVAL, "user %s is root", user);
	}
	/* (2) */
	rc = pw ? drop_root(pw, err, errlen) : drop_caps(err, errlen);
	if (rc < 0)
		return rc;
	r.uid_dropped = pw != NULL;
	/* (3) Required for an unprivileged process to install a filter, and
	 * what makes the sandbox stick: no exec can raise privileges. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return fail(err, errlen, -errno, "PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
	r.no_new_privs = 1;
	/* Not dumpable: no core file with the TLS private key in it, and no
	 * other process of the same uid may ptrace this one or read its
	 * /proc/<pid>/mem (the uid change of step 2 has cleared the flag
	 * already when root). The converse matters more: the front end runs
	 * with the core's uid when loomd is not root, and then only the
	 * core's own dumpability (with the ptrace and process_vm_* denials of
	 * step 5 and Landlock hiding /proc/<pid>) keeps a subverted front end
	 * out of the core: the core should clear its own flag too. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return fail(err, errlen, -errno, "PR_SET_DUMPABLE: %s", strerror(errno));
	/* (4) */
	rc = landlock_enter(s ? s->read_dirs : NULL, &r.landlock_abi, err, errlen);
	if (rc < 0)
		return rc;
	/* (5) Without Landlock nothing confines opens but the filter: all go. */
	rc = seccomp_enter(r.landlock_abi == 0, err, errlen);
	if (rc < 0)
		return rc;
	r.seccomp = rc;
	if (rep)
		*rep = r;
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/sandbox.h: confine the calling process for good (docs/sandbox.md).
 * After sandbox_enter() the process runs as an unprivileged user with no
 * capabilities, can read files only beneath the given directories (Landlock),
 * and cannot create sockets, exec, ptrace or signal other processes, create
 * or rename files, nor change its ids (seccomp). What it keeps: the file
 * descriptors it already holds (read, write, accept on inherited listeners),
 * its memory, threads and timers. Call it once, single-threaded, after
 * everything that needs a file or NSS is done (keys loaded, logs opened). */
#ifndef LOOMD_SANDBOX_H
#define LOOMD_SANDBOX_H

#include <stddef.h>

struct sandbox_spec {
	/* When the process is root: switch to this user (getpwnam, its
	 * primary gid, no supplementary groups); "" or NULL = "nobody".
	 * Ignored when not root. */
	const char *user;
	/* Directories (and everything beneath) left readable, read-only;
	 * NULL-terminated, may be NULL. Readable only where Landlock is
	 * available (Linux 5.13+); without it no file can be opened at all. */
	const char *const *read_dirs;
};

struct sandbox_report {
	int uid_dropped;   /* 1: was root, now the spec's user */
	int landlock_abi;  /* the kernel's Landlock ABI; 0: unavailable */
	int seccomp;       /* 1: the syscall filter is installed */
	int no_new_privs;  /* 1: PR_SET_NO_NEW_PRIVS is set */
};

/* Irreversible. 0, or -errno with why in err (a failed step leaves the
 * process half confined, so unusable: the caller exits). rep may be NULL. */
int sandbox_enter(const struct sandbox_spec *s, struct sandbox_report *rep, char *err,
		  size_t errlen);

#endif

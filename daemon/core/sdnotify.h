/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/core/sdnotify.h: the systemd notification protocol (sd_notify(3)) without
 * libsystemd: datagrams to $NOTIFY_SOCKET. Every call is a no-op outside
 * systemd. */
#ifndef LOOMD_SDNOTIFY_H
#define LOOMD_SDNOTIFY_H

#include <stdint.h>

/* Send a state string such as "READY=1" or "STATUS=...". 0, or -errno. */
int sdnotify(const char *state);
int sdnotifyf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "RELOADING=1" plus MONOTONIC_USEC, as systemd >= 253 wants. */
int sdnotify_reloading(void);
/* Watchdog interval from $WATCHDOG_USEC (if $WATCHDOG_PID is unset or ours),
 * in microseconds; 0 if none. */
uint64_t sdnotify_watchdog_usec(void);

#endif

/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/util/body.h: an answer that arrives in pieces (libcurl's write
 * callback: cli/remote.c, lib/etcd/etcd.c) gathered into one buffer, NUL-
 * terminated, at most `max` bytes. */
#ifndef LOOM_UTIL_BODY_H
#define LOOM_UTIL_BODY_H

#include <stddef.h>

struct body {
	char *p;        /* malloc'd, the caller's to free; NULL until a byte came */
	size_t len;
	size_t max;     /* set by the caller */
	int over;       /* more than max came: the rest was refused */
};

/* Append size * nmemb bytes of data to the body (CURLOPT_WRITEFUNCTION's
 * shape): that count, or 0 to stop the transfer when it would go over max
 * (over set) or memory runs out. */
size_t body_write(char *data, size_t size, size_t nmemb, void *body);

#endif

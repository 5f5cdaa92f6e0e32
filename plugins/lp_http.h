/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugins/lp_http.h: what the plugins that speak HTTP with libcurl (nvue,
 * eos) share: the buffer an answer is read into. */
#ifndef LOOM_LP_HTTP_H
#define LOOM_LP_HTTP_H

#include <stddef.h>

/* An answer body, NUL-terminated; at most 64 MiB (more sets oom). */
struct lp_buf {
	char *p;
	size_t n;
	int oom;
};

/* CURLOPT_WRITEFUNCTION for a struct lp_buf (CURLOPT_WRITEDATA). */
size_t lp_buf_write(char *data, size_t size, size_t nmemb, void *ctx);

#endif

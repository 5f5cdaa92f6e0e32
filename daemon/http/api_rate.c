/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/api_rate.c: see api_rate.h. */
#include "autoconf.h"
#include "daemon/http/api_rate.h"
#include "daemon/core/ctl_limits.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

/* The rule is the control socket's too: one place, in core. */
int api_rate_spends(const char *cmd, const json_t *args)
{
	return ctl_limits_spends(cmd, args);
}

int api_rate_take(struct api_rate *r, const char *who, time_t now)
{
	struct api_rate_slot *s = NULL, *oldest = &r->slots[0];

	for (size_t i = 0; i < API_RATE_SLOTS; i++) {
		if (r->slots[i].who[0] && !strcmp(r->slots[i].who, who)) {
			s = &r->slots[i];
			break;
		}
		if (r->slots[i].last < oldest->last || !r->slots[i].who[0])
			oldest = &r->slots[i];
	}
	if (s && now >= s->last && now - s->last < API_RATE_INTERVAL_S)
		return (int)(API_RATE_INTERVAL_S - (now - s->last));
	if (!s) {
		s = oldest;
		snprintf(s->who, sizeof(s->who), "%s", who);
	}
	s->last = now;
	return 0;
}

/* ---- wrong credentials ------------------------------------------------------------- */

void api_fails_key(const char *addr, char *out, size_t len)
{
	struct in6_addr a;
	char text[INET6_ADDRSTRLEN];

	if (!strchr(addr, ':') || inet_pton(AF_INET6, addr, &a) != 1 ||
	    IN6_IS_ADDR_V4MAPPED(&a)) {
		snprintf(out, len, "%s", addr);
		return;
	}
	memset(a.s6_addr + 8, 0, 8);
	inet_ntop(AF_INET6, &a, text, sizeof(text));
	snprintf(out, len, "%s/64", text);
}

static struct api_fails_slot *fails_find(const struct api_fails *f, const char *peer)
{
	for (size_t i = 0; i < API_FAILS_SLOTS; i++)
		if (f->slots[i].peer[0] && !strcmp(f->slots[i].peer, peer))
			return (struct api_fails_slot *)&f->slots[i];
	return NULL;
}

int api_fails_wait(const struct api_fails *f, const char *peer, time_t now)
{
	const struct api_fails_slot *s = fails_find(f, peer);

	if (!s || s->n < API_FAILS_MAX || now < s->start ||
	    now - s->start >= API_FAILS_WINDOW_S)
		return 0;
	return (int)(API_FAILS_WINDOW_S - (now - s->start));
}

int api_fails_note(struct api_fails *f, const char *peer, time_t now, unsigned long *since)
{
	struct api_fails_slot *s = fails_find(f, peer);

	if (!s) {
		s = &f->slots[0];
		for (size_t i = 1; i < API_FAILS_SLOTS && s->peer[0]; i++)
			if (!f->slots[i].peer[0] || f->slots[i].start < s->start)
				s = &f->slots[i];
		snprintf(s->peer, sizeof(s->peer), "%s", peer);
		s->n = 0;
	}
	if (!s->n || now < s->start || now - s->start >= API_FAILS_WINDOW_S) {
		s->start = now;
		s->n = 0;
	}
	s->n++;
	f->total++;
	f->unlogged++;
	if (f->logged && now >= f->logged && now - f->logged < API_FAILS_LOG_S)
		return 0;
	f->logged = now;
	*since = f->unlogged;
	f->unlogged = 0;
	return 1;
}

struct api_fails *api_fails_shared(void)
{
	static struct api_fails shared;

	return &shared;
}

/* tests/unit/fixture_nl.c: see fixture_nl.h. */
#include "autoconf.h"
#include "fixture_nl.h"

#include <check.h>
#include <string.h>

#include "lib/qos/qos_policy.h"

#define ALIGN4(n) (((n) + 3u) & ~3u)

void nlw_start(struct nlw *w, uint16_t type, uint16_t flags, uint32_t seq, const void *fam,
	       size_t fam_len)
{
	struct nlmsghdr h = { 0, type, flags, seq, 0 };

	memset(w, 0, sizeof(*w));
	memcpy(w->b, &h, sizeof(h));
	memcpy(w->b + sizeof(h), fam, fam_len);
	w->len = sizeof(h) + ALIGN4(fam_len);
}

size_t nlw_attr(struct nlw *w, uint16_t type, const void *data, size_t len)
{
	size_t at = w->len;
	uint16_t l = (uint16_t)(4 + len);

	ck_assert_uint_le(at + ALIGN4(4 + len), sizeof(w->b));
	memcpy(w->b + at, &l, 2);
	memcpy(w->b + at + 2, &type, 2);
	if (len)
		memcpy(w->b + at + 4, data, len);
	w->len = at + ALIGN4(4 + len);
	return at;
}

void nlw_nest_end(struct nlw *w, size_t at)
{
	uint16_t l = (uint16_t)(w->len - at);

	memcpy(w->b + at, &l, 2);
}

void nlw_end(struct nlw *w)
{
	uint32_t l = (uint32_t)w->len;

	memcpy(w->b, &l, 4);
}

void nlw_assert_same(const struct nlmsghdr *nlh, const struct nlw *w)
{
	ck_assert_ptr_nonnull(nlh);
	ck_assert_uint_eq(nlh->nlmsg_len, w->len);
	for (size_t i = 0; i < w->len; i++)
		ck_assert_msg(((const unsigned char *)nlh)[i] == w->b[i],
			      "byte %zu: built 0x%02x, expected 0x%02x", i,
			      ((const unsigned char *)nlh)[i], w->b[i]);
}

struct lp_qos *fixture_default_qos(void)
{
	static struct lp_qos q;
	struct qos_policy p;
	struct lp_port port = { .name = "eth2", .speed_mbps = 100000 };

	qos_policy_defaults(&p);
	ck_assert_int_eq(qos_policy_resolve(&p, &port, 1, &q), 0);
	return &q;
}

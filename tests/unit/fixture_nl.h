/* tests/unit/fixture_nl.h: what the linuxdcb message tests (test_dcb_msg,
 * test_tc_msg) share: their own netlink message writer, independent of
 * libmnl and of the plugin, to lay out by hand the bytes a request must
 * have, and the byte-for-byte comparison; loom's default RoCE policy
 * resolved on one 100G port "eth2". */
#ifndef LOOM_FIXTURE_NL_H
#define LOOM_FIXTURE_NL_H

#include <stddef.h>
#include <stdint.h>

#include <linux/netlink.h>

#include "loom/loom_plugin.h"

struct nlw {
	unsigned char b[16384];
	size_t len;
};

/* A message of `type`: the netlink header, then the family header `fam`
 * (struct dcbmsg, struct tcmsg, ...). The length is set by nlw_end(). */
void nlw_start(struct nlw *w, uint16_t type, uint16_t flags, uint32_t seq, const void *fam,
	       size_t fam_len);
/* An attribute; returns its offset (for a nest, closed by nlw_nest_end). */
size_t nlw_attr(struct nlw *w, uint16_t type, const void *data, size_t len);
void nlw_nest_end(struct nlw *w, size_t at);
void nlw_end(struct nlw *w);
/* The built message equals w, byte for byte (the first difference named). */
void nlw_assert_same(const struct nlmsghdr *nlh, const struct nlw *w);

/* loom's default policy resolved on port "eth2" at 100G (static storage). */
struct lp_qos *fixture_default_qos(void);

#endif

/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_nl.h: what fuzz_dcb_msg.c and fuzz_tc_msg.c share: the
 * bytes as the plugin's recv() buffer would hold them. */
#ifndef LOOM_FUZZ_NL_H
#define LOOM_FUZZ_NL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <linux/netlink.h>

/* How many bytes of buf[0..len) are whole netlink messages, stopping at the
 * first whose nlmsg_len is below a header or beyond the buffer, compared as
 * unsigned. libmnl 1.0.4's mnl_nlmsg_ok compares (int)nlmsg_len, so it takes
 * a message that announces 2 GiB or more for one that fits and mnl_cb_run
 * then walks off the buffer (docs/fuzzing.md, "Findings"); the kernel never
 * sends one, so the targets cut such a message off before libmnl sees it,
 * and fuzz loom's decoders, not that. */
static inline size_t fuzz_nl_whole(const void *buf, size_t len)
{
	size_t off = 0;

	while (len - off >= sizeof(struct nlmsghdr)) {
		uint32_t n;

		memcpy(&n, (const char *)buf + off, sizeof(n));
		if (n < sizeof(struct nlmsghdr) || n > len - off)
			break;
		off += NLMSG_ALIGN(n) < len - off ? NLMSG_ALIGN(n) : len - off;
	}
	return off;
}

#endif

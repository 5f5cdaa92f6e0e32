/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/util/hash.h: the one 64-bit mixer of loom's open-addressing tables
 * (GUIDs, GUID+port keys, DR targets). GUIDs share their high bytes (the
 * vendor's OUI) and differ in the low ones, so a table indexed by the raw
 * value's low bits clusters; the mix spreads every input bit over the
 * result (MurmurHash3's finalizer, first half). Header only: the test
 * bed's preloads use it too. */
#ifndef LOOM_UTIL_HASH_H
#define LOOM_UTIL_HASH_H

#include <stdint.h>

static inline uint64_t hash_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

#endif

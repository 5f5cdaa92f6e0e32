/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_ar_mad.c: arbitrary bytes into every AR SMP decoder
 * (lib/ar/ar_mad.c). What decodes must re-encode, and decode(encode(x)) must
 * give x back; anything else, or a read out of bounds, is a bug.
 *
 * Real fuzzing, with libFuzzer and AddressSanitizer, from the source tree
 * (BUILD is a configured build directory: it holds autoconf.h):
 *   clang -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -DLOOM_LIBFUZZER \
 *       -I BUILD -I lib tests/fuzz/fuzz_ar_mad.c lib/ar/ar_mad.c -o fuzz_ar_mad
 *   mkdir -p corpus && ./fuzz_ar_mad -max_len=160 corpus/
 *
 * Without LOOM_LIBFUZZER this file has its own main, run by `make check`: a
 * few edge cases, then N (default 200000, or argv[1]) pseudo-random inputs
 * from a fixed seed, mostly 64 bytes long since only those get past the
 * length check. */
#include "autoconf.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ar/ar_mad.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void bug(const char *what)
{
	fprintf(stderr, "fuzz_ar_mad: %s\n", what);
	abort();
}

/* One decoder on one input: if it decodes, encode and decode again. The
 * structs are zeroed first so that their padding compares equal. */
#define ROUND_TRIP(type, dec, enc, name)                                            \
	do {                                                                        \
		type a, b;                                                          \
		uint8_t buf[AR_MAD_DATA_LEN], again[AR_MAD_DATA_LEN];               \
		char err[160];                                                      \
		memset(&a, 0, sizeof(a));                                           \
		memset(&b, 0, sizeof(b));                                           \
		if (dec(d, n, &a, err, sizeof(err)) < 0) {                          \
			if (n == AR_MAD_DATA_LEN)                                   \
				bug(name ": a 64-byte field did not decode");       \
			break;                                                      \
		}                                                                   \
		if (n != AR_MAD_DATA_LEN)                                           \
			bug(name ": decoded a field of the wrong length");          \
		if (enc(&a, buf, sizeof(buf), err, sizeof(err)) < 0)                \
			bug(name ": what decoded does not encode");                 \
		if (dec(buf, sizeof(buf), &b, err, sizeof(err)) < 0 ||              \
		    memcmp(&a, &b, sizeof(a)))                                      \
			bug(name ": decode(encode(x)) != x");                       \
		if (enc(&b, again, sizeof(again), err, sizeof(err)) < 0 ||          \
		    memcmp(buf, again, sizeof(buf)))                                \
			bug(name ": encoding is not stable");                       \
	} while (0)

static void one(const uint8_t *d, size_t n)
{
	ROUND_TRIP(struct ar_mad_info, ar_mad_info_decode, ar_mad_info_encode, "info");
	ROUND_TRIP(struct ar_mad_group_block, ar_mad_group_decode, ar_mad_group_encode, "group");
	ROUND_TRIP(struct ar_mad_lft_block, ar_mad_lft_decode, ar_mad_lft_encode, "lft");
	ROUND_TRIP(struct ar_mad_lft_sx_block, ar_mad_lft_sx_decode, ar_mad_lft_sx_encode,
		   "lft_sx");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The input as it is (length checks), and its first 64 bytes (contents),
	 * copied so that the decoders see a buffer of exactly that size. */
	uint8_t *copy = calloc(1, size ? size : 1);

	if (!copy)
		return 0;
	if (size)
		memcpy(copy, data, size);
	one(copy, size);
	if (size > AR_MAD_DATA_LEN)
		one(copy, AR_MAD_DATA_LEN);
	free(copy);
	return 0;
}

#ifndef LOOM_LIBFUZZER
static uint64_t state = 0x2545f4914f6cdd1dULL;

static uint64_t rnd(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 200000;
	uint8_t buf[2 * AR_MAD_DATA_LEN];

	/* edge cases: empty, one short, exact, one long, all zeros, all ones,
	 * each single bit set */
	LLVMFuzzerTestOneInput(buf, 0);
	memset(buf, 0, sizeof(buf));
	LLVMFuzzerTestOneInput(buf, AR_MAD_DATA_LEN - 1);
	LLVMFuzzerTestOneInput(buf, AR_MAD_DATA_LEN);
	LLVMFuzzerTestOneInput(buf, AR_MAD_DATA_LEN + 1);
	memset(buf, 0xff, sizeof(buf));
	LLVMFuzzerTestOneInput(buf, AR_MAD_DATA_LEN);
	LLVMFuzzerTestOneInput(buf, sizeof(buf));
	for (unsigned bit = 0; bit < 8 * AR_MAD_DATA_LEN; bit++) {
		memset(buf, 0, sizeof(buf));
		buf[bit / 8] = (uint8_t)(1u << (bit % 8));
		LLVMFuzzerTestOneInput(buf, AR_MAD_DATA_LEN);
	}
	for (long i = 0; i < n; i++) {
		uint64_t r = rnd();
		size_t len = r % 4 ? AR_MAD_DATA_LEN : (size_t)(r >> 8) % sizeof(buf);

		for (size_t k = 0; k < sizeof(buf); k += 8) {
			uint64_t w = rnd();

			memcpy(buf + k, &w, 8);
		}
		LLVMFuzzerTestOneInput(buf, len);
	}
	printf("fuzz_ar_mad: %ld random inputs and %d edge cases, no failure\n", n,
	       6 + 8 * AR_MAD_DATA_LEN);
	return 0;
}
#endif

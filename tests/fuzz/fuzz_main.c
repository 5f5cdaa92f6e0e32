/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_main.c: the replay driver that `make check` links into each
 * fuzz target instead of libFuzzer (never built with -DLOOM_LIBFUZZER).
 *
 *   fuzz_<name> [CORPUS_DIR [MUTATIONS]]
 *
 * Feeds LLVMFuzzerTestOneInput every regular file of CORPUS_DIR (default:
 * FUZZ_CORPUS, set by Makefile.am to the target's tests/fuzz/corpus/<name>/),
 * in name order, then MUTATIONS (default FUZZ_MUTATIONS, or 3000; the
 * environment variable FUZZ_MUTATIONS overrides it) pseudo-random mutations
 * of them from a fixed seed: bit flips, byte sets to interesting values,
 * inserted, erased and duplicated ranges, truncation, and splices of two
 * files, a few at a time. Deterministic, so a failure repeats; the input
 * that failed is written to fuzz-<name>-crash (in the current directory)
 * before it is fed, and removed after, so that an abort leaves it behind for
 * `libFuzzer-binary fuzz-<name>-crash` or a debugger. Exits 0, or 99 (hard
 * error for the test driver) when the corpus cannot be read. */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "tests/fuzz/fuzz.h"

#ifdef LOOM_LIBFUZZER
#error "fuzz_main.c is the replay driver; libFuzzer brings its own main"
#endif
#ifndef FUZZ_CORPUS
#define FUZZ_CORPUS "corpus"
#endif
#ifndef FUZZ_MUTATIONS
#define FUZZ_MUTATIONS 3000
#endif
#define FUZZ_MAX_INPUT (1u << 20)

struct input {
	char *name;
	uint8_t *data;
	size_t len;
};

static uint64_t state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

static size_t below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct input *)a)->name, ((const struct input *)b)->name);
}

static int read_file(const char *path, struct input *in)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return -errno;
	if (fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) < 0 || n > (long)FUZZ_MAX_INPUT ||
	    fseek(f, 0, SEEK_SET) < 0) {
		fclose(f);
		return -EFBIG;
	}
	in->len = (size_t)n;
	in->data = malloc(in->len + 1);
	if (!in->data || fread(in->data, 1, in->len, f) != in->len) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	return 0;
}

static size_t load(const char *dir, struct input **out)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct input *v = NULL;
	size_t n = 0;

	if (!d) {
		fprintf(stderr, "%s: %s: %s\n", fuzz_name, dir, strerror(errno));
		exit(99);
	}
	while ((e = readdir(d))) {
		char path[4096];
		struct stat sb;
		struct input in = { 0 };
		int rc;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &sb) < 0 || !S_ISREG(sb.st_mode))
			continue;
		if ((rc = read_file(path, &in)) < 0) {
			fprintf(stderr, "%s: %s: %s\n", fuzz_name, path, strerror(-rc));
			exit(99);
		}
		in.name = strdup(e->d_name);
		v = realloc(v, (n + 1) * sizeof(*v));
		if (!v || !in.name) {
			fprintf(stderr, "%s: out of memory\n", fuzz_name);
			exit(99);
		}
		v[n++] = in;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), by_name);
	*out = v;
	return n;
}

static const char *crash_file;

static void feed(const uint8_t *data, size_t len)
{
	FILE *f = fopen(crash_file, "wb");

	if (f) {
		if (len)
			fwrite(data, 1, len, f);
		fclose(f);
	}
	/* A copy of exactly len bytes, so that reading past it is visible to
	 * valgrind or a sanitizer if the replay is built with one. */
	uint8_t *copy = malloc(len ? len : 1);

	if (!copy)
		exit(99);
	if (len)
		memcpy(copy, data, len);
	LLVMFuzzerTestOneInput(copy, len);
	free(copy);
}

/* One mutation of buf[0..*len) in place (capacity cap). */
static void mutate(uint8_t *buf, size_t *len, size_t cap, const struct input *v, size_t n)
{
	static const uint8_t interesting[] = { 0, 1, 0x7f, 0x80, 0xff, '0', '9', ' ', '\n',
					       ',', '[', ']', '-', '"', '{', '}', ':' };
	size_t l = *len, at = below(l + 1), k;

	switch (rnd() % 8) {
	case 0: /* flip a bit */
		if (l)
			buf[below(l)] ^= (uint8_t)(1u << (rnd() % 8));
		break;
	case 1: /* set a byte */
		if (l)
			buf[below(l)] = rnd() % 2 ? (uint8_t)rnd()
						  : interesting[below(sizeof(interesting))];
		break;
	case 2: /* insert bytes */
		k = 1 + below(8);
		if (l + k > cap)
			break;
		memmove(buf + at + k, buf + at, l - at);
		for (size_t i = 0; i < k; i++)
			buf[at + i] = rnd() % 2 ? (uint8_t)rnd()
						: interesting[below(sizeof(interesting))];
		*len = l + k;
		break;
	case 3: /* erase a range */
		k = below(l - at + 1) % 64;
		memmove(buf + at, buf + at + k, l - at - k);
		*len = l - k;
		break;
	case 4: /* duplicate a range */
		if (!l)
			break;
		k = 1 + below(l - at < 64 ? l - at : 64);
		if (at == l || l + k > cap)
			break;
		memmove(buf + at + k, buf + at, l - at);
		*len = l + k;
		break;
	case 5: /* truncate */
		*len = below(l + 1);
		break;
	case 6: { /* splice: our head, another input's tail */
		const struct input *o = &v[below(n)];
		size_t from = below(o->len + 1);

		k = o->len - from;
		if (at + k > cap)
			k = cap - at;
		memcpy(buf + at, o->data + from, k);
		*len = at + k;
		break;
	}
	default: /* a 16- or 32-bit word set to a small or boundary value */
		if (l >= 4) {
			uint32_t w = rnd() % 2 ? (uint32_t)below(300) : (uint32_t)-1 - (uint32_t)below(2);

			memcpy(buf + below(l - 3), &w, rnd() % 2 ? 2 : 4);
		}
		break;
	}
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : FUZZ_CORPUS;
	long muts = FUZZ_MUTATIONS;
	struct input *v;
	size_t n, cap = 0;
	uint8_t *buf;
	char crash[256];
	clock_t t0 = clock();

	if (getenv("FUZZ_MUTATIONS"))
		muts = strtol(getenv("FUZZ_MUTATIONS"), NULL, 10);
	if (argc > 2)
		muts = strtol(argv[2], NULL, 10);
	snprintf(crash, sizeof(crash), "fuzz-%s-crash", fuzz_name);
	crash_file = crash;
	n = load(dir, &v);
	if (!n) {
		fprintf(stderr, "%s: %s: no seed inputs\n", fuzz_name, dir);
		return 99;
	}
	for (size_t i = 0; i < n; i++) {
		feed(v[i].data, v[i].len);
		if (v[i].len > cap)
			cap = v[i].len;
	}
	cap = 2 * cap + 1024;
	if (!(buf = malloc(cap)))
		return 99;
	feed(NULL, 0);
	for (long m = 0; m < muts; m++) {
		const struct input *in = &v[below(n)];
		size_t len = in->len, times = 1 + below(4);

		memcpy(buf, in->data, len);
		for (size_t t = 0; t < times; t++)
			mutate(buf, &len, cap, v, n);
		feed(buf, len);
	}
	remove(crash_file);
	printf("%s: %zu seed inputs and %ld mutations of them from %s, no failure (%.2f s)\n",
	       fuzz_name, n, muts, dir, (double)(clock() - t0) / CLOCKS_PER_SEC);
	free(buf);
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].data);
	}
	free(v);
	return 0;
}

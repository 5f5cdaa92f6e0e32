/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_etcd.c: arbitrary bytes as the body of an etcd v3 JSON
 * gateway answer (lib/etcd/etcd_codec.c), as lib/etcd/etcd.c hands it on:
 * etcd_error_text on the raw body, then json_loadb (flags 0) and every
 * answer decoder (range, txn, delete, grant, keepalive); and the bytes as
 * base64 text (etcd_b64_decode).
 *
 * Invariants: 0 or -EINVAL / -ENOENT / -EIO with a message; a refused
 * answer leaves no key-value behind (n 0, no array); every decoded key is
 * NUL-terminated text and every value has a NUL after its value_len bytes;
 * base64 that decodes encodes back to text that decodes to the same bytes.
 *
 * By hand (BUILD is a configured build directory):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -DLOOM_LIBFUZZER -D_GNU_SOURCE \
 *       -I BUILD -I . -I include tests/fuzz/fuzz_etcd.c lib/etcd/etcd_codec.c \
 *       -ljansson -o fuzz_etcd
 *   cp -r tests/fuzz/corpus/etcd work && ./fuzz_etcd work */
#include "autoconf.h"

#include <errno.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "lib/etcd/etcd_codec.h"

const char fuzz_name[] = "fuzz_etcd";

static void check_kvs(int rc, const struct etcd_kvs *kvs, const char *err, const char *what)
{
	if (rc < 0) {
		if (rc != -EINVAL && rc != -ENOMEM)
			fuzz_bug("%s: returned %d", what, rc);
		if (kvs->n || kvs->kv)
			fuzz_bug("%s: refused with key-values left", what);
		if (!err[0])
			fuzz_bug("%s: refused without a reason", what);
		return;
	}
	for (size_t i = 0; i < kvs->n; i++) {
		const struct etcd_kv *kv = &kvs->kv[i];

		if (!kv->key || !kv->value || kv->value[kv->value_len] != '\0')
			fuzz_bug("%s: key-value %zu not terminated", what, i);
	}
}

static void check_b64(const uint8_t *data, size_t size)
{
	char *out = NULL, *again, *back = NULL;
	size_t n = 0, n2 = 0;
	int rc = etcd_b64_decode((const char *)data, size, &out, &n);

	if (rc < 0) {
		if (rc != -EINVAL || out)
			fuzz_bug("base64: refused with %d, out %p", rc, (void *)out);
		return;
	}
	if (out[n] != '\0')
		fuzz_bug("base64: no NUL after %zu bytes", n);
	if (!(again = etcd_b64_encode(out, n)))
		fuzz_bug("base64: cannot encode %zu bytes", n);
	if (etcd_b64_decode(again, strlen(again), &back, &n2) < 0 || n2 != n ||
	    memcmp(back, out, n))
		fuzz_bug("base64: %zu bytes do not survive encode and decode", n);
	free(out);
	free(again);
	free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512] = "", text[512];
	struct etcd_kvs kvs;
	int64_t a, b;
	int code, ok, rc;
	json_t *j;

	(void)etcd_error_text((const char *)data, size, text, sizeof(text), &code);
	if (!memchr(text, '\0', sizeof(text)))
		fuzz_bug("error text not terminated");
	check_b64(data, size);
	if (!(j = json_loadb((const char *)data, size, 0, NULL)))
		return 0;
	rc = etcd_range_decode(j, &kvs, err, sizeof(err));
	check_kvs(rc, &kvs, err, "range");
	etcd_kvs_clear(&kvs);
	err[0] = '\0';
	rc = etcd_txn_decode(j, &ok, &kvs, err, sizeof(err));
	check_kvs(rc, &kvs, err, "txn");
	if (rc == 0 && ok != 0 && ok != 1)
		fuzz_bug("txn: succeeded is %d", ok);
	etcd_kvs_clear(&kvs);
	if ((rc = etcd_delete_decode(j, &a, err, sizeof(err))) < 0 && rc != -EINVAL)
		fuzz_bug("delete: returned %d", rc);
	if ((rc = etcd_grant_decode(j, &a, &b, err, sizeof(err))) < 0 && rc != -EINVAL &&
	    rc != -EIO)
		fuzz_bug("grant: returned %d", rc);
	if (rc == 0 && a == 0)
		fuzz_bug("grant: lease 0 accepted");
	if ((rc = etcd_keepalive_decode(j, &a, err, sizeof(err))) < 0 && rc != -EINVAL &&
	    rc != -ENOENT)
		fuzz_bug("keepalive: returned %d", rc);
	if (rc == 0 && a <= 0)
		fuzz_bug("keepalive: TTL %lld accepted", (long long)a);
	json_decref(j);
	return 0;
}

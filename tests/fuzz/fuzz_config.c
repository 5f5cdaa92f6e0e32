/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_config.c: arbitrary text as loom.yaml into loomd's
 * configuration parser (config_load_string, daemon/core/config.c, with
 * every section registered as loomd registers them: daemon/loomd.c
 * loomd_config_init), the code that `loomd -n`, the start and every reload
 * run on the operator's file.
 *
 * Invariants:
 *  - 0, or -EINVAL / -EFBIG with one line of error that starts with the
 *    file's name ("t.yaml:"); nothing else.
 *  - All or nothing: a refused file leaves the config exactly as it was.
 *  - An accepted file prints (config_print) to a normalized YAML that is
 *    accepted again and prints the same: the printer and the parser agree
 *    on every value the parser lets through (`loomctl config` and
 *    `loomd -n -v` show that text to operators, who paste it back).
 *
 * By hand: needs all of libloomd, so build it with `make fuzz` and run
 * tests/fuzz/bin/fuzz_config CORPUS_COPY (see docs/fuzzing.md). */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "daemon/core/config.h"
#include "daemon/loomd.h"
#include "lib/util/log.h"

const char fuzz_name[] = "fuzz_config";

#define NAME "t.yaml"

static struct loom_config *a, *b, *before;

static void setup(void)
{
	log_init(fuzz_name, getenv("FUZZ_VERBOSE") ? LOG_LVL_DEBUG : LOG_LVL_ERR,
		 LOG_TARGET_STDERR);
	if (loomd_config_init() < 0) {
		fprintf(stderr, "%s: cannot register the config sections\n", fuzz_name);
		exit(99);
	}
	a = malloc(sizeof(*a));
	b = malloc(sizeof(*b));
	before = malloc(sizeof(*before));
	if (!a || !b || !before) {
		perror(fuzz_name);
		exit(99);
	}
}

/* config_print into a new string; NULL when printing failed. */
static char *print(const struct loom_config *c, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		return NULL;
	if (config_print(c, f) < 0) {
		fclose(f);
		free(text);
		return NULL;
	}
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[1024], *text, *again;
	size_t len, len2;
	int rc;

	if (!a)
		setup();
	config_defaults(a);
	memcpy(before, a, sizeof(*a));
	err[0] = '\0';
	rc = config_load_string(NAME, (const char *)data, size, a, err, sizeof(err));
	if (rc < 0) {
		if (rc != -EINVAL && rc != -EFBIG && rc != -ENOMEM)
			fuzz_bug("returned %d (%s): %s", rc, strerror(-rc), err);
		if (rc != -ENOMEM && strncmp(err, NAME ":", strlen(NAME ":")) != 0)
			fuzz_bug("error does not name the file: \"%s\"", err);
		if (strchr(err, '\n'))
			fuzz_bug("error is more than one line: \"%s\"", err);
		if (memcmp(before, a, sizeof(*a)) != 0)
			fuzz_bug("a refused file changed the config (%s)", err);
		return 0;
	}
	if (rc != 0)
		fuzz_bug("returned %d", rc);
	if (!(text = print(a, &len)))
		fuzz_bug("config_print failed on an accepted config");
	config_defaults(b);
	rc = config_load_string(NAME, text, len, b, err, sizeof(err));
	if (rc != 0)
		fuzz_bug("the printed config is refused (%s):\n%s", err, text);
	if (!(again = print(b, &len2)))
		fuzz_bug("config_print failed on the printed config");
	if (len != len2 || memcmp(text, again, len) != 0)
		fuzz_bug("printed twice differs:\n--- first\n%s--- second\n%s", text, again);
	free(again);
	free(text);
	return 0;
}

/* tests/unit/fixture_config.c: what test_config.c and
 * test_config_sections.c share: parse a loom.yaml text, expect it refused or
 * loaded, print it, and check that printing and loading again changes
 * nothing (see fixture_config.h). */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/config.h"
#include "fixture_config.h"

char err[1024];

/* Parse `text` as "t.yaml"; the result and err[] are the test's to check. */
int load(const char *text, struct loom_config *c)
{
	memset(err, 0, sizeof(err));
	return config_load_string("t.yaml", text, strlen(text), c, err, sizeof(err));
}

/* `text` must be refused with an error that starts with `prefix`. */
void refused(const char *text, const char *prefix)
{
	struct loom_config c;

	config_defaults(&c);
	ck_assert_msg(load(text, &c) == -EINVAL, "accepted:\n%s", text);
	ck_assert_msg(strncmp(err, prefix, strlen(prefix)) == 0,
		      "error \"%s\" does not start with \"%s\"", err, prefix);
	ck_assert_msg(!strchr(err, '\n'), "error is not one line: %s", err);
}

void loaded(const char *text, struct loom_config *c)
{
	int rc = load(text, c);

	ck_assert_msg(rc == 0, "refused (%d): %s\n%s", rc, err, text);
}

/* config_print() into a malloc'd string. */
char *print(const struct loom_config *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(config_print(c, f), 0);
	fclose(f);
	return buf;
}

void round_trip(const char *text)
{
	struct loom_config a, b;
	char *p1, *p2;

	loaded(text, &a);
	p1 = print(&a);
	loaded(p1, &b);
	p2 = print(&b);
	for (size_t i = 0; i < sizeof(a); i++)
		ck_assert_msg(((unsigned char *)&a)[i] == ((unsigned char *)&b)[i],
			      "printed config differs at byte %zu (%d, %d):\n%s", i, ((unsigned char *)&a)[i], ((unsigned char *)&b)[i], p1);
	ck_assert_str_eq(p1, p2);
	free(p1);
	free(p2);
}

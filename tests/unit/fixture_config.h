/* tests/unit/fixture_config.h: loom.yaml texts parsed for the config
 * tests (daemon/core/config.h), as "t.yaml". */
#ifndef LOOM_TEST_FIXTURE_CONFIG_H
#define LOOM_TEST_FIXTURE_CONFIG_H

struct loom_config;

extern char err[1024];   /* the last load's error */

/* Parse text; the result and err are the test's to check. */
int load(const char *text, struct loom_config *c);
/* text must be refused with a one-line error starting with prefix. */
void refused(const char *text, const char *prefix);
/* text must load. */
void loaded(const char *text, struct loom_config *c);
/* config_print() into a malloc'd string. */
char *print(const struct loom_config *c);
/* Load, print, load the print: the same config and the same text. */
void round_trip(const char *text);

#endif

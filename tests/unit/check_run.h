/* tests/unit/check_run.h: how every unit test's main() ends: run its suite
 * with check's defaults (CK_FORK from the environment, CK_NORMAL output)
 * and exit 0 when every check passed, 1 otherwise. */
#ifndef LOOM_TEST_CHECK_RUN_H
#define LOOM_TEST_CHECK_RUN_H

#include <check.h>
#include <stdlib.h>

static inline int check_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif

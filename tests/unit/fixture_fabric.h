/* tests/unit/fixture_fabric.h: small hand-built fabrics for unit tests
 * (the diff and the store see the same shapes). Ports are given the values a
 * healthy QDR fabric would report; tests change what they test. */
#ifndef LOOM_TEST_FIXTURE_FABRIC_H
#define LOOM_TEST_FIXTURE_FABRIC_H

#include <stdint.h>

#include "lib/fabric/fabric.h"

/* A node whose ports (a switch's port 0 included) are present and down;
 * a switch's port 0 is active. Fails the test on error. */
struct fab_node *fixture_node(struct fab *f, int type, uint64_t guid, unsigned nports,
			      const char *desc, uint16_t lid);
/* Cable port ap of node a to port bp of node b: both ends active, 4x QDR. */
void fixture_link(struct fab *f, uint64_t a, unsigned ap, uint64_t b, unsigned bp);
/* Pull the cable at port ap of node a: both ends down, no peer. */
void fixture_unlink(struct fab *f, uint64_t a, unsigned ap);

/* Path of a shipped file in tests/fabrics/: under $top_srcdir (make check),
 * else next to this source. A static buffer, valid until the next call. */
const char *fixture_path(const char *name);

#endif

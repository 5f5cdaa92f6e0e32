/* lib/route_dfsssp.c: placeholder until the engine lands. */
#include "autoconf.h"
#include "route.h"

#include <errno.h>
#include <stdio.h>

int rt_route_dfsssp(const struct rt_graph *g, struct rt_lfts *out, char *err, size_t errlen)
{
	(void)g;
	(void)out;
	snprintf(err, errlen, "the dfsssp engine is not written yet");
	return -ENOSYS;
}

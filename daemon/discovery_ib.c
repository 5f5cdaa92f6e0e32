/* daemon/discovery_ib.c: placeholder, being written */
#include "autoconf.h"
typedef int loom_placeholder_discovery_ib;

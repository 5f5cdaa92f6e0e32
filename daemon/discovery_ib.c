/* daemon/discovery_ib.c: placeholder, being written */
#include "config.h"
typedef int loom_placeholder_discovery_ib;

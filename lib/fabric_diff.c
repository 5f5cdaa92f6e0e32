/* lib/fabric_diff.c: placeholder, being written */
#include "config.h"
typedef int loom_placeholder_fabric_diff;

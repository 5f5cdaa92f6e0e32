/* lib/proto.c: placeholder, being written */
#include "config.h"
typedef int loom_placeholder_proto;

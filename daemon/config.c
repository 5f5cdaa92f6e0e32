/* daemon/config.c: placeholder, being written */
#include "config.h"
typedef int loom_placeholder_config;

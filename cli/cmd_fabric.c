/* cli/cmd_fabric.c: placeholder, being written */
#include "autoconf.h"
typedef int loom_placeholder_cmd_fabric;

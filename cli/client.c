/* cli/client.c: placeholder, being written */
#include "autoconf.h"
typedef int loom_placeholder_client;

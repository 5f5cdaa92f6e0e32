/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/http/front_child.h: the HTTP front end's main (front_child.c),
 * run by daemon/main.c when loomd is started as `loomd --http-front`
 * by the core (front.c): never by hand. */
#ifndef LOOMD_FRONT_CHILD_H
#define LOOMD_FRONT_CHILD_H

/* The exit status: 0 after a drain or when the core went away, 1 when it
 * could not serve (it told the core why). */
int http_front_main(int argc, char **argv);

#endif

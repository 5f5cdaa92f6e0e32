/* tests/unit/fixture_arsw.h: an in-memory switch with NVIDIA adaptive
 * routing for the AR programming tests (test_ar_program.c: one switch
 * through struct ar_xport; test_ar_sequences.c: many, behind a fake umad
 * port). It keeps every block by (attribute, modifier), answers GetCap
 * with a chosen ARInfo, starts with an SX AR LFT that mirrors the static
 * LFT (as NVIDIA switches keep it), and can be told not to answer, to
 * answer with an error status, to fail the Nth Set (no answer, error
 * status, or not taking the data), to corrupt a read-back, or to hold an
 * AR LFT that does not mirror the static one. */
#ifndef LOOM_TEST_FIXTURE_ARSW_H
#define LOOM_TEST_FIXTURE_ARSW_H

#include <stddef.h>
#include <stdint.h>

#include "lib/ar/ar_mad.h"
#include "lib/ar/ar_program.h"
#include "lib/ar/route_ar.h"
#include "fixture_route.h"

enum fail_kind { FAIL_NO_ANSWER, FAIL_STATUS, FAIL_NO_ECHO };

struct blk {
	uint16_t attr;
	uint32_t am;
	uint8_t data[AR_MAD_DATA_LEN];
	int written;           /* by a Set (a later Get is a read-back) */
};

struct memsw {
	struct blk b[256];
	size_t n;
	struct ar_mad_info cap;    /* the GetCap answer */
	int no_answer;             /* nothing is answered */
	unsigned status;           /* every answer carries it (0x0C: unsupported) */
	unsigned lft_status;       /* AR LFT Gets are answered with it */
	unsigned fail_set;         /* Set number fail_set (1-based) fails; 0: none */
	int fail_later_too;        /* and every Set after it */
	enum fail_kind fail_kind;
	uint16_t corrupt_attr;     /* a read-back of (corrupt_attr, corrupt_am) has */
	uint32_t corrupt_am;       /* byte corrupt_byte flipped by corrupt_mask */
	unsigned corrupt_byte;
	uint8_t corrupt_mask;
	unsigned n_get, n_set;
	int ever_enabled;          /* a Set of ARInfo with e = 1 was taken */
	uint32_t lft_gets[16];     /* modifiers of the AR LFT Gets before any Set */
	unsigned n_lft_gets;
};

struct blk *memsw_find(struct memsw *m, uint16_t attr, uint32_t am);
struct blk *memsw_put(struct memsw *m, uint16_t attr, uint32_t am);
/* struct ar_xport's get and set on memsw ctx. */
int memsw_get(void *ctx, uint16_t attr, uint32_t am, uint8_t data[AR_MAD_DATA_LEN],
	    unsigned *status);
int memsw_set(void *ctx, uint16_t attr, uint32_t am, const uint8_t data[AR_MAD_DATA_LEN],
	    uint8_t reply[AR_MAD_DATA_LEN], unsigned *status);
/* A switch with AR (group_cap 64, by_sl_cap), AR off, whose SX AR LFT holds
 * sw's static port for every LID as the default, the LID STATIC to it;
 * with lft_shift, block b holds what block b + lft_shift should (what a
 * switch reading the modifier differently would answer). */
void memsw_init(struct memsw *m, const struct rt_ar_switch *sw, uint32_t max_lid,
		unsigned lft_shift);
struct ar_xport memsw_xport(struct memsw *m);
/* The ARInfo it holds now. */
struct ar_mad_info memsw_info(struct memsw *m);

/* A 3-level fat tree of 8-port switches, 128 hosts (80 switches), routed by
 * ftree, with its TREE groups; its LIDs span several AR LFT blocks. */
struct arsw_tree {
	struct routed r;
	struct rt_ar *ar;
};
struct arsw_tree arsw_tree3(void);
void arsw_tree_free(struct arsw_tree *t);

#endif

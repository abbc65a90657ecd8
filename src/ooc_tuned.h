/* ooc_tuned.h - the out-of-core GEMM's knobs as tuned values. `mmtune` times host-memory
 * problems (a shapes file's `host: true`) over a small grid of tiles, panels and streams
 * around the plan's default, and records each run as a trial of the pseudo-template "ooc"
 * (config text OOC_TILE_M=..,OOC_TILE_N=..,OOC_PANEL_K=..,OOC_STREAMS=.., in the terms of
 * the problem as written: tile_m counts rows of the caller's C). Its best rows sit in the
 * ordinary tables beside the kernels' and are never a kernel family's (lookups read bests
 * by template name). libmmtuned, planning a host-memory call, takes the knobs the caller
 * left at 0 from the exact problem's row, else the nearest one's. The grid and the choice
 * are pure functions, tested without a GPU (tests/test_ooc_plan.c). */
#ifndef MMT_OOC_TUNED_H
#define MMT_OOC_TUNED_H

#include <stddef.h>

#include "mmtuned.h"
#include "ooc_plan.h"
#include "store.h"

/* The pseudo-template's name and "source hash", a SHA-256 as every template's is (export
 * and import check the form): that of the text "mmtune out-of-core pipeline 1". A pipeline
 * that times differently (ooc.c) counts the number up, which makes old knobs stale as a
 * template's new source does. */
#define MMT_OOC_TEMPLATE "ooc"
#define MMT_OOC_SOURCE_HASH "a8a19ad08425c79398bc801afc326071ec36d695dfd877f3602fee85c679d658"
#define MMT_OOC_GRID_MAX 12

/* "OOC_TILE_M=8192,OOC_TILE_N=8192,OOC_PANEL_K=2048,OOC_STREAMS=2". */
void mmt_ooc_knobs_format(const mmt_ooc_knobs *k, char *buf, size_t size);
/* The inverse: 0 with *k filled (every knob named once, each positive), -1 if malformed. */
int mmt_ooc_knobs_parse(const char *text, mmt_ooc_knobs *k);

/* The grid a tune measures for an m x n x k problem (as written) whose C has c_bytes
 * elements: the plan's default tiles and those halved (each side at least 256), its panel
 * depth, half and twice it (within K and at least 256; one panel of all of K where C is
 * narrower than fp32), with 2 and 3 streams. The default comes first; returns how many
 * (at most MMT_OOC_GRID_MAX). */
size_t mmt_ooc_grid(int64_t m, int64_t n, int64_t k, int ab_bytes, int c_bytes, mmt_ooc_knobs *out);

/* The tuned knobs for p (as written) among the "ooc" bests: the exact problem's, else the
 * nearest problem's of the same types, mode, layout and transposes (mmt_lookup_distance).
 * Returns 1 with *out and *how (MMT_CHOICE_EXACT or MMT_CHOICE_NEAREST), 0 if none fits. */
int mmt_ooc_tuned_choose(const mmt_best_rec *bests, size_t n, const mmt_problem *p, mmt_ooc_knobs *out,
                         mmt_choice *how);

#endif

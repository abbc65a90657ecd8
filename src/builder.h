/* builder.h - a thread of a context's own that runs the jobs handed to it one at a time, in
 * order: a kernel's compile and load, off the path of the call that needed it (the call runs
 * the vendor library meanwhile). Started with the first job; freeing it waits for the job in
 * progress and discards the rest. A forked child starts a thread of its own. */
#ifndef MMT_BUILDER_H
#define MMT_BUILDER_H

typedef struct mmt_builder mmt_builder;

/* fn(arg, 1) runs the job; fn(arg, 0) discards it (frees arg). Both on the builder's thread,
 * or discards on the thread that frees the builder. */
typedef void (*mmt_builder_fn)(void *arg, int run);

mmt_builder *mmt_builder_new(void);

/* Hands a job over; 0 when queued, -1 when the thread cannot start (the job is not taken:
 * the caller runs or discards it). */
int mmt_builder_submit(mmt_builder *b, mmt_builder_fn fn, void *arg);

/* Waits until no job is queued or running (a sync point for callers who want the built
 * kernels in place); returns whether any was (0: nothing changed meanwhile). */
int mmt_builder_drain(mmt_builder *b);

void mmt_builder_free(mmt_builder *b);

#endif

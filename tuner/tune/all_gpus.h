/* all_gpus.h - --device all: one mmtune per GPU of this host, in parallel, into one
 * database (WAL and the busy timeout let the processes commit side by side). GPUs of one
 * fingerprint (model, architecture, driver and NVRTC) deal the problems among themselves,
 * as --shard does, since a result of one serves them all; GPUs of different fingerprints
 * each tune every problem. A host without a GPU is bad input, with nothing written:
 * --device all never falls back to the CPU (--device cpu tunes it). */
#ifndef MMT_ALL_GPUS_H
#define MMT_ALL_GPUS_H

/* Runs argv (a tune with --device all) once per GPU with --device G added (a later option
 * wins). With a shapes file (deal), twins also get --shard J/M, their share of the shard
 * I/N the command line asks for (0/1 without --shard); one problem (--problem,
 * --from-misses) is tuned by the first GPU of each fingerprint. Returns the worst exit code
 * of the runs: 2 bad input, else 1 failure, else 0. */
int mmt_tune_all_gpus(int argc, char **argv, int deal, int shard_index, int shard_count);

#endif

/* all_gpus.h - --device all: every GPU of this host. Twins (one fingerprint: model,
 * architecture, driver and NVRTC, whose results serve them all) are tuned as one run,
 * --device G1,G2,... (tuner/cli/twins.h): one session, one table, the problems dealt from
 * one queue to whichever GPU is free. GPUs of different fingerprints each tune every
 * problem, a run per kind side by side into one database (WAL and the busy timeout let the
 * processes commit side by side). A host without a GPU is bad input, with nothing written:
 * --device all never falls back to the CPU (--device cpu tunes it). */
#ifndef MMT_ALL_GPUS_H
#define MMT_ALL_GPUS_H

/* Runs argv (a tune with --device all) once per kind of GPU, with --device and that kind's
 * GPUs added (a later option wins). json (--json): one table is asked for, which a host of
 * one kind gives and one of several refuses (bad input). Returns the worst exit code of the
 * runs: 2 bad input, else 1 failure, else 0. */
int mmt_tune_all_gpus(int argc, char **argv, int json);

#endif

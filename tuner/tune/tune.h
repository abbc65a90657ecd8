/* tune.h - the tuning loop for one (device, problem): enumerate the valid configurations,
 * let the strategy order them, build each (compile cache first), verify, time, and commit
 * every trial as it finishes; then choose each family's winner (final.h: the close ones
 * measured again side by side) and time the winners beside the vendor library (versus.h):
 * the figures and the ratio a table prints come from those rounds, on every run. Trials
 * already in the database for this template source are not measured again (resume), and a
 * rerun that measures nothing new keeps the database's best. A search that stops before it
 * measured what it planned (a time budget, an interrupt) is partial, and its best says so.
 * Candidates are compiled here and measured in a worker process (worker.h). */
#ifndef MMT_TUNE_H
#define MMT_TUNE_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "backend.h"
#include "family.h"
#include "report.h"
#include "store.h"
#include "worker.h"

typedef struct mmt_tuner {
    const mmt_backend *be;
    mmt_device_info dev;
    mmt_store *st;
    int64_t device_id, session_id;
    mmt_family_list families[MMT_N_MODES]; /* per mode: the families that compete (or --space's) */
    const char *strategy;
    size_t budget;            /* candidates per problem (0: all) */
    double budget_frac;       /* or this fraction of each problem's candidates (0: none) */
    double budget_s;          /* or seconds per problem: no new candidate after it (0: none) */
    uint64_t seed;
    int fresh;                /* measure again what the database already has */
    int classic_only;         /* no levels round (Strassen-Winograd levels are not measured) */
    int compile_threads;      /* compile ahead on this many threads, each with its process (0: no; CPU) */
    const char *exe;          /* the mmtune binary, whose processes compile ahead (NULL: the threads do) */
    mmt_worker *worker;       /* measures; the tuner itself never runs a candidate */
    mmt_progress *progress;
    /* non-zero once the run is to stop (Ctrl-C, SIGTERM: set by a signal handler): no new
     * candidate starts, no final or vendor round; NULL: never */
    const volatile sig_atomic_t *stop;
} mmt_tuner;

/* The most a winner's error may be, in multiples of the vendor's on the same inputs, for
 * libmmtuned to serve it: never markedly less accurate than the library it stands in for. */
#define MMT_VENDOR_ERROR_RATIO 1.1

/* Why libmmtuned serves the vendor for a problem. */
typedef enum mmt_vendor_serves {
    MMT_VENDOR_NOT = 0,       /* a template serves */
    MMT_VENDOR_FASTER,        /* the vendor's median was below the fastest winner's, in the same rounds */
    MMT_VENDOR_FASTER_BESIDE, /* on the CPU, the vendor's was below it with their calls alternating in one process */
    MMT_VENDOR_FASTER_COOL,   /* on a GPU, the vendor's was below it with the GPU below its power limit */
    MMT_VENDOR_MORE_ACCURATE, /* the fastest winner's error was above MMT_VENDOR_ERROR_RATIO x the vendor's */
} mmt_vendor_serves;

typedef struct mmt_tune_result {
    mmt_problem problem;
    int ok; /* a verified best exists */
    char family[64]; /* the winner's template ("cuda/gemm_wgmma.cu") */
    char params[512];
    /* the winner's figure: from the vendor round where it ran, else the one it was chosen
     * by (detail.figures says which), and the vendor's from the same rounds (median 0: not
     * measured, message says why) */
    mmt_report_figure tuned, vendor;
    char vendor_label[128]; /* "OpenBLAS 0.3.21", "cuBLAS 13.1.0 (TF32)" */
    mmt_vendor_serves vendor_serves; /* why libmmtuned serves the vendor (versus.h), or MMT_VENDOR_NOT */
    double chosen_ms;       /* the winner's median when it was chosen */
    char chosen_by[32];     /* by what: "the final round", "the search", "the database's best" */
    double explored_ms;     /* the search's fastest median (candidates timed alone); INFINITY: none */
    char explored_params[512];
    int explored_reused;    /* that median is a trial of an earlier run */
    int measured, failed, reused;
    size_t proposed, planned;  /* candidates the searches got to, of those they planned */
    int partial;               /* a search stopped short of its plan: a time budget or an interrupt */
    int interrupted;           /* the run was stopped while tuning this problem */
    double cpu_wait;           /* on a CPU device, the share of the problem's time some task waited for a
                                * CPU (cpu_wait.h); < 0: not known. Above MMT_CPU_BUSY: measured busy */
    char message[512];         /* why there is no result, or the vendor's failure */
    mmt_report_detail detail;  /* how the winner was chosen, where the figures come from, the pipeline */
} mmt_tune_result;

/* Tunes p. After t->stop, r->interrupted says the problem was cut short (partial); a
 * problem not begun then is not tuned at all (r->ok 0). */
mmt_status mmt_tune_problem(mmt_tuner *t, const mmt_problem *p, mmt_tune_result *r, mmt_err *err);


#endif

/* twins.c - the devices of one tune (see twins.h). */
#include "twins.h"

#include <stdio.h>
#include <string.h>

#include "command.h"
#include "exit_codes.h"
#include "store.h"
#include "worker.h"

int mmt_twins_probe(const char *list, mmt_twins *tw)
{
    memset(tw, 0, sizeof *tw);
    for (const char *at = list;; at++) {
        const size_t len = strcspn(at, ",");
        if (tw->n == MMT_LANES_MAX || len == 0 || len >= sizeof tw->device[0]) {
            fprintf(stderr, "mmtune: --device %s: %s\n", list,
                    tw->n == MMT_LANES_MAX ? "more devices than a tune takes (64)" : "an empty or overlong entry");
            return EXIT_BAD_INPUT;
        }
        char *d = tw->device[tw->n];
        memcpy(d, at, len);
        d[len] = '\0';
        const mmt_backend *be;
        int rc = mmt_cli_device_of(d, &be, &tw->dev[tw->n]);
        if (rc != EXIT_OK) return rc;
        const mmt_device_info *one = &tw->dev[0], *it = &tw->dev[tw->n];
        if (tw->n > 0 && (strcmp(it->backend, one->backend) != 0 || strcmp(it->fingerprint, one->fingerprint) != 0)) {
            fprintf(stderr, "mmtune: --device %s: %s (%s) and %s (%s) are not twins: tune each kind apart "
                            "(--device all does)\n", list, tw->device[0], one->name, d, it->name);
            return EXIT_BAD_INPUT;
        }
        for (int j = 0; j < tw->n; j++)
            if (strcmp(tw->device[j], d) == 0)
                fprintf(stderr, "mmtune: --device %s lists %s twice: its two lanes share it, each timing the "
                                "other's load (a check of the lanes, not a measurement)\n", list, d);
        tw->n++;
        at += len;
        if (!*at) return EXIT_OK;
    }
}

mmt_status mmt_twins_lock(const mmt_twins *tw, int wait, mmt_err *err)
{
    for (int i = 0; i < tw->n; i++) {
        char name[256], earlier[256];
        mmt_device_lock_name(&tw->dev[i], name, sizeof name);
        int held = 0; /* a lock is the process's: taken again it would wait on itself */
        for (int j = 0; j < i && !held; j++) {
            mmt_device_lock_name(&tw->dev[j], earlier, sizeof earlier);
            held = strcmp(name, earlier) == 0;
        }
        if (!held) FORWARD_IF_ERROR(mmt_device_lock(&tw->dev[i], wait, err));
    }
    return MMT_OK;
}

mmt_status mmt_twins_start_lanes(const mmt_twins *tw, const char *path, const char *exe, mmt_tuner *lanes,
                                 mmt_err *err)
{
    mmt_status st = MMT_OK;
    int i = 1;
    for (; i < tw->n && st == MMT_OK; i++) {
        mmt_tuner *t = &lanes[i];
        *t = lanes[0];
        t->dev = tw->dev[i];
        t->st = NULL, t->worker = NULL, t->progress = NULL;
        int64_t device_id = 0;
        st = mmt_store_open(path, 0, &t->st, err);
        if (st == MMT_OK) st = mmt_store_device(t->st, &t->dev, &device_id, err);
        if (st == MMT_OK && device_id != lanes[0].device_id)
            st = mmt_err_set(err, MMT_INVALID_ARGUMENT, "%s and %s have two device rows: not twins", tw->device[0],
                             tw->device[i]);
        if (st == MMT_OK) st = mmt_worker_start(exe, tw->device[i], &t->worker, err);
    }
    if (st != MMT_OK) mmt_twins_stop_lanes(lanes, i); /* the last one failed part-way: its fields say what it has */
    return st;
}

void mmt_twins_stop_lanes(mmt_tuner *lanes, int n)
{
    for (int i = 1; i < n; i++) {
        if (lanes[i].worker) mmt_worker_stop(lanes[i].worker);
        if (lanes[i].st) mmt_store_close(lanes[i].st);
        lanes[i].worker = NULL, lanes[i].st = NULL;
    }
}

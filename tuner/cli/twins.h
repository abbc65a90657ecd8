/* twins.h - the devices of one tune: --device 0,1,... lists twin GPUs (one backend and one
 * fingerprint: one device row, whose results serve them all), each a lane of the run
 * (lanes.h) with its own worker and database connection; one device is a list of one. */
#ifndef MMT_TWINS_H
#define MMT_TWINS_H

#include "device_lock.h"
#include "lanes.h"
#include "tune.h"

typedef struct mmt_twins {
    int n;
    char device[MMT_LANES_MAX][32]; /* each lane's --device */
    mmt_device_info dev[MMT_LANES_MAX];
} mmt_twins;

/* Parses the list and probes each device: all of the first one's backend and fingerprint. A
 * device listed twice is said on stderr (its lanes share it and time each other's load).
 * Returns an exit code: bad input (nothing written) for an unknown device or one of another
 * kind, said on stderr. */
int mmt_twins_probe(const char *list, mmt_twins *tw);

/* Takes each device's lock (tuner/tune/device_lock.h; once per device listed twice). */
mmt_status mmt_twins_lock(const mmt_twins *tw, int wait, mmt_err *err);

/* lanes[1..n): copies of lanes[0] (its session and device row, which the twins share) for the
 * other devices, each with its own database connection (path) and worker (exe), and no
 * progress of its own. On failure, what was started is stopped. */
mmt_status mmt_twins_start_lanes(const mmt_twins *tw, const char *path, const char *exe, mmt_tuner *lanes,
                                 mmt_err *err);

/* Stops what mmt_twins_start_lanes started in lanes[1..n). */
void mmt_twins_stop_lanes(mmt_tuner *lanes, int n);

#endif

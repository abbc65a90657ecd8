/* device_lock.h - one measurement of a device at a time: a tune (or a bench) holds an
 * exclusive lock (flock) on a file of the device in the user's private cache folder
 * (mmtune/locks/DEVICE.lock, the file saying the holder's pid) for as long as the process
 * lives; a second one of the same device waits, saying for whom, or refuses where the
 * caller will not wait. Two tunes measuring one device at once each time the other's load:
 * on the 2-core VM two such tunes recorded figures 80x apart for one problem. The lock is
 * this user's: another user's tune of the device is not seen. */
#ifndef MMT_DEVICE_LOCK_H
#define MMT_DEVICE_LOCK_H

#include "device.h"
#include "err.h"

/* The file's name for dev: "cpu", or "cuda-" and the GPU as all processes see it (the
 * ordinal through CUDA_VISIBLE_DEVICES, a UUID where that lists one). */
void mmt_device_lock_name(const mmt_device_info *dev, char *buf, size_t size);

/* Takes dev's lock for the rest of the process; where another process holds it, waits
 * (saying so on stderr once, with its pid), or where !wait refuses (MMT_UNSUPPORTED, the
 * holder named). A lock folder that cannot be had (others may write a folder above it) is
 * said on stderr and no lock is taken: MMT_OK. */
mmt_status mmt_device_lock(const mmt_device_info *dev, int wait, mmt_err *err);

#endif

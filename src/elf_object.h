/* elf_object.h - the initial bytes of a named data object in an ELF image (a cubin, a shared
 * object), read on the host without loading it: what a compiled instance says of itself
 * (backend.h's mmt_launch_needs) is known before anything runs, and where there is no device. */
#ifndef MMT_ELF_OBJECT_H
#define MMT_ELF_OBJECT_H

#include <stddef.h>

/* Copies the `size` bytes of the object `name` in a 64-bit little-endian ELF image into out.
 * 0: done; -1: the image is not such a file, has no symbol of that name and size, or the
 * object has no initial bytes in the image (every offset is checked: an image may be damaged
 * or foreign, and is never read past its end). */
int mmt_elf_object(const void *image, size_t image_size, const char *name, void *out, size_t size);

#endif

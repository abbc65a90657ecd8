/* term.h - what the output stream is: a terminal gets a redrawn progress line and colour,
 * anything else (a pipe, a file, a log) plain lines without escape codes. Colour is off
 * where NO_COLOR is set to anything but the empty string (https://no-color.org) and on a
 * terminal that says it has none (TERM=dumb). */
#ifndef MMT_TERM_H
#define MMT_TERM_H

#include <stdio.h>

int mmt_term_is_tty(FILE *f);

/* The escape codes to print around text on f; every one is "" where f gets no colour. */
typedef struct mmt_colours {
    const char *bold, *good, *bad, *dim, *off;
} mmt_colours;

mmt_colours mmt_term_colours(FILE *f);

#endif

/* term.c - terminals and colour (see term.h). */
#include "term.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int mmt_term_is_tty(FILE *f) { return f && isatty(fileno(f)); }

mmt_colours mmt_term_colours(FILE *f)
{
    const char *no_color = getenv("NO_COLOR"), *term = getenv("TERM");
    int on = mmt_term_is_tty(f) && !(no_color && *no_color) && !(term && strcmp(term, "dumb") == 0);
    if (!on) return (mmt_colours){"", "", "", "", ""};
    return (mmt_colours){"\033[1m", "\033[32m", "\033[31m", "\033[2m", "\033[0m"};
}

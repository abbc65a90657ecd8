/* utf8.h - where text leaves mmtune in a format that must be valid UTF-8 (JSON, the
 * report's XML-compatible page), a byte that does not begin a valid sequence is written
 * as U+FFFD. */
#ifndef MMT_UTF8_H
#define MMT_UTF8_H

/* The length of the valid UTF-8 sequence at s (no overlong form, no surrogate, at most
 * U+10FFFF), or 0 where s does not begin one; *cp (may be NULL) its code point. */
int mmt_utf8_decode(const unsigned char *s, unsigned *cp);

static inline int mmt_utf8_length(const unsigned char *s) { return mmt_utf8_decode(s, 0); }

#endif

/* test_svg.c - the report's drawing helpers (tuner/report/svg.c): scales widen to round ends and
 * tick at round values (linear: 1, 2 or 5 times a power of ten; log: decades, with 2 and 5
 * between few), map their ends to their pixels, and text is escaped into well-formed XML
 * (markup characters, controls XML forbids, bytes that are not UTF-8). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "svg.h"

static void test_linear(void)
{
    mmt_scale s = mmt_scale_make(3, 147, 0, 100, 500);
    CHECK(s.lo == 0 && s.hi == 160); /* step 20 */
    CHECK(mmt_scale_px(&s, 0) == 100 && mmt_scale_px(&s, 160) == 500 && mmt_scale_px(&s, 80) == 300);
    double t[32];
    int n = mmt_scale_ticks(&s, t, 32);
    CHECK_EQ_INT(n, 9);
    CHECK(t[0] == 0 && fabs(t[8] - 160) < 1e-9 && fabs(t[1] - 20) < 1e-9);
    s = mmt_scale_make(0, 0.0023, 0, 0, 1); /* small times: steps of 0.0005 */
    n = mmt_scale_ticks(&s, t, 32);
    CHECK(n == 6 && fabs(t[1] - 0.0005) < 1e-12 && fabs(s.hi - 0.0025) < 1e-12);
    char label[32];
    mmt_tick_label(t[1], label, sizeof label);
    CHECK_EQ_STR(label, "0.0005");
    s = mmt_scale_make(5, 5, 0, 0, 1); /* one value: still a span */
    CHECK(s.lo < 5 && s.hi > 5);
    s = mmt_scale_make(0, 1, 0, 300, 20); /* a y scale: pixels run backwards */
    CHECK(mmt_scale_px(&s, 1) == 20 && mmt_scale_px(&s, 0) == 300);
}

static void test_log(void)
{
    mmt_scale s = mmt_scale_make(3, 4200, 1, 0, 300);
    CHECK(s.lo == 1 && s.hi == 10000);
    CHECK(fabs(mmt_scale_px(&s, 100) - 150) < 1e-9);
    double t[32];
    CHECK_EQ_INT(mmt_scale_ticks(&s, t, 32), 5); /* four decades: the decades alone */
    s = mmt_scale_make(12000, 60000, 1, 0, 300);
    int n = mmt_scale_ticks(&s, t, 32); /* one decade: 1, 2, 5, 10 x 10^4 */
    CHECK_EQ_INT(n, 4);
    CHECK(t[0] == 10000 && t[1] == 20000 && t[2] == 50000 && t[3] == 100000);
}

static void test_escape(void)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    mmt_xml_text(f, "a<b>&\"c'\x01\t\xff\xc3\xa9");
    fclose(f);
    CHECK_EQ_STR(text, "a&lt;b&gt;&amp;&quot;c&#39; \t\xef\xbf\xbd\xc3\xa9");
    free(text);
}

int main(void)
{
    test_linear();
    test_log();
    test_escape();
    return check_result();
}

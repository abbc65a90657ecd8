/* report_html.c - the page of mmtune report (see report_html.h): its frame (CSS, script),
 * and per device its sections, tables and captions; the charts are report_charts.c's. */
#include "report_html.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "membw.h"
#include "mmtuned.h"
#include "report_charts.h"
#include "svg.h"

static const char style[] =
    "body{font:14px/1.45 system-ui,sans-serif;color:#1f2937;background:#fff;margin:0 auto;max-width:1100px;"
    "padding:0 24px 48px}\n"
    "h1{margin:24px 0 4px}h2{margin:40px 0 4px;padding-top:16px;border-top:3px solid #1f2937}"
    "h3{margin:28px 0 6px}h4{margin:18px 0 4px}\n"
    ".sub{font-weight:normal;color:#6b7280;font-size:70%}.caption,.meta{color:#4b5563}\n"
    "table{border-collapse:collapse;margin:8px 0;font-size:13px}td,th{padding:3px 8px;border-bottom:1px solid #e5e7eb;"
    "text-align:left;vertical-align:top}th{background:#f3f4f6}td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
    "code{font-size:12px;word-break:break-all}.good{color:#15803d}.bad{color:#b91c1c}\n"
    "nav a{margin-right:14px}svg{display:block;margin:6px 0;overflow:visible}\n"
    "svg text{font:11px system-ui,sans-serif;fill:#374151}svg text.title{font-size:12px;fill:#111827}"
    "svg text.knob{font-weight:bold}svg text.small{font-size:9px}svg text.note{fill:#4b5563}\n"
    ".grid{stroke:#e5e7eb}.axis{stroke:#6b7280;fill:none}\n"
    ".ours{fill:#2563eb}.vendor{fill:#9ca3af}.time{fill:#0891b2}.knobbar{fill:#93c5fd}"
    ".fastest{stroke:#1e3a8a;stroke-width:2}\n"
    ".vendorline{stroke:#6b7280;stroke-dasharray:6 4}.win{stroke:#f97316;stroke-width:3}\n"
    ".fam0{fill:#2563eb}.fam1{fill:#16a34a}.fam2{fill:#9333ea}.fam3{fill:#db2777}.fam4{fill:#0891b2}"
    ".fam5{fill:#ca8a04}\n"
    ".roof{fill:none;stroke-width:2}.roof.attained{stroke-dasharray:5 4}.mode0{stroke:#dc2626}.mode1{stroke:#7c3aed}"
    ".mode2{stroke:#059669}.mode3{stroke:#0d9488}.mode4{stroke:#d97706}.mode5{stroke:#be185d}\n"
    ".session{fill:none;stroke-width:2}.s0{stroke:#2563eb;fill:#2563eb}.s1{stroke:#16a34a;fill:#16a34a}"
    ".s2{stroke:#9333ea;fill:#9333ea}.s3{stroke:#db2777;fill:#db2777}.s4{stroke:#0891b2;fill:#0891b2}"
    ".s5{stroke:#ca8a04;fill:#ca8a04}.s6{stroke:#4b5563;fill:#4b5563}.s7{stroke:#ea580c;fill:#ea580c}\n"
    "path.session{fill:none}text.label.s0,text.label.s1,text.label.s2,text.label.s3,text.label.s4,text.label.s5,"
    "text.label.s6,text.label.s7{stroke:none}\n"
    ".knobs{display:flex;flex-wrap:wrap;gap:4px 12px}select{font:inherit;padding:2px 4px}\n"
    "#script-status{margin-top:40px;color:#9ca3af;font-size:12px}\n";

/* Shows the chosen problem of each device (every section shows without the script); the
 * footer says whether the script ran, which is what the report's test reads. */
static const char script[] =
    "(function () {\n"
    "  var status = document.getElementById('script-status');\n"
    "  try {\n"
    "    var selects = document.querySelectorAll('select.problem-select');\n"
    "    Array.prototype.forEach.call(selects, function (select) {\n"
    "      var show = function () {\n"
    "        var sections = document.querySelectorAll('section.problem[data-device=\"' + select.dataset.device + "
    "'\"]');\n"
    "        Array.prototype.forEach.call(sections, function (s) { s.hidden = s.id !== select.value; });\n"
    "      };\n"
    "      select.addEventListener('change', show);\n"
    "      show();\n"
    "    });\n"
    "    status.textContent = 'script: ok';\n"
    "    document.body.setAttribute('data-script', 'ok');\n"
    "  } catch (e) {\n"
    "    status.textContent = 'script error: ' + e;\n"
    "    document.body.setAttribute('data-script', 'error');\n"
    "  }\n"
    "})();\n";

/* Text into the page, escaped; printf-style. */
__attribute__((format(printf, 2, 3))) static void put(FILE *f, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    mmt_xml_text(f, buf);
}

static void utc(int64_t t, char *buf, size_t size)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (t <= 0 || !gmtime_r(&tt, &tm)) snprintf(buf, size, "-");
    else strftime(buf, size, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

static void cell(FILE *f, const char *cls, const char *text)
{
    fprintf(f, cls ? "<td class=\"%s\">" : "<td>", cls);
    mmt_xml_text(f, text);
    fputs("</td>", f);
}

static void cell_num(FILE *f, const char *fmt, double v)
{
    char buf[64];
    snprintf(buf, sizeof buf, fmt, v);
    cell(f, "num", v > 0 ? buf : "-");
}

static void header_row(FILE *f, const char *const *names)
{
    fputs("<tr>", f);
    for (int i = 0; names[i]; i++) {
        fputs("<th>", f);
        mmt_xml_text(f, names[i]);
        fputs("</th>", f);
    }
    fputs("</tr>\n", f);
}

static void props_table(FILE *f, const mmt_device_info *d)
{
    fputs("<details><summary>the device as its row records it</summary>\n<table>\n", f);
    fputs("<tr><th>fingerprint</th><td><code>", f);
    mmt_xml_text(f, d->fingerprint);
    fputs("</code></td></tr>\n", f);
    for (int i = 0; i < d->n_props; i++) {
        fputs("<tr><th>", f);
        mmt_xml_text(f, d->props[i].name);
        fprintf(f, "</th><td class=\"num\">%lld</td></tr>\n", (long long)d->props[i].value);
    }
    fputs("</table></details>\n", f);
}

static void versus_section(FILE *f, const mmt_rd_device *d)
{
    size_t tuned = 0, paired = 0;
    double log_sum = 0, lo = INFINITY, hi = 0;
    for (size_t i = 0; i < d->n_problems; i++) {
        const mmt_rd_best *b = d->problems[i].best;
        if (!b) continue;
        tuned++;
        if (!b->vendor) continue;
        double r = b->gflops / b->vendor_gflops;
        paired++, log_sum += log(r), lo = fmin(lo, r), hi = fmax(hi, r);
    }
    fputs("<h3>Tuned against the vendor</h3>\n<p class=\"caption\">", f);
    put(f, "%zu problem%s tuned; ", tuned, tuned == 1 ? "" : "s");
    if (paired)
        put(f, "%zu with the vendor library timed side by side with the best (A B B A ... on the same inputs): "
               "ratio %.2fx geometric mean (%.2fx to %.2fx). ",
            paired, exp(log_sum / (double)paired), lo, hi);
    else put(f, "none with a vendor figure timed beside the best, so no ratio. ");
    put(f, "A vendor figure not timed beside the best (an older run's, timed alone) makes no ratio. Bars: tuned "
           "(blue), vendor (grey).");
    fputs("</p>\n", f);
    mmt_chart_versus(f, d);
    static const char *const cols[] = {"problem", "family", "config", "GFLOP/s", "median ms", "vendor",
                                       "vendor GFLOP/s", "ratio", NULL};
    fputs("<table class=\"results\">\n", f);
    header_row(f, cols);
    char name[128], ratio[48];
    for (size_t i = 0; i < d->n_bests; i++) {
        const mmt_rd_best *b = &d->bests[i];
        mmt_problem_format(&b->problem, name, sizeof name);
        fputs("<tr>", f);
        cell(f, NULL, name);
        cell(f, NULL, b->template_name);
        fputs("<td><code>", f);
        mmt_xml_text(f, b->params);
        fprintf(f, "</code>%s%s</td>", b->partial ? " (partial)" : "", b->chosen ? "" : " (not chosen: slower)");
        cell_num(f, "%.1f", b->gflops);
        cell_num(f, "%.4g", b->time_ms);
        cell(f, NULL, b->vendor ? b->vendor : b->vendor_unpaired ? "not timed beside it: no ratio" : "-");
        cell_num(f, "%.1f", b->vendor ? b->vendor_gflops : 0);
        snprintf(ratio, sizeof ratio, "%.2fx", b->vendor ? b->gflops / b->vendor_gflops : 0);
        cell(f, b->vendor ? (b->gflops >= b->vendor_gflops ? "num good" : "num bad") : "num", b->vendor ? ratio : "-");
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static void roofline_section(FILE *f, const mmt_rd_device *d, const mmt_report_options *o)
{
    mmt_roofs r;
    mmt_roofs_of(d, &r);
    if (r.bandwidth.value <= 0 && o->host_cpu && strcmp(o->host_cpu->fingerprint, d->dev.info.fingerprint) == 0)
        r.bandwidth.value = mmt_membw_measure(o->host_cpu, r.bandwidth.source, sizeof r.bandwidth.source);
    fputs("<h3>Roofline</h3>\n<p class=\"caption\">", f);
    put(f, "Each problem's best (blue) and the vendor's figure beside it (grey) at the problem's arithmetic "
           "intensity, under the ceilings: the memory bandwidth up to the ridge, then the peak rate of the mode. A "
           "solid ceiling is the device's peak from its recorded properties; a dashed one is what was attained, "
           "where the record gives no peak. Without a bandwidth (a CPU measured elsewhere than here, a GPU row "
           "without its memory's figures) the ceilings are flat.");
    fputs("</p>\n", f);
    mmt_chart_roofline(f, d, &r);
    fputs("<ul class=\"sources\">\n", f);
    for (int m = 0; m < MMT_N_MODES; m++) {
        if (!r.present[m]) continue;
        fputs("<li>", f);
        put(f, "%s peak: %s", mmt_mode_name((mmt_mode)m), r.flops[m].source);
        if (r.flops[m].value <= 0)
            put(f, "; drawn instead: %.1f GFLOP/s attained, the fastest figure on record", r.attained_gflops[m]);
        fputs("</li>\n", f);
    }
    fputs("<li>", f);
    put(f, "memory bandwidth: %s", r.bandwidth.source);
    if (r.bandwidth.value <= 0)
        put(f, "; not drawn. The most bytes per second a recorded GEMM moved, counting A, B and C once, was %.1f "
               "GB/s: a lower bound only, GEMMs being bound by arithmetic",
            r.attained_gbs);
    fputs("</li>\n</ul>\n", f);
}

static void sessions_section(FILE *f, const mmt_rd_device *d)
{
    fputs("<h3>Tuning time and the pipeline</h3>\n<p class=\"caption\">", f);
    put(f, "What the database records: each session's row (the command, when it began and ended, how it ended) "
           "and each trial's time stamp, in whole seconds. The tuner prints its own pipeline figures (compile and "
           "measure rates, the time the device waited for a compile) with its table; they are not stored.");
    fputs("</p>\n<table class=\"sessions\">\n", f);
    static const char *const cols[] = {"session", "began", "wall", "outcome", "strategy", "budget", "problems",
                                       "trials (ok)", "final and vendor rounds", "trials per minute", "command", NULL};
    header_row(f, cols);
    char began[40], buf[64];
    for (size_t i = 0; i < d->n_sessions; i++) {
        const mmt_rd_session *s = &d->sessions[i];
        int64_t end = s->ended ? s->ended : s->trials ? s->started + s->offsets[s->trials - 1] : s->started;
        double wall = (double)(end - s->started);
        utc(s->started, began, sizeof began);
        fprintf(f, "<tr><td class=\"num\">%lld</td>", (long long)s->id);
        cell(f, NULL, began);
        snprintf(buf, sizeof buf, "%.0f s%s", wall, s->ended ? "" : " (not ended)");
        cell(f, "num", buf);
        cell(f, NULL, s->outcome ? s->outcome : s->ended ? "-" : "running, or killed");
        cell(f, NULL, s->strategy);
        cell(f, NULL, s->budget);
        snprintf(buf, sizeof buf, "%zu", s->problems);
        cell(f, "num", buf);
        snprintf(buf, sizeof buf, "%zu (%zu)", s->trials, s->ok);
        cell(f, "num", buf);
        snprintf(buf, sizeof buf, "%zu", s->rounds);
        cell(f, "num", buf);
        cell_num(f, "%.1f", wall > 0 ? 60.0 * (double)s->trials / wall : 0);
        fputs("<td><code>", f);
        mmt_xml_text(f, s->command);
        fputs("</code></td></tr>\n", f);
    }
    fputs("</table>\n", f);
    mmt_chart_sessions(f, d);
    mmt_chart_tuning_time(f, d);
}

static void problem_section(FILE *f, const mmt_rd_device *d, const mmt_rd_problem *p)
{
    char name[128];
    mmt_problem_format(&p->problem, name, sizeof name);
    fprintf(f, "<section class=\"problem\" id=\"problem-%lld-%lld\" data-device=\"%lld\">\n<h4>", (long long)d->dev.id,
            (long long)p->id, (long long)d->dev.id);
    mmt_xml_text(f, name);
    fputs("</h4>\n<p class=\"caption\">", f);
    size_t failed[MMT_TRIAL_CRASHED + 1] = {0};
    for (size_t c = p->n_ok; c < p->n_configs; c++) failed[p->configs[c].status]++;
    put(f, "%zu configurations measured by the search, %zu of them failed", p->n_configs, p->n_configs - p->n_ok);
    for (int s = MMT_TRIAL_COMPILE_ERROR; s <= MMT_TRIAL_CRASHED; s++)
        if (failed[s]) put(f, " (%s %zu)", mmt_trial_status_name((mmt_trial_status)s), failed[s]);
    put(f, "; %zu trials in all, %.0f s of tuning. ", p->trials, p->tuning_s);
    if (p->best)
        put(f, "Best: %s %s, %.1f GFLOP/s%s%s%s. ", p->best->template_name, p->best->params, p->best->gflops,
            p->best->vendor ? "; the vendor beside it " : "", p->best->vendor ? p->best->vendor : "",
            p->best->partial ? " (partial: the search was cut short)" : "");
    put(f, "Dots: each configuration as the search measured it last (the final and vendor rounds time a few again, "
           "side by side); the best is ringed.");
    fputs("</p>\n", f);
    mmt_chart_spread(f, p);
    mmt_chart_knobs(f, p);
    fputs("</section>\n", f);
}

static void problems_section(FILE *f, const mmt_rd_device *d)
{
    if (!d->n_problems) return;
    fputs("<h3>Problems</h3>\n", f);
    fprintf(f, "<p><label>problem: <select class=\"problem-select\" data-device=\"%lld\">\n", (long long)d->dev.id);
    char name[128];
    for (size_t i = 0; i < d->n_problems; i++) {
        mmt_problem_format(&d->problems[i].problem, name, sizeof name);
        fprintf(f, "<option value=\"problem-%lld-%lld\">", (long long)d->dev.id, (long long)d->problems[i].id);
        mmt_xml_text(f, name);
        fputs("</option>\n", f);
    }
    fputs("</select></label></p>\n", f);
    for (size_t i = 0; i < d->n_problems; i++) problem_section(f, d, &d->problems[i]);
}

static void device_section(FILE *f, const mmt_rd_device *d, const mmt_report_options *o)
{
    const mmt_device_info *info = &d->dev.info;
    fprintf(f, "<section class=\"device\" id=\"device-%lld\">\n<h2>", (long long)d->dev.id);
    mmt_xml_text(f, info->name);
    fputs(" <span class=\"sub\">", f);
    put(f, "%s, %s", info->arch, info->backend);
    fputs("</span></h2>\n<p class=\"meta\">", f);
    put(f, "%zu problems, %zu trials, %zu sessions", d->n_problems, d->n_trials, d->n_sessions);
    fputs("</p>\n", f);
    props_table(f, info);
    versus_section(f, d);
    roofline_section(f, d, o);
    sessions_section(f, d);
    problems_section(f, d);
    fputs("</section>\n", f);
}

typedef struct device_list {
    mmt_rep_device *items;
    size_t n, cap;
    int failed;
} device_list;

static int on_device(void *user, const mmt_rep_device *d)
{
    device_list *l = user;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        mmt_rep_device *p = realloc(l->items, cap * sizeof *p);
        if (!p) return l->failed = 1;
        l->items = p, l->cap = cap;
    }
    l->items[l->n++] = *d;
    return 0;
}

mmt_status mmt_report_html(mmt_store *st, const mmt_report_options *o, FILE *f, mmt_report_summary *summary,
                           mmt_err *err)
{
    const char *device = o->device;
    memset(summary, 0, sizeof *summary);
    device_list devices = {0};
    mmt_status s = mmt_store_report_devices(st, device, on_device, &devices, err);
    if (s == MMT_OK && devices.failed) s = mmt_err_set(err, MMT_OUT_OF_MEMORY, "out of memory");
    char now[40];
    utc((int64_t)time(NULL), now, sizeof now);
    fputs("<!DOCTYPE html>\n<html lang=\"en\" xmlns=\"http://www.w3.org/1999/xhtml\">\n<head>\n<meta charset=\"utf-8\"/>\n"
          "<title>mmtune report</title>\n<style>\n",
          f);
    fputs(style, f);
    fputs("</style>\n</head>\n<body>\n<h1>mmtune report</h1>\n<p class=\"meta\">", f);
    put(f, "database %s, written %s by mmtune %s", o->database, now, mmt_version_string());
    if (device) put(f, "; the device %s only", device);
    fputs("</p>\n<nav>", f);
    for (size_t i = 0; s == MMT_OK && i < devices.n; i++) {
        fprintf(f, "<a href=\"#device-%lld\">", (long long)devices.items[i].id);
        mmt_xml_text(f, devices.items[i].info.name);
        fputs("</a>", f);
    }
    fputs("</nav>\n", f);
    if (s == MMT_OK && devices.n == 0) {
        fputs("<p>", f);
        put(f, "No device%s%s in this database: nothing tuned yet.", device ? " named " : "", device ? device : "");
        fputs("</p>\n", f);
    }
    for (size_t i = 0; s == MMT_OK && i < devices.n; i++) {
        mmt_rd_device d;
        s = mmt_rd_load(st, &devices.items[i], &d, err);
        if (s == MMT_OK) {
            device_section(f, &d, o);
            summary->devices++;
            summary->problems += d.n_problems;
            summary->trials += d.n_trials;
        }
        mmt_rd_free(&d);
    }
    fputs("<footer id=\"script-status\">script: not run</footer>\n<script>//<![CDATA[\n", f);
    fputs(script, f);
    fputs("//]]></script>\n</body>\n</html>\n", f);
    free(devices.items);
    return s;
}

/* test_cache.c - a kernel cache nobody can plant code in: the default paths are absolute
 * whatever HOME and XDG_CACHE_HOME say (never under the working directory); the cache
 * directory is made private (0700), an existing one open to others is closed, a symbolic
 * link or another user's directory is refused with a message; a file planted or damaged
 * under a compile key is compiled again and replaced, never used; a shared object planted
 * under the name of the binary the CPU backend loads is replaced before dlopen, and the
 * kernel that runs computes the right product; writers of one path in many threads leave
 * one whole file and no temporaries; a database carries no code: serving writes none into
 * it, and what a database's binary table holds under a kernel's key is never loaded; the
 * default database's folder is checked whole too, and one others may write is not used. */
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <pwd.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api_call.h"
#include "backend.h"
#include "check.h"
#include "family.h"
#include "fsutil.h"
#include "hash.h"
#include "kernel.h"
#include "mmtuned.h"
#include "query.h"
#include "store.h"

static char dir[] = "/tmp/mmtune-test-cache-XXXXXX";

static int mode_of(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 ? (int)(st.st_mode & 0777) : -1;
}

static void test_private_dirs(void)
{
    char path[512], buf[600];
    mmt_err err;
    snprintf(path, sizeof path, "%s/new/kernels", dir);
    setenv("MMTUNE_CACHE_DIR", path, 1);
    CHECK_OK(mmt_cache_dir(buf, sizeof buf, &err), &err);
    CHECK_EQ_INT(mode_of(path), 0700);
    CHECK_EQ_INT(mode_of(buf), 0700);

    snprintf(path, sizeof path, "%s/open", dir); /* ours, but open to everyone: closed */
    CHECK(mkdir(path, 0777) == 0 && chmod(path, 0777) == 0);
    setenv("MMTUNE_CACHE_DIR", path, 1);
    CHECK_OK(mmt_cache_dir(buf, sizeof buf, &err), &err);
    CHECK_EQ_INT(mode_of(path), 0700);

    char target[600];
    snprintf(target, sizeof target, "%s/elsewhere", dir); /* a symbolic link: refused */
    snprintf(path, sizeof path, "%s/link", dir);
    CHECK(mkdir(target, 0700) == 0 && symlink(target, path) == 0);
    setenv("MMTUNE_CACHE_DIR", path, 1);
    CHECK_EQ_INT(mmt_cache_dir(buf, sizeof buf, &err), MMT_IO);
    CHECK(strstr(err.msg, "not a directory") != NULL);

    /* a directory above that others may write (ours, 0777, not sticky): refused, whatever
     * the cache directory itself is */
    snprintf(target, sizeof target, "%s/shared", dir);
    CHECK(mkdir(target, 0777) == 0 && chmod(target, 0777) == 0);
    snprintf(path, sizeof path, "%s/shared/kernels", dir);
    setenv("MMTUNE_CACHE_DIR", path, 1);
    CHECK_EQ_INT(mmt_cache_dir(buf, sizeof buf, &err), MMT_IO);
    CHECK(strstr(err.msg, "/shared, above") != NULL && strstr(err.msg, "mode 0777") != NULL);

    /* a symbolic link above, to a directory of ours: the path is used as resolved */
    snprintf(target, sizeof target, "%s/real-parent", dir);
    snprintf(path, sizeof path, "%s/link-parent", dir);
    CHECK(mkdir(target, 0700) == 0 && symlink(target, path) == 0);
    snprintf(path, sizeof path, "%s/link-parent/kernels", dir);
    setenv("MMTUNE_CACHE_DIR", path, 1);
    CHECK_OK(mmt_cache_dir(buf, sizeof buf, &err), &err);
    CHECK(strstr(buf, "/real-parent/kernels") != NULL && strstr(buf, "link-parent") == NULL);

    if (geteuid() == 0) { /* another user's directory: refused (needs root to make one) */
        snprintf(path, sizeof path, "%s/theirs", dir);
        CHECK(mkdir(path, 0700) == 0 && chown(path, 65534, 65534) == 0);
        setenv("MMTUNE_CACHE_DIR", path, 1);
        CHECK_EQ_INT(mmt_cache_dir(buf, sizeof buf, &err), MMT_IO);
        CHECK(strstr(err.msg, "belongs to user 65534") != NULL);
        /* a directory above of another user (the attacker's /tmp/mmtune-UID): refused,
         * though the cache directory in it is ours */
        snprintf(path, sizeof path, "%s/theirs-above", dir);
        CHECK(mkdir(path, 0755) == 0 && chown(path, 65534, 65534) == 0);
        snprintf(path, sizeof path, "%s/theirs-above/kernels", dir);
        CHECK(mkdir(path, 0700) == 0);
        setenv("MMTUNE_CACHE_DIR", path, 1);
        CHECK_EQ_INT(mmt_cache_dir(buf, sizeof buf, &err), MMT_IO);
        CHECK(strstr(err.msg, "theirs-above, above") != NULL && strstr(err.msg, "user 65534") != NULL);
    } else {
        printf("not root: the other user's directory is not tried\n");
    }
}

/* The CPU template's default instance, compiled through the cache with no database. */
static mmt_status build_default(const mmt_family *fam, const mmt_device_info *dev, char *defines, size_t dsize,
                                void **bin, size_t *size, int *cached, mmt_err *err)
{
    mmt_problem p = {.dtype = MMT_F32, .out = MMT_F32, .mode = MMT_MODE_F32, .layout = MMT_ROW_MAJOR, .m = 8,
                     .n = 8, .k = 8};
    mmt_space_env env = {.problem = &p, .device = dev};
    mmt_config def;
    mmt_space_default(fam->space, &def);
    FORWARD_IF_ERROR(mmt_kernel_defines(fam->space, &def, &env, defines, dsize, err));
    char *log = NULL;
    mmt_status st = mmt_kernel_binary(&mmt_backend_cpu, dev, fam->name, fam->source, defines, bin, size, &log,
                                      cached, err);
    free(log);
    return st;
}

/* C = A B for a small problem through a loaded module: the product is right. */
static void check_module_computes(mmt_module *mod)
{
    float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {7, 8, 9, 10, 11, 12}, c[4] = {NAN, NAN, NAN, NAN};
    mmt_gemm_params p = {.m = 2, .n = 2, .k = 3, .lda = 3, .ldb = 2, .ldc = 2, .alpha = 1, .beta = 0, .a = a,
                         .b = b, .c = c};
    mmt_geometry g = {0};
    mmt_err err;
    CHECK_OK(mmt_backend_cpu.launch(mod, &p, &g, NULL, &err), &err);
    CHECK(c[0] == 58 && c[1] == 64 && c[2] == 139 && c[3] == 154);
}

static void test_planted_files(void)
{
    char cache[512];
    snprintf(cache, sizeof cache, "%s/kernels", dir);
    setenv("MMTUNE_CACHE_DIR", cache, 1);
    mmt_err err;
    mmt_device_info dev;
    mmt_family *fam = NULL;
    CHECK_OK(mmt_backend_cpu.probe(0, &dev, &err), &err);
    CHECK_OK(mmt_family_find_template("cpu/gemm_avx.c", &fam, &err), &err);
    if (!fam) return;
    char defines[4096], key[65], path[700];
    void *bin = NULL, *again = NULL;
    size_t size = 0, size2 = 0;
    int cached = -1;
    CHECK_OK(build_default(fam, &dev, defines, sizeof defines, &bin, &size, &cached, &err), &err);
    CHECK_EQ_INT(cached, 0);
    CHECK_OK(mmt_kernel_key(&mmt_backend_cpu, &dev, fam->source, defines, key, &err), &err);
    snprintf(path, sizeof path, "%s/%s.bin", cache, key);
    CHECK_EQ_INT(mode_of(path), 0600);

    /* the cache serves it back, then a planted file under the key: compiled again */
    CHECK_OK(build_default(fam, &dev, defines, sizeof defines, &again, &size2, &cached, &err), &err);
    CHECK_EQ_INT(cached, 1);
    CHECK(size2 == size && again && memcmp(again, bin, size) == 0);
    free(again);
    static const char planted[] = "mmtune binary sha256=0000000000000000000000000000000000000000000000000000000000000000\n"
                                  "\x7f" "ELF not what was compiled";
    CHECK_OK(mmt_file_write_atomic(path, planted, sizeof planted - 1, &err), &err);
    CHECK_OK(build_default(fam, &dev, defines, sizeof defines, &again, &size2, &cached, &err), &err);
    CHECK_EQ_INT(cached, 0); /* not used: compiled again */
    CHECK(size2 == size && again && memcmp(again, bin, size) == 0);
    free(again);
    CHECK_OK(build_default(fam, &dev, defines, sizeof defines, &again, &size2, &cached, &err), &err);
    CHECK_EQ_INT(cached, 1); /* and the cache holds the right one again */
    free(again);

    /* a symbolic link under the key, to a file that holds the right binary: not followed,
     * compiled again, and the link replaced by a file */
    char elsewhere[720];
    snprintf(elsewhere, sizeof elsewhere, "%s.elsewhere", path);
    CHECK(rename(path, elsewhere) == 0 && symlink(elsewhere, path) == 0);
    CHECK_OK(build_default(fam, &dev, defines, sizeof defines, &again, &size2, &cached, &err), &err);
    CHECK_EQ_INT(cached, 0);
    free(again);
    struct stat ls;
    CHECK(lstat(path, &ls) == 0 && S_ISREG(ls.st_mode));

    /* a shared object planted under the name the backend dlopens: replaced, and the
     * kernel that runs is the one compiled */
    char hex[65], so[700];
    CHECK_OK(mmt_sha256_hex(bin, size, hex, &err), &err);
    snprintf(so, sizeof so, "%s/%s.so", cache, hex);
    CHECK_OK(mmt_file_write_atomic(so, planted, sizeof planted - 1, &err), &err);
    mmt_module *mod = NULL;
    CHECK_OK(mmt_backend_cpu.load(&dev, bin, size, fam->space->entry, &mod, &err), &err);
    if (mod) {
        check_module_computes(mod);
        mmt_backend_cpu.unload(mod);
    }
    void *now = NULL;
    size_t now_size = 0;
    CHECK_OK(mmt_file_read(so, &now, &now_size, &err), &err);
    CHECK(now_size == size && now && memcmp(now, bin, size) == 0);
    free(now);
    free(bin);
    mmt_family_free(fam);
}

/* Many writers of one path: a whole file of one of them, no temporary left behind. */
typedef struct writer {
    const char *path;
    char fill;
} writer;

static void *write_one(void *arg)
{
    const writer *w = arg;
    static char buf[8][1 << 16];
    char *b = buf[w->fill - 'a'];
    memset(b, w->fill, sizeof buf[0]);
    for (int i = 0; i < 20; i++) mmt_file_write_atomic(w->path, b, sizeof buf[0], NULL);
    return NULL;
}

static void test_concurrent_writers(void)
{
    char sub[512], path[600];
    snprintf(sub, sizeof sub, "%s/writers", dir);
    CHECK(mkdir(sub, 0700) == 0);
    snprintf(path, sizeof path, "%s/file", sub);
    pthread_t t[8];
    writer w[8];
    for (int i = 0; i < 8; i++) {
        w[i] = (writer){path, (char)('a' + i)};
        pthread_create(&t[i], NULL, write_one, &w[i]);
    }
    for (int i = 0; i < 8; i++) pthread_join(t[i], NULL);
    char *data = NULL;
    size_t n = 0;
    mmt_err err;
    CHECK_OK(mmt_file_read(path, (void **)&data, &n, &err), &err);
    int whole = data && n == 1 << 16;
    for (size_t i = 1; whole && i < n; i++) whole = data[i] == data[0];
    CHECK(whole);
    free(data);
    int entries = 0;
    DIR *d = opendir(sub);
    for (struct dirent *e; d && (e = readdir(d));) entries += e->d_name[0] != '.';
    if (d) closedir(d);
    CHECK_EQ_INT(entries, 1);
}

/* 2 x 3 times 3 x 2 through libmmtuned on the CPU: the call's status, and whether C is right. */
/* One right f32 call through libmmtuned on a context of database db (NULL: the default). */
static int api_call_right(const char *db)
{
    mmt_ctx *ctx;
    if (mmt_open(&ctx, "cpu", db) != MMT_OK) return 0;
    const int right = api_gemm_right(ctx, 0, 2, 2, 3, db ? db : "the default database");
    mmt_close(ctx);
    return right;
}

/* A database is shared, merged and imported: code in it would run in whoever reads it. A
 * served call writes no kernel into the database; then every kernel the cache held is
 * planted in the database's binary table (as an older mmtune kept them) as a blob that
 * cannot load, and the cache emptied: the next call compiles again and is right, where
 * loading the blob would have failed it. */
static void test_database_carries_no_code(void)
{
    char cache[600], db[600], text[64], sql[1024];
    snprintf(cache, sizeof cache, "%s/db-kernels", dir);
    snprintf(db, sizeof db, "%s/served.db", dir);
    setenv("MMTUNE_CACHE_DIR", cache, 1);
    setenv("MMTUNE_VENDOR", "off", 1); /* the templates serve: their kernels are what is at stake */
    mmt_store *st = NULL;
    mmt_err err;
    CHECK_OK(mmt_store_open(db, 0, &st, &err), &err); /* a new database */
    mmt_store_close(st);
    CHECK(api_call_right(db));
    query(db, "SELECT count(*) FROM binary", text, sizeof text);
    CHECK_EQ_STR(text, "0");

    sqlite3 *h = NULL;
    CHECK(sqlite3_open(db, &h) == SQLITE_OK);
    DIR *d = opendir(cache);
    CHECK(d != NULL);
    int planted = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        const size_t n = strlen(e->d_name);
        if (n != 64 + 4 || strcmp(e->d_name + 64, ".bin") != 0) continue;
        snprintf(sql, sizeof sql,
                 "INSERT INTO binary (key, template_name, params, target, compiler, data, size) "
                 "VALUES ('%.64s', 'cpu/gemm_avx.c', '', '', '', x'7f454c46', 4)",
                 e->d_name);
        CHECK(sqlite3_exec(h, sql, NULL, NULL, NULL) == SQLITE_OK);
        snprintf(sql, sizeof sql, "%s/%s", cache, e->d_name);
        CHECK(unlink(sql) == 0);
        planted++;
    }
    if (d) closedir(d);
    sqlite3_close(h);
    CHECK(planted > 0);
    CHECK(api_call_right(db));
    unsetenv("MMTUNE_VENDOR");
}

/* The default database and cache paths with HOME and XDG_CACHE_HOME unset, relative or set:
 * a relative value is passed over for the password database's home, so a database planted
 * in a shared working directory is never opened by default. */
static void test_default_paths(void)
{
    char db[4096], cache[4096], want[4096];
    const struct passwd *pw = getpwuid(geteuid());
    const char *home = getenv("HOME");
    char saved_home[4096] = "";
    if (home) snprintf(saved_home, sizeof saved_home, "%s", home);
    const char *xdg = getenv("XDG_CACHE_HOME");
    char saved_xdg[4096] = "";
    if (xdg) snprintf(saved_xdg, sizeof saved_xdg, "%s", xdg);
    unsetenv("MMTUNE_DB");
    unsetenv("XDG_CACHE_HOME");
    snprintf(want, sizeof want, "%s/.cache/mmtune/mmtune.db", pw && pw->pw_dir[0] == '/' ? pw->pw_dir : "");
    const char *homes[] = {NULL, "", "relative/home", "."};
    for (size_t i = 0; i < sizeof homes / sizeof homes[0]; i++) {
        if (homes[i]) setenv("HOME", homes[i], 1);
        else unsetenv("HOME");
        setenv("XDG_CACHE_HOME", "relative/xdg", 1); /* the XDG spec: a relative value is ignored */
        mmt_store_default_path(db, sizeof db);
        mmt_user_cache_dir(cache, sizeof cache);
        CHECK(db[0] == '/' && cache[0] == '/');
        if (pw && pw->pw_dir[0] == '/') CHECK_EQ_STR(db, want);
    }
    setenv("HOME", "/somewhere/home", 1);
    unsetenv("XDG_CACHE_HOME");
    mmt_store_default_path(db, sizeof db);
    CHECK_EQ_STR(db, "/somewhere/home/.cache/mmtune/mmtune.db");
    setenv("XDG_CACHE_HOME", "/somewhere/xdg", 1);
    mmt_store_default_path(db, sizeof db);
    CHECK_EQ_STR(db, "/somewhere/xdg/mmtune/mmtune.db");
    if (home) setenv("HOME", saved_home, 1);
    else unsetenv("HOME");
    if (xdg) setenv("XDG_CACHE_HOME", saved_xdg, 1);
    else unsetenv("XDG_CACHE_HOME");
}

/* The default database under a HOME others may write: its folder is refused whole, so a
 * database planted there is never read nor written; GEMMs still run, untuned. Under a
 * private HOME the folder is made private where missing. */
static void test_default_db_folder(void)
{
    char home[600], folder[700], planted[800], text[64];
    const char *old_home = getenv("HOME"), *old_xdg = getenv("XDG_CACHE_HOME");
    char saved_home[4096] = "", saved_xdg[4096] = "";
    if (old_home) snprintf(saved_home, sizeof saved_home, "%s", old_home);
    if (old_xdg) snprintf(saved_xdg, sizeof saved_xdg, "%s", old_xdg);
    unsetenv("MMTUNE_DB");
    unsetenv("XDG_CACHE_HOME");
    mmt_err err;
    snprintf(home, sizeof home, "%s/shared-home", dir);
    CHECK(mkdir(home, 0777) == 0 && chmod(home, 0777) == 0);
    setenv("HOME", home, 1);
    CHECK_OK(mmt_store_default_dir_check(0, &err), &err); /* no folder: nothing to read */
    snprintf(folder, sizeof folder, "%s/.cache/mmtune", home);
    CHECK_OK(mmt_mkdirs(folder, &err), &err);
    snprintf(planted, sizeof planted, "%s/mmtune.db", folder);
    mmt_store *st = NULL;
    CHECK_OK(mmt_store_open(planted, 0, &st, &err), &err);
    mmt_store_close(st);
    CHECK_EQ_INT(mmt_store_default_dir_check(0, &err), MMT_IO);
    CHECK(strstr(err.msg, home) != NULL);
    setenv("MMTUNE_SYNC_S", "0", 1); /* a context that used the database would record its misses at once */
    CHECK(api_call_right(NULL));
    unsetenv("MMTUNE_SYNC_S");
    query(planted, "SELECT count(*) FROM miss", text, sizeof text);
    CHECK_EQ_STR(text, "0");
    setenv("MMTUNE_DB", planted, 1); /* named by the user: theirs to trust */
    CHECK_OK(mmt_store_default_dir_check(1, &err), &err);
    unsetenv("MMTUNE_DB");

    snprintf(home, sizeof home, "%s/private-home", dir);
    CHECK(mkdir(home, 0700) == 0);
    setenv("HOME", home, 1);
    CHECK_OK(mmt_store_default_dir_check(1, &err), &err);
    snprintf(folder, sizeof folder, "%s/.cache/mmtune", home);
    CHECK_EQ_INT(mode_of(folder), 0700);
    if (old_home) setenv("HOME", saved_home, 1);
    else unsetenv("HOME");
    if (old_xdg) setenv("XDG_CACHE_HOME", saved_xdg, 1);
}

/* A cache refused (a folder above it others may write): GEMMs still run, each kernel
 * compiled and loaded from a folder of its load's own, which is gone afterwards. */
static void test_refused_cache(void)
{
    char db[600], cache[600], tmp[600], cmd[700];
    snprintf(db, sizeof db, "%s/refused.db", dir);
    snprintf(cache, sizeof cache, "%s/shared/kernels", dir); /* shared: 0777 (test_private_dirs) */
    snprintf(tmp, sizeof tmp, "%s/tmp", dir);
    CHECK(mkdir(tmp, 0700) == 0);
    setenv("MMTUNE_CACHE_DIR", cache, 1);
    setenv("TMPDIR", tmp, 1);
    setenv("MMTUNE_VENDOR", "off", 1);
    mmt_store *st = NULL;
    mmt_err err;
    CHECK_OK(mmt_store_open(db, 0, &st, &err), &err);
    mmt_store_close(st);
    CHECK(api_call_right(db));
    CHECK(api_call_right(db));
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A %s | grep mmtune-load)\"", tmp);
    CHECK(system(cmd) == 0); /* nothing left behind */
    unsetenv("MMTUNE_VENDOR");
    unsetenv("TMPDIR");
}

int main(void)
{
    if (!mkdtemp(dir)) return 1;
    test_default_paths();
    test_private_dirs();
    test_planted_files();
    test_concurrent_writers();
    test_database_carries_no_code();
    test_refused_cache();
    test_default_db_folder();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return check_result();
}

-- schema.sql - the mmtune database, version 6 (PRAGMA user_version; src/store.c applies it
-- to a new file and db/migrate_N.sql files bring older files forward). Plain tables a
-- person can read with sqlite3; best_view joins the winners into one readable row,
-- miss_view the shapes applications ran untuned. This file is a public interface: a
-- change is a new version with its db/migrate_N.sql, never an edit of what a version had.
-- Columns that a migration added with ALTER TABLE stand where SQLite puts them (after the
-- last column, behind a comma): a new file must read the same as a migrated one.

CREATE TABLE device (
    id          INTEGER PRIMARY KEY,
    backend     TEXT NOT NULL,            -- cpu, cuda
    name        TEXT NOT NULL,            -- NVIDIA H100 80GB HBM3, AMD EPYC 7B13
    arch        TEXT NOT NULL,            -- sm_90, x86_64-avx2
    fingerprint TEXT NOT NULL UNIQUE,     -- name + arch + driver/compiler versions
    props       TEXT NOT NULL DEFAULT '', -- name=value ... as the search spaces see them
    created     TEXT NOT NULL DEFAULT (datetime('now'))
);

CREATE TABLE template (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,            -- cpu/gemm_avx.c
    source_hash TEXT NOT NULL,            -- SHA-256 of the source: a new source makes old results stale
    created     TEXT NOT NULL DEFAULT (datetime('now')),
    UNIQUE (name, source_hash)
);

CREATE TABLE config (
    id          INTEGER PRIMARY KEY,
    template_id INTEGER NOT NULL REFERENCES template(id),
    params      TEXT NOT NULL,            -- canonical: BM=64,BN=64,...
    UNIQUE (template_id, params)
);

-- The same shape in another precision mode or output type is another problem: it is
-- tuned and looked up on its own.
CREATE TABLE problem (
    id        INTEGER PRIMARY KEY,
    dtype     TEXT NOT NULL,              -- A and B: f32, f64, bf16, f16
    out_dtype TEXT NOT NULL,              -- C: dtype, or f32 for bf16 and f16
    mode      TEXT NOT NULL,              -- precision mode: f32, f64, bf16, f16, tf32, f32x3
    layout    TEXT NOT NULL,              -- row, col (as the user wrote it)
    trans_a   INTEGER NOT NULL,
    trans_b   INTEGER NOT NULL,
    m INTEGER NOT NULL, n INTEGER NOT NULL, k INTEGER NOT NULL,
    UNIQUE (dtype, out_dtype, mode, layout, trans_a, trans_b, m, n, k)
);

-- outcome (version 5): NULL while the run goes on (or after it was killed); complete; partial:
-- a time budget ended a search before it measured what it planned; interrupted: Ctrl-C or
-- SIGTERM; failed: a problem ended in an error.
CREATE TABLE session (
    id        INTEGER PRIMARY KEY,
    device_id INTEGER NOT NULL REFERENCES device(id),
    command   TEXT NOT NULL,
    strategy  TEXT NOT NULL,
    budget    TEXT NOT NULL,
    host      TEXT NOT NULL DEFAULT '',
    started   TEXT NOT NULL DEFAULT (datetime('now')),
    ended     TEXT
, outcome TEXT CHECK (outcome IN ('complete', 'partial', 'interrupted', 'failed')));

CREATE TABLE trial (
    id             INTEGER PRIMARY KEY,
    session_id     INTEGER REFERENCES session(id),
    device_id      INTEGER NOT NULL REFERENCES device(id),
    problem_id     INTEGER NOT NULL REFERENCES problem(id),
    config_id      INTEGER NOT NULL REFERENCES config(id),
    status         TEXT NOT NULL CHECK (status IN ('ok', 'compile_error', 'launch_error', 'wrong_result',
                                                   'timeout', 'crashed')),
    time_ms_median REAL,
    time_ms_min    REAL,
    time_ms_max    REAL,
    gflops         REAL,
    rel_error      REAL,                  -- against the higher-precision reference; NULL if not measured
    reps           INTEGER,               -- timed samples
    message        TEXT,                  -- compile log, fault, why it was wrong
    created        TEXT NOT NULL DEFAULT (datetime('now'))
, cpu_wait REAL);
-- cpu_wait (version 6): the share of the trial's measurement some task waited for a CPU
-- (/proc/pressure/cpu); NULL: not known. Above 0.25 the trial was measured busy: it never
-- takes a best from one that was not, and a later run measures it again.
CREATE INDEX trial_by_problem ON trial (device_id, problem_id, config_id); -- resume, replay

-- The winner per device, problem and template family (every family that serves a mode is
-- tuned for the problem and keeps its own; best_view's `chosen` marks the fastest). Only ok
-- trials get here. partial (version 5): 1 where the search that chose it stopped before it
-- measured what it planned (a time budget, an interrupt; a best a trial moves stays 1 until
-- its search ends, so a killed run leaves it marked); the same command goes on with it.
CREATE TABLE best (
    device_id     INTEGER NOT NULL REFERENCES device(id),
    problem_id    INTEGER NOT NULL REFERENCES problem(id),
    template_name TEXT NOT NULL,
    template_id   INTEGER NOT NULL REFERENCES template(id),
    config_id     INTEGER NOT NULL REFERENCES config(id),
    trial_id      INTEGER NOT NULL REFERENCES trial(id),
    time_ms       REAL NOT NULL,
    gflops        REAL NOT NULL, partial INTEGER NOT NULL DEFAULT 0 CHECK (partial IN (0, 1)),
    PRIMARY KEY (device_id, problem_id, template_name)
);
CREATE INDEX best_by_template ON best (device_id, template_id); -- lookups at gemm time

-- The vendor library's figure for a problem, timed side by side with the tuned winner (A B A B
-- rounds on the same inputs) at the end of the run that tuned it. trial_id (version 5): the
-- winner's trial timed in those rounds; NULL: a figure of an older version, timed alone.
CREATE TABLE baseline (
    device_id  INTEGER NOT NULL REFERENCES device(id),
    problem_id INTEGER NOT NULL REFERENCES problem(id),
    library    TEXT NOT NULL,             -- OpenBLAS 0.3.21, cuBLAS 13.0.0
    time_ms    REAL NOT NULL,
    gflops     REAL NOT NULL,
    created    TEXT NOT NULL DEFAULT (datetime('now')), trial_id INTEGER REFERENCES trial(id),
    PRIMARY KEY (device_id, problem_id, library)
);

-- The compile cache: the binary (shared object, cubin) with the exact source and
-- definitions that built it, so any result can be rebuilt.
CREATE TABLE binary (
    key           TEXT PRIMARY KEY,       -- SHA-256 of backend, arch, compiler, source, definitions
    template_name TEXT NOT NULL,
    params        TEXT NOT NULL,          -- the -D definitions
    target        TEXT NOT NULL,          -- sm_90, x86_64-avx2
    compiler      TEXT NOT NULL,
    source        TEXT,
    data          BLOB NOT NULL,
    size          INTEGER NOT NULL,
    created       TEXT NOT NULL DEFAULT (datetime('now'))
);

CREATE VIEW best_view AS
SELECT d.name AS device,
       p.mode, p.dtype, p.out_dtype, p.layout,
       (CASE p.trans_a WHEN 1 THEN 'T' ELSE 'N' END) || (CASE p.trans_b WHEN 1 THEN 'T' ELSE 'N' END) AS trans,
       p.m, p.n, p.k,
       b.template_name AS template,
       -- 1 on the fastest family's row: what the runtime serves where a call meets its
       -- requirements (alignment), the next fastest family's where it does not
       (b.gflops = (SELECT max(x.gflops) FROM best x
                    WHERE x.device_id = b.device_id AND x.problem_id = b.problem_id)) AS chosen,
       substr(t.source_hash, 1, 12) AS template_hash,
       c.params,
       b.partial,
       round(b.gflops, 1) AS gflops,
       round(b.time_ms, 4) AS time_ms,
       -- the vendor only where it was timed in the same rounds as this figure: a ratio is
       -- two figures of one measurement, never a stored one against a fresh one
       v.library AS vendor,
       round(v.gflops, 1) AS vendor_gflops,
       round(b.gflops / v.gflops, 3) AS ratio,
       tr.created AS measured
FROM best b
JOIN device d ON d.id = b.device_id
JOIN problem p ON p.id = b.problem_id
JOIN template t ON t.id = b.template_id
JOIN config c ON c.id = b.config_id
JOIN trial tr ON tr.id = b.trial_id
LEFT JOIN baseline v ON v.rowid = (SELECT rowid FROM baseline
                                   WHERE device_id = b.device_id AND problem_id = b.problem_id
                                     AND trial_id = b.trial_id
                                   ORDER BY gflops DESC LIMIT 1)
ORDER BY d.name, p.dtype, p.mode, p.out_dtype, p.layout, trans, p.m, p.n, p.k, b.template_name;

-- What the runtime served without a tuned entry (lookup choice nearest or default), per
-- device and problem: the problem in its row-major form (a column-major call is the
-- row-major problem it equals) and the mode the call asked for. A context counts calls in
-- memory and adds them here every few seconds and when it closes, so while applications
-- run, calls is a lower bound. `mmtune --from-misses` tunes the most called rows
-- whose problem has no best for the current template source; a tuned row stays (history).
CREATE TABLE miss (
    device_id  INTEGER NOT NULL REFERENCES device(id),
    problem_id INTEGER NOT NULL REFERENCES problem(id),
    calls      INTEGER NOT NULL,          -- served without a tuned entry, over every context
    first_seen TEXT NOT NULL DEFAULT (datetime('now')),
    last_seen  TEXT NOT NULL DEFAULT (datetime('now')),  -- the last write-back that added calls
    PRIMARY KEY (device_id, problem_id)
);

-- One readable row per miss, most called first. tuned: a best exists now on that device for
-- the problem, or for the problem of the other layout it equals (column-major C = A B is
-- row-major C^T = B^T A^T), of any template source.
CREATE VIEW miss_view AS
SELECT d.name AS device,
       p.mode, p.dtype, p.out_dtype, p.layout,
       (CASE p.trans_a WHEN 1 THEN 'T' ELSE 'N' END) || (CASE p.trans_b WHEN 1 THEN 'T' ELSE 'N' END) AS trans,
       p.m, p.n, p.k,
       x.calls, x.first_seen, x.last_seen,
       EXISTS (SELECT 1 FROM best b JOIN problem q ON q.id = b.problem_id
               WHERE b.device_id = x.device_id AND q.mode = p.mode AND q.dtype = p.dtype
                 AND q.out_dtype = p.out_dtype AND q.k = p.k
                 AND ((q.layout = p.layout AND q.m = p.m AND q.n = p.n
                       AND q.trans_a = p.trans_a AND q.trans_b = p.trans_b)
                   OR (q.layout <> p.layout AND q.m = p.n AND q.n = p.m
                       AND q.trans_a = p.trans_b AND q.trans_b = p.trans_a))) AS tuned
FROM miss x
JOIN device d ON d.id = x.device_id
JOIN problem p ON p.id = x.problem_id
ORDER BY d.name, x.calls DESC, p.mode, p.m, p.n, p.k;

-- migrate_2.sql - brings a version-1 mmtune database to version 2: problems gain their
-- output type (out_dtype) and precision mode (mode), and both join the UNIQUE key, so the
-- same shape in tf32 and in f32x3 are two problems. Every version-1 problem was computed
-- in its input type, so its rows keep their ids with mode = out_dtype = dtype.
--
-- SQLite cannot change a UNIQUE constraint in place, so problem is rebuilt the documented
-- way (https://sqlite.org/lang_altertable.html#otheralter): new table, copy, drop, rename.
-- src/store.c runs this inside its upgrade transaction with foreign_keys OFF (trial, best
-- and baseline keep pointing at the same ids) and runs PRAGMA foreign_key_check before
-- COMMIT. best_view names problem, and a view that names a dropped table makes the rename
-- fail, so it is dropped first and created again as db/schema.sql has it. Version 1 has no
-- index on problem beyond its UNIQUE key, which the new table brings.

CREATE TABLE problem_v2 (
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

INSERT INTO problem_v2 (id, dtype, out_dtype, mode, layout, trans_a, trans_b, m, n, k)
SELECT id, dtype, dtype, dtype, layout, trans_a, trans_b, m, n, k FROM problem;

DROP VIEW best_view;
DROP TABLE problem;
ALTER TABLE problem_v2 RENAME TO problem;

CREATE VIEW best_view AS
SELECT d.name AS device,
       p.mode, p.dtype, p.out_dtype, p.layout,
       (CASE p.trans_a WHEN 1 THEN 'T' ELSE 'N' END) || (CASE p.trans_b WHEN 1 THEN 'T' ELSE 'N' END) AS trans,
       p.m, p.n, p.k,
       b.template_name AS template,
       substr(t.source_hash, 1, 12) AS template_hash,
       c.params,
       round(b.gflops, 1) AS gflops,
       round(b.time_ms, 4) AS time_ms,
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
-- against the fastest vendor figure when several libraries were measured: one row per best
LEFT JOIN baseline v ON v.rowid = (SELECT rowid FROM baseline
                                   WHERE device_id = b.device_id AND problem_id = b.problem_id
                                   ORDER BY gflops DESC LIMIT 1)
ORDER BY d.name, p.dtype, p.mode, p.out_dtype, p.layout, trans, p.m, p.n, p.k, b.template_name;

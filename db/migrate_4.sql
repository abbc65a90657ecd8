-- migrate_4.sql - brings a version-3 mmtune database to version 4: the families that serve a
-- mode compete for each problem (each keeps its best, as before), and best_view gains the
-- column `chosen`, 1 on the fastest family's row of a device and problem. Only the view
-- changes: it is dropped and created again as db/schema.sql has it, word for word
-- (tests/test_store_migrate.c compares a migrated file with a new one).
DROP VIEW best_view;

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

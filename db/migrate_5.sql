-- migrate_5.sql - brings a version-4 mmtune database to version 5: every figure says where it
-- came from. A session row says how the run ended (outcome); a best says whether the search
-- that chose it was cut short (partial); a vendor figure names the winner's trial it was
-- timed beside, in the same rounds (baseline.trial_id), and best_view shows a vendor figure
-- and a ratio only there: older vendor figures were timed alone, at another moment than the
-- tuned figure, so they stay in baseline but no ratio is made of them. Columns are added
-- (older rows: outcome NULL, partial 0, trial_id NULL) and the view is created again;
-- db/schema.sql has the same text, word for word (tests/test_store_migrate.c compares a
-- migrated file with a new one).
ALTER TABLE session ADD COLUMN outcome TEXT CHECK (outcome IN ('complete', 'partial', 'interrupted', 'failed'));
ALTER TABLE best ADD COLUMN partial INTEGER NOT NULL DEFAULT 0 CHECK (partial IN (0, 1));
ALTER TABLE baseline ADD COLUMN trial_id INTEGER REFERENCES trial(id);

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

-- migrate_3.sql - brings a version-2 mmtune database to version 3: the miss table, where
-- libmmtuned records the (device, problem) pairs it served without a tuned entry for
-- exactly that problem, with a count of calls, and miss_view to read it. Nothing existing
-- changes, so this only adds; db/schema.sql ends with the same statements, word for word
-- (tests/test_store_migrate.c compares a migrated file with a new one).

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

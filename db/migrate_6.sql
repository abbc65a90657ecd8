-- migrate_6.sql - brings a version-5 mmtune database to version 6: a trial says how busy the
-- CPUs were while it was measured (cpu_wait: the share of that time some task waited for a
-- CPU, from /proc/pressure/cpu; NULL: not known, a GPU's trial or an older row). A trial
-- measured busy (above 0.25) never takes a best from one that was not, and is not reused
-- by a later run, which measures it again. db/schema.sql has the same text, word for word
-- (tests/test_store_migrate.c compares a migrated file with a new one).
ALTER TABLE trial ADD COLUMN cpu_wait REAL;

-- Rate-limit counters are worth nothing after a crash (a reset counter only gives a key a fresh
-- minute), so they skip the write-ahead log: counting a request no longer waits for a disk flush.
ALTER TABLE "rate_limit_buckets" SET UNLOGGED;

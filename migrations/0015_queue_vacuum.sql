-- The mail queues and the orders table turn rows over fast (each message stored, then marked
-- processed; each outbound message queued, then sent; each resubmission supersedes a set):
-- vacuum them after a fixed number of changes, not a fraction of their size, so claims and
-- lookups do not walk ever more dead index entries.
ALTER TABLE inbound_messages SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 2000, autovacuum_vacuum_cost_delay = 0);
ALTER TABLE outbound_messages SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 2000, autovacuum_vacuum_cost_delay = 0);
ALTER TABLE orders SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 2000, autovacuum_vacuum_cost_delay = 0);

-- Instances starting at once run this together, and CREATE TABLE IF NOT EXISTS is not safe against itself (both may
-- find no table, one then fails on the catalog): the first one holds a lock while it creates the table.
SELECT pg_advisory_lock(hashtext('fleet_orders'));
CREATE TABLE IF NOT EXISTS fleet_orders (
  id bigserial PRIMARY KEY,
  placed_at timestamptz NOT NULL DEFAULT now()
);
SELECT pg_advisory_unlock(hashtext('fleet_orders'));

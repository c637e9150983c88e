-- A due turn whose resolution fails (a corrupted state, an engine error) is put off with a
-- growing delay instead of being picked first again on every poll, which kept the other
-- games' due turns from ever being resolved. The last error is kept for the GM.
ALTER TABLE turns
  ADD COLUMN resolve_failures integer NOT NULL DEFAULT 0,
  ADD COLUMN resolve_retry_at timestamptz,
  ADD COLUMN resolve_error text;

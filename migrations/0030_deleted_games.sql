-- A game made by mistake can be deleted before its first turn is published (issue 20). The
-- audit log is append-only and names the game, so the row stays as a tombstone: its turns and
-- players (and with them orders, press and reminders) are removed, `deleted_at` is set, and
-- every page and list leaves it out. Its name is free again for a new game of the zine.
ALTER TABLE games ADD COLUMN deleted_at timestamptz;

ALTER TABLE games DROP CONSTRAINT games_zine_id_name_key;
CREATE UNIQUE INDEX games_zine_name_live_idx ON games (zine_id, name) WHERE deleted_at IS NULL;

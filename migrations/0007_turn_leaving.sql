-- The players (engine ids) who had left the game when the turn was resolved. It is part of the
-- turn's input, so `gm verify` must replay with it, not with the players' status today.
ALTER TABLE turns
    ADD COLUMN leaving bigint[] NOT NULL DEFAULT '{}';

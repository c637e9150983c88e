-- The seat the GM gave a player: an index into the engine's named seats (an ironclad side, a
-- skyfleet fleet). NULL where every player has a place of their own, which the engine deals
-- (Barmy, Salvo, Forever), and for games started before rosters.
ALTER TABLE players
    ADD COLUMN seat integer CHECK (seat >= 0);

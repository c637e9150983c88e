-- Whether a player's set of orders answers the turn (issue 19, BARMY-17): a Barmy set that fires
-- no shot is the player's current set (its press is printed) but a missed turn, so the player
-- is still reminded, and the turn does not resolve early on it. Sets stored before were taken
-- as answering, as they were then.
ALTER TABLE orders ADD COLUMN answers_turn boolean NOT NULL DEFAULT true;

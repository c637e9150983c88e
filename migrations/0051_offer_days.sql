-- How long an offer of a seat stands, per game (docs/rosters.md): 1 to 14 days, 3 unless the
-- GM chooses otherwise.
ALTER TABLE games ADD COLUMN offer_days integer NOT NULL DEFAULT 3
    CHECK (offer_days BETWEEN 1 AND 14);

-- A game open for sign-up keeps the time zone the GM gave on the form (an IANA name such as
-- Europe/London, checked by the service): the game starts in it, its deadlines shown and
-- typed there. Openings made before this column start in UTC, as they did.
ALTER TABLE openings ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC'
    CHECK (length(time_zone) BETWEEN 1 AND 64);

-- An offer of a seat stands for a while (docs/rosters.md): unanswered by `expires_at`, it
-- expires, and where Admiralty makes the offers the seat goes to the next standby.
ALTER TABLE seat_offers ADD COLUMN expires_at timestamptz;
UPDATE seat_offers SET expires_at = offered_at + interval '3 days';
ALTER TABLE seat_offers ALTER COLUMN expires_at SET NOT NULL;
ALTER TABLE seat_offers DROP CONSTRAINT seat_offers_status_check;
ALTER TABLE seat_offers ADD CONSTRAINT seat_offers_status_check
    CHECK (status IN ('open', 'accepted', 'declined', 'withdrawn', 'lapsed', 'expired'));
CREATE INDEX seat_offers_open_expiry_idx ON seat_offers (expires_at) WHERE status = 'open';

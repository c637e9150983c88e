-- Postal players (issue 18): orders and press the GM enters for a player, received on paper or
-- by phone, are stored with source 'post'; a subscriber can be marked postal.
ALTER TABLE orders DROP CONSTRAINT orders_source_check;
ALTER TABLE orders ADD CONSTRAINT orders_source_check CHECK (source IN ('email', 'web', 'post'));
ALTER TABLE press DROP CONSTRAINT press_source_check;
ALTER TABLE press ADD CONSTRAINT press_source_check CHECK (source IN ('email', 'web', 'post'));
ALTER TABLE subscribers ADD COLUMN postal boolean NOT NULL DEFAULT false;

-- Missed turns and offers of seats to standbys (issue 18 item 3, docs/rosters.md).

-- Turns missed in a row by the seat's current holder: raised when a turn resolves without
-- their orders (while they still have something to order and are not excused as absent),
-- back to 0 when they order, and on a replacement.
ALTER TABLE players ADD COLUMN missed_turns integer NOT NULL DEFAULT 0 CHECK (missed_turns >= 0);

-- The game's limit of turns missed in a row before the seat wants a standby; NULL: the
-- engine's default. 'gm': the GM offers seats; 'automatic': Admiralty offers a seat to the
-- longest-waiting standby itself, and to the next one when an offer is declined.
ALTER TABLE games ADD COLUMN missed_turns_limit integer CHECK (missed_turns_limit BETWEEN 1 AND 20);
ALTER TABLE games ADD COLUMN standby_offers text NOT NULL DEFAULT 'gm'
    CHECK (standby_offers IN ('gm', 'automatic'));

-- A seat offered to a subscriber (a standby): they accept or decline by mail (replying to the
-- offer's own address, `token`) or on their player pages. 'lapsed': the seat was filled, its
-- player came back, or the game ended before an answer.
CREATE TABLE seat_offers (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    game_id        bigint NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    player_id      bigint NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    subscriber_id  bigint NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
    token          text NOT NULL UNIQUE,
    reason         text NOT NULL CHECK (reason IN ('missed', 'resigned', 'gm')),
    status         text NOT NULL DEFAULT 'open'
        CHECK (status IN ('open', 'accepted', 'declined', 'withdrawn', 'lapsed')),
    offered_by     text NOT NULL,
    offered_at     timestamptz NOT NULL,
    decided_at     timestamptz
);
CREATE UNIQUE INDEX seat_offers_one_open_idx ON seat_offers (player_id, subscriber_id) WHERE status = 'open';
CREATE INDEX seat_offers_subscriber_idx ON seat_offers (subscriber_id, status);

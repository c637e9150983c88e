-- Standbys: subscribers who volunteer to take over a seat when a player leaves (docs/rosters.md).
CREATE TABLE standbys (
    subscriber_id  bigint PRIMARY KEY REFERENCES subscribers (id) ON DELETE CASCADE,
    since          timestamptz NOT NULL DEFAULT now()
);

-- Each replacement of a player by another subscriber in the same seat (same engine player id,
-- so the engine state is unchanged). Recorded input like orders: the report's Name column of
-- turn `from_turn` onwards is rebuilt from it, and `gm verify` reads it again. The old reply
-- token is kept so that a mail to it is answered "you were replaced", not "unknown address".
CREATE TABLE player_replacements (
    id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    game_id            bigint NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    engine_player_id   bigint NOT NULL CHECK (engine_player_id >= 0),
    from_turn          integer NOT NULL CHECK (from_turn >= 1),
    old_subscriber_id  bigint NOT NULL REFERENCES subscribers (id) ON DELETE RESTRICT,
    old_name           text NOT NULL,
    old_reply_token    text NOT NULL UNIQUE,
    new_subscriber_id  bigint NOT NULL REFERENCES subscribers (id) ON DELETE RESTRICT,
    new_name           text NOT NULL,
    replaced_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX player_replacements_game_idx ON player_replacements (game_id, from_turn);

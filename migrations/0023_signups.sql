-- Games open for sign-up (issue 18): the GM's game as it will start, the number of seats, and
-- how they are filled. The game itself (its state, turns, players) is made when the sign-up
-- fills or the GM starts it; `game_id` then names it.
CREATE TABLE openings (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    zine_id      bigint NOT NULL REFERENCES zines (id) ON DELETE RESTRICT,
    name         text NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 200),
    engine       text NOT NULL CHECK (engine ~ '^[a-z][a-z0-9_-]{0,63}$'),
    setup        jsonb NOT NULL,
    schedule     jsonb NOT NULL,
    seats        integer NOT NULL CHECK (seats BETWEEN 1 AND 10000),
    -- How seats are given: in order of sign-up, at random with the committed seating seed, or
    -- by the GM when starting.
    seating      text NOT NULL CHECK (seating IN ('order', 'random', 'gm')),
    -- The game's secret, made now so that the seating seed's commitment can be published while
    -- sign-ups are open. Never shown.
    secret_seed  bytea NOT NULL CHECK (octet_length(secret_seed) = 32),
    status       text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'started', 'cancelled')),
    game_id      bigint UNIQUE REFERENCES games (id) ON DELETE SET NULL,
    created_at   timestamptz NOT NULL,
    started_at   timestamptz,
    CHECK ((status = 'started') = (started_at IS NOT NULL))
);
-- Two open sign-ups of one zine never share a name (JOIN finds one by its name).
CREATE UNIQUE INDEX openings_open_name ON openings (zine_id, lower(btrim(name))) WHERE status = 'open';

CREATE TABLE signups (
    opening_id     bigint NOT NULL REFERENCES openings (id) ON DELETE CASCADE,
    subscriber_id  bigint NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
    signed_at      timestamptz NOT NULL,
    -- Order of arrival within the opening: the queue place (1 is first).
    place          integer NOT NULL CHECK (place >= 1),
    PRIMARY KEY (opening_id, subscriber_id),
    UNIQUE (opening_id, place)
);

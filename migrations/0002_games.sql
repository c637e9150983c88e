-- Games, their players and turns, and what players send each turn.

CREATE TABLE games (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- A zine with games cannot be deleted by accident: finish or move its games first.
    zine_id      bigint NOT NULL REFERENCES zines (id) ON DELETE RESTRICT,
    name         text NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 200),
    -- Which rules engine runs the game (a name known to the `games` crate).
    engine       text NOT NULL CHECK (engine ~ '^[a-z][a-z0-9_-]{0,63}$'),
    setup        jsonb NOT NULL,
    state        jsonb NOT NULL,
    status       text NOT NULL DEFAULT 'setup'
                 CHECK (status IN ('setup', 'running', 'paused', 'finished')),
    -- The game's master secret for the dice: never shown, never published.
    -- Each turn publishes a commitment to its seed before resolution and the seed after.
    secret_seed  bytea NOT NULL CHECK (octet_length(secret_seed) >= 16),
    created_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (zine_id, name)
);
CREATE INDEX games_zine_idx ON games (zine_id);
CREATE INDEX games_status_idx ON games (status);

CREATE TABLE players (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    game_id           bigint NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    -- A subscriber who has played is kept (set to unsubscribed), not deleted.
    subscriber_id     bigint NOT NULL REFERENCES subscribers (id) ON DELETE RESTRICT,
    display_name      text NOT NULL CHECK (length(btrim(display_name)) BETWEEN 1 AND 100),
    engine_player_id  bigint NOT NULL CHECK (engine_player_id >= 0),
    status            text NOT NULL DEFAULT 'active'
                      CHECK (status IN ('active', 'resigned', 'excluded')),
    -- Unguessable token carried in reply addresses: authenticates mailed orders.
    reply_token       text NOT NULL UNIQUE CHECK (length(reply_token) >= 20),
    joined_turn       integer NOT NULL DEFAULT 0 CHECK (joined_turn >= 0),
    UNIQUE (game_id, engine_player_id),
    UNIQUE (game_id, subscriber_id),
    -- Target of the composite keys below: an order's player belongs to the turn's game.
    UNIQUE (id, game_id)
);
CREATE INDEX players_subscriber_idx ON players (subscriber_id);

CREATE TABLE turns (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    game_id          bigint NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    number           integer NOT NULL CHECK (number >= 0),
    deadline         timestamptz,
    status           text NOT NULL DEFAULT 'open'
                     CHECK (status IN ('open', 'locked', 'resolved', 'published')),
    -- Hex SHA-256 of the turn's seed, published before the turn resolves.
    seed_commitment  text NOT NULL CHECK (seed_commitment ~ '^[0-9a-f]{64}$'),
    -- The seed itself (hex), revealed once the turn is resolved.
    revealed_seed    text CHECK (revealed_seed ~ '^[0-9a-f]+$'),
    opened_at        timestamptz NOT NULL DEFAULT now(),
    resolved_at      timestamptz,
    UNIQUE (game_id, number),
    UNIQUE (id, game_id),
    CHECK (revealed_seed IS NULL OR status IN ('resolved', 'published')),
    CHECK (resolved_at IS NULL OR status IN ('resolved', 'published'))
);
-- The deadline worker looks for open turns whose deadline has passed.
CREATE INDEX turns_open_deadline_idx ON turns (deadline) WHERE status = 'open';

-- Each row is one complete set of orders from one player for one turn. A new set supersedes
-- the previous one; the last set not superseded is the one that counts.
CREATE TABLE orders (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    game_id        bigint NOT NULL,
    turn_id        bigint NOT NULL,
    player_id      bigint NOT NULL,
    raw_text       text NOT NULL,
    parsed         jsonb NOT NULL,
    source         text NOT NULL CHECK (source IN ('email', 'web')),
    received_at    timestamptz NOT NULL DEFAULT now(),
    superseded_at  timestamptz,
    FOREIGN KEY (turn_id, game_id) REFERENCES turns (id, game_id) ON DELETE CASCADE,
    FOREIGN KEY (player_id, game_id) REFERENCES players (id, game_id) ON DELETE CASCADE,
    CHECK (superseded_at IS NULL OR superseded_at >= received_at)
);
CREATE UNIQUE INDEX orders_current_key ON orders (turn_id, player_id) WHERE superseded_at IS NULL;
CREATE INDEX orders_player_idx ON orders (player_id);

CREATE TABLE press (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    game_id      bigint NOT NULL,
    turn_id      bigint NOT NULL,
    player_id    bigint NOT NULL,
    text         text NOT NULL,
    source       text NOT NULL CHECK (source IN ('email', 'web')),
    received_at  timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (turn_id, game_id) REFERENCES turns (id, game_id) ON DELETE CASCADE,
    FOREIGN KEY (player_id, game_id) REFERENCES players (id, game_id) ON DELETE CASCADE
);
CREATE INDEX press_turn_idx ON press (turn_id);
CREATE INDEX press_player_idx ON press (player_id);

CREATE TABLE published_reports (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    turn_id       bigint NOT NULL UNIQUE REFERENCES turns (id) ON DELETE CASCADE,
    text          text NOT NULL,
    markdown      text NOT NULL,
    html          text NOT NULL,
    published_at  timestamptz NOT NULL DEFAULT now()
);

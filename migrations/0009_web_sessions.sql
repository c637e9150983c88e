-- Web logins: GM accounts, sessions (for GMs now, for players' magic-link logins next), and
-- failed login attempts (for rate limiting).

CREATE TABLE gm_accounts (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- The login name, also the actor in the audit log ("gm:NAME").
    name           text NOT NULL CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
    -- argon2id, in the PHC string format ($argon2id$v=19$...): never the password itself.
    password_hash  text NOT NULL CHECK (password_hash LIKE '$argon2%'),
    created_at     timestamptz NOT NULL DEFAULT now()
);
-- "Nelson" and "nelson" are one GM.
CREATE UNIQUE INDEX gm_accounts_name_key ON gm_accounts (lower(name));

-- One row per logged-in browser. The cookie holds a random 256-bit token; only its SHA-256 is
-- stored, so a leaked table (or backup) logs nobody in.
CREATE TABLE web_sessions (
    token_hash     bytea PRIMARY KEY CHECK (octet_length(token_hash) = 32),
    -- Exactly one principal: a GM account, or (for the player pages) a subscriber.
    gm_account_id  bigint REFERENCES gm_accounts (id) ON DELETE CASCADE,
    subscriber_id  bigint REFERENCES subscribers (id) ON DELETE CASCADE,
    -- The token every form of this session carries (CSRF); compared in constant time.
    csrf_token     text NOT NULL CHECK (length(csrf_token) >= 32),
    created_at     timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL,
    CHECK ((gm_account_id IS NULL) <> (subscriber_id IS NULL)),
    CHECK (expires_at > created_at)
);
CREATE INDEX web_sessions_expiry_idx ON web_sessions (expires_at);
CREATE INDEX web_sessions_gm_idx ON web_sessions (gm_account_id) WHERE gm_account_id IS NOT NULL;
CREATE INDEX web_sessions_subscriber_idx ON web_sessions (subscriber_id) WHERE subscriber_id IS NOT NULL;

-- Failed logins by the name typed (whether or not such an account exists, so the limit says
-- nothing about which names exist).
CREATE TABLE login_failures (
    id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name  text NOT NULL CHECK (length(name) <= 200),
    at    timestamptz NOT NULL
);
CREATE INDEX login_failures_name_at_idx ON login_failures (lower(name), at);

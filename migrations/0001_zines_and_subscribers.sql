-- Zines (the newsletters that host games) and their subscribers.
-- Conventions for every table: bigint identity keys, timestamptz times, enums as text with a
-- CHECK, no floating-point columns (scores are exact rationals kept as strings in engine state).

CREATE TABLE zines (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    slug        text NOT NULL UNIQUE
                CHECK (slug ~ '^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$'),
    name        text NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 200),
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE subscribers (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    zine_id        bigint NOT NULL REFERENCES zines (id) ON DELETE CASCADE,
    email          text NOT NULL CHECK (email LIKE '%_@_%' AND length(email) <= 254),
    display_name   text NOT NULL CHECK (length(btrim(display_name)) BETWEEN 1 AND 100),
    status         text NOT NULL DEFAULT 'active'
                   CHECK (status IN ('active', 'unsubscribed', 'excluded')),
    -- NULL until the subscriber sets a password for the web UI; mail needs none.
    password_hash  text,
    created_at     timestamptz NOT NULL DEFAULT now()
);

-- Mail addresses compare case-insensitively in practice: one subscription per address per zine.
CREATE UNIQUE INDEX subscribers_zine_email_key ON subscribers (zine_id, lower(email));

-- Players log in to the web pages with a link mailed to them (no password to remember). The
-- link carries a random 256-bit token; only its SHA-256 is stored, so a leaked table (or backup)
-- logs nobody in. A link works once, and only until it expires.

CREATE TABLE login_links (
    token_hash     bytea PRIMARY KEY CHECK (octet_length(token_hash) = 32),
    subscriber_id  bigint NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
    created_at     timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL,
    -- Set when the link is used: a used link logs nobody in again.
    used_at        timestamptz,
    CHECK (expires_at > created_at),
    CHECK (used_at IS NULL OR used_at >= created_at)
);
CREATE INDEX login_links_expiry_idx ON login_links (expires_at);

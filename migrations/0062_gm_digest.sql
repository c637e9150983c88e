-- The GM hears what needs the GM (issue 27 item 8, docs/web-console.md "The GM's digest"):
-- events recorded when they happen, mailed to each GM with an address in a digest at most
-- once an hour, each kind switchable.

-- The GM's address (NULL: no digest is mailed), the kinds switched off, and when the last
-- digest was queued.
ALTER TABLE gm_accounts
    ADD COLUMN email text CHECK (email IS NULL OR (email LIKE '%_@_%' AND length(email) <= 254)),
    ADD COLUMN digest_off text[] NOT NULL DEFAULT '{}',
    ADD COLUMN digest_sent_at timestamptz;

-- What happened that needs the GM, written in the transaction of the thing that happened.
CREATE TABLE gm_notices (
    id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind     text NOT NULL CHECK (kind IN ('signup_filled', 'seat_wanted', 'standby_seated',
                                           'letter_waiting', 'mail_failed', 'turn_failed')),
    game_id  bigint REFERENCES games (id) ON DELETE SET NULL,
    -- One line, as the digest prints it.
    summary  text NOT NULL CHECK (length(summary) BETWEEN 1 AND 500),
    -- The console page where the GM acts, a path under /gm.
    link     text NOT NULL CHECK (link LIKE '/gm%'),
    at       timestamptz NOT NULL
);

-- Which GM has had which notice: mailed in a digest, or passed over (its kind switched off).
-- A notice is handled once per GM, in the digest's transaction.
CREATE TABLE gm_notice_deliveries (
    gm_account_id  bigint NOT NULL REFERENCES gm_accounts (id) ON DELETE CASCADE,
    notice_id      bigint NOT NULL REFERENCES gm_notices (id) ON DELETE CASCADE,
    mailed         boolean NOT NULL,
    at             timestamptz NOT NULL,
    PRIMARY KEY (gm_account_id, notice_id)
);
CREATE INDEX gm_notice_deliveries_notice_idx ON gm_notice_deliveries (notice_id);

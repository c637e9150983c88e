-- One-click unsubscribe (RFC 8058): each subscriber's own secret for the https address in the
-- List-Unsubscribe header of mail sent to many. 244 random bits from the server's strong random
-- source (two version-4 UUIDs); every row, old and new, gets its own from the default.
ALTER TABLE subscribers
    ADD COLUMN unsubscribe_token text NOT NULL
        DEFAULT replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', '');
CREATE UNIQUE INDEX subscribers_unsubscribe_token_idx ON subscribers (unsubscribe_token);

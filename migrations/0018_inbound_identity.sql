-- What a stored inbound message is (issue 17). Two deliveries of the same mail are one message:
-- the same Message-ID and the same body. A different message that reuses a Message-ID is a
-- message of its own, stored and answered. A copy re-sent under a new Message-ID is recognised
-- once acted on, by who sent it and what they wrote (see docs/mail.md, "The same message").
ALTER TABLE inbound_messages
    -- SHA-256 of the body (what follows the header block, line ends as LF, trailing blank
    -- lines dropped). NULL for messages stored before it existed: those match by Message-ID
    -- alone, as they did.
    ADD COLUMN body_sha256 bytea CHECK (body_sha256 IS NULL OR length(body_sha256) = 32),
    -- The envelope recipients the door accepted (SMTP RCPT TO; `gm ingest --recipient`;
    -- the webhook's `recipient`): a reply token found only there authenticates too.
    ADD COLUMN envelope_recipients text[] NOT NULL DEFAULT '{}',
    -- Once acted on for a subscriber: who, and a SHA-256 of the lines they wrote.
    ADD COLUMN sender_subscriber_id bigint,
    ADD COLUMN text_sha256 bytea CHECK (text_sha256 IS NULL OR length(text_sha256) = 32);

ALTER TABLE inbound_messages DROP CONSTRAINT inbound_messages_message_id_key;
CREATE UNIQUE INDEX inbound_messages_identity_idx ON inbound_messages (message_id, body_sha256);
CREATE INDEX inbound_messages_acted_idx ON inbound_messages (sender_subscriber_id, text_sha256)
    WHERE text_sha256 IS NOT NULL;

-- Mail in and out. Both tables are job queues: workers claim rows with
-- `FOR UPDATE SKIP LOCKED`, and every step is idempotent.

CREATE TABLE inbound_messages (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- The Message-ID header: a message delivered twice is stored once.
    message_id    text NOT NULL UNIQUE CHECK (length(message_id) BETWEEN 1 AND 998),
    raw           bytea NOT NULL,
    received_via  text NOT NULL CHECK (received_via IN ('smtp', 'pipe', 'webhook')),
    received_at   timestamptz NOT NULL DEFAULT now(),
    status        text NOT NULL DEFAULT 'new'
                  CHECK (status IN ('new', 'processed', 'failed', 'dropped')),
    error         text,
    attempts      integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    processed_at  timestamptz
);
CREATE INDEX inbound_messages_claim_idx ON inbound_messages (received_at, id) WHERE status = 'new';

CREATE TABLE outbound_messages (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- Fixed when queued, so a retried send carries the same Message-ID.
    message_id       text NOT NULL UNIQUE CHECK (length(message_id) BETWEEN 1 AND 998),
    -- Names the logical mail (e.g. "report:<turn>:<subscriber>"): queued at most once.
    idempotency_key  text NOT NULL UNIQUE CHECK (length(idempotency_key) BETWEEN 1 AND 500),
    to_address       text NOT NULL CHECK (to_address LIKE '%_@_%'),
    subject          text NOT NULL,
    body_text        text NOT NULL,
    body_html        text,
    headers          jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(headers) = 'object'),
    status           text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sent', 'failed')),
    attempts         integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at  timestamptz NOT NULL DEFAULT now(),
    last_error       text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    sent_at          timestamptz,
    CHECK ((status = 'sent') = (sent_at IS NOT NULL))
);
CREATE INDEX outbound_messages_claim_idx ON outbound_messages (status, next_attempt_at);

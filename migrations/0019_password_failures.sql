-- Failed mail PASSWORD checks, per subscriber (issue 17). A subscriber with
-- ADMIRALTY_MAIL_PASSWORD_MAX_FAILURES of them within ADMIRALTY_MAIL_PASSWORD_WINDOW_MINUTES is
-- locked out: their password is not checked again until the oldest leaves the window. Rows
-- older than the window are deleted as new ones are written.

CREATE TABLE password_failures (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    subscriber_id  bigint NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
    at             timestamptz NOT NULL
);
CREATE INDEX password_failures_subscriber_at_idx ON password_failures (subscriber_id, at);

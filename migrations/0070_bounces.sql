-- Bounces (issue 29 item 4). Return paths are signed with a key kept here, made once by the
-- first process that needs it; a mailbox's bounce score is the mailbox's (every subscription
-- of one address shares it: the mailbox is what bounces), Mailman-style.
CREATE TABLE mail_keys (
    name       text PRIMARY KEY,
    key        bytea NOT NULL CHECK (length(key) = 32),
    created_at timestamptz NOT NULL
);

CREATE TABLE bounce_scores (
    -- lower(address), as subscribers.email is compared
    mailbox          text PRIMARY KEY,
    -- in hundredths of a point (a hard bounce is 100, a soft one 50): exact, no floating point
    score_hundredths integer NOT NULL DEFAULT 0 CHECK (score_hundredths >= 0),
    -- the last bounce that was scored (at most one a day counts)
    last_scored_at   timestamptz,
    last_bounce_at   timestamptz NOT NULL,
    last_reason      text NOT NULL DEFAULT '',
    reports          integer NOT NULL DEFAULT 0,
    suspended_at     timestamptz,
    suspended_reason text
);

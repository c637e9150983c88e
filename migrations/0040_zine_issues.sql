-- The zine's issue (docs/issues.md): numbered issues compiling every game's published reports
-- since the last one, the GM's editorial and the readers' letters.

-- How issues follow one another (a `schedule::Schedule` as JSON, as `games.schedule`):
-- NULL while the zine publishes no issues (its subscribers get each game's report by mail).
ALTER TABLE zines
    ADD COLUMN issue_rhythm jsonb
        CHECK (issue_rhythm IS NULL OR (jsonb_typeof(issue_rhythm) = 'object' AND issue_rhythm ? 'kind')),
    -- Reports published from this moment on go into issues (none from before issues began).
    ADD COLUMN issues_since timestamptz,
    -- When the rhythm next closes an issue (NULL: by hand only).
    ADD COLUMN next_issue_at timestamptz,
    ADD CONSTRAINT zines_issues_since_check CHECK ((issue_rhythm IS NULL) = (issues_since IS NULL));
CREATE INDEX zines_next_issue_idx ON zines (next_issue_at) WHERE next_issue_at IS NOT NULL;

-- What a subscriber has chosen to receive by mail: the issue, or each game's report. NULL: the
-- zine's default (the issue if the zine publishes issues, else the reports).
ALTER TABLE subscribers
    ADD COLUMN mail_choice text CHECK (mail_choice IN ('issue', 'reports'));

-- At most one draft per zine: the issue being put together. Its contents are frozen (text,
-- html) when it is published, so a published issue never changes.
CREATE TABLE zine_issues (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    zine_id       bigint NOT NULL REFERENCES zines (id) ON DELETE CASCADE,
    number        integer NOT NULL CHECK (number >= 1),
    status        text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published')),
    -- The GM's editorial, Markdown (rendered with raw HTML escaped).
    editorial     text NOT NULL DEFAULT '' CHECK (length(editorial) <= 20000),
    text          text,
    html          text,
    published_at  timestamptz,
    created_at    timestamptz NOT NULL,
    UNIQUE (zine_id, number),
    CHECK ((status = 'published') = (published_at IS NOT NULL)),
    CHECK (status = 'draft' OR (text IS NOT NULL AND html IS NOT NULL))
);
CREATE UNIQUE INDEX zine_issues_one_draft_key ON zine_issues (zine_id) WHERE status = 'draft';

-- Which issue printed each turn's report: a report goes into one issue at most.
CREATE TABLE zine_issue_reports (
    turn_id   bigint PRIMARY KEY REFERENCES turns (id) ON DELETE CASCADE,
    issue_id  bigint NOT NULL REFERENCES zine_issues (id) ON DELETE CASCADE
);
CREATE INDEX zine_issue_reports_issue_idx ON zine_issue_reports (issue_id);

-- Letters to the editor: press tied to no game, sent with LETTER by mail or on the web,
-- printed only once the GM has approved them, in the next issue published after that.
CREATE TABLE zine_letters (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    zine_id        bigint NOT NULL REFERENCES zines (id) ON DELETE CASCADE,
    subscriber_id  bigint NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
    text           text NOT NULL CHECK (length(btrim(text)) BETWEEN 1 AND 4000),
    source         text NOT NULL CHECK (source IN ('email', 'web')),
    status         text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
    received_at    timestamptz NOT NULL,
    moderated_at   timestamptz,
    moderated_by   text,
    issue_id       bigint REFERENCES zine_issues (id) ON DELETE SET NULL,
    CHECK ((status = 'pending') = (moderated_at IS NULL)),
    CHECK (issue_id IS NULL OR status = 'approved')
);
CREATE INDEX zine_letters_zine_idx ON zine_letters (zine_id, status);

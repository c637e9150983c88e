-- Every form of the web pages carries a fresh key (`once`), claimed here before its action
-- runs (docs/web.md, "Every action once"): a form sent again (Back and resend, a double
-- click, a retried POST) finds its key and is answered "already done", and nothing changes.
-- A claim whose action failed is deleted, so the corrected form can be sent; a claim that
-- succeeded keeps where its result can be seen. `result_path` is NULL while the action runs.
CREATE TABLE form_submissions (
    once_key text PRIMARY KEY CHECK (once_key ~ '^[0-9a-f]{32}$'),
    actor text NOT NULL,
    route text NOT NULL,
    claimed_at timestamptz NOT NULL,
    result_path text,
    done_at timestamptz
);

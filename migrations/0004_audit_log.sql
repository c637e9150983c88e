-- Who did what, when. Append-only: rows are never changed or removed, not even by the service.

CREATE TABLE audit_log (
    id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at       timestamptz NOT NULL DEFAULT now(),
    -- e.g. "gm", "system", "subscriber:42", "cli:root".
    actor    text NOT NULL CHECK (length(actor) BETWEEN 1 AND 200),
    -- e.g. "zine.create", "turn.resolve".
    action   text NOT NULL CHECK (action ~ '^[a-z][a-z0-9_.-]{0,99}$'),
    -- No ON DELETE action: a game with history keeps it, so such a game cannot be deleted.
    game_id  bigint REFERENCES games (id),
    details  jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(details) = 'object')
);
CREATE INDEX audit_log_game_idx ON audit_log (game_id, id) WHERE game_id IS NOT NULL;
CREATE INDEX audit_log_at_idx ON audit_log (at);

CREATE FUNCTION audit_log_is_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_log is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER audit_log_no_update_or_delete
    BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_is_append_only();

CREATE TRIGGER audit_log_no_truncate
    BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_is_append_only();

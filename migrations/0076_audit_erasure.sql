-- The audit log stays append-only, but for one thing (issue 30 item 6): a subscriber's
-- erasure strikes their address from the details of the entries that name it, in a
-- transaction that says so (`set_config('admiralty.erasing', 'on', true)`, store::personal),
-- changing nothing else of an entry. DELETE and TRUNCATE are refused as before.
CREATE OR REPLACE FUNCTION audit_log_is_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE'
       AND current_setting('admiralty.erasing', true) = 'on'
       AND NEW.id = OLD.id AND NEW.at = OLD.at AND NEW.actor = OLD.actor
       AND NEW.action = OLD.action AND NEW.game_id IS NOT DISTINCT FROM OLD.game_id THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'audit_log is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;

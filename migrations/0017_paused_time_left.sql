-- The time a paused game's open turn had left when the GM paused it, given back on resume.
-- It was read back out of the audit log's last `game.pause` entry; a column says it plainly.
ALTER TABLE games ADD COLUMN paused_seconds_left bigint
    CHECK (paused_seconds_left IS NULL OR paused_seconds_left >= 0);

-- Games paused before this migration keep the time their pause recorded.
UPDATE games g SET paused_seconds_left = (
    SELECT (a.details->>'time_left_seconds')::bigint FROM audit_log a
    WHERE a.game_id = g.id AND a.action = 'game.pause' ORDER BY a.id DESC LIMIT 1)
WHERE g.status = 'paused';

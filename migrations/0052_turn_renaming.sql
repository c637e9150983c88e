-- The seats that changed hands with a turn (issue 18's replacements), recorded when it
-- resolves as the engine's input, like `leaving` and `joining`: each engine player id with the
-- name its new holder plays under. `gm verify` replays the same renames; turns resolved before
-- this column have none, so they replay as they were published.
ALTER TABLE turns ADD COLUMN renaming jsonb NOT NULL DEFAULT '[]'::jsonb;

-- How a game's deadlines follow one another. `{"kind": "manual"}`: the GM sets each deadline;
-- `{"kind": "every_days", "days": 7}`: each next deadline is that many days after the last.
ALTER TABLE games
    ADD COLUMN schedule jsonb NOT NULL DEFAULT '{"kind": "manual"}'::jsonb
        CHECK (jsonb_typeof(schedule) = 'object' AND schedule ? 'kind');

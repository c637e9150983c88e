-- Absences (issue 18 item 4): a subscriber declares the days they are away; each game's
-- absence policy says what happens on turns whose deadline falls on those days.
CREATE TABLE absences (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    subscriber_id  bigint NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
    first_day      date NOT NULL,
    last_day       date NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    CHECK (first_day <= last_day)
);
CREATE INDEX absences_subscriber_idx ON absences (subscriber_id, last_day);

-- 'wait': the deadline waits for an absent player, at most absence_wait_days past the turn's
-- own deadline; 'standing': an absent player's last orders stand; 'no_penalty': the engine's
-- no-orders rule applies, without a penalty for missing the turn (BARMY-17).
ALTER TABLE games ADD COLUMN absence_policy text NOT NULL DEFAULT 'no_penalty'
    CHECK (absence_policy IN ('wait', 'standing', 'no_penalty'));
ALTER TABLE games ADD COLUMN absence_wait_days integer NOT NULL DEFAULT 7
    CHECK (absence_wait_days BETWEEN 1 AND 28);

-- Part of a turn's input: the players excused from a missed-turn penalty (replayed by verify).
ALTER TABLE turns ADD COLUMN excused bigint[] NOT NULL DEFAULT '{}';
-- The turn's deadline before it first waited for an absent player: the cap counts from it.
ALTER TABLE turns ADD COLUMN deadline_before_absence timestamptz;

-- An absent player's last orders, standing for a turn, are stored with source 'standing'.
ALTER TABLE orders DROP CONSTRAINT orders_source_check;
ALTER TABLE orders ADD CONSTRAINT orders_source_check CHECK (source IN ('email', 'web', 'post', 'standing'));

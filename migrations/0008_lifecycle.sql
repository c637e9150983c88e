-- The players who joined with a turn (the engine's `Player` objects, `[{"id": 4, "name": "…"}]`):
-- like `leaving`, part of the turn's input, so `gm verify` replays with them (BARMY-GM-11).
ALTER TABLE turns
    ADD COLUMN joining jsonb NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(joining) = 'array');

-- One row per reminder round done: the turn, how long before its deadline, and how many mails it
-- queued. Written in the transaction that queues the reminders, so a round happens once.
CREATE TABLE turn_reminders (
    turn_id         bigint NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    offset_minutes  integer NOT NULL CHECK (offset_minutes > 0),
    sent_at         timestamptz NOT NULL,
    mails           integer NOT NULL CHECK (mails >= 0),
    PRIMARY KEY (turn_id, offset_minutes)
);

-- `games.schedule` gains optional keys (see crates/server/src/schedule.rs):
-- `reminder_minutes` (array of minutes before the deadline), `grace_minutes` (orders taken and
-- resolution held that long after the deadline), `early_resolution` (boolean). Absent means none.

-- A body many messages share (a turn's report, mailed to every subscriber of the zine), stored
-- once instead of once per recipient. A message with a shared body is sent as the shared text
-- followed by its own `body_text` (empty or a per-recipient footer); its own `body_html`, if
-- any, wins over the shared one.
CREATE TABLE outbound_bodies (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    body_text   text NOT NULL,
    body_html   text,
    created_at  timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE outbound_messages
    ADD COLUMN shared_body_id bigint REFERENCES outbound_bodies (id);

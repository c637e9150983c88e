-- A game open for sign-up keeps the first deadline the GM typed on its form: the game's first
-- turn is due then when it starts (or, if that moment passed while sign-ups were open, on the
-- schedule's first slot after it). Openings made before this column have none, as before:
-- their first turn is due on the schedule's first slot after the start.
ALTER TABLE openings ADD COLUMN first_deadline timestamptz;

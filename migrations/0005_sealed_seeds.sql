-- Each turn has two dice streams (see crates/engine/src/dice.rs): the open one, revealed as soon
-- as the turn is resolved, and the sealed one that decides hidden facts (ship placements,
-- penalty squares), revealed only when the game is over. Both are committed to in advance.
ALTER TABLE turns
    ADD COLUMN sealed_commitment   text CHECK (sealed_commitment ~ '^[0-9a-f]{64}$'),
    ADD COLUMN revealed_sealed_seed text CHECK (revealed_sealed_seed ~ '^[0-9a-f]{64}$');

-- Turn 0 is the game's setup; every later turn must carry its sealed commitment.
ALTER TABLE turns
    ADD CONSTRAINT turns_sealed_commitment_present CHECK (number = 0 OR sealed_commitment IS NOT NULL);

-- The engine's state as the turn opened: what `gm verify` replays the turn from. It holds hidden
-- facts (ship positions), so it is shown to nobody but the GM before the game is over.
ALTER TABLE turns
    ADD COLUMN state_before jsonb;

-- The engine's report carries the turn's table and its press; keep the structured form too,
-- so that `gm verify` can compare and the web can re-render without parsing text.
ALTER TABLE published_reports
    ADD COLUMN report jsonb;

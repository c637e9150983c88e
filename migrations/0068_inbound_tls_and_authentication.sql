-- Issue 29 items 5 and 6: how an inbound message arrived and what its sender's domain says of
-- it. over_tls is set by the SMTP listener only (NULL: another door, which cannot know).
-- auth_checked_at is NULL until SPF, DKIM and DMARC were evaluated (or never, with
-- ADMIRALTY_MAIL_AUTH=off): "not checked". The results are RFC 8601's words.
ALTER TABLE inbound_messages
    ADD COLUMN over_tls boolean,
    ADD COLUMN auth_checked_at timestamptz,
    ADD COLUMN auth_spf text CHECK (auth_spf IN ('pass', 'fail', 'softfail', 'neutral', 'none', 'temperror', 'permerror')),
    ADD COLUMN auth_dkim text CHECK (auth_dkim IN ('pass', 'fail', 'neutral', 'none', 'temperror', 'permerror')),
    ADD COLUMN auth_dmarc text CHECK (auth_dmarc IN ('pass', 'fail', 'none', 'temperror', 'permerror')),
    -- The policy the From domain publishes (NULL: none found).
    ADD COLUMN auth_dmarc_policy text CHECK (auth_dmarc_policy IN ('none', 'quarantine', 'reject')),
    ADD CONSTRAINT inbound_messages_auth_whole CHECK (
        (auth_checked_at IS NULL) = (auth_spf IS NULL)
        AND (auth_spf IS NULL) = (auth_dkim IS NULL)
        AND (auth_dkim IS NULL) = (auth_dmarc IS NULL));

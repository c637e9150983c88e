-- The hourly limits on what a sender can make Admiralty mail (issue 17). Each answer to a
-- message and each relayed TELL says which budget it counts in, and whom it counts against:
-- the recipient's mailbox however its address was spelled (mail::address::MailboxKey: letter
-- case, quotes and +tags taken away) and that mailbox's domain; for a TELL also the
-- subscriber who sent it. Other mail (reports, reminders, login links) counts in no budget.
ALTER TABLE outbound_messages
    ADD COLUMN budget text CHECK (budget IN ('reply', 'refusal', 'tell')),
    ADD COLUMN to_mailbox text,
    ADD COLUMN to_domain text,
    ADD COLUMN from_subscriber bigint REFERENCES subscribers (id),
    ADD CONSTRAINT outbound_messages_budget_recipient_check
        CHECK ((budget IS NULL) = (to_mailbox IS NULL) AND (budget IS NULL) = (to_domain IS NULL));

-- Each budget is a count over the last hour: a short index scan per mailbox, domain, sender,
-- and for the refusals of every address together.
CREATE INDEX outbound_messages_budget_mailbox_idx
    ON outbound_messages (to_mailbox, created_at) WHERE budget IS NOT NULL;
CREATE INDEX outbound_messages_budget_domain_idx
    ON outbound_messages (to_domain, created_at) WHERE budget IS NOT NULL;
CREATE INDEX outbound_messages_refusals_idx
    ON outbound_messages (created_at) WHERE budget = 'refusal';
CREATE INDEX outbound_messages_tells_idx
    ON outbound_messages (from_subscriber, created_at) WHERE budget = 'tell';

-- What was answered in the hour before the upgrade still counts (refusals were not told
-- apart from confirmations then, and addresses only by their letter case).
UPDATE outbound_messages
SET budget = CASE WHEN starts_with(idempotency_key, 'tell:') THEN 'tell' ELSE 'reply' END,
    to_mailbox = lower(to_address),
    to_domain = lower(substring(to_address from '[^@]*$'))
WHERE created_at > now() - interval '1 hour'
  AND (starts_with(idempotency_key, 'reply:') OR starts_with(idempotency_key, 'tell:'));

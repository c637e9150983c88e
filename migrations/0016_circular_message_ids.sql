-- A turn's report is one message to every subscriber, sent to many of them per SMTP transaction
-- as a mailing list's post is (docs/delivery.md): its copies share one Message-ID, so the copy a
-- retry sends one subscriber is the same message the others got. The queue's key remains the
-- idempotency key; a Message-ID is no longer unique to one row.
ALTER TABLE outbound_messages DROP CONSTRAINT outbound_messages_message_id_key;

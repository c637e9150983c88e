-- The reply rate limit counts recent mail to one address: keep that a short index scan.
CREATE INDEX outbound_messages_recipient_idx ON outbound_messages (lower(to_address), created_at);

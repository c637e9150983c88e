-- Private messages stay private messages (issue 27): a relayed TELL's Reply-To is a relay
-- address of its own, `orders+TOKEN@`, that names the conversation, so a reply to it goes
-- back to the TELL's sender as a TELL and never into orders. One address for each ordered
-- pair of seats: the holder (to whom it was mailed, whom it proves) answers the counterpart.
-- The subscribers are kept beside the seats: a seat handed to a standby keeps its row, and
-- neither the address nor the conversation passes to the newcomer.
CREATE TABLE tell_conversations (
    id                       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    holder_player_id         bigint NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    holder_subscriber_id     bigint NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
    counterpart_player_id    bigint NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    counterpart_subscriber_id bigint NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
    -- Unguessable, like players.reply_token: the relay address authenticates its holder.
    reply_token              text NOT NULL UNIQUE CHECK (length(reply_token) >= 20),
    created_at               timestamptz NOT NULL,
    UNIQUE (holder_player_id, holder_subscriber_id, counterpart_player_id, counterpart_subscriber_id),
    CHECK (holder_player_id <> counterpart_player_id)
);

-- The Message-ID of every relayed TELL (without angle brackets) and the conversation its
-- recipient answers: a reply sent to the recipient's own address but carrying it in
-- In-Reply-To is a reply to the TELL too.
CREATE TABLE tell_relayed_messages (
    message_id       text PRIMARY KEY,
    conversation_id  bigint NOT NULL REFERENCES tell_conversations (id) ON DELETE CASCADE,
    relayed_at       timestamptz NOT NULL
);
CREATE INDEX tell_relayed_messages_conversation ON tell_relayed_messages (conversation_id);

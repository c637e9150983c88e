-- Mail is matched to subscribers by address across zines (PASSWORD lines, the locks a mail
-- worker takes per sender): an index on the address alone, not only per zine.
CREATE INDEX subscribers_email_idx ON subscribers (lower(email));

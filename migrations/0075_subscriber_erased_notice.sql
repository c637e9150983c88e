-- A subscriber who erased their data is a notice for the GM (issue 30 item 6).
ALTER TABLE gm_notices DROP CONSTRAINT gm_notices_kind_check;
ALTER TABLE gm_notices ADD CONSTRAINT gm_notices_kind_check
    CHECK (kind IN ('signup_filled', 'seat_wanted', 'standby_seated', 'letter_waiting',
                    'mail_failed', 'turn_failed', 'subscriber_erased'));

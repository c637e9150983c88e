//! What Admiralty writes about mail passwords: a new password refused as too short, the
//! refusal while an address is locked out, and the one mail that tells the subscriber of the
//! lock-out. No letter ever repeats a password.

use super::Letter;

/// PASSWORD in a reply, refused as too short.
pub fn too_short(line: usize, min: usize) -> String {
    format!(
        "Line {line}: your password was NOT set: a password must be at least {min} characters \
         long (a few words make a good one). A password you set before still stands."
    )
}

/// Why a message with a PASSWORD line proved nothing while its address is locked out.
pub fn locked(window_minutes: i64) -> String {
    format!(
        "too many wrong passwords were sent from this address lately, so passwords from it are \
         not being checked (for up to {window_minutes} minutes). Reply to a mail from Admiralty \
         instead: its reply address needs no password."
    )
}

/// The mail to a subscriber whose password was just locked.
pub fn locked_out(email: &str, failures: i64, window_minutes: i64) -> Letter {
    Letter {
        subject: "Your Admiralty password is locked for a while".to_owned(),
        body: format!(
            "{failures} messages with a wrong PASSWORD line were sent to Admiralty from {email} \
             within {window_minutes} minutes. Someone may be guessing your password, so for up to \
             {window_minutes} minutes no password from {email} is checked, the right one \
             included.\n\n\
             Your orders still reach Admiralty meanwhile: reply to any mail from Admiralty, \
             keeping its personal reply address, which needs no password. If the guessing was \
             not you, set a new, longer password by replying to a mail from Admiralty with a \
             line PASSWORD <new password>.\n"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_letters_say_what_happened_and_what_still_works() {
        let letter = locked_out("fred@example.org", 5, 60);
        assert!(letter.body.contains("5 messages with a wrong PASSWORD"));
        assert!(letter.body.contains("reply to any mail from Admiralty"));
        assert!(too_short(3, 12).contains("at least 12 characters"));
        assert!(locked(60).contains("60 minutes"));
    }
}

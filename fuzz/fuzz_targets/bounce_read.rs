//! Raw mail through the bounce reader, `mail::bounce::read` (DSN, qmail, Exim, Postfix,
//! Exchange, ARF), and return-path tags through `mail::verp`.
//!
//! Properties besides "no panic":
//! - reading is deterministic;
//! - every failed recipient names an address (an `@`), at most 254 bytes, and its diagnostic
//!   is at most 300 characters on one line;
//! - a status, when read, is an RFC 3463 code or a 4xx/5xx reply code, and a 5 is never soft
//!   unless the report said the delivery was only delayed;
//! - no tag found in the input verifies under a key it was not made with.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mail::bounce::{Report, Severity};

fuzz_target!(
    init: {
        // mail-parser's panics are caught on purpose (see the mail_read target).
        let _ = std::panic::take_hook();
    },
    |raw: &[u8]| {
    let report = mail::bounce::read(raw);
    assert_eq!(report, mail::bounce::read(raw), "reading is not deterministic");
    if let Some(Report::Bounce { recipients, .. }) = &report {
        for r in recipients {
            assert!(r.final_recipient.contains('@') && r.final_recipient.len() <= 254);
            if let Some(d) = &r.diagnostic {
                assert!(d.chars().count() <= 300 && !d.contains('\n'), "{d:?}");
            }
            if let Some(s) = &r.status {
                assert!(s.starts_with('2') || s.starts_with('4') || s.starts_with('5'), "{s}");
                if r.severity == Severity::Soft {
                    let delayed = String::from_utf8_lossy(raw).to_ascii_lowercase();
                    assert!(
                        s.starts_with('4') || delayed.contains("delayed") || delayed.contains("warning")
                            || delayed.contains("not yet been delivered"),
                        "a 5.x.x read as soft: {s}"
                    );
                }
            }
        }
    }
    let key = mail::verp::TagKey::new([9; 32]);
    let text = String::from_utf8_lossy(raw);
    if let Some(tag) = mail::verp::find_tag(text.split_whitespace()) {
        assert_eq!(key.verify(&tag), None, "a tag from the input verified: {tag}");
    }
    }
);

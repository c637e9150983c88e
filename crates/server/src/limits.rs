//! What one sender may make Admiralty send or print, decided: how much of a player's press a
//! turn's report prints, which answers and relayed TELLs fit the hourly budgets of their
//! recipients, and which addresses are never answered at all. Pure: the callers read what was
//! used, under the locks that keep it so, and write what is decided. The numbers are settings
//! ([`Limits`], the table in docs/configuration.md).

use mail::address::MailboxKey;
use store::outbox::BudgetCounts;
use store::status::Budget;
use store::subscribers::SubscriberId;

use crate::config::{Limits, PressLimits};

/// The press a player has had accepted for one turn's report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PressUsed {
    pub entries: u32,
    pub chars: u32,
}

impl PressUsed {
    /// From the store's count of entries and characters.
    pub fn counted((entries, chars): (i64, i64)) -> PressUsed {
        PressUsed {
            entries: u32::try_from(entries).unwrap_or(u32::MAX),
            chars: u32::try_from(chars).unwrap_or(u32::MAX),
        }
    }
}

/// What became of one press entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PressVerdict {
    /// Printed whole.
    Kept,
    /// Printed cut to the characters the turn had left: `kept` of the `sent` characters.
    Cut { kept: u32, sent: u32 },
    /// Not printed: the turn's entries were all used.
    TooManyEntries,
    /// Not printed: it did not fit, and the characters left (`left`) are too few to print a
    /// cut of it worth reading.
    NoRoom { left: u32 },
}

/// One press entry as the limits let it be printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdmittedPress {
    /// What is printed; `None` when nothing is.
    pub text: Option<String>,
    pub verdict: PressVerdict,
}

/// The mark a cut press ends with (counted in its characters), so readers see it was cut.
pub const CUT_MARK: char = '…';

/// Fewest characters a cut press keeps: with less room left, press that does not fit is
/// refused rather than printed as a stub.
pub const SHORTEST_CUT: u32 = 40;

/// Admits `text` as one more press entry of a player who has used `used` of the turn's press,
/// and counts what is printed in `used`.
pub fn admit_press(used: &mut PressUsed, limits: &PressLimits, text: &str) -> AdmittedPress {
    if used.entries >= limits.entries_per_turn {
        return AdmittedPress {
            text: None,
            verdict: PressVerdict::TooManyEntries,
        };
    }
    let left = limits.chars_per_turn.saturating_sub(used.chars);
    let sent = chars_of(text);
    if sent > left && left < SHORTEST_CUT.min(limits.chars_per_turn).max(1) {
        return AdmittedPress {
            text: None,
            verdict: PressVerdict::NoRoom { left },
        };
    }
    let (kept_text, verdict) = if sent <= left {
        (text.to_owned(), PressVerdict::Kept)
    } else {
        let cut = cut_at(text, left);
        let kept = chars_of(&cut);
        (cut, PressVerdict::Cut { kept, sent })
    };
    used.entries = used.entries.saturating_add(1);
    used.chars = used.chars.saturating_add(chars_of(&kept_text));
    AdmittedPress {
        text: Some(kept_text),
        verdict,
    }
}

fn chars_of(text: &str) -> u32 {
    u32::try_from(text.chars().count()).unwrap_or(u32::MAX)
}

/// The start of `text` in at most `max` characters, the last of them [`CUT_MARK`]: cut after a
/// word when one ends in the second half of the room, else at the room's end.
fn cut_at(text: &str, max: u32) -> String {
    let room = usize::try_from(max.saturating_sub(1)).unwrap_or(usize::MAX);
    let head: String = text.chars().take(room).collect();
    let word_end = head
        .char_indices()
        .enumerate()
        .filter(|(count, (_, c))| c.is_whitespace() && *count >= room / 2)
        .map(|(_, (at, _))| at)
        .last();
    let mut kept = match word_end.and_then(|end| head.get(..end)) {
        Some(words) => words.trim_end().to_owned(),
        None => head,
    };
    kept.push(CUT_MARK);
    kept
}

/// The addresses Admiralty never answers, however they are spelled: its own (`orders@DOMAIN`,
/// every `orders+...@DOMAIN`, the configured sender) and mail systems' (MAILER-DAEMON,
/// postmaster, noreply, ...). Answering them would make a loop, or mail a robot.
#[derive(Debug, Clone)]
pub struct Unanswerable {
    own: Vec<MailboxKey>,
}

impl Unanswerable {
    /// `reply_local_part` at `domain`, and `mail_from` (`Name <address>` or an address).
    pub fn new(reply_local_part: &str, domain: &str, mail_from: Option<&str>) -> Unanswerable {
        let from = mail_from.map(|from| match from.rsplit_once('<') {
            Some((_, address)) => address.trim_end().trim_end_matches('>').to_owned(),
            None => from.to_owned(),
        });
        let own = [Some(format!("{reply_local_part}@{domain}")), from]
            .into_iter()
            .flatten()
            .filter_map(|address| MailboxKey::parse(&address))
            .collect();
        Unanswerable { own }
    }

    pub fn contains(&self, mailbox: &MailboxKey) -> bool {
        mailbox.is_system() || self.own.contains(mailbox)
    }
}

/// An hourly budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budgeted {
    /// Answers to one mailbox.
    Replies,
    /// Answers to one domain.
    RepliesToDomain,
    /// Refusals to one mailbox.
    Refusals,
    /// Refusals to one domain.
    RefusalsToDomain,
    /// Refusals to everyone.
    RefusalsInAll,
    /// TELLs relayed for one sender.
    TellsSent,
    /// TELLs relayed to one mailbox.
    TellsReceived,
}

impl Budgeted {
    /// The setting that sizes it.
    pub fn setting(self) -> &'static str {
        match self {
            Budgeted::Replies => "ADMIRALTY_REPLIES_PER_HOUR",
            Budgeted::RepliesToDomain => "ADMIRALTY_REPLIES_PER_DOMAIN_PER_HOUR",
            Budgeted::Refusals => "ADMIRALTY_REFUSALS_PER_HOUR",
            Budgeted::RefusalsToDomain => "ADMIRALTY_REFUSALS_PER_DOMAIN_PER_HOUR",
            Budgeted::RefusalsInAll => "ADMIRALTY_REFUSALS_IN_ALL_PER_HOUR",
            Budgeted::TellsSent => "ADMIRALTY_TELLS_PER_HOUR",
            Budgeted::TellsReceived => "ADMIRALTY_TELLS_RECEIVED_PER_HOUR",
        }
    }
}

/// A budget a mail did not fit in: which, its size, and what went out in the hour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Over {
    pub budget: Budgeted,
    pub allowed: u32,
    pub sent: i64,
}

/// The hourly budgets of one transaction's mail: what went out in the hour (read under
/// `store::outbox::lock_budgets`), counted on as mail is queued.
#[derive(Debug, Clone)]
pub struct Budgets {
    limits: Limits,
    counts: BudgetCounts,
}

impl Budgets {
    pub fn new(limits: Limits, counts: BudgetCounts) -> Budgets {
        Budgets { limits, counts }
    }

    /// Whether the message with this idempotency key was queued before (and so counted).
    pub fn queued(&self, key: &str) -> bool {
        self.counts.queued.contains(key)
    }

    /// Takes one answer to a message (`Budget::Reply`, or the tighter `Budget::Refusal`) to
    /// `to`, if it fits every budget it counts in.
    pub fn take_answer(&mut self, budget: Budget, to: &MailboxKey) -> Result<(), Over> {
        let limits = self.limits;
        let counts = &self.counts;
        let (mailbox, domain) = (to.as_str(), to.domain());
        within(
            counts.mailbox(mailbox, Budget::Reply) + counts.mailbox(mailbox, Budget::Refusal),
            limits.replies_per_hour,
            Budgeted::Replies,
        )?;
        within(
            counts.domain(domain, Budget::Reply) + counts.domain(domain, Budget::Refusal),
            limits.replies_per_domain_per_hour,
            Budgeted::RepliesToDomain,
        )?;
        if budget == Budget::Refusal {
            within(
                counts.mailbox(mailbox, Budget::Refusal),
                limits.refusals_per_hour,
                Budgeted::Refusals,
            )?;
            within(
                counts.domain(domain, Budget::Refusal),
                limits.refusals_per_domain_per_hour,
                Budgeted::RefusalsToDomain,
            )?;
            within(
                counts.refusals,
                limits.refusals_in_all_per_hour,
                Budgeted::RefusalsInAll,
            )?;
            self.counts.refusals += 1;
        }
        self.count(budget, to);
        Ok(())
    }

    /// Takes one private message relayed for `sender` to `to`, if it fits both TELL budgets.
    pub fn take_tell(&mut self, sender: SubscriberId, to: &MailboxKey) -> Result<(), Over> {
        let by_sender = self
            .counts
            .tells_by_sender
            .get(&sender)
            .copied()
            .unwrap_or(0);
        within(by_sender, self.limits.tells_per_hour, Budgeted::TellsSent)?;
        within(
            self.counts.mailbox(to.as_str(), Budget::Tell),
            self.limits.tells_received_per_hour,
            Budgeted::TellsReceived,
        )?;
        *self.counts.tells_by_sender.entry(sender).or_insert(0) += 1;
        self.count(Budget::Tell, to);
        Ok(())
    }

    fn count(&mut self, budget: Budget, to: &MailboxKey) {
        *self
            .counts
            .by_mailbox
            .entry((to.as_str().to_owned(), budget))
            .or_insert(0) += 1;
        *self
            .counts
            .by_domain
            .entry((to.domain().to_owned(), budget))
            .or_insert(0) += 1;
    }
}

fn within(sent: i64, allowed: u32, budget: Budgeted) -> Result<(), Over> {
    if sent < i64::from(allowed) {
        Ok(())
    } else {
        Err(Over {
            budget,
            allowed,
            sent,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(address: &str) -> MailboxKey {
        MailboxKey::parse(address).unwrap()
    }

    fn subscriber(id: u32) -> SubscriberId {
        id.to_string().parse().unwrap()
    }

    const PRESS: PressLimits = PressLimits {
        chars_per_turn: 20,
        entries_per_turn: 3,
    };

    #[test]
    fn press_is_kept_then_cut_then_refused() {
        let limits = PressLimits {
            chars_per_turn: 100,
            entries_per_turn: 4,
        };
        let mut used = PressUsed::default();
        let first = admit_press(&mut used, &limits, "Steady, lads.");
        assert_eq!(first.verdict, PressVerdict::Kept);
        assert_eq!(first.text.as_deref(), Some("Steady, lads."));
        // 87 characters left: cut after the last word that fits, marked.
        let long = "The Channel is ours, and the herring are nervous; ".repeat(3);
        let second = admit_press(&mut used, &limits, &long);
        let kept =
            "The Channel is ours, and the herring are nervous; The Channel is ours, and the…";
        assert_eq!(second.text.as_deref(), Some(kept));
        assert_eq!(
            second.verdict,
            PressVerdict::Cut {
                kept: 79,
                sent: 150
            }
        );
        assert_eq!(
            used,
            PressUsed {
                entries: 2,
                chars: 92
            }
        );
        // Eight characters left: what fits is printed, what does not is refused, not a stub.
        assert_eq!(
            admit_press(&mut used, &limits, "Too long for the room").verdict,
            PressVerdict::NoRoom { left: 8 }
        );
        assert_eq!(used.entries, 2, "refused press is not counted");
        assert_eq!(
            admit_press(&mut used, &limits, "Huzzah!!").verdict,
            PressVerdict::Kept
        );
        assert_eq!(used.chars, limits.chars_per_turn);
        assert_eq!(
            admit_press(&mut used, &limits, "").verdict,
            PressVerdict::Kept,
            "an empty press takes an entry"
        );
        assert_eq!(
            admit_press(&mut used, &limits, "more").verdict,
            PressVerdict::TooManyEntries
        );
        // With a room smaller than the shortest cut, a cut may still be as long as the room.
        let mut tiny = PressUsed::default();
        let admitted = admit_press(&mut tiny, &PRESS, "Abcdefghij Abcdefghij Abcdefghij");
        assert_eq!(admitted.text.as_deref(), Some("Abcdefghij…"));
    }

    #[test]
    fn press_is_counted_in_characters_not_bytes() {
        let mut used = PressUsed::default();
        let limits = PressLimits {
            chars_per_turn: 5,
            entries_per_turn: 10,
        };
        let admitted = admit_press(&mut used, &limits, "ééééé");
        assert_eq!(admitted.verdict, PressVerdict::Kept);
        let admitted = admit_press(&mut PressUsed::default(), &limits, "🚢🚢🚢🚢🚢🚢");
        assert_eq!(admitted.text.as_deref(), Some("🚢🚢🚢🚢…"));
    }

    #[test]
    fn admiraltys_own_addresses_and_mail_systems_are_never_answered() {
        let never = Unanswerable::new("orders", "Zine.Example", Some("GM <gm@other.example>"));
        for address in [
            "orders@zine.example",
            "Orders+abcdefghijklmnop@ZINE.example",
            "\"orders\"@zine.example.",
            "gm@other.example",
            "GM+x@other.example",
            "MAILER-DAEMON@anywhere.example",
            "\"postmaster\"@anywhere.example",
        ] {
            assert!(never.contains(&key(address)), "{address}");
        }
        for address in ["fred@zine.example", "orders@elsewhere.example"] {
            assert!(!never.contains(&key(address)), "{address}");
        }
        let plain = Unanswerable::new("orders", "zine.example", Some("gm@other.example"));
        assert!(plain.contains(&key("gm@other.example")));
    }

    fn limits() -> Limits {
        Limits {
            replies_per_hour: 4,
            replies_per_domain_per_hour: 6,
            refusals_per_hour: 2,
            refusals_per_domain_per_hour: 3,
            refusals_in_all_per_hour: 5,
            tells_per_hour: 2,
            tells_received_per_hour: 3,
            tell_max_chars: 100,
            press: PressLimits::DEFAULT,
            bounces: crate::config::BounceRules::DEFAULT,
        }
    }

    #[test]
    fn refusals_have_a_tighter_budget_than_confirmations() {
        let mut budgets = Budgets::new(limits(), BudgetCounts::default());
        let fred = key("fred@example.org");
        assert!(budgets.take_answer(Budget::Refusal, &fred).is_ok());
        assert!(budgets.take_answer(Budget::Refusal, &fred).is_ok());
        let over = budgets.take_answer(Budget::Refusal, &fred).unwrap_err();
        assert_eq!(over.budget, Budgeted::Refusals);
        assert_eq!((over.allowed, over.sent), (2, 2));
        // Confirmations still fit, up to the mailbox's budget of answers of both kinds.
        assert!(budgets.take_answer(Budget::Reply, &fred).is_ok());
        assert!(budgets.take_answer(Budget::Reply, &fred).is_ok());
        let over = budgets.take_answer(Budget::Reply, &fred).unwrap_err();
        assert_eq!(over.budget, Budgeted::Replies);
    }

    #[test]
    fn a_domain_and_everyone_have_budgets_of_their_own() {
        let mut budgets = Budgets::new(limits(), BudgetCounts::default());
        for n in 0..3 {
            assert!(
                budgets
                    .take_answer(Budget::Refusal, &key(&format!("u{n}@victim.example")))
                    .is_ok()
            );
        }
        let over = budgets
            .take_answer(Budget::Refusal, &key("u9@victim.example"))
            .unwrap_err();
        assert_eq!(over.budget, Budgeted::RefusalsToDomain);
        for n in 0..3 {
            assert!(
                budgets
                    .take_answer(Budget::Reply, &key(&format!("p{n}@victim.example")))
                    .is_ok()
            );
        }
        let over = budgets
            .take_answer(Budget::Reply, &key("p9@victim.example"))
            .unwrap_err();
        assert_eq!(over.budget, Budgeted::RepliesToDomain);
        assert!(
            budgets
                .take_answer(Budget::Refusal, &key("a@one.example"))
                .is_ok()
        );
        assert!(
            budgets
                .take_answer(Budget::Refusal, &key("b@two.example"))
                .is_ok()
        );
        let over = budgets
            .take_answer(Budget::Refusal, &key("c@three.example"))
            .unwrap_err();
        assert_eq!(over.budget, Budgeted::RefusalsInAll);
    }

    #[test]
    fn what_went_out_earlier_in_the_hour_counts() {
        let mut counts = BudgetCounts::default();
        counts
            .by_mailbox
            .insert(("fred@example.org".to_owned(), Budget::Reply), 4);
        counts.tells_by_sender.insert(subscriber(7), 2);
        let mut budgets = Budgets::new(limits(), counts);
        let fred = key("Fred+x@Example.org");
        assert!(budgets.take_answer(Budget::Reply, &fred).is_err());
        let over = budgets
            .take_tell(subscriber(7), &key("john@example.org"))
            .unwrap_err();
        assert_eq!(over.budget, Budgeted::TellsSent);
        let john = key("john@example.org");
        for sender in 1..=3 {
            assert!(budgets.take_tell(subscriber(sender), &john).is_ok());
        }
        let over = budgets.take_tell(subscriber(4), &john).unwrap_err();
        assert_eq!(over.budget, Budgeted::TellsReceived);
    }
}

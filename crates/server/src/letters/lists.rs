//! The `List-*` headers of mail sent to many (reminders, start mail): which zine it comes from
//! (`List-Id`, RFC 2919) and how its reader leaves at once (`List-Unsubscribe` with an https
//! one-click address, RFC 8058, and a mailto, RFC 2369). Personal mail (confirmations,
//! positions, passwords) has none.

use store::outbox::{Headers, ListHeaders};
use store::subscribers::ListReader;

use super::{MailSite, reply_address};

/// The path of a subscriber's one-click unsubscribe address, under the site's base URL.
pub fn unsubscribe_path(token: &str) -> String {
    format!("/unsubscribe/{token}")
}

/// The list headers for `reader`, whose personal reply token is `reply_token`: the mailto goes
/// to that address, so the inbox knows who asks (an empty mail, Subject `unsubscribe`).
pub fn list_headers(site: MailSite<'_>, reader: &ListReader, reply_token: &str) -> ListHeaders {
    ListHeaders {
        name: reader.zine_name.clone(),
        id: format!("{}.list.{}", reader.zine_slug, site.domain),
        unsubscribe_url: format!(
            "{}{}",
            site.base_url.trim_end_matches('/'),
            unsubscribe_path(&reader.unsubscribe_token)
        ),
        unsubscribe_mailto: format!(
            "mailto:{}?subject=unsubscribe",
            reply_address(reply_token, site.domain)
        ),
    }
}

/// A player's reply address, with the list headers when `reader` is known.
pub fn to_many(site: MailSite<'_>, reader: Option<&ListReader>, reply_token: &str) -> Headers {
    Headers {
        list: reader.map(|reader| list_headers(site, reader, reply_token)),
        ..Headers::reply_to(reply_address(reply_token, site.domain))
    }
}

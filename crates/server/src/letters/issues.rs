//! The zine's issue as mailed: the issue's text, and an HTML part that is a whole document
//! with the print style sheet's rules that matter in a mail reader inlined in a `<style>`.

use store::zines::ZineId;

use super::Letter;

/// The issue's letter (`title`, the issue as text) and its HTML part around `fragment`.
pub fn issue(title: &str, text: &str, fragment: &str) -> (Letter, String) {
    let document = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\
         <style>{}</style></head><body>\n{fragment}\n</body></html>\n",
        escape(title),
        ISSUE_MAIL_STYLE
    );
    let letter = Letter {
        subject: title.to_owned(),
        body: text.to_owned(),
    };
    (letter, document)
}

/// The Message-ID every copy of a zine's issue shares.
pub fn message_id(zine: ZineId, number: i32, domain: &str) -> String {
    format!("<issue.{zine}.{number}@{domain}>")
}

const ISSUE_MAIL_STYLE: &str = "body{font-family:Georgia,serif;max-width:48em;margin:auto;padding:1em}\
table{border-collapse:collapse}th,td{border:1px solid #999;padding:.2em .4em;text-align:left}\
.issue-masthead{font-size:2em;font-weight:bold;margin:0}.issue-board{display:none}";

/// Text for HTML content and attribute values.
pub(crate) fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

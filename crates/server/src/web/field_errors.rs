//! A form's errors, each tied to the field it is about, so that the form comes back with
//! everything typed kept and each error beside its field: the field marked `aria-invalid`,
//! described by its error (`aria-describedby`), and the first one focused (`autofocus`, which
//! works without JavaScript). Errors about no one field are listed above the form.

use std::borrow::Cow;

/// The errors of one form (or of one page's forms: field ids are unique on a page).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FieldErrors {
    /// In the form's order: the field's id (`None`: the form as a whole) and the error. An id
    /// is a name from the code, or built from one (a setup field's, from the engine's setup
    /// paths): never typed by anyone.
    errors: Vec<(Option<Cow<'static, str>>, String)>,
}

impl FieldErrors {
    /// An error about the field whose id is `field`.
    pub(crate) fn push(&mut self, field: impl Into<Cow<'static, str>>, message: impl Into<String>) {
        self.errors.push((Some(field.into()), message.into()));
    }

    /// An error about the form as a whole.
    pub(crate) fn push_form(&mut self, message: impl Into<String>) {
        self.errors.push((None, message.into()));
    }

    pub(crate) fn one(field: &'static str, message: impl Into<String>) -> FieldErrors {
        let mut errors = FieldErrors::default();
        errors.push(field, message);
        errors
    }

    /// Adds `more`, but for a field that has its error already (one error beside each field:
    /// a zone refused by the zone field's check and again by a weekly rule's).
    pub(crate) fn extend(&mut self, more: FieldErrors) {
        for (field, message) in more.errors {
            if field
                .as_deref()
                .is_none_or(|field| self.of(field).is_none())
            {
                self.errors.push((field, message));
            }
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// The error beside `field`, if any (the first, when there are several).
    pub(crate) fn of(&self, field: &str) -> Option<&str> {
        self.errors
            .iter()
            .find(|(at, _)| at.as_deref() == Some(field))
            .map(|(_, message)| message.as_str())
    }

    /// The errors about no one field, and those about a field, for the summary above the form.
    pub(crate) fn all(&self) -> Vec<(&str, &str)> {
        self.errors
            .iter()
            .map(|(at, message)| (at.as_deref().unwrap_or(""), message.as_str()))
            .collect()
    }

    /// The attributes of the input `field`: ` aria-invalid="true" aria-describedby="FIELD-error"`
    /// when it has an error, ` autofocus` too when it is the first field in error; nothing
    /// otherwise. Only the field's id (a name from the code, never typed) goes in, so the text
    /// is safe to put in the page unescaped.
    pub(crate) fn attrs(&self, field: &str) -> String {
        if self.of(field).is_none() {
            return String::new();
        }
        let first = self.errors.iter().find_map(|(at, _)| at.as_deref()) == Some(field);
        format!(
            " aria-invalid=\"true\" aria-describedby=\"{field}-error\"{}",
            if first { " autofocus" } else { "" }
        )
    }
}

/// Every IANA time zone name chrono-tz knows, for the zone pickers' `<datalist>`.
pub(crate) fn zone_names() -> Vec<&'static str> {
    chrono_tz::TZ_VARIANTS
        .iter()
        .map(|zone| zone.name())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_field_in_error_is_focused_and_each_is_described_by_its_error() {
        let mut errors = FieldErrors::default();
        errors.push_form("The game was not created.");
        errors.push("zone", "\"London\" is not a time zone");
        errors.push("reminders", "\"2 days\" is not a duration");
        assert_eq!(
            errors.attrs("zone"),
            " aria-invalid=\"true\" aria-describedby=\"zone-error\" autofocus"
        );
        assert_eq!(
            errors.attrs("reminders"),
            " aria-invalid=\"true\" aria-describedby=\"reminders-error\""
        );
        assert_eq!(errors.attrs("grace"), "");
        assert_eq!(errors.of("zone"), Some("\"London\" is not a time zone"));
        assert_eq!(errors.all().len(), 3);
    }
}

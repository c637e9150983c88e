//! How an engine describes its setup to the GM's form (issue 20): each setting the GM may
//! choose, where it sits in the setup's JSON, its kind with its limits and default, one line of
//! help and the rule it implements. The service draws real form fields from it (choices as
//! selects, numbers with their limits, switches as checkboxes) and reads them back into the
//! setup JSON, which the engine then checks as always (`Engine::Setup`). Settings that are
//! lists or tables (fleets, terrain, placements) are not described here: the form keeps them
//! as JSON.

/// One setting of an engine's setup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    /// Where the value sits in the setup's JSON: object keys, and array positions, joined by
    /// dots (`width`, `board.columns`, `table.0`).
    pub path: &'static str,
    pub label: &'static str,
    /// One line of help.
    pub help: &'static str,
    /// The rule it implements or the ruling that made it a choice, if any.
    pub rule: Option<&'static str>,
    pub kind: SettingKind,
}

/// What a setting holds, with its limits and default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingKind {
    /// A whole number from `min` to `max`.
    Number { min: i64, max: i64, default: i64 },
    /// A whole number from `min` to `max`, or none (an empty field).
    OptionalNumber {
        min: i64,
        max: i64,
        default: Option<i64>,
        /// What none means, e.g. "play until one ship is afloat".
        none: &'static str,
    },
    /// On or off: a GM's switch or an option.
    Switch { default: bool },
    /// One of `choices`: each its value in the JSON and its words.
    Choice {
        choices: &'static [(&'static str, &'static str)],
        default: &'static str,
    },
    /// Any of `choices`, as a list of their values.
    Several {
        choices: &'static [(&'static str, &'static str)],
        default: &'static [&'static str],
    },
}

impl Setting {
    /// A whole number from `min` to `max`.
    pub const fn number(
        path: &'static str,
        label: &'static str,
        (min, max, default): (i64, i64, i64),
        help: &'static str,
    ) -> Setting {
        Setting {
            path,
            label,
            help,
            rule: None,
            kind: SettingKind::Number { min, max, default },
        }
    }

    /// An on/off switch.
    pub const fn switch(
        path: &'static str,
        label: &'static str,
        default: bool,
        help: &'static str,
    ) -> Setting {
        Setting {
            path,
            label,
            help,
            rule: None,
            kind: SettingKind::Switch { default },
        }
    }

    /// One of `choices`.
    pub const fn choice(
        path: &'static str,
        label: &'static str,
        choices: &'static [(&'static str, &'static str)],
        default: &'static str,
        help: &'static str,
    ) -> Setting {
        Setting {
            path,
            label,
            help,
            rule: None,
            kind: SettingKind::Choice { choices, default },
        }
    }

    /// The same setting, citing `rule`.
    pub const fn rule(mut self, rule: &'static str) -> Setting {
        self.rule = Some(rule);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_setting_is_built_with_its_rule() {
        let setting = Setting::switch("meteors", "Meteors", false, "showers each round")
            .rule("FOREVER-TER-2");
        assert_eq!(setting.rule, Some("FOREVER-TER-2"));
        assert_eq!(setting.kind, SettingKind::Switch { default: false });
    }
}

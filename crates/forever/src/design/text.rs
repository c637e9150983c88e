//! The ship-design text format: readable by a person, writable in an email, and written back
//! by the engine in one canonical form.
//!
//! ```text
//! SHIP Lancer
//! CORE HP+2
//! SECTION S1 PARENT CORE SIZE 2x1 AT (2, 0) MOUNT RAIL(range 18, damage 4, accuracy 15)
//! SECTION S2 PARENT S1 SIZE 1x1 AT (3.5, 0) MOUNT THRUSTER(thrust 30)
//! SECTION S3 PARENT CORE SIZE 1x1 AT (-1.5, 0) HP+1 MOUNT DEFLECTOR
//! ```
//!
//! Keywords are case-insensitive and may come in any order after a section's name. Stats are
//! written as values (`range 18`) or as additions in the stat's own unit (`range+6`,
//! `thrust+20`); either must be a whole number of the upgrade's steps (FOREVER-GM-10,
//! FOREVER-ADM-01).

use super::{
    CoreSpec, Design, DesignIssue, Item, ModuleSpec, Mount, SectionSpec, WeaponKind, WeaponSpec,
};
use crate::fixed::parse_decimal;

/// A word, or a parenthesised group such as `(2, 0)` or `(range 18, damage 4)`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    Group(String),
}

fn tokenize(line: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut word = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '(' {
            if !word.is_empty() {
                tokens.push(Token::Word(std::mem::take(&mut word)));
            }
            let group: String = chars.by_ref().take_while(|c| *c != ')').collect();
            tokens.push(Token::Group(group));
        } else if c.is_whitespace() {
            if !word.is_empty() {
                tokens.push(Token::Word(std::mem::take(&mut word)));
            }
        } else {
            word.push(c);
        }
    }
    if !word.is_empty() {
        tokens.push(Token::Word(word));
    }
    tokens
}

/// Is this a name a player may give a ship, section or item?
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 24
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
}

const NAME_RULE: &str = "a name is one word of letters, digits, - or _, starting with a letter";

impl Design {
    /// Parses a design's text; every unreadable line is reported.
    pub fn parse(text: &str) -> Result<Design, Vec<DesignIssue>> {
        let lines: Vec<(usize, &str)> = text.lines().enumerate().map(|(i, l)| (i + 1, l)).collect();
        Design::parse_lines(&lines)
    }

    /// Parses numbered lines (the order parser passes a block out of an email).
    pub fn parse_lines(lines: &[(usize, &str)]) -> Result<Design, Vec<DesignIssue>> {
        let mut issues = Vec::new();
        let mut name: Option<String> = None;
        let mut core: Option<CoreSpec> = None;
        // A CORE line was written, even if it was refused: then that line's problem is the
        // one to fix, not a missing core.
        let mut core_written = false;
        let mut sections = Vec::new();
        for (number, raw) in lines {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let tokens = tokenize(line);
            let Some(Token::Word(first)) = tokens.first() else {
                issues.push(format_issue(
                    *number,
                    "a design line starts with SHIP, CORE or SECTION",
                ));
                continue;
            };
            let rest = tokens.get(1..).unwrap_or(&[]);
            match first.to_ascii_uppercase().as_str() {
                "SHIP" => match rest {
                    [Token::Word(ship)] if valid_name(ship) => {
                        if name.is_some() {
                            issues.push(format_issue(*number, "one SHIP line per design"));
                        }
                        name = Some(ship.clone());
                    }
                    _ => issues.push(format_issue(
                        *number,
                        &format!("write SHIP and the ship's name, e.g. SHIP Lancer ({NAME_RULE})"),
                    )),
                },
                "CORE" => {
                    core_written = true;
                    if core.is_some() {
                        issues.push(
                            DesignIssue::new("FOREVER-CORE-2", "a ship has exactly one core")
                                .at_line(*number),
                        );
                    }
                    match parse_core(rest) {
                        Ok(parsed) => core = Some(parsed),
                        Err(problem) => issues.push(format_issue(*number, &problem)),
                    }
                }
                "SECTION" => match parse_section(rest) {
                    Ok(section) => sections.push(section),
                    Err(problem) => issues.push(format_issue(*number, &problem)),
                },
                "END" => {}
                other => issues.push(format_issue(
                    *number,
                    &format!("{other} is not a design line: use SHIP, CORE or SECTION"),
                )),
            }
        }
        let first_line = lines.first().map_or(1, |(n, _)| *n);
        if name.is_none() {
            issues.push(format_issue(first_line, "a design starts with SHIP <name>"));
        }
        if core.is_none() && !core_written {
            issues.push(
                DesignIssue::new(
                    "FOREVER-CORE-2",
                    "every ship needs exactly one core: add a CORE line",
                )
                .at_line(first_line),
            );
        }
        match (name, core) {
            (Some(name), Some(core)) if issues.is_empty() => Ok(Design {
                name,
                core,
                sections,
            }),
            _ => Err(issues),
        }
    }

    /// The design in its canonical text form, which [`Design::parse`] reads back unchanged.
    pub fn to_text(&self) -> String {
        let mut out = format!("SHIP {}\nCORE", self.name);
        if self.core.extra_hp > 0 {
            out.push_str(&format!(" HP+{}", self.core.extra_hp));
        }
        if let Some((width, height)) = self.core.size {
            out.push_str(&format!(
                " SIZE {}x{}",
                thousandths(width),
                thousandths(height)
            ));
        }
        for mount in &self.core.mounts {
            out.push_str(&format!(" MOUNT {}", mount_text(mount)));
        }
        for section in &self.sections {
            out.push_str(&format!(
                "\nSECTION {} PARENT {} SIZE {}x{} AT ({}, {})",
                section.name,
                section.parent,
                thousandths(section.size.0),
                thousandths(section.size.1),
                thousandths(section.at.0),
                thousandths(section.at.1)
            ));
            if section.rot != 0 {
                out.push_str(&format!(" ROT {}", section.rot));
            }
            if section.extra_hp > 0 {
                out.push_str(&format!(" HP+{}", section.extra_hp));
            }
            if section.swivel {
                out.push_str(" SWIVEL");
            }
            for mount in &section.mounts {
                out.push_str(&format!(" MOUNT {}", mount_text(mount)));
            }
        }
        out
    }
}

fn format_issue(line: usize, message: &str) -> DesignIssue {
    DesignIssue::new("FOREVER-ADM-01", message).at_line(line)
}

fn thousandths(value: i64) -> String {
    let sign = if value < 0 { "-" } else { "" };
    let magnitude = value.unsigned_abs();
    let (whole, rest) = (magnitude / 1000, magnitude % 1000);
    if rest == 0 {
        format!("{sign}{whole}")
    } else {
        let text = format!("{sign}{whole}.{rest:03}");
        text.trim_end_matches('0').to_string()
    }
}

fn words_upper(tokens: &[Token], index: usize) -> Option<String> {
    match tokens.get(index) {
        Some(Token::Word(word)) => Some(word.to_ascii_uppercase()),
        _ => None,
    }
}

/// `HP+2`, `HP +2`, `HP+ 2`, `HP + 2`: bought HP, and how many tokens it took.
fn parse_extra_hp(tokens: &[Token], index: usize) -> Result<(u32, usize), String> {
    let word = words_upper(tokens, index).unwrap_or_default();
    let mut joined = word.clone();
    let mut used = 1;
    // Join the words people put spaces between: `HP`, `+`, `2`.
    while joined == "HP" || joined == "HP+" {
        let Some(next) = words_upper(tokens, index + used) else {
            break;
        };
        let fits = next.starts_with('+') || next.chars().all(|c| c.is_ascii_digit());
        if !fits || (joined == "HP+" && next.starts_with('+')) {
            break;
        }
        joined.push_str(&next);
        used += 1;
    }
    let number = joined
        .strip_prefix("HP+")
        .or_else(|| joined.strip_prefix("HP"))
        .unwrap_or("");
    let number = number.strip_prefix('+').unwrap_or(number);
    number
        .parse::<u32>()
        .ok()
        .filter(|n| *n <= 100)
        .map(|n| (n, used))
        .ok_or_else(|| "bought HP is written HP+n, e.g. HP+2".to_string())
}

fn parse_core(tokens: &[Token]) -> Result<CoreSpec, String> {
    let mut core = CoreSpec::default();
    let mut index = 0;
    while index < tokens.len() {
        let word = words_upper(tokens, index).unwrap_or_default();
        if word.starts_with("HP") {
            let (extra, used) = parse_extra_hp(tokens, index)?;
            core.extra_hp = extra;
            index += used;
        } else if word == "MOUNT" {
            let (mount, used) = parse_mount(tokens, index + 1)?;
            core.mounts.push(mount);
            index += 1 + used;
        } else if word == "SIZE" {
            let (size, used) = parse_size(tokens, index + 1)?;
            core.size = Some(size);
            index += 1 + used;
        } else {
            return Err(format!(
                "{} is not understood on a CORE line: write e.g. CORE HP+2 MOUNT GUN(damage 2)",
                token_text(tokens.get(index))
            ));
        }
    }
    Ok(core)
}

fn token_text(token: Option<&Token>) -> String {
    match token {
        Some(Token::Word(word)) => word.clone(),
        Some(Token::Group(group)) => format!("({group})"),
        None => String::new(),
    }
}

const SECTION_EXAMPLE: &str = "SECTION S1 PARENT CORE SIZE 2x1 AT (2, 0) HP+1 MOUNT GUN";

fn parse_section(tokens: &[Token]) -> Result<SectionSpec, String> {
    let name = match tokens.first() {
        Some(Token::Word(name)) if valid_name(name) && !name.eq_ignore_ascii_case("core") => {
            name.clone()
        }
        _ => {
            return Err(format!(
                "a section needs a name after SECTION ({NAME_RULE}; not CORE), e.g. {SECTION_EXAMPLE}"
            ));
        }
    };
    let mut parent = None;
    let mut size = None;
    let mut at = None;
    let mut section = SectionSpec {
        name,
        parent: String::new(),
        size: (0, 0),
        at: (0, 0),
        rot: 0,
        extra_hp: 0,
        swivel: false,
        mounts: Vec::new(),
    };
    let mut index = 1;
    while index < tokens.len() {
        let word = words_upper(tokens, index).unwrap_or_default();
        match word.as_str() {
            "PARENT" => match tokens.get(index + 1) {
                Some(Token::Word(name)) if valid_name(name) => {
                    parent = Some(name.clone());
                    index += 2;
                }
                _ => {
                    return Err(format!(
                        "PARENT needs the parent's name, e.g. {SECTION_EXAMPLE}"
                    ));
                }
            },
            "SIZE" => {
                let (value, used) = parse_size(tokens, index + 1)?;
                size = Some(value);
                index += 1 + used;
            }
            "AT" => {
                let (value, used) = parse_pair(tokens, index + 1)?;
                at = Some(value);
                index += 1 + used;
            }
            "ROT" => {
                let value = words_upper(tokens, index + 1)
                    .and_then(|w| w.trim_end_matches('°').parse::<i64>().ok())
                    .ok_or("ROT needs 0, 90, 180 or 270")?;
                section.rot = value;
                index += 2;
            }
            "SWIVEL" => {
                section.swivel = true;
                index += 1;
            }
            "MOUNT" => {
                let (mount, used) = parse_mount(tokens, index + 1)?;
                section.mounts.push(mount);
                index += 1 + used;
            }
            _ if word.starts_with("HP") => {
                let (extra, used) = parse_extra_hp(tokens, index)?;
                section.extra_hp = extra;
                index += used;
            }
            _ => {
                return Err(format!(
                    "{} is not understood on a SECTION line: e.g. {SECTION_EXAMPLE}",
                    token_text(tokens.get(index))
                ));
            }
        }
    }
    section.parent = parent.ok_or(format!(
        "{} needs a PARENT, e.g. {SECTION_EXAMPLE}",
        section.name
    ))?;
    section.size = size.ok_or(format!(
        "{} needs a SIZE, e.g. {SECTION_EXAMPLE}",
        section.name
    ))?;
    section.at = at.ok_or(format!(
        "{} needs a position AT, e.g. {SECTION_EXAMPLE}",
        section.name
    ))?;
    Ok(section)
}

/// The largest size or offset a design may write, in thousandths (100"): far beyond any legal
/// ship, and small enough that no arithmetic on it can overflow.
const LIMIT: i64 = 100_000;

/// `2x1`, `2 x 1`, `1.5X1`, `2×1`: width and height in thousandths.
fn parse_size(tokens: &[Token], index: usize) -> Result<((i64, i64), usize), String> {
    let mut joined = String::new();
    for used in 1..=3 {
        match tokens.get(index + used - 1) {
            Some(Token::Word(word)) => joined.push_str(word),
            _ => break,
        }
        let normalized = joined.to_ascii_lowercase().replace('×', "x");
        if let Some((w, h)) = normalized.split_once('x')
            && let (Some(w), Some(h)) = (parse_decimal(w, 3), parse_decimal(h, 3))
            && w > 0
            && h > 0
        {
            if w > LIMIT || h > LIMIT {
                return Err(
                    "a section is never more than a few inches across (at most 2 sq in)"
                        .to_string(),
                );
            }
            return Ok(((w, h), used));
        }
    }
    Err("SIZE is width x height in inches, e.g. SIZE 2x1 or SIZE 1.5x1".to_string())
}

/// `(2, 0)`, `2,0`, `2, 0`, `2 0`: a ship-local position in thousandths.
fn parse_pair(tokens: &[Token], index: usize) -> Result<((i64, i64), usize), String> {
    const PROBLEM: &str = "AT is the section's centre in ship inches, e.g. AT (2, 0)";
    let numbers = |text: &str| -> Vec<Option<i64>> {
        text.split(|c: char| c == ',' || c.is_whitespace())
            .filter(|s| !s.is_empty())
            .map(|s| parse_decimal(s, 3))
            .collect()
    };
    match tokens.get(index) {
        Some(Token::Group(group)) => match numbers(group).as_slice() {
            [Some(x), Some(y)] if x.abs() <= LIMIT && y.abs() <= LIMIT => Ok(((*x, *y), 1)),
            _ => Err(PROBLEM.to_string()),
        },
        Some(Token::Word(first)) => {
            let mut joined = first.clone();
            for used in 1..=3 {
                if let [Some(x), Some(y)] = numbers(&joined).as_slice()
                    && x.abs() <= LIMIT
                    && y.abs() <= LIMIT
                {
                    return Ok(((*x, *y), used));
                }
                match tokens.get(index + used) {
                    Some(Token::Word(next)) => {
                        joined.push(' ');
                        joined.push_str(next);
                    }
                    _ => break,
                }
            }
            Err(PROBLEM.to_string())
        }
        None => Err(PROBLEM.to_string()),
    }
}

/// `GUN`, `RAIL(range 18, damage 4)`, `LASER (sweep 2) AS Lance`.
fn parse_mount(tokens: &[Token], index: usize) -> Result<(Mount, usize), String> {
    let Some(Token::Word(kind)) = tokens.get(index) else {
        return Err("MOUNT needs a weapon or module, e.g. MOUNT GUN(damage 2)".to_string());
    };
    let (options, mut used) = match tokens.get(index + 1) {
        Some(Token::Group(group)) => (group.as_str(), 2),
        _ => ("", 1),
    };
    let item = parse_item(kind, options)?;
    let mut label = None;
    if words_upper(tokens, index + used).as_deref() == Some("AS") {
        match tokens.get(index + used + 1) {
            Some(Token::Word(name)) if valid_name(name) => {
                label = Some(name.clone());
                used += 2;
            }
            _ => return Err(format!("AS needs a name for the item ({NAME_RULE})")),
        }
    }
    Ok((Mount { item, label }, used))
}

/// One option inside an item's parentheses.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Setting {
    /// `range 18`, `range=18`, `recharge 1-4`
    Value(String),
    /// `range+6`
    Plus(String),
    /// `double`, `fast`
    Flag,
}

fn parse_settings(options: &str) -> Result<Vec<(String, Setting)>, String> {
    let mut out = Vec::new();
    for option in options.split([',', ';']) {
        let option = option.trim();
        if option.is_empty() {
            continue;
        }
        let key: String = option
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if key.is_empty() {
            return Err(format!("{option:?} is not an option such as range 18"));
        }
        let rest = option.get(key.len()..).unwrap_or("").trim();
        let setting = if rest.is_empty() {
            Setting::Flag
        } else if let Some(plus) = rest.strip_prefix('+') {
            Setting::Plus(plus.trim().to_string())
        } else {
            let value = rest
                .strip_prefix('=')
                .or_else(|| rest.strip_prefix(':'))
                .unwrap_or(rest)
                .trim();
            Setting::Value(value.to_string())
        };
        out.push((key.to_ascii_lowercase(), setting));
    }
    Ok(out)
}

/// Steps bought for a stat with a base and a step: `range 18` or `range+6` → 1.
fn steps(key: &str, setting: &Setting, base: i64, step: i64) -> Result<u32, String> {
    let number = |text: &str| {
        text.trim()
            .trim_end_matches('"')
            .to_ascii_lowercase()
            .trim_end_matches("d6")
            .parse::<i64>()
            .map_err(|_| format!("{key} needs a whole number"))
    };
    let added = match setting {
        Setting::Value(value) => number(value)?
            .checked_sub(base)
            .ok_or_else(|| format!("{key} cannot be below its base of {base}"))?,
        Setting::Plus(value) => number(value)?,
        Setting::Flag => return Err(format!("{key} needs a value, e.g. {key} {}", base + step)),
    };
    if added < 0 {
        return Err(format!("{key} cannot be below its base of {base}"));
    }
    if added % step != 0 {
        return Err(format!(
            "{key} is bought in steps of {step} from {base}: e.g. {key} {} or {key}+{step}",
            base + step
        ));
    }
    u32::try_from(added / step)
        .ok()
        .filter(|n| *n <= 1000)
        .ok_or_else(|| format!("{key} is too large"))
}

fn flag(key: &str, setting: &Setting) -> Result<bool, String> {
    match setting {
        Setting::Flag => Ok(true),
        Setting::Value(value) | Setting::Plus(value) => match value.to_ascii_lowercase().as_str() {
            "yes" | "y" | "true" | "on" | "1" => Ok(true),
            "no" | "n" | "false" | "off" | "0" => Ok(false),
            _ => Err(format!("{key} is yes or no")),
        },
    }
}

/// A deflector's or EMP's recharge: `fast`, `recharge 1-4`, `recharge14`.
fn fast_recharge(key: &str, setting: &Setting) -> Result<Option<bool>, String> {
    match key {
        "fast" | "recharge14" => flag(key, setting).map(Some),
        "recharge" => match setting {
            Setting::Value(value) => match value.replace(' ', "").as_str() {
                "1-4" | "1,2,3,4" | "1to4" | "4" => Ok(Some(true)),
                "1-2" | "1,2" | "1to2" | "2" => Ok(Some(false)),
                _ => Err("recharge is 1-2 or 1-4".to_string()),
            },
            _ => Err("recharge is 1-2 or 1-4".to_string()),
        },
        _ => Ok(None),
    }
}

fn unknown(key: &str, kind: &str, known: &str) -> String {
    format!("{kind} has no option {key}; it takes {known}")
}

fn parse_item(kind: &str, options: &str) -> Result<Item, String> {
    let settings = parse_settings(options)?;
    let normalized: String = kind
        .to_ascii_uppercase()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    let weapon_kind = match normalized.as_str() {
        "GUN" | "BASIC" | "BASICGUN" => Some(WeaponKind::Gun),
        "LASER" => Some(WeaponKind::Laser),
        "MISSILE" => Some(WeaponKind::Missile),
        "RAIL" | "RAILGUN" => Some(WeaponKind::Rail),
        "TORPEDO" | "TORP" => Some(WeaponKind::Torpedo),
        "TORPEDOMISSILE" | "TORPMISSILE" => Some(WeaponKind::TorpedoMissile),
        _ => None,
    };
    if let Some(weapon_kind) = weapon_kind {
        return parse_weapon(weapon_kind, &settings).map(Item::Weapon);
    }
    let module = match normalized.as_str() {
        "TOW" | "TOWHITCH" | "HITCH" => {
            no_options(&settings, "a tow hitch")?;
            ModuleSpec::TowHitch
        }
        "THRUSTER" | "THRUST" => {
            let mut thrust_steps = 0;
            for (key, setting) in &settings {
                match key.as_str() {
                    "thrust" => thrust_steps = steps(key, setting, 10, 2)?,
                    _ => return Err(unknown(key, "a thruster", "thrust")),
                }
            }
            ModuleSpec::Thruster { thrust_steps }
        }
        "DEFLECTOR" => {
            let (mut fast, mut double) = (false, false);
            for (key, setting) in &settings {
                if let Some(value) = fast_recharge(key, setting)? {
                    fast = value;
                    continue;
                }
                match key.as_str() {
                    "double" | "duration" | "twice" => double = flag(key, setting)?,
                    "uses" => double = steps(key, setting, 1, 1)? >= 1,
                    _ => {
                        return Err(unknown(
                            key,
                            "a deflector",
                            "fast (recharge 1-4) and double (two uses)",
                        ));
                    }
                }
            }
            ModuleSpec::Deflector {
                fast_recharge: fast,
                double,
            }
        }
        "GUNNER" | "DEFENSIVEGUNNER" | "DGUN" | "DEFGUN" => {
            let mut extra_shots = 0;
            for (key, setting) in &settings {
                match key.as_str() {
                    "shots" => extra_shots = steps(key, setting, 1, 1)?,
                    _ => return Err(unknown(key, "a defensive gunner", "shots")),
                }
            }
            ModuleSpec::DefensiveGunner { extra_shots }
        }
        "EMP" | "PULSE" => {
            let (mut range_steps, mut accuracy_steps, mut fast) = (0, 0, false);
            for (key, setting) in &settings {
                if let Some(value) = fast_recharge(key, setting)? {
                    fast = value;
                    continue;
                }
                match key.as_str() {
                    "range" => range_steps = steps(key, setting, 12, 6)?,
                    "accuracy" | "acc" => accuracy_steps = steps(key, setting, 8, 5)?,
                    _ => return Err(unknown(key, "an EMP", "range, accuracy and fast")),
                }
            }
            ModuleSpec::Emp {
                range_steps,
                accuracy_steps,
                fast_recharge: fast,
            }
        }
        "FLUX" | "FLUXPROJECTOR" => {
            let (mut extra_energy, mut extra_dice) = (0, 0);
            for (key, setting) in &settings {
                match key.as_str() {
                    "energy" => extra_energy = steps(key, setting, 8, 1)?,
                    "recharge" => extra_dice = steps(key, setting, 1, 1)?,
                    _ => {
                        return Err(unknown(
                            key,
                            "a flux projector",
                            "energy and recharge (dice)",
                        ));
                    }
                }
            }
            ModuleSpec::FluxProjector {
                extra_energy,
                extra_dice,
            }
        }
        "CONTROL" | "DCU" | "DEMETERCONTROL" | "DEMETERCONTROLUNIT" => {
            let mut extra_control = 0;
            for (key, setting) in &settings {
                match key.as_str() {
                    "control" | "demeters" => extra_control = steps(key, setting, 1, 1)?,
                    _ => return Err(unknown(key, "a demeter control unit", "control")),
                }
            }
            ModuleSpec::DemeterControl { extra_control }
        }
        "LAUNCHER" | "DEMETERLAUNCHER" => {
            let (mut speed_steps, mut extra_hp, mut extra_rounds) = (0, 0, 0);
            for (key, setting) in &settings {
                match key.as_str() {
                    "speed" => speed_steps = steps(key, setting, 6, 3)?,
                    "hp" => extra_hp = steps(key, setting, 1, 1)?,
                    "rounds" | "duration" => extra_rounds = steps(key, setting, 1, 1)?,
                    _ => return Err(unknown(key, "a demeter launcher", "speed, hp and rounds")),
                }
            }
            if speed_steps > 8 {
                return Err("a demeter's speed may be at most 30 (FOREVER-MOD-DL-7)".to_string());
            }
            ModuleSpec::DemeterLauncher {
                speed_steps,
                extra_hp,
                extra_rounds,
            }
        }
        "COMPUTER" | "TC" | "TARGETING" | "TARGETINGCOMPUTER" => {
            no_options(&settings, "a targeting computer")?;
            ModuleSpec::TargetingComputer
        }
        "NANO" | "NANOMATRIX" => {
            let (mut extra_range, mut extra_energy, mut extra_dice) = (0, 0, 0);
            for (key, setting) in &settings {
                match key.as_str() {
                    "range" => extra_range = steps(key, setting, 3, 1)?,
                    "energy" => extra_energy = steps(key, setting, 6, 1)?,
                    "recharge" => extra_dice = steps(key, setting, 1, 1)?,
                    _ => {
                        return Err(unknown(
                            key,
                            "a nano matrix",
                            "range, energy and recharge (dice)",
                        ));
                    }
                }
            }
            ModuleSpec::NanoMatrix {
                extra_range,
                extra_energy,
                extra_dice,
            }
        }
        _ => {
            return Err(format!(
                "{kind} is not a weapon or module: weapons are GUN, LASER, MISSILE, RAIL, TORPEDO, TORPEDO-MISSILE; modules are TOW, THRUSTER, DEFLECTOR, GUNNER, EMP, FLUX, CONTROL, LAUNCHER, COMPUTER, NANO"
            ));
        }
    };
    Ok(Item::Module(module))
}

fn no_options(settings: &[(String, Setting)], what: &str) -> Result<(), String> {
    match settings.first() {
        Some((key, _)) => Err(format!("{what} has no options (not {key})")),
        None => Ok(()),
    }
}

fn parse_weapon(kind: WeaponKind, settings: &[(String, Setting)]) -> Result<WeaponSpec, String> {
    let mut weapon = WeaponSpec::basic(kind);
    for (key, setting) in settings {
        match key.as_str() {
            "range" | "rng" => weapon.range_steps = steps(key, setting, 12, 6)?,
            "damage" | "dmg" | "dam" => weapon.damage_steps = steps(key, setting, 1, 1)?,
            "accuracy" | "acc" => weapon.accuracy_steps = steps(key, setting, 10, 5)?,
            "sweep" if kind == WeaponKind::Laser => weapon.sweep_steps = steps(key, setting, 1, 1)?,
            "hp" if kind.has_hp() => weapon.hp_steps = steps(key, setting, 1, 1)?,
            "payload" if kind.is_torpedo() => match setting {
                Setting::Value(value) if value.eq_ignore_ascii_case("missile") => {
                    weapon.kind = WeaponKind::TorpedoMissile;
                }
                Setting::Value(value) if value.eq_ignore_ascii_case("basic") => {
                    weapon.kind = WeaponKind::Torpedo;
                }
                _ => return Err("payload is basic or missile (FOREVER-GM-19)".to_string()),
            },
            _ => {
                let mut known = vec!["range", "damage", "accuracy"];
                if kind == WeaponKind::Laser {
                    known.push("sweep");
                }
                if kind.has_hp() {
                    known.push("hp");
                }
                if kind.is_torpedo() {
                    known.push("payload");
                }
                return Err(unknown(
                    key,
                    &format!("a {}", kind.word()),
                    &known.join(", "),
                ));
            }
        }
    }
    Ok(weapon)
}

fn mount_text(mount: &Mount) -> String {
    let mut text = item_text(&mount.item);
    if let Some(label) = &mount.label {
        text.push_str(&format!(" AS {label}"));
    }
    text
}

/// The canonical text of one item: its keyword and any stat above the base.
pub fn item_text(item: &Item) -> String {
    let mut options: Vec<String> = Vec::new();
    let keyword = match item {
        Item::Weapon(weapon) => {
            if weapon.range_steps > 0 {
                options.push(format!("range {}", weapon.range() / 100));
            }
            if weapon.damage_steps > 0 {
                options.push(format!("damage {}", weapon.damage()));
            }
            if weapon.accuracy_steps > 0 {
                options.push(format!("accuracy {}", weapon.accuracy()));
            }
            if weapon.sweep_steps > 0 {
                options.push(format!("sweep {}", weapon.sweep()));
            }
            if weapon.hp_steps > 0 {
                options.push(format!("hp {}", weapon.hp()));
            }
            weapon.kind.keyword()
        }
        Item::Module(module) => {
            match *module {
                ModuleSpec::Thruster { thrust_steps } if thrust_steps > 0 => {
                    options.push(format!("thrust {}", module.thrust()));
                }
                ModuleSpec::Deflector {
                    fast_recharge,
                    double,
                } => {
                    if fast_recharge {
                        options.push("fast".into());
                    }
                    if double {
                        options.push("double".into());
                    }
                }
                ModuleSpec::DefensiveGunner { extra_shots } if extra_shots > 0 => {
                    options.push(format!("shots {}", 1 + extra_shots));
                }
                ModuleSpec::Emp {
                    range_steps,
                    accuracy_steps,
                    fast_recharge,
                } => {
                    if range_steps > 0 {
                        options.push(format!("range {}", 12 + 6 * range_steps));
                    }
                    if accuracy_steps > 0 {
                        options.push(format!("accuracy {}", 8 + 5 * accuracy_steps));
                    }
                    if fast_recharge {
                        options.push("fast".into());
                    }
                }
                ModuleSpec::FluxProjector {
                    extra_energy,
                    extra_dice,
                } => {
                    if extra_energy > 0 {
                        options.push(format!("energy {}", 8 + extra_energy));
                    }
                    if extra_dice > 0 {
                        options.push(format!("recharge {}d6", 1 + extra_dice));
                    }
                }
                ModuleSpec::DemeterControl { extra_control } if extra_control > 0 => {
                    options.push(format!("control {}", 1 + extra_control));
                }
                ModuleSpec::DemeterLauncher {
                    speed_steps,
                    extra_hp,
                    extra_rounds,
                } => {
                    if speed_steps > 0 {
                        options.push(format!("speed {}", 6 + 3 * speed_steps));
                    }
                    if extra_hp > 0 {
                        options.push(format!("hp {}", 1 + extra_hp));
                    }
                    if extra_rounds > 0 {
                        options.push(format!("rounds {}", 1 + extra_rounds));
                    }
                }
                ModuleSpec::NanoMatrix {
                    extra_range,
                    extra_energy,
                    extra_dice,
                } => {
                    if extra_range > 0 {
                        options.push(format!("range {}", 3 + extra_range));
                    }
                    if extra_energy > 0 {
                        options.push(format!("energy {}", 6 + extra_energy));
                    }
                    if extra_dice > 0 {
                        options.push(format!("recharge {}d6", 1 + extra_dice));
                    }
                }
                _ => {}
            }
            module.keyword()
        }
    };
    if options.is_empty() {
        keyword.to_string()
    } else {
        format!("{keyword}({})", options.join(", "))
    }
}

//! Examples that work (issue 28, `engine::corrections`): a refusal's example is a whole order
//! the player could send in the refused line's place, naming their own ship, its own weapons
//! and modules and a target that is there. Each candidate is tried on the parser as it stands
//! (what earlier lines already spent included) before it is offered; when none works the
//! refusal shows the order's form in words, never a line that would be refused in its turn.

use std::rc::Rc;

use crate::state::Phase;

use super::Parser;

/// Order words whose templates are whole orders (the others are words or fragments).
const ORDER_KINDS: &[&str] = &[
    "FIRE",
    "SHOOT",
    "BATTERY",
    "MOVE",
    "MOVE1",
    "M1",
    "MOVE2",
    "M2",
    "DEPLOY",
    "EMP",
    "PULSE",
    "NANO",
    "HEAL",
    "LAUNCH",
    "TC",
    "COMPUTER",
    "FLUX",
    "DEMETER",
    "DEFLECT",
    "DEFLECTOR",
    "TOW",
    "RELEASE",
    "OFFER",
];

/// How many candidates are tried at most for one refusal (each is a parse of one line).
const MOST_TRIES: usize = 48;

/// How many candidates one mail may try in all; then refusals show the form in words.
pub(super) const TRIALS_PER_MAIL: usize = 2000;

/// The family of an order word, as the candidates are written.
fn family(word: &str) -> Option<&'static str> {
    Some(match word.to_ascii_uppercase().as_str() {
        "FIRE" | "SHOOT" => "FIRE",
        "BATTERY" => "BATTERY",
        "MOVE" | "MOVE1" | "M1" => "MOVE1",
        "MOVE2" | "M2" => "MOVE2",
        "DEPLOY" => "DEPLOY",
        "EMP" | "PULSE" => "EMP",
        "NANO" | "HEAL" => "NANO",
        "LAUNCH" => "LAUNCH",
        "TC" | "COMPUTER" => "TC",
        "FLUX" => "FLUX",
        "DEMETER" => "DEMETER",
        "DEFLECT" | "DEFLECTOR" => "DEFLECT",
        "TOW" => "TOW",
        "RELEASE" => "RELEASE",
        // A rotation written on its own line goes on a move (phase 3 turns freely).
        "TURN" | "ROT" | "ROTATE" | "FACE" | "SWIVEL" => "MOVE2",
        "OFFER" => "OFFER",
        _ => return None,
    })
}

/// A template's order word, when the template is a whole order (`FIRE Lancer.S1 AT …`), not
/// a list of words (`MOVE1, MOVE2, …`) or a fragment (`SWEEP L 0.75`).
fn template_family(template: &str) -> Option<&'static str> {
    let first = template.split_whitespace().next()?;
    ORDER_KINDS
        .iter()
        .any(|k| k.eq_ignore_ascii_case(first))
        .then(|| family(first))
        .flatten()
}

/// Whether a text is a whole order of one of the families.
pub(super) fn is_order(text: &str) -> bool {
    template_family(text).is_some()
}

impl Parser<'_> {
    /// The `expected` of a refusal on `line` whose example follows `template`; `refused` is
    /// the order as written, when there is one. A working example is shown in backticks; a
    /// template that is words (or that no candidate makes work) is shown as words.
    pub(super) fn expected_for(
        &self,
        line: usize,
        template: &str,
        refused: Option<&str>,
    ) -> String {
        // The kind of order the player wrote first (a MOVE2 is corrected by a MOVE2), then
        // the kind the template shows (DEPLOY in battle is answered with a move).
        let written = refused
            .and_then(|r| r.split_whitespace().next())
            .and_then(family);
        let shown = template_family(template);
        if written.is_none() && shown.is_none() {
            return self.example(template);
        }
        let mut candidates = Vec::new();
        for wanted in [written, shown].into_iter().flatten() {
            candidates.extend(self.candidates(wanted, template, refused));
        }
        candidates.dedup();
        match candidates
            .into_iter()
            .take(MOST_TRIES)
            .find(|c| self.works(line, c))
        {
            Some(found) => format!("`{found}`"),
            None => self.in_words(template),
        }
    }

    /// Whether `order`, written on `line` in place of the refused one, is read without an
    /// error by the parser as it stands.
    pub(super) fn works(&self, line: usize, order: &str) -> bool {
        let left = self.trials_left.get();
        if left == 0 {
            return false;
        }
        self.trials_left.set(left - 1);
        // What judges an order (the orders so far, what is spent), without the diagnostics.
        let mut trial = Parser {
            state: self.state,
            player: self.player,
            hulls: Rc::clone(&self.hulls),
            orders: self.orders.clone(),
            understood: Vec::new(),
            press: Vec::new(),
            errors: Vec::new(),
            warnings: Vec::new(),
            used: self.used.clone(),
            design_lines: Vec::new(),
            design_failed: self.design_failed,
            trial: true,
            trials_left: Rc::clone(&self.trials_left),
        };
        trial.order(line, order, order);
        trial.errors.is_empty()
    }

    /// The template with placeholders for the ships, as words: the form of the order.
    fn in_words(&self, template: &str) -> String {
        if template_family(template).is_none() {
            // Words already ("PRESS only", a fragment): as they are.
            return self.example(template);
        }
        let form = template
            .split_whitespace()
            .map(|word| {
                word.replace("Lancer", "<your ship>")
                    .replace("Anvil", "<enemy ship>")
                    .replace("Tug", "<your ship>")
            })
            .collect::<Vec<_>>()
            .join(" ");
        format!("an order of the form {form} (no ship of yours can give one now)")
    }

    /// Candidate examples, best first: the order as written cut short (what was understood
    /// of it), orders built from the state, then the template with the player's names.
    fn candidates(&self, wanted: &str, template: &str, refused: Option<&str>) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(refused) =
            refused.filter(|r| r.split_whitespace().next().and_then(family) == Some(wanted))
        {
            let words: Vec<&str> = refused.split_whitespace().collect();
            for end in (2..words.len()).rev() {
                if let Some(prefix) = words.get(..end) {
                    out.push(prefix.join(" ").trim_end_matches(',').to_string());
                }
            }
        }
        // Built from the state before the template: they name what is there (a swivel's own
        // section, a live target), the template only a form.
        out.extend(self.built(wanted, refused));
        if template_family(template) == Some(wanted) {
            let example = self.example(template);
            // With no ship of the player's to name yet, the template's own placeholders would
            // name a ship that is not in the game (FOREVER-ADM-23).
            let placeholder = example
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|w| {
                    ["Lancer", "Anvil", "Tug"].contains(&w)
                        && self.state.ship_index(w).is_none()
                        && !self.orders.designs.iter().any(|d| d.name == w)
                });
            if !placeholder {
                out.push(example);
            }
        }
        out
    }

    /// Orders of the family built from the state: the player's ships (the one the refused
    /// order names first), their items, and targets that are there.
    fn built(&self, wanted: &str, refused: Option<&str>) -> Vec<String> {
        let named = refused
            .and_then(|r| r.split_whitespace().nth(1))
            .map(|w| w.split(['.', '/']).next().unwrap_or(w).to_string());
        let mut own: Vec<usize> = self
            .state
            .ships
            .iter()
            .enumerate()
            .filter(|(_, s)| s.owner == self.player && !s.destroyed)
            .map(|(i, _)| i)
            .collect();
        own.sort_by_key(|i| {
            !self.state.ships.get(*i).is_some_and(|s| {
                named
                    .as_deref()
                    .is_some_and(|n| s.name.eq_ignore_ascii_case(n))
            })
        });
        let mut aims: Vec<String> = self
            .state
            .ships
            .iter()
            .filter(|s| s.owner != self.player && !s.destroyed)
            .map(|s| format!("{}.core", s.name))
            .collect();
        let [width, height] = self.state.setup.table;
        aims.push(format!(
            "{}, {}",
            crate::fixed::show_hundredths(width.0 / 2),
            crate::fixed::show_hundredths(height.0 / 2)
        ));
        let items = |ship: usize| -> Vec<String> {
            self.hull(ship)
                .map(|h| h.items.iter().map(|s| s.name.clone()).collect())
                .unwrap_or_default()
        };
        let names = |ship: usize| {
            self.state
                .ships
                .get(ship)
                .map_or(String::new(), |s| s.name.clone())
        };
        let mut out = Vec::new();
        match wanted {
            "FIRE" | "EMP" => {
                for &ship in &own {
                    for item in items(ship) {
                        for aim in &aims {
                            out.push(format!("{wanted} {}.{item} AT {aim}", names(ship)));
                        }
                    }
                }
            }
            "BATTERY" => {
                for &ship in &own {
                    let list = items(ship);
                    for (i, first) in list.iter().enumerate() {
                        for second in list.iter().skip(i + 1) {
                            if let Some(aim) = aims.first() {
                                out.push(format!(
                                    "BATTERY {}.{first}, {second} AT {aim}",
                                    names(ship)
                                ));
                            }
                        }
                    }
                }
            }
            "MOVE1" | "MOVE2" => {
                if let Some(part) = refused.and_then(swivel_written) {
                    for &ship in own.iter().take(1) {
                        for angle in [0, 45, -45, 90, -90, 135, -135] {
                            out.push(format!("{wanted} {} SWIVEL {part} {angle}", names(ship)));
                        }
                    }
                }
                if let Some(turn) = refused.and_then(turn_written) {
                    for &ship in &own {
                        out.push(format!("{wanted} {} TURN {turn}", names(ship)));
                    }
                }
                for &ship in &own {
                    out.push(format!("{wanted} {} BY 1, 0", names(ship)));
                    out.push(format!("{wanted} {} TURN 0", names(ship)));
                }
            }
            "NANO" => {
                for &ship in &own {
                    for item in items(ship) {
                        out.push(format!("NANO {0}.{item} HEAL {0}.core 1", names(ship)));
                    }
                }
            }
            "LAUNCH" | "DEFLECT" | "FLUX" | "TC" => {
                for &ship in &own {
                    let list = items(ship);
                    for item in &list {
                        let name = names(ship);
                        match wanted {
                            "LAUNCH" => out.push(format!("LAUNCH {name}.{item}")),
                            "DEFLECT" => out.push(format!("DEFLECT {name}.{item} PROTECT ANY")),
                            "FLUX" => out.push(format!("FLUX {name}.{item} BEARING 0 LEN 1")),
                            _ => {
                                for weapon in &list {
                                    out.push(format!("TC {name}.{item} FOR {weapon}"));
                                }
                            }
                        }
                    }
                }
            }
            "DEMETER" => {
                for demeter in self
                    .state
                    .demeters
                    .iter()
                    .filter(|d| d.owner == self.player)
                {
                    for aim in &aims {
                        out.push(format!("DEMETER {} FIRE AT {aim}", demeter.name));
                    }
                    out.push(format!("DEMETER {} MOVE BY 1, 0", demeter.name));
                }
            }
            "RELEASE" => {
                for &ship in &own {
                    out.push(format!("RELEASE {}", names(ship)));
                }
            }
            "DEPLOY" => out.extend(self.deploy_examples()),
            "OFFER" => out.push("OFFER DRAW".to_string()),
            _ => {}
        }
        out
    }

    /// DEPLOY orders for the player's designs (this mail's, or an accepted fleet's ships),
    /// at the middle of the player's strip (FOREVER-ADM-17).
    fn deploy_examples(&self) -> Vec<String> {
        if self.state.phase != Phase::Building {
            return Vec::new();
        }
        let seats = self.state.seating.len().max(1) as i64;
        let seat = self
            .state
            .seating
            .iter()
            .position(|p| *p == self.player)
            .unwrap_or(0) as i64;
        let [width, height] = self.state.setup.table;
        let x = width.0 * (2 * seat + 1) / (2 * seats) / 100;
        let y = height.0 / 2 / 100;
        self.orders
            .designs
            .iter()
            .map(|d| d.name.clone())
            .chain(
                self.state
                    .ships
                    .iter()
                    .filter(|s| s.owner == self.player)
                    .map(|s| s.name.clone()),
            )
            .map(|name| format!("DEPLOY {name} AT {x}, {y} FACING 0"))
            .collect()
    }
}

/// The turn a line such as `turn right 45` or `rotate -30` asks for, in degrees anticlockwise
/// (right is clockwise, so negative).
fn turn_written(text: &str) -> Option<i64> {
    let words: Vec<String> = text
        .split_whitespace()
        .map(|w| w.trim_end_matches(['°', ',', '.']).to_ascii_uppercase())
        .collect();
    if !words
        .first()
        .is_some_and(|w| ["TURN", "ROT", "ROTATE"].contains(&w.as_str()))
    {
        return None;
    }
    let degrees = words
        .iter()
        .find_map(|w| w.trim_end_matches("DEG").parse::<i64>().ok())?;
    let right = words
        .iter()
        .any(|w| ["RIGHT", "R", "CLOCKWISE", "STARBOARD"].contains(&w.as_str()));
    Some(if right { -degrees.abs() } else { degrees })
}

/// The section a move's `SWIVEL <section> <angle>` names.
fn swivel_written(text: &str) -> Option<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let at = words
        .iter()
        .position(|w| w.eq_ignore_ascii_case("SWIVEL"))?;
    words.get(at + 1).map(|w| (*w).to_string())
}

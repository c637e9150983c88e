//! Checking and pricing a design: the tree, the shapes, the limits and the points
//! (FOREVER-CORE-*, FOREVER-SEC-*, FOREVER-SWV-*, FOREVER-WPN-1, FOREVER-MOD-1,
//! FOREVER-MOD-THR-2, FOREVER-GM-04..11, FOREVER-GM-53).
//!
//! Every breach is reported, each with the rule it breaks, so a player can fix a design in one
//! go. A design with no breaches becomes a [`Hull`]: the tree with every derived figure (HP,
//! mass, cost, capacity) that the battle needs.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::{Design, Item, ModuleSpec, Points, WeaponKind};
use crate::fixed::show_hundredths;
use crate::geometry::Point;

/// One breach of the building rules, or one unreadable line of a design.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DesignIssue {
    /// The design line (1-based, within the text given), when it is known.
    pub line: Option<usize>,
    /// The rule broken: a catalogue ID such as `FOREVER-SEC-4`.
    pub rule: String,
    pub message: String,
}

impl DesignIssue {
    pub fn new(rule: &str, message: impl Into<String>) -> Self {
        DesignIssue {
            line: None,
            rule: rule.to_string(),
            message: message.into(),
        }
    }

    pub fn at_line(mut self, line: usize) -> Self {
        self.line = Some(line);
        self
    }
}

impl fmt::Display for DesignIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        write!(f, "{} ({})", self.message, self.rule)
    }
}

/// The core (index 0) or a section of a checked design, with its derived figures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Part {
    pub name: String,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    /// Parent links to the core: the core 0, its children 1 (FOREVER-GM-05).
    pub depth: u32,
    /// Ship-local rectangle `[x0, y0, x1, y1]` in hundredths.
    pub rect: [i64; 4],
    /// Area in sixteenths of a square inch.
    pub area16: i64,
    /// Sections below it (FOREVER-DEF-ANCESTOR).
    pub descendants: u32,
    /// Base HP: 5 + descendants for the core (FOREVER-CORE-6), 1 + descendants for a section
    /// (FOREVER-SEC-5).
    pub base_hp: i64,
    /// Base plus bought, the core capped at 10 (FOREVER-CORE-8, FOREVER-GM-07).
    pub max_hp: i64,
    pub extra_hp: u32,
    /// Mass in sixteenths (FOREVER-CORE-9, FOREVER-SEC-7, FOREVER-GM-11).
    pub mass16: i64,
    /// Items it may hold: children, weapons and modules (FOREVER-SEC-2, FOREVER-GM-06).
    pub capacity: u32,
    /// The swivel joint to its parent, if any: its pivot in ship-local hundredths, the
    /// midpoint of the shared edge (FOREVER-GM-04).
    pub swivel: Option<Point>,
    /// The part's own price: core or section, bought HP, swivel joint.
    pub structure_cost: Points,
    /// Indices into [`Hull::items`] of what is mounted here.
    pub items: Vec<usize>,
}

impl Part {
    pub fn is_core(&self) -> bool {
        self.parent.is_none()
    }

    pub fn centre(&self) -> Point {
        let [x0, y0, x1, y1] = self.rect;
        Point::new((x0 + x1) / 2, (y0 + y1) / 2)
    }
}

/// A weapon or module of a checked design, with the name orders use for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ItemSlot {
    pub part: usize,
    /// `S1`, `S1/2` or the label the player gave it.
    pub name: String,
    pub item: Item,
    pub cost: Points,
}

/// A design that breaks no building rule, with all its derived figures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hull {
    pub name: String,
    /// Index 0 is the core; sections follow in the order written.
    pub parts: Vec<Part>,
    pub items: Vec<ItemSlot>,
}

/// The largest core HP (FOREVER-CORE-8).
pub const CORE_MAX_HP: i64 = 10;
/// The most mass outboard of a swivel joint, in sixteenths (FOREVER-SWV-3).
pub const SWIVEL_MASS_LIMIT16: i64 = 50 * 16;
/// The top speed in hundredths (FOREVER-MOD-THR-6).
pub const MAX_SPEED: i64 = 2000;

impl Hull {
    /// Checks and prices a design; `Ok` only if it breaks no rule.
    pub fn check(design: &Design) -> Result<Hull, Vec<DesignIssue>> {
        match Hull::build(design) {
            (Some(hull), issues) if issues.is_empty() => Ok(hull),
            (_, issues) => Err(issues),
        }
    }

    /// Prices a design as far as its shape allows, and lists every breach. The hull is `None`
    /// only if the tree itself is broken (an unknown parent, a loop, a repeated name).
    pub fn build(design: &Design) -> (Option<Hull>, Vec<DesignIssue>) {
        let mut issues = Vec::new();
        let Some(mut parts) = tree(design, &mut issues) else {
            return (None, issues);
        };
        shapes(design, &mut parts, &mut issues);
        if issues.iter().all(|i| i.rule != "FOREVER-DEF-PARENT") {
            geometric_parents(&parts, &mut issues);
        }
        let items = mounts(design, &mut parts, &mut issues);
        let mut hull = Hull {
            name: design.name.clone(),
            parts,
            items,
        };
        hull.derive(design, &mut issues);
        hull.limits(&mut issues);
        (Some(hull), issues)
    }

    /// HP, mass and cost of every part.
    fn derive(&mut self, design: &Design, issues: &mut Vec<DesignIssue>) {
        let count = self.parts.len();
        for index in (0..count).rev() {
            let descendants: u32 = self
                .parts
                .get(index)
                .map(|p| p.children.clone())
                .unwrap_or_default()
                .iter()
                .filter_map(|c| self.parts.get(*c))
                .map(|c| c.descendants + 1)
                .sum();
            if let Some(part) = self.parts.get_mut(index) {
                part.descendants = descendants;
            }
        }
        for (index, part) in self.parts.iter_mut().enumerate() {
            let extra = i64::from(part.extra_hp);
            if index == 0 {
                part.base_hp = 5 + i64::from(part.descendants);
                let wanted = part.base_hp + extra;
                if extra > 0 && wanted > CORE_MAX_HP {
                    issues.push(DesignIssue::new(
                        "FOREVER-CORE-8",
                        format!(
                            "the core already has {} HP from its {} sections; buying {} more would pass the cap of {CORE_MAX_HP} (FOREVER-GM-07)",
                            part.base_hp.min(CORE_MAX_HP),
                            part.descendants,
                            extra
                        ),
                    ));
                }
                part.max_hp = wanted.min(CORE_MAX_HP);
                part.mass16 = 16 * (20 + 2 * part.max_hp);
                part.structure_cost = Points::whole(5 + 2 * extra);
            } else {
                part.base_hp = 1 + i64::from(part.descendants);
                part.max_hp = part.base_hp + extra;
                part.mass16 = 5 * part.area16 + 16 * part.max_hp;
                let swivel = if part.swivel.is_some() { 4 } else { 0 };
                part.structure_cost = Points(4 + 2 * i64::from(part.depth) + 4 * extra + swivel);
            }
        }
        if design.sections.is_empty() {
            issues.push(DesignIssue::new(
                "FOREVER-GM-35",
                "a design needs at least one section: a core with no children is destroyed at once",
            ));
        }
    }

    /// The limits that depend on derived figures.
    fn limits(&self, issues: &mut Vec<DesignIssue>) {
        for (index, part) in self.parts.iter().enumerate() {
            let weapons_and_modules = part.items.len();
            let modules = part
                .items
                .iter()
                .filter_map(|i| self.items.get(*i))
                .filter(|slot| matches!(slot.item, Item::Module(_)))
                .count();
            if index == 0 {
                if part.children.len() > 4 {
                    issues.push(DesignIssue::new(
                        "FOREVER-CORE-3",
                        format!(
                            "the core parents {} sections; it may parent at most 4",
                            part.children.len()
                        ),
                    ));
                }
                if weapons_and_modules > 1 {
                    issues.push(DesignIssue::new(
                        "FOREVER-CORE-4",
                        format!(
                            "the core holds {weapons_and_modules} items; it may hold one weapon or one thruster (FOREVER-GM-08)"
                        ),
                    ));
                }
                for slot in part.items.iter().filter_map(|i| self.items.get(*i)) {
                    let allowed = matches!(
                        slot.item,
                        Item::Weapon(_) | Item::Module(ModuleSpec::Thruster { .. })
                    );
                    if !allowed {
                        issues.push(DesignIssue::new(
                            "FOREVER-CORE-4",
                            format!(
                                "the core may hold only a weapon or a thruster, not a {} (FOREVER-GM-08)",
                                slot.item.word()
                            ),
                        ));
                    } else if slot.cost > Points::whole(5) {
                        issues.push(DesignIssue::new(
                            "FOREVER-CORE-4",
                            format!(
                                "the core's {} costs {}; what the core holds may cost at most 5 (FOREVER-GM-08)",
                                slot.item.word(),
                                slot.cost
                            ),
                        ));
                    }
                }
                continue;
            }
            let used = part.children.len() + weapons_and_modules;
            if used > part.capacity as usize {
                issues.push(DesignIssue::new(
                    "FOREVER-SEC-2",
                    format!(
                        "{} holds {used} items (sections, weapons, modules) but has room for {} (1 + whole square inches, FOREVER-GM-06)",
                        part.name, part.capacity
                    ),
                ));
            }
            if modules > 1 {
                issues.push(DesignIssue::new(
                    "FOREVER-MOD-1",
                    format!(
                        "{} holds {modules} modules; a section may hold one",
                        part.name
                    ),
                ));
            }
            for slot in part.items.iter().filter_map(|i| self.items.get(*i)) {
                match slot.item {
                    Item::Module(ModuleSpec::Thruster { .. }) if !part.children.is_empty() => {
                        issues.push(DesignIssue::new(
                            "FOREVER-MOD-THR-2",
                            format!(
                                "the thruster on {} is not on an outermost section: {} has child sections (FOREVER-GM-09)",
                                part.name, part.name
                            ),
                        ));
                    }
                    Item::Weapon(weapon) => {
                        let cap = Points::whole(15 + i64::from(part.depth));
                        if weapon.cost() > cap {
                            issues.push(DesignIssue::new(
                                "FOREVER-WPN-1",
                                format!(
                                    "the {} on {} costs {}; at distance {} a weapon may cost at most {cap}",
                                    weapon.kind.word(),
                                    part.name,
                                    weapon.cost(),
                                    part.depth
                                ),
                            ));
                        }
                    }
                    Item::Module(ModuleSpec::DemeterLauncher { speed_steps, .. })
                        if speed_steps > 8 =>
                    {
                        issues.push(DesignIssue::new(
                            "FOREVER-MOD-DL-7",
                            "a demeter's speed may be at most 30\"",
                        ));
                    }
                    _ => {}
                }
            }
            if part.swivel.is_some() {
                let outboard = self
                    .subtree(index)
                    .iter()
                    .filter_map(|i| self.parts.get(*i))
                    .map(|p| p.mass16)
                    .sum::<i64>();
                if outboard > SWIVEL_MASS_LIMIT16 {
                    issues.push(DesignIssue::new(
                        "FOREVER-SWV-3",
                        format!(
                            "{} mass lies outboard of the swivel joint at {}; the limit is 50 (FOREVER-GM-53)",
                            show_mass(outboard),
                            part.name
                        ),
                    ));
                }
            }
        }
    }

    /// `index` and every part below it, parents before children.
    pub fn subtree(&self, index: usize) -> Vec<usize> {
        let mut out = vec![index];
        let mut cursor = 0;
        while let Some(&current) = out.get(cursor) {
            if let Some(part) = self.parts.get(current) {
                out.extend(part.children.iter().copied());
            }
            cursor += 1;
        }
        out
    }

    /// The parts above `index`, nearest first (FOREVER-DEF-ANCESTOR).
    pub fn ancestors(&self, index: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut current = self.parts.get(index).and_then(|p| p.parent);
        while let Some(parent) = current {
            out.push(parent);
            current = self.parts.get(parent).and_then(|p| p.parent);
        }
        out
    }

    /// The ship's price (FOREVER-GEN-2).
    pub fn cost(&self) -> Points {
        self.parts.iter().map(|p| p.structure_cost).sum::<Points>()
            + self.items.iter().map(|i| i.cost).sum::<Points>()
    }

    /// What destroying this part scores: its own price and everything mounted on it
    /// (FOREVER-GM-43).
    pub fn part_value(&self, index: usize) -> Points {
        self.parts.get(index).map_or(Points::ZERO, |part| {
            part.structure_cost
                + part
                    .items
                    .iter()
                    .filter_map(|i| self.items.get(*i))
                    .map(|slot| slot.cost)
                    .sum::<Points>()
        })
    }

    /// Mass in sixteenths (FOREVER-GM-11).
    pub fn mass16(&self) -> i64 {
        self.parts.iter().map(|p| p.mass16).sum()
    }

    /// Total thrust of every thruster (FOREVER-MOD-THR-3/4).
    pub fn thrust(&self) -> i64 {
        self.items
            .iter()
            .map(|slot| match slot.item {
                Item::Module(module) => module.thrust(),
                Item::Weapon(_) => 0,
            })
            .sum()
    }

    /// Speed in hundredths at full strength (FOREVER-MOD-THR-5/6).
    pub fn speed(&self) -> i64 {
        speed(self.thrust(), self.mass16())
    }

    pub fn part_index(&self, name: &str) -> Option<usize> {
        self.parts
            .iter()
            .position(|p| p.name.eq_ignore_ascii_case(name))
    }

    /// The cost sheet: one line per part, weapons and modules indented, then the totals.
    pub fn cost_sheet(&self) -> Vec<String> {
        let mut lines = vec![format!(
            "{}: {} points, mass {}, thrust {}, speed {}\"",
            self.name,
            self.cost(),
            show_mass(self.mass16()),
            self.thrust(),
            show_hundredths(self.speed())
        )];
        for part in &self.parts {
            let what = if part.is_core() {
                format!(
                    "core: {} HP, mass {}, cost {}",
                    part.max_hp,
                    show_mass(part.mass16),
                    part.structure_cost
                )
            } else {
                format!(
                    "{} (distance {}{}): {} HP, mass {}, cost {}",
                    part.name,
                    part.depth,
                    if part.swivel.is_some() {
                        ", swivel"
                    } else {
                        ""
                    },
                    part.max_hp,
                    show_mass(part.mass16),
                    part.structure_cost
                )
            };
            lines.push(format!("  {what}"));
            for slot in part.items.iter().filter_map(|i| self.items.get(*i)) {
                let description = match &slot.item {
                    Item::Weapon(weapon) => weapon.describe(),
                    Item::Module(module) => module.word().to_string(),
                };
                lines.push(format!(
                    "    {}: {description}, cost {}",
                    slot.name, slot.cost
                ));
            }
        }
        lines
    }
}

/// Speed in hundredths: 12" × thrust ÷ mass, rounded down, at most 20" (FOREVER-MOD-THR-5/6,
/// FOREVER-GM-03, FOREVER-GM-11).
pub fn speed(thrust: i64, mass16: i64) -> i64 {
    if thrust <= 0 || mass16 <= 0 {
        return 0;
    }
    (12 * 100 * 16 * thrust / mass16).min(MAX_SPEED)
}

/// A mass in sixteenths as a decimal (`65`, `3.75`).
pub fn show_mass(mass16: i64) -> String {
    let whole = mass16 / 16;
    let rest = mass16 % 16;
    if rest == 0 {
        whole.to_string()
    } else {
        // Sixteenths are exact in four decimals.
        let decimals = rest * 10_000 / 16;
        let text = format!("{whole}.{decimals:04}");
        text.trim_end_matches('0').to_string()
    }
}

/// The tree: names, parents, depth. `None` if it cannot be built.
fn tree(design: &Design, issues: &mut Vec<DesignIssue>) -> Option<Vec<Part>> {
    let mut index_of: BTreeMap<String, usize> = BTreeMap::new();
    index_of.insert("CORE".to_string(), 0);
    let mut broken = false;
    for (position, section) in design.sections.iter().enumerate() {
        let key = section.name.to_ascii_uppercase();
        if index_of.insert(key, position + 1).is_some() {
            issues.push(DesignIssue::new(
                "FOREVER-SEC-3",
                format!(
                    "two parts are named {}: every section needs its own name",
                    section.name
                ),
            ));
            broken = true;
        }
    }
    let mut parents = vec![None];
    for section in &design.sections {
        match index_of.get(&section.parent.to_ascii_uppercase()) {
            Some(parent) => parents.push(Some(*parent)),
            None => {
                issues.push(DesignIssue::new(
                    "FOREVER-SEC-3",
                    format!(
                        "{}'s parent {} is not a section of this ship",
                        section.name, section.parent
                    ),
                ));
                parents.push(None);
                broken = true;
            }
        }
    }
    if broken {
        return None;
    }
    // Depth by walking up; a walk longer than the ship is a loop.
    let count = parents.len();
    let mut depths = vec![0u32; count];
    for (index, depth) in depths.iter_mut().enumerate().skip(1) {
        let mut steps = 0u32;
        let mut current = index;
        loop {
            match parents.get(current).copied().flatten() {
                Some(0) => {
                    steps += 1;
                    break;
                }
                Some(parent) if (steps as usize) < count => {
                    steps += 1;
                    current = parent;
                }
                _ => {
                    let name = design
                        .sections
                        .get(index - 1)
                        .map_or("?", |s| s.name.as_str());
                    issues.push(DesignIssue::new(
                        "FOREVER-SEC-3",
                        format!("{name} is not connected to the core: its parents form a loop"),
                    ));
                    return None;
                }
            }
        }
        *depth = steps;
    }
    let mut parts: Vec<Part> = Vec::with_capacity(count);
    parts.push(blank_part("core", None, 0));
    for ((section, parent), depth) in design
        .sections
        .iter()
        .zip(parents.iter().skip(1))
        .zip(depths.iter().skip(1))
    {
        parts.push(blank_part(&section.name, *parent, *depth));
    }
    for index in 1..count {
        if let Some(parent) = parents.get(index).copied().flatten()
            && let Some(parent) = parts.get_mut(parent)
        {
            parent.children.push(index);
        }
    }
    Some(parts)
}

fn blank_part(name: &str, parent: Option<usize>, depth: u32) -> Part {
    Part {
        name: name.to_string(),
        parent,
        children: Vec::new(),
        depth,
        rect: [-100, -50, 100, 50],
        area16: 32,
        descendants: 0,
        base_hp: 0,
        max_hp: 0,
        extra_hp: 0,
        mass16: 0,
        capacity: 0,
        swivel: None,
        structure_cost: Points::ZERO,
        items: Vec::new(),
    }
}

/// Sizes, positions, touching parents, no overlaps (FOREVER-SEC-4, FOREVER-CORE-5,
/// FOREVER-GM-04, FOREVER-DEF-PARENT).
fn shapes(design: &Design, parts: &mut [Part], issues: &mut Vec<DesignIssue>) {
    // The core lies along the ship's x axis (FOREVER-GM-04): `SIZE 1x2` would be a core
    // standing on end, which the engine would not draw, so it is refused, not ignored.
    if let Some(size) = design.core.size
        && size != (2000, 1000)
    {
        issues.push(DesignIssue::new(
            "FOREVER-CORE-5",
            if size == (1000, 2000) {
                "the core always lies along the ship's x axis, 2\" long and 1\" wide: write CORE SIZE 2x1 or leave SIZE out, and turn the ship with FACING"
            } else {
                "the core is always 2\" by 1\": write CORE SIZE 2x1 or leave SIZE out"
            },
        ));
    }
    if let Some(core) = parts.first_mut() {
        core.extra_hp = design.core.extra_hp;
    }
    for (position, section) in design.sections.iter().enumerate() {
        let Some(part) = parts.get_mut(position + 1) else {
            continue;
        };
        part.extra_hp = section.extra_hp;
        if ![0, 90, 180, 270].contains(&section.rot) {
            issues.push(DesignIssue::new(
                "FOREVER-GM-04",
                format!(
                    "{} is turned {}°; sections turn only 0, 90, 180 or 270",
                    section.name, section.rot
                ),
            ));
        }
        let (w, h) = section.extent();
        if w % 250 != 0 || h % 250 != 0 {
            issues.push(DesignIssue::new(
                "FOREVER-GM-04",
                format!("{}'s sides must be whole quarter inches", section.name),
            ));
        }
        if w < 500 || h < 500 {
            issues.push(DesignIssue::new(
                "FOREVER-SEC-4",
                format!("{} has a side under 1/2\"", section.name),
            ));
        }
        if w * h > 2_000_000 {
            issues.push(DesignIssue::new(
                "FOREVER-SEC-4",
                format!(
                    "{} covers {} square inches; a section may cover at most 2",
                    section.name,
                    show_area(w * h)
                ),
            ));
        }
        let (cx, cy) = section.at;
        let edges = [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2];
        if w % 2 != 0 || h % 2 != 0 || edges.iter().any(|e| e % 10 != 0) {
            issues.push(DesignIssue::new(
                "FOREVER-GM-03",
                format!(
                    "{}'s edges must fall on whole hundredths of an inch; move its centre",
                    section.name
                ),
            ));
        }
        part.rect = edges.map(|e| e / 10);
        // Sixteenths of a square inch: quarter-inch sides give whole sixteenths.
        part.area16 = (w / 250) * (h / 250);
        part.capacity = 1 + u32::try_from(part.area16 / 16).unwrap_or(0);
    }
    // Each section shares at least 1/4" of edge with its parent; none overlap.
    for index in 1..parts.len() {
        let Some(part) = parts.get(index) else {
            continue;
        };
        let Some(parent) = part.parent.and_then(|p| parts.get(p)) else {
            continue;
        };
        let pivot = shared_edge(part.rect, parent.rect);
        let name = part.name.clone();
        let parent_name = parent.name.clone();
        let swivel = design.sections.get(index - 1).is_some_and(|s| s.swivel);
        match pivot {
            Some(pivot) => {
                if let Some(part) = parts.get_mut(index)
                    && swivel
                {
                    part.swivel = Some(pivot);
                }
            }
            None => issues.push(DesignIssue::new(
                "FOREVER-DEF-PARENT",
                format!(
                    "{name} must touch its parent {parent_name} along at least 1/4\" of edge (FOREVER-GM-04)"
                ),
            )),
        }
    }
    for first in 0..parts.len() {
        for second in first + 1..parts.len() {
            let (Some(a), Some(b)) = (parts.get(first), parts.get(second)) else {
                continue;
            };
            let [ax0, ay0, ax1, ay1] = a.rect;
            let [bx0, by0, bx1, by1] = b.rect;
            if ax0 < bx1 && bx0 < ax1 && ay0 < by1 && by0 < ay1 {
                issues.push(DesignIssue::new(
                    "FOREVER-GM-04",
                    format!("{} and {} overlap", a.name, b.name),
                ));
            }
        }
    }
}

/// Parenthood follows the shape, not the word `PARENT` (FOREVER-DEF-PARENT): a section's
/// parent is the section it touches (along at least 1/4" of edge, FOREVER-GM-04) that is
/// closer to the core, counted in sections (FOREVER-GM-05), and it has only one
/// (FOREVER-SEC-3). So the declared parent must be the one such section; otherwise a section
/// touching the core could be hung further out for a higher weapon cap, or the core could
/// touch more than four sections (FOREVER-CORE-3).
fn geometric_parents(parts: &[Part], issues: &mut Vec<DesignIssue>) {
    let count = parts.len();
    let touching = |a: usize, b: usize| match (parts.get(a), parts.get(b)) {
        (Some(a), Some(b)) => shared_edge(a.rect, b.rect).is_some(),
        _ => false,
    };
    // Fewest sections from the core through touching edges.
    let mut distance: Vec<Option<u32>> = vec![None; count];
    if let Some(core) = distance.first_mut() {
        *core = Some(0);
    }
    let mut frontier = vec![0usize];
    let mut step = 0u32;
    while !frontier.is_empty() {
        step += 1;
        let mut next = Vec::new();
        for from in &frontier {
            for to in 0..count {
                if distance.get(to).copied().flatten().is_none() && touching(*from, to) {
                    if let Some(d) = distance.get_mut(to) {
                        *d = Some(step);
                    }
                    next.push(to);
                }
            }
        }
        frontier = next;
    }
    let name = |index: usize| {
        parts.get(index).map_or(String::new(), |p| {
            if index == 0 {
                "the core".to_string()
            } else {
                p.name.clone()
            }
        })
    };
    for (index, part) in parts.iter().enumerate().skip(1) {
        let Some(own) = distance.get(index).copied().flatten() else {
            continue;
        };
        let closer: Vec<usize> = (0..count)
            .filter(|other| {
                *other != index
                    && touching(index, *other)
                    && distance.get(*other).copied().flatten() == Some(own - 1)
            })
            .collect();
        match closer.as_slice() {
            [only] if Some(*only) == part.parent => {}
            [only] => issues.push(DesignIssue::new(
                "FOREVER-DEF-PARENT",
                format!(
                    "{} touches {}, which is closer to the core, so {} is its parent: write PARENT {}",
                    part.name,
                    name(*only),
                    name(*only),
                    if *only == 0 {
                        "CORE".to_string()
                    } else {
                        name(*only)
                    }
                ),
            )),
            [] => {}
            several => {
                let names: Vec<String> = several.iter().map(|i| name(*i)).collect();
                issues.push(DesignIssue::new(
                    "FOREVER-SEC-3",
                    format!(
                        "{} touches {}, all {} section{} from the core, so it would have {} parents; a section has only one: move it so it touches only one of them",
                        part.name,
                        names.join(" and "),
                        own - 1,
                        if own - 1 == 1 { "" } else { "s" },
                        several.len()
                    ),
                ));
            }
        }
    }
}

/// The midpoint of the edge two rectangles share, if at least 1/4" long.
fn shared_edge(a: [i64; 4], b: [i64; 4]) -> Option<Point> {
    let [ax0, ay0, ax1, ay1] = a;
    let [bx0, by0, bx1, by1] = b;
    let overlap = |lo1: i64, hi1: i64, lo2: i64, hi2: i64| (lo1.max(lo2), hi1.min(hi2));
    if ax1 == bx0 || ax0 == bx1 {
        let x = if ax1 == bx0 { ax1 } else { ax0 };
        let (lo, hi) = overlap(ay0, ay1, by0, by1);
        if hi - lo >= 25 {
            return Some(Point::new(x, (lo + hi) / 2));
        }
    }
    if ay1 == by0 || ay0 == by1 {
        let y = if ay1 == by0 { ay1 } else { ay0 };
        let (lo, hi) = overlap(ax0, ax1, bx0, bx1);
        if hi - lo >= 25 {
            return Some(Point::new((lo + hi) / 2, y));
        }
    }
    None
}

fn show_area(thousandths2: i64) -> String {
    // Square thousandths to square inches with two decimals.
    show_hundredths(thousandths2 / 10_000)
}

/// Names every weapon and module, and checks the labels.
fn mounts(design: &Design, parts: &mut [Part], issues: &mut Vec<DesignIssue>) -> Vec<ItemSlot> {
    let mut items = Vec::new();
    let all = std::iter::once(("core".to_string(), &design.core.mounts))
        .chain(design.sections.iter().map(|s| (s.name.clone(), &s.mounts)));
    let mut taken: BTreeMap<String, ()> = parts
        .iter()
        .map(|p| (p.name.to_ascii_uppercase(), ()))
        .collect();
    for (index, (part_name, mounts)) in all.enumerate() {
        let weapons = mounts
            .iter()
            .filter(|m| matches!(m.item, Item::Weapon(_)))
            .count();
        let mut weapon_number = 0;
        for mount in mounts {
            let default_name = match mount.item {
                Item::Weapon(_) => {
                    weapon_number += 1;
                    if weapons > 1 {
                        format!("{part_name}/{weapon_number}")
                    } else {
                        part_name.clone()
                    }
                }
                Item::Module(_) => part_name.clone(),
            };
            let name = match &mount.label {
                Some(label) => {
                    if taken.insert(label.to_ascii_uppercase(), ()).is_some() {
                        issues.push(DesignIssue::new(
                            "FOREVER-GM-04",
                            format!("the name {label} is used twice on this ship"),
                        ));
                    }
                    label.clone()
                }
                None => default_name,
            };
            if let Some(part) = parts.get_mut(index) {
                part.items.push(items.len());
            }
            items.push(ItemSlot {
                part: index,
                name,
                item: mount.item,
                cost: mount.item.cost(),
            });
        }
    }
    items
}

impl Hull {
    /// Finds a weapon by the name orders use: its label, its section's name (if the section
    /// has one weapon) or `S1/2`.
    pub fn weapon(&self, name: &str) -> Option<usize> {
        self.find(name, |item| matches!(item, Item::Weapon(_)))
    }

    /// Finds a module of one kind by name: its label or its section's name.
    pub fn module(&self, name: &str, wanted: fn(&ModuleSpec) -> bool) -> Option<usize> {
        self.find(name, |item| match item {
            Item::Module(module) => wanted(module),
            Item::Weapon(_) => false,
        })
    }

    fn find(&self, name: &str, wanted: impl Fn(&Item) -> bool) -> Option<usize> {
        let by_name = self
            .items
            .iter()
            .position(|slot| slot.name.eq_ignore_ascii_case(name) && wanted(&slot.item));
        if by_name.is_some() {
            return by_name;
        }
        // `S1` for a section whose only item of this class is labelled.
        let part = self.part_index(name)?;
        let matching: Vec<usize> = self
            .parts
            .get(part)?
            .items
            .iter()
            .copied()
            .filter(|i| self.items.get(*i).is_some_and(|slot| wanted(&slot.item)))
            .collect();
        match matching.as_slice() {
            [only] => Some(*only),
            _ => None,
        }
    }

    /// Is the weapon at `index` of this kind?
    pub fn weapon_kind(&self, index: usize) -> Option<WeaponKind> {
        match self.items.get(index)?.item {
            Item::Weapon(weapon) => Some(weapon.kind),
            Item::Module(_) => None,
        }
    }
}

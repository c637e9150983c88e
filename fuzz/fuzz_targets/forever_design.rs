//! The forever engine's ship-design parser (`forever::design::Design::parse`) and pricer
//! (`Hull::build`).
//!
//! Properties besides "no panic":
//! - a design that parses is written back (`Design::to_text`, its canonical form, which is also
//!   how it is stored as JSON) to a text that parses to the same design, and the canonical text
//!   is a fixed point;
//! - pricing is deterministic, and a design priced without breaches gives a hull whose figures
//!   (cost, mass, speed, cost sheet) can all be computed and which survives its JSON form;
//! - every issue reported on a line names a line of the text.
#![no_main]

use forever::design::{Design, Hull};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let line_count = text.lines().count().max(1);
    let design = match Design::parse(text) {
        Ok(design) => design,
        Err(issues) => {
            assert!(!issues.is_empty(), "a refused design says why");
            for issue in &issues {
                if let Some(line) = issue.line {
                    assert!(
                        (1..=line_count).contains(&line),
                        "issue on line {line} of a text of {line_count} lines: {issue}"
                    );
                }
            }
            return;
        }
    };

    let canonical = design.to_text();
    let reread = Design::parse(&canonical)
        .unwrap_or_else(|issues| panic!("the canonical text {canonical:?} is refused: {issues:?}"));
    assert_eq!(
        reread, design,
        "the canonical text {canonical:?} reads as another design"
    );
    assert_eq!(
        reread.to_text(),
        canonical,
        "the canonical text is not a fixed point"
    );
    let json = serde_json::to_string(&design).unwrap();
    let from_json: Design = serde_json::from_str(&json).unwrap();
    assert_eq!(from_json, design, "the design changes through JSON");

    let (hull, issues) = Hull::build(&design);
    let (hull_again, issues_again) = Hull::build(&design);
    assert_eq!(hull, hull_again, "pricing is not deterministic");
    assert_eq!(issues, issues_again, "pricing is not deterministic");
    if let Some(hull) = hull {
        let _ = (
            hull.cost(),
            hull.mass16(),
            hull.thrust(),
            hull.speed(),
            hull.cost_sheet(),
        );
        if issues.is_empty() {
            let json = serde_json::to_string(&hull).unwrap();
            let back: Hull = serde_json::from_str(&json).unwrap();
            assert_eq!(back, hull, "the hull changes through JSON");
            assert!(
                hull.cost() > forever::design::Points::ZERO,
                "a valid hull costs something"
            );
        }
    }
});

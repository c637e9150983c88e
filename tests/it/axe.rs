//! The accessibility check of the browser tests (issue 27, item 10): axe-core, the npm
//! package, run in the page through the WebDriver session the test already holds, with the
//! WCAG 2.0, 2.1 and 2.2 A and AA rules and `target-size` (24×24 px) on.
//!
//! axe-core is installed by `./scripts/test` (`npm ci --prefix tools/axe`, the version and
//! its hash pinned by `tools/axe/package-lock.json`) into `tools/axe/node_modules/`, which git
//! ignores; `ADMIRALTY_AXE_JS` names another copy of `axe.min.js`.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::OnceLock;

use anyhow::{Context, anyhow};
use fantoccini::Client;

/// The axe-core tags run: WCAG 2.0, 2.1 and 2.2, levels A and AA.
pub const WCAG_TAGS: [&str; 5] = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];

/// Where `./scripts/test` installs axe-core, unless `ADMIRALTY_AXE_JS` says otherwise.
fn axe_path() -> PathBuf {
    std::env::var_os("ADMIRALTY_AXE_JS").map_or_else(
        || {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../tools/axe/node_modules/axe-core/axe.min.js")
        },
        PathBuf::from,
    )
}

/// axe-core's source, read once; `None` (after saying so loudly) when it is not installed and
/// the browser is not required. With `ADMIRALTY_REQUIRE_BROWSER` set a missing axe fails.
pub fn axe_source() -> Option<&'static str> {
    static SOURCE: OnceLock<Option<String>> = OnceLock::new();
    SOURCE
        .get_or_init(|| {
            let path = axe_path();
            match std::fs::read_to_string(&path) {
                Ok(source) => Some(source),
                Err(error) => {
                    assert!(
                        std::env::var_os("ADMIRALTY_REQUIRE_BROWSER").is_none(),
                        "ADMIRALTY_REQUIRE_BROWSER is set but axe-core is not at {} ({error}): \
                         run `npm ci --prefix tools/axe` (./scripts/test does)",
                        path.display()
                    );
                    eprintln!(
                        "\n!!! SKIPPED: the accessibility check needs axe-core at {} \
                         (`npm ci --prefix tools/axe`; ./scripts/test does it). \
                         Nothing was checked for accessibility.\n",
                        path.display()
                    );
                    None
                }
            }
        })
        .as_deref()
}

/// Runs axe-core on the page and answers each node of each violation as a line for the test's
/// failure: `rule (impact) target on page: help`.
const RUN: &str = r"
const done = arguments[arguments.length - 1];
axe.run(document, {
  runOnly: { type: 'tag', values: arguments[0] },
  rules: { 'target-size': { enabled: true } },
  resultTypes: ['violations'],
}).then(
  (results) => done(results.violations.flatMap((v) =>
    v.nodes.map((n) => [v.id, n.impact || v.impact || '', JSON.stringify(n.target), v.help]))),
  (error) => done('axe failed: ' + error),
);
";

/// axe-core cannot tell the colours behind a background gradient, so the text of every table
/// in a scrolling box (whose edges fade and shadow, `admiralty.css`) would go unchecked: its
/// contrast is checked again with those gradients off (set through the CSSOM, which the
/// pages' CSP allows), as it reads when the box is at rest.
const CONTRAST_WITHOUT_SHADOWS: &str = r"
const done = arguments[arguments.length - 1];
const boxes = [...document.querySelectorAll('.table-wrap, .scroll')];
for (const box of boxes) box.style.backgroundImage = 'none';
const restore = () => { for (const box of boxes) box.style.backgroundImage = ''; };
axe.run(document, {
  runOnly: { type: 'rule', values: ['color-contrast'] },
  resultTypes: ['violations'],
}).then(
  (results) => { restore(); done(results.violations.flatMap((v) =>
    v.nodes.map((n) => [v.id, n.impact || v.impact || '', JSON.stringify(n.target), v.help]))); },
  (error) => { restore(); done('axe failed: ' + error); },
);
";

/// Every axe-core violation on the page open in `client`, one line each, naming `page`.
/// Empty when there are none (or when axe-core is not installed and need not be).
pub async fn violations(client: &Client, page: &str) -> anyhow::Result<Vec<String>> {
    let Some(source) = axe_source() else {
        return Ok(Vec::new());
    };
    let loaded = client
        .execute("return typeof window.axe === 'object';", vec![])
        .await?;
    if loaded.as_bool() != Some(true) {
        client
            .execute(source, vec![])
            .await
            .context("injecting axe-core")?;
    }
    let mut lines = BTreeSet::new();
    for script in [RUN, CONTRAST_WITHOUT_SHADOWS] {
        let found = client
            .execute_async(script, vec![serde_json::json!(WCAG_TAGS)])
            .await
            .context("running axe-core")?;
        if let Some(error) = found.as_str() {
            return Err(anyhow!("{page}: {error}"));
        }
        let nodes = found
            .as_array()
            .ok_or_else(|| anyhow!("{page}: axe-core answered {found}"))?;
        lines.extend(nodes.iter().map(|node| {
            let field = |i: usize| node[i].as_str().unwrap_or_default();
            format!(
                "{} ({}) {} on {page}: {}",
                field(0),
                field(1),
                field(2),
                field(3)
            )
        }));
    }
    Ok(lines.into_iter().collect())
}

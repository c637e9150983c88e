//! Rule-ID coverage. The project keeps the catalogue's IDs (IDs only: the catalogue's text stays
//! outside the repository) in `docs/rules/ids/<engine>.txt`, so the coverage check runs on any
//! clone, with or without the catalogue beside it:
//!
//! - every listed ID is cited by a test — written out whole (`FOREVER-EX-03`, so that `grep`
//!   finds the test) in a case's `rules`, or in a string literal of test code (a test file, or
//!   the `#[cfg(test)]` part of a source file), such as an assert message — or written down in
//!   `docs/rules/<engine>.md` as `<ID> not applicable`, `<ID> overruled`, or under the heading
//!   `## Not tested`. An ID in a comment (`//`, `/* */`, `///`, `//!`) is no citation: a
//!   comment can say a test checks a rule that it does not, and nothing would ever show it;
//!   an assert message is printed when the check fails, and a case's rules when the case
//!   does;
//! - every engine ruling `<PREFIX>-ADM-nn` in the docs is cited by a test, and every one the
//!   code cites is in the docs;
//! - when the catalogue can be found, the list equals the catalogue's IDs, so the list cannot
//!   drift from it.
//!
//! The catalogue is looked for in `$ADMIRALTY_RULES_DIR/<engine>.md` when that variable is set
//! (and must then be there), else in `shared/rules/<engine>.md` beside the checkout or beside
//! any directory above it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use serde_json::Value;

use crate::Rules;
use crate::table;

/// The environment variable naming the folder of catalogues; when set, the catalogue must be there.
pub const RULES_DIR_VAR: &str = "ADMIRALTY_RULES_DIR";

/// Is `text` one well-formed ID with this prefix: `PREFIX-` then dash-separated parts of
/// capitals and digits (`FOREVER-MOD-DEF-7`, `SKY-KW-LIFT`, `BARMY-01`)?
pub fn is_id(text: &str, prefix: &str) -> bool {
    let Some(rest) = text
        .strip_prefix(prefix)
        .and_then(|rest| rest.strip_prefix('-'))
    else {
        return false;
    };
    !rest.is_empty()
        && rest.split('-').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        })
}

/// The in-project list of rule IDs, in its order. Blank lines and lines starting with `#` are
/// skipped; anything else must be one ID, listed once.
pub fn listed_ids(rules: &Rules) -> Result<Vec<String>, String> {
    let path = rules.ids_path();
    let text = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "cannot read the rule-ID list {}: {e}; it lists the catalogue's IDs, one a line",
            path.display()
        )
    })?;
    let mut ids = Vec::new();
    let mut seen = BTreeSet::new();
    let mut problems = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if !is_id(line, rules.prefix) {
            problems.push(format!(
                "line {}: {line:?} is not a {}-… rule ID",
                number + 1,
                rules.prefix
            ));
        } else if !seen.insert(line.to_string()) {
            problems.push(format!("line {}: {line} is listed twice", number + 1));
        } else {
            ids.push(line.to_string());
        }
    }
    if ids.is_empty() {
        problems.push("the list has no IDs".into());
    }
    if problems.is_empty() {
        Ok(ids)
    } else {
        Err(format!("{}:\n{}", path.display(), problems.join("\n")))
    }
}

/// The IDs a catalogue defines: each bold `**PREFIX-…` (an entry's start), in order, once each.
/// `**FOREVER-GM-24/25 Energy**` defines `FOREVER-GM-24`.
pub fn catalogue_ids(text: &str, prefix: &str) -> Vec<String> {
    let opening = format!("**{prefix}-");
    let mut found = Vec::new();
    let mut seen = BTreeSet::new();
    for (start, _) in text.match_indices(&opening) {
        let rest = text.get(start + 2..).unwrap_or_default();
        let id: String = rest
            .chars()
            .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '-')
            .collect();
        let id = id.trim_end_matches('-').to_string();
        if is_id(&id, prefix) && seen.insert(id.clone()) {
            found.push(id);
        }
    }
    found
}

/// Where the catalogue is, or everywhere it was looked for.
#[derive(Debug)]
pub enum Catalogue {
    Found(PathBuf),
    Absent(Vec<PathBuf>),
}

/// Finds the engine's catalogue (see the module's documentation). An error when
/// `ADMIRALTY_RULES_DIR` is set and the catalogue is not in it.
pub fn find_catalogue(rules: &Rules) -> Result<Catalogue, String> {
    let file = format!("{}.md", rules.engine);
    if let Some(dir) = std::env::var_os(RULES_DIR_VAR) {
        let path = Path::new(&dir).join(&file);
        return if path.is_file() {
            Ok(Catalogue::Found(path))
        } else {
            Err(format!(
                "{RULES_DIR_VAR} is set but {} is not a file",
                path.display()
            ))
        };
    }
    let workspace = rules.workspace();
    let workspace = workspace.canonicalize().unwrap_or(workspace);
    let mut looked = Vec::new();
    for dir in workspace.ancestors().skip(1) {
        let path = dir.join("shared/rules").join(&file);
        if path.is_file() {
            return Ok(Catalogue::Found(path));
        }
        looked.push(path);
    }
    Ok(Catalogue::Absent(looked))
}

/// Does `text` cite `id` whole: not as part of a longer ID (`FOREVER-WPN-1` is not cited by
/// `FOREVER-WPN-10`, nor `FOREVER-WPN-GUN` by `FOREVER-WPN-GUN-1`, nor `SKY-EX-01` by
/// `XSKY-EX-01`)?
pub fn cites(text: &str, id: &str) -> bool {
    let part = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    text.match_indices(id).any(|(start, _)| {
        let before = text.get(..start).and_then(|t| t.chars().next_back());
        let after = text.get(start + id.len()..).unwrap_or_default();
        let mut next = after.chars();
        let longer = match next.next() {
            Some(c) if c.is_ascii_alphanumeric() => true,
            Some('-') => next.next().is_some_and(|c| c.is_ascii_alphanumeric()),
            _ => false,
        };
        !longer && !before.is_some_and(part)
    })
}

/// Every file under `dir` (recursively), sorted.
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// The string literals of Rust source, one a line, without comments: doc comments (which the
/// tokenizer turns into `#[doc = "…"]` attributes) are skipped, other attributes' arguments are
/// kept. With `from_cfg_test`, only the literals after the first `#[cfg(test)]`.
///
/// ```
/// use rulecases::coverage::{cites, rust_literals};
///
/// let test = r#"
///     /// BARMY-05: a shot at one's own ship. (A comment says; nothing checks it.)
///     #[test]
///     fn own_ship() {
///         assert_eq!(shoot(OWN), Miss, "BARMY-06: a hit on one's own ship scores nothing");
///     }
/// "#;
/// let cited = rust_literals(test, false).unwrap();
/// assert!(!cites(&cited, "BARMY-05"));
/// assert!(cites(&cited, "BARMY-06"));
/// ```
pub fn rust_literals(source: &str, from_cfg_test: bool) -> Result<String, String> {
    let stream = TokenStream::from_str(source).map_err(|e| format!("not Rust: {e:?}"))?;
    let mut out = String::new();
    let mut active = !from_cfg_test;
    literals(stream, &mut active, &mut out);
    Ok(out)
}

fn literals(stream: TokenStream, active: &mut bool, out: &mut String) {
    let mut tokens = stream.into_iter().peekable();
    while let Some(token) = tokens.next() {
        match token {
            TokenTree::Punct(punct) if punct.as_char() == '#' => {
                if matches!(tokens.peek(), Some(TokenTree::Punct(p)) if p.as_char() == '!') {
                    tokens.next();
                }
                let Some(TokenTree::Group(attribute)) = tokens.next_if(
                    |t| matches!(t, TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket),
                ) else {
                    continue;
                };
                let inner: Vec<TokenTree> = attribute.stream().into_iter().collect();
                match inner.as_slice() {
                    [TokenTree::Ident(doc), ..] if doc == "doc" => {}
                    [TokenTree::Ident(cfg), TokenTree::Group(test)]
                        if cfg == "cfg" && test.stream().to_string() == "test" =>
                    {
                        *active = true;
                    }
                    _ => literals(attribute.stream(), active, out),
                }
            }
            TokenTree::Group(group) => literals(group.stream(), active, out),
            TokenTree::Literal(literal) if *active => {
                out.push_str(&literal.to_string());
                out.push('\n');
            }
            _ => {}
        }
    }
}

/// The `rules` of every case in the case table, one case a line.
pub fn case_rules(rules: &Rules) -> Result<String, String> {
    let mut text = String::new();
    for path in table::case_files(&rules.cases_dir())? {
        let cases = table::read_cases(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        for case in cases {
            let ids = case.get("rules").and_then(Value::as_array);
            for id in ids.into_iter().flatten().filter_map(Value::as_str) {
                text.push_str(id);
                text.push(' ');
            }
            text.push('\n');
        }
    }
    Ok(text)
}

/// The text in which tests cite IDs: the `rules` of every case, and the string literals (not
/// the comments) of every `.rs` file under the crate's `tests/` and of the part of each source
/// file from its first `#[cfg(test)]` on.
pub fn citations(rules: &Rules) -> Result<String, String> {
    let crate_dir = Path::new(rules.crate_dir);
    let mut text = case_rules(rules)?;
    let read = |path: &Path| {
        std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    };
    let mut tests = Vec::new();
    files_under(&crate_dir.join("tests"), &mut tests);
    for path in tests
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
    {
        text.push_str(
            &rust_literals(&read(path)?, false).map_err(|e| format!("{}: {e}", path.display()))?,
        );
    }
    let mut sources = Vec::new();
    files_under(&crate_dir.join("src"), &mut sources);
    for path in sources
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
    {
        text.push_str(
            &rust_literals(&read(path)?, true).map_err(|e| format!("{}: {e}", path.display()))?,
        );
    }
    Ok(text)
}

/// The text of the source files (not the tests), comments included: the code cites the
/// rulings it implements in its comments.
fn source_text(rules: &Rules) -> Result<String, String> {
    let mut sources = Vec::new();
    files_under(&Path::new(rules.crate_dir).join("src"), &mut sources);
    let mut text = String::new();
    for path in sources {
        text.push_str(
            &std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?,
        );
        text.push('\n');
    }
    Ok(text)
}

/// Is `id` written down in the rulings document as needing no test: `<ID> not applicable`,
/// `<ID> overruled`, or cited in the `## Not tested` section?
pub fn excused(docs: &str, id: &str) -> bool {
    let phrase = docs.match_indices(id).any(|(start, _)| {
        let after = docs
            .get(start + id.len()..)
            .unwrap_or_default()
            .to_lowercase();
        after.starts_with(" not applicable") || after.starts_with(" overruled")
    });
    phrase || cites(not_tested_section(docs), id)
}

/// The `## Not tested` section of a rulings document (empty when there is none).
fn not_tested_section(docs: &str) -> &str {
    let Some(start) = docs.find("\n## Not tested") else {
        return "";
    };
    let section = docs.get(start + 1..).unwrap_or_default();
    let end = section
        .get(3..)
        .and_then(|rest| rest.find("\n## "))
        .map_or(section.len(), |at| at + 3);
    section.get(..end).unwrap_or(section)
}

/// The engine rulings (`<PREFIX>-ADM-nn`) cited in `text`.
pub fn engine_rulings(text: &str, prefix: &str) -> BTreeSet<String> {
    let opening = format!("{prefix}-ADM-");
    text.match_indices(&opening)
        .filter_map(|(start, _)| {
            let digits: String = text
                .get(start + opening.len()..)
                .unwrap_or_default()
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            (!digits.is_empty()).then(|| format!("{opening}{digits}"))
        })
        .collect()
}

/// The IDs a case may cite: the listed ones and the engine's own rulings in the docs.
pub fn known_ids(rules: &Rules) -> Result<BTreeSet<String>, String> {
    let mut known: BTreeSet<String> = listed_ids(rules)?.into_iter().collect();
    known.extend(engine_rulings(&docs(rules)?, rules.prefix));
    Ok(known)
}

/// The rulings document.
fn docs(rules: &Rules) -> Result<String, String> {
    std::fs::read_to_string(rules.docs_path())
        .map_err(|e| format!("cannot read {}: {e}", rules.docs_path().display()))
}

/// Every listed ID is cited by a test or excused in the docs; else the ones that are not.
pub fn check_every_listed_id_is_cited(rules: &Rules) -> Result<(), String> {
    let listed = listed_ids(rules)?;
    let tests = citations(rules)?;
    let docs = docs(rules)?;
    let missing: Vec<&String> = listed
        .iter()
        .filter(|id| !cites(&tests, id) && !excused(&docs, id))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{} of {} rule IDs in {} are cited by no test (write the ID out whole in a case's \
         rules, or in a string of the test that checks it, such as its assert message: a \
         comment is no citation) and not written down in {} as `<ID> not applicable`, \
         `<ID> overruled` or under `## Not tested`:\n{}",
        missing.len(),
        listed.len(),
        rules.ids_path().display(),
        rules.docs_path().display(),
        missing
            .iter()
            .map(|id| id.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    ))
}

/// The list equals the catalogue's IDs when the catalogue can be found; fails naming the IDs
/// missing from the list and those the catalogue no longer has. Without the catalogue there is
/// nothing to compare (the coverage itself was checked against the list), and it says so.
pub fn check_list_matches_catalogue(rules: &Rules) -> Result<(), String> {
    let listed: BTreeSet<String> = listed_ids(rules)?.into_iter().collect();
    let path = match find_catalogue(rules)? {
        Catalogue::Found(path) => path,
        Catalogue::Absent(looked) => {
            eprintln!(
                "note: no {} catalogue found (looked in {}); the ID list was not compared with \
                 it. Set {RULES_DIR_VAR} to the folder of catalogues to compare.",
                rules.engine,
                looked
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            return Ok(());
        }
    };
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let catalogue: BTreeSet<String> = catalogue_ids(&text, rules.prefix).into_iter().collect();
    if catalogue.is_empty() {
        return Err(format!(
            "no **{}-… IDs found in {}",
            rules.prefix,
            path.display()
        ));
    }
    let missing: Vec<&String> = catalogue.difference(&listed).collect();
    let extra: Vec<&String> = listed.difference(&catalogue).collect();
    if missing.is_empty() && extra.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{} has drifted from the catalogue {}:\nin the catalogue but not listed: {missing:?}\n\
         listed but not in the catalogue: {extra:?}",
        rules.ids_path().display(),
        path.display()
    ))
}

/// Every engine ruling in the docs is cited by a test, and every one the code cites is in the
/// docs.
pub fn check_every_engine_ruling_is_cited(rules: &Rules) -> Result<(), String> {
    let docs = docs(rules)?;
    let rulings = engine_rulings(&docs, rules.prefix);
    if rulings.is_empty() {
        return Err(format!(
            "{} has no engine rulings ({}-ADM-nn)",
            rules.docs_path().display(),
            rules.prefix
        ));
    }
    let tests = citations(rules)?;
    let untested: Vec<&String> = rulings.iter().filter(|id| !cites(&tests, id)).collect();
    if !untested.is_empty() {
        return Err(format!(
            "engine rulings in {} cited by no test (a comment is no citation): {untested:?}",
            rules.docs_path().display()
        ));
    }
    let in_code = engine_rulings(&source_text(rules)?, rules.prefix);
    let undocumented: Vec<&String> = in_code.difference(&rulings).collect();
    if !undocumented.is_empty() {
        return Err(format!(
            "engine rulings the code cites but {} does not write down: {undocumented:?}",
            rules.docs_path().display()
        ));
    }
    Ok(())
}

/// Every `<PREFIX>-GM-nn` ruling the list has is answered on a line of the rulings document
/// that says it is followed, adapted or overruled, and there are `count` of them.
pub fn check_every_gm_ruling_is_answered(rules: &Rules, count: usize) -> Result<(), String> {
    let docs = docs(rules)?;
    let opening = format!("{}-GM-", rules.prefix);
    let listed = listed_ids(rules)?;
    let rulings: Vec<&String> = listed
        .iter()
        .filter(|id| id.starts_with(&opening))
        .collect();
    if rulings.len() != count {
        return Err(format!(
            "{} lists {} GM rulings, wanted the catalogue's {count}",
            rules.ids_path().display(),
            rulings.len()
        ));
    }
    let unanswered: Vec<&&String> = rulings
        .iter()
        .filter(|id| {
            !docs.lines().any(|line| {
                let lower = line.to_lowercase();
                cites(line, id)
                    && ["followed", "overruled", "adapted"]
                        .iter()
                        .any(|word| lower.contains(word))
            })
        })
        .collect();
    if unanswered.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "say followed, adapted or overruled in {} on the line of: {unanswered:?}",
            rules.docs_path().display()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_reader_finds_whole_ids() {
        let ids = catalogue_ids(
            "1. **FOREVER-MOD-DL-10** — x\n**FOREVER-GM-24/25 Energy** **FOREVER-DEF-PARENT** — \
             y **FOREVER-MOD-DL-10** again; FOREVER-EX-01 is not bold; **FOREVER-** is no ID",
            "FOREVER",
        );
        assert_eq!(
            ids,
            vec!["FOREVER-MOD-DL-10", "FOREVER-GM-24", "FOREVER-DEF-PARENT"]
        );
    }

    #[test]
    fn a_citation_is_the_whole_id() {
        assert!(cites("see FOREVER-WPN-1.", "FOREVER-WPN-1"));
        assert!(cites("\"SKY-EX-03\",", "SKY-EX-03"));
        assert!(cites("BARMY-GM-01/02", "BARMY-GM-01"));
        assert!(!cites("see FOREVER-WPN-10", "FOREVER-WPN-1"));
        assert!(!cites("FOREVER-WPN-GUN-1", "FOREVER-WPN-GUN"));
        assert!(!cites("FOREVER-DEF-PARENT", "FOREVER-DEF"));
        assert!(!cites("XSKY-EX-01", "SKY-EX-01"));
        // A test name in snake case is not a citation: grep for the ID must find the test.
        assert!(!cites("fn forever_ex_03_lancer()", "FOREVER-EX-03"));
        // A range names its first ID only.
        assert!(cites("FOREVER-EX-07..20", "FOREVER-EX-07"));
        assert!(!cites("FOREVER-EX-07..20", "FOREVER-EX-20"));
    }

    #[test]
    fn ids_are_well_formed() {
        assert!(is_id("SKY-KW-LIFT", "SKY"));
        assert!(is_id("BARMY-01", "BARMY"));
        assert!(!is_id("SKY-", "SKY"));
        assert!(!is_id("SKY-EX--1", "SKY"));
        assert!(!is_id("SKY-ex-1", "SKY"));
        assert!(!is_id("IRON-EX-1", "SKY"));
        assert!(!is_id("SKYEX-1", "SKY"));
    }

    #[test]
    fn excuses_are_written_next_to_the_id_or_under_not_tested() {
        let docs = "- **BARMY-01 not applicable** to the engine\n- **BARMY-GM-14 overruled**: x\n\
                    - BARMY-GM-02 followed; see BARMY-07 not\n\n## Not tested\n\n- BARMY-09: why\n\
                    \n## Tests\nBARMY-10\n";
        assert!(excused(docs, "BARMY-01"));
        assert!(excused(docs, "BARMY-GM-14"));
        assert!(excused(docs, "BARMY-09"));
        assert!(!excused(docs, "BARMY-GM-02"));
        assert!(!excused(docs, "BARMY-07"));
        assert!(!excused(docs, "BARMY-10"));
        assert!(!excused(docs, "BARMY-0"));
    }

    #[test]
    fn comments_are_no_citations_but_strings_are() {
        let source = r#"
            //! BARMY-01 in an inner doc comment
            /// BARMY-02 in a doc comment
            #[doc = "BARMY-03 in a doc attribute"]
            #[test]
            #[should_panic(expected = "BARMY-04 in an attribute")]
            fn barmy_05_in_a_name() {
                // BARMY-06 in a line comment
                /* BARMY-07 in a /* nested */ block comment */
                /** BARMY-08 in a block doc comment */
                let _ = "not a // comment: BARMY-09";
                let _ = r"BARMY-10 raw"; let _ = '"'; let _ = "\" BARMY-11";
                assert!(true, "BARMY-12 in an assert message");
            }
        "#;
        let text = rust_literals(source, false).unwrap();
        let cited: Vec<u32> = (1..=12)
            .filter(|n| cites(&text, &format!("BARMY-{n:02}")))
            .collect();
        assert_eq!(cited, [4, 9, 10, 11, 12]);
    }

    #[test]
    fn in_source_files_only_the_tests_cite() {
        let source = r#"
            /// BARMY-01 in the code's documentation
            pub const A: &str = "BARMY-02 in the code";
            #[cfg(test)]
            mod tests {
                // BARMY-03 in a comment of a test
                const B: &str = "BARMY-04 in a test";
            }
        "#;
        let text = rust_literals(source, true).unwrap();
        let cited: Vec<u32> = (1..=4)
            .filter(|n| cites(&text, &format!("BARMY-{n:02}")))
            .collect();
        assert_eq!(cited, [4]);
    }

    #[test]
    fn engine_rulings_are_read_with_their_number() {
        let found = engine_rulings("SKY-ADM-01, SKY-ADM-12; SKY-ADM-x", "SKY");
        assert_eq!(
            found.into_iter().collect::<Vec<_>>(),
            vec!["SKY-ADM-01", "SKY-ADM-12"]
        );
    }
}

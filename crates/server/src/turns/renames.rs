//! The report's names for seats that changed hands (docs/rosters.md, "Standbys and replacements").

/// The report's Name column from the turn a replacement takes effect: a row that carries the
/// engine's name for a replaced seat reads "New Name (replacing Old Name)". Applied by the
/// service after the engine resolves (the engine keeps the name it was given), and again by
/// `gm verify` from the same stored replacements, so replays stay byte-identical.
pub fn rename_rows(
    report: &mut engine::Report,
    roster: &[engine::Player],
    renames: &[(i64, String, String)],
) {
    for (engine_id, new_name, old_name) in renames {
        let Some(seat) = roster
            .iter()
            .find(|p| i64::try_from(p.id.0).ok() == Some(*engine_id))
        else {
            continue;
        };
        let shown = format!("{new_name} (replacing {old_name})");
        // Salvo writes "Name → Target" in a game of many: the name is the row's first words.
        for row in &mut report.rows {
            if let Some(rest) = row.name.strip_prefix(seat.name.as_str())
                && (rest.is_empty() || rest.starts_with(' '))
            {
                row.name = format!("{shown}{rest}");
            }
        }
    }
}

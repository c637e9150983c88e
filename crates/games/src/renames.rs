//! The report's names for seats that changed hands (docs/rosters.md, "Standbys and replacements"):
//! pure, so the service, `gm verify` and the standalone verifier (`record`) apply the same rule.

/// The report's Name column from the turn a replacement takes effect: a row that carries the
/// engine's name for a replaced seat reads "New Name (replacing Old Name)". Applied by the
/// service after the engine resolves, and again by `gm verify` from the same stored
/// replacements, so replays stay byte-identical. `before` and `after` are the rosters of the
/// states the turn resolved from and to.
pub fn rename_rows(
    report: &mut engine::Report,
    before: &[engine::Player],
    after: &[engine::Player],
    renames: &[(i64, String, String)],
) {
    let seat_of = |roster: &[engine::Player], engine_id: i64| {
        roster
            .iter()
            .find(|p| i64::try_from(p.id.0).ok() == Some(engine_id))
            .map(|p| p.name.clone())
    };
    for (engine_id, new_name, old_name) in renames {
        // The engine writes the seat's name in the state it resolved from: the new holder's
        // from the turn the seat changed hands with (`TurnInput::renames`), so the state after
        // the turn has it; a seat gone from that state is named as before the turn.
        let Some(engine_name) = seat_of(after, *engine_id).or_else(|| seat_of(before, *engine_id))
        else {
            continue;
        };
        let shown = format!("{new_name} (replacing {old_name})");
        // Salvo writes "Name → Target" in a game of many: the name is the row's first words.
        for row in &mut report.rows {
            if let Some(rest) = row.name.strip_prefix(engine_name.as_str())
                && (rest.is_empty() || rest.starts_with(' '))
            {
                row.name = format!("{shown}{rest}");
            }
        }
    }
}

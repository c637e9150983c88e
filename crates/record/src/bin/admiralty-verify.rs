//! `admiralty-verify FILE`: checks a game's record (docs/record.md) on the reader's own machine,
//! with no database and no network. Exits 0 when every turn verifies, 1 when a turn does not
//! (naming the turn and what differs), 2 when the file cannot be read as a record.

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let (Some(path), None) = (args.next(), args.next()) else {
        eprintln!("usage: admiralty-verify RECORD.json");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) => {
            eprintln!(
                "admiralty-verify: cannot read {}: {error}",
                path.to_string_lossy()
            );
            return ExitCode::from(2);
        }
    };
    let record = match record::GameRecord::parse(&text) {
        Ok(record) => record,
        Err(error) => {
            eprintln!("admiralty-verify: {}: {error}", path.to_string_lossy());
            return ExitCode::from(2);
        }
    };
    let verdict = record::verify(&record);
    print!("{}", record::describe(&verdict));
    if verdict.holds() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

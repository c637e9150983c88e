use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = server::cli::Cli::parse();
    match server::cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            // `{:#}` prints the whole chain of contexts on one line.
            eprintln!("gm: error: {error:#}");
            if error.is::<server::cli::TryAgainLater>() {
                ExitCode::from(server::cli::EX_TEMPFAIL)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

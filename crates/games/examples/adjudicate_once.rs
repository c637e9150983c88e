#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "a benchmark program: any failure should stop it loudly"
)]
//! One `gm adjudicate` call, for counting its instructions (bench/adjudicate.sh runs it under
//! valgrind's callgrind, which counts the same total however busy the machine is):
//!
//!   adjudicate_once make N FILE    writes the benchmark's request for N players to FILE
//!   adjudicate_once run FILE       resolves it once (`games::adjudicate::resolve_json`)

#[path = "../benches/common/request.rs"]
mod request;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("make") => {
            let players: u64 = args[2].parse().expect("a number of players");
            std::fs::write(&args[3], request::request(players)).unwrap();
        }
        Some("run") => {
            let input = std::fs::read_to_string(&args[2]).unwrap();
            let answer = games::adjudicate::resolve_json(&input).unwrap();
            eprintln!("{} bytes of answer", answer.len());
        }
        _ => panic!("usage: adjudicate_once make N FILE | run FILE"),
    }
}

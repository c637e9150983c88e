use serde_json::json;
fn main() {
    for n in [1000u64, 10000] {
        let side = ((n as f64 * 40.0).sqrt() as u64).max(19);
        let players: Vec<_> = (1..=n)
            .map(|i| json!({"id": i, "name": format!("Player {i}")}))
            .collect();
        let ng = json!({"engine":"barmy","setup":{"width":side,"height":side},"players":players,"secret":"00".repeat(32)});
        let t = std::time::Instant::now();
        let started: serde_json::Value =
            serde_json::from_str(&games::adjudicate::new_game_json(&ng.to_string()).unwrap())
                .unwrap();
        eprintln!("new game {n}: {:?}", t.elapsed());
        let mut orders = serde_json::Map::new();
        for i in 1..=n {
            orders.insert(
                i.to_string(),
                json!(format!(
                    "A{}, B{} hello there",
                    i % side + 1,
                    (i * 7) % side + 1
                )),
            );
        }
        let req = json!({"engine":"barmy","state":started["state"],"orders":orders,"secret":"00".repeat(32)});
        let text = req.to_string();
        let t = std::time::Instant::now();
        let out = games::adjudicate::resolve_json(&text).unwrap();
        eprintln!(
            "resolve {n}: {:?} ({} bytes in, {} out)",
            t.elapsed(),
            text.len(),
            out.len()
        );
    }
}

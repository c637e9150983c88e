//! Test-only fault points. With `ADMIRALTY_FAULT_POINT=NAME` in its environment, the process
//! prints `fault point reached: NAME` on standard output when it gets there and then waits
//! forever, so that a test can SIGKILL it at exactly that step (see tests/it/kill.rs). Without
//! the variable a fault point does nothing. Never set it in production.

use std::io::Write;
use std::sync::OnceLock;

/// The variable naming the point to stop at.
pub const FAULT_POINT_VAR: &str = "ADMIRALTY_FAULT_POINT";

fn chosen() -> Option<&'static str> {
    static CHOSEN: OnceLock<Option<String>> = OnceLock::new();
    CHOSEN
        .get_or_init(|| {
            std::env::var(FAULT_POINT_VAR)
                .ok()
                .filter(|v| !v.is_empty())
        })
        .as_deref()
}

/// Stops here for good when `ADMIRALTY_FAULT_POINT` names this point.
pub async fn point(name: &str) {
    if chosen() != Some(name) {
        return;
    }
    {
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(stdout, "fault point reached: {name}");
        let _ = stdout.flush();
    }
    loop {
        tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
    }
}

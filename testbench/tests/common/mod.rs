//! Helpers shared by test binaries that look at the QEMU processes they start.

/// QEMU processes started by this test process.
pub fn qemu_children() -> Vec<i32> {
    let me = std::process::id().to_string();
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // pid (comm) state ppid ...
        let Some(close) = stat.rfind(')') else { continue };
        let comm = &stat[stat.find('(').unwrap() + 1..close];
        let ppid = stat[close + 2..].split_whitespace().nth(1).unwrap_or("");
        if comm.starts_with("qemu-system-arm") && ppid == me {
            pids.push(stat.split_whitespace().next().unwrap().parse().unwrap());
        }
    }
    pids
}

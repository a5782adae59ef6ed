//! Helpers shared by test binaries that look at the QEMU processes they start.
// Each test binary uses only some of them.
#![allow(dead_code)]

use std::os::unix::fs::FileExt;

use pqhelium_kernels::abi;

/// QEMU processes started by this test process.
pub fn qemu_children() -> Vec<i32> {
    qemu_children_of(std::process::id())
}

/// QEMU processes whose parent is process `parent`.
pub fn qemu_children_of(parent: u32) -> Vec<i32> {
    let parent = parent.to_string();
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // pid (comm) state ppid ...
        let Some(close) = stat.rfind(')') else { continue };
        let comm = &stat[stat.find('(').unwrap() + 1..close];
        let ppid = stat[close + 2..].split_whitespace().nth(1).unwrap_or("");
        if comm.starts_with("qemu-system-arm") && ppid == parent {
            pids.push(stat.split_whitespace().next().unwrap().parse().unwrap());
        }
    }
    pids
}

/// Whether QEMU process `pid` serves a campaign worker: its guest has finished a batch (done_seq in the control
/// block of its shared-memory DDR, named by `mem-path=` on its command line). A QEMU still booting would fail
/// its worker's start-up instead, which is another test's business.
pub fn serving(pid: i32) -> bool {
    let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else { return false };
    let Some(path) = cmdline.split(|&b| b == 0 || b == b',').find_map(|arg| arg.strip_prefix(b"mem-path=")) else {
        return false;
    };
    // The DDR is a descriptor QEMU inherited (`/proc/self/fd/N`): seen from here, it is QEMU's fd N.
    let path = std::str::from_utf8(path).unwrap().replacen("/proc/self/", &format!("/proc/{pid}/"), 1);
    let Ok(ddr) = std::fs::File::open(path) else { return false };
    let mut done_seq = [0; 4];
    let at = u64::from(abi::CTRL_OFFSET) + abi::ctrl::DONE_SEQ as u64;
    ddr.read_exact_at(&mut done_seq, at).is_ok() && u32::from_le_bytes(done_seq) > 0
}

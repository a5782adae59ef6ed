//! Anonymous in-memory files (memfd) that QEMU inherits: the guest image, the plugins, the shared DDR window, the
//! profile and trace files and QEMU's log.

use std::ffi::CStr;
use std::fs::File;
use std::io::Write;
use std::os::fd::AsRawFd;

use rustix::fs::MemfdFlags;

use super::BackendError;

/// An anonymous in-memory file: it has no name in any directory, so nothing is left to remove however we exit; the
/// memory is freed when its last descriptor and mapping go. Close-on-exec: only the QEMU it is meant for inherits
/// it (see `qemu::prepare_child`), not every child spawned meanwhile by another thread.
pub(super) fn anonymous_file(name: &CStr) -> std::io::Result<File> {
    Ok(File::from(rustix::fs::memfd_create(name, MemfdFlags::CLOEXEC)?))
}

/// An anonymous file holding `bytes`.
pub(super) fn anonymous_file_with(name: &CStr, bytes: &[u8]) -> Result<File, BackendError> {
    let create = || -> std::io::Result<File> {
        let mut file = anonymous_file(name)?;
        file.write_all(bytes)?;
        Ok(file)
    };
    create().map_err(|e| BackendError::Start(format!("{}: {e}", name.to_string_lossy())))
}

/// A path that opens the same file as our descriptor: in this process, and in QEMU, which inherits the descriptor
/// under the same number.
pub(super) fn fd_path(file: &File) -> String {
    format!("/proc/self/fd/{}", file.as_raw_fd())
}

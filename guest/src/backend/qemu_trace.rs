//! Trace mode of the QEMU backend (`pqhelium ct` on the m55 and m85 images): a second TCG plugin
//! (`kernels/plugin/pqh_trace.c`) hashes the leakage trace of the code outside the harness into a host file that the
//! guest cannot see (an anonymous memory file, not the DDR window), and records the events when asked.
//!
//! The file is written by the plugin inside QEMU, which runs untrusted guest code, so every value read from it is
//! bounded: the event count by the file's capacity, event tags by the kinds that exist.

use std::fs::File;
use std::os::fd::{AsRawFd, RawFd};

use memmap2::MmapMut;
use pqhelium_kernels::TRACE_PLUGIN;

use super::BackendError;
use super::memfd;
use crate::trace::{Core, Event, LatencyClass, RECORD_CAPACITY, Trace, is_variable};

/// Header words of the trace file (`pqh_trace.c`).
const H_HASH: usize = 0;
const H_EVENTS: usize = 1;
const H_RECORD: usize = 2;
const H_STATUS: usize = 3;
const H_FROM: usize = 4;
const H_WORDS: usize = 8;
const EVENT_WORDS: usize = 3;
/// Events the file can hold when recording (the file is sparse, so only recorded events take memory).
const CAPACITY: usize = RECORD_CAPACITY;
const FILE_SIZE: usize = (H_WORDS + CAPACITY * EVENT_WORDS) * 8;

/// Plugin status bits: why the registers it reads cannot be trusted.
const STATUS_MESSAGES: [(u64, &str); 5] = [
    (1, "the guest CPU state is not reachable on this host (x86-64 only)"),
    (2, "r4-r11 did not hold the harness's canaries at the kernel's entry: the CPU state layout is unknown"),
    (4, "an FP operand was needed but the d8-d15 canaries were not found in the CPU state"),
    (8, "the carry flag held neither 0 nor 1: the CPU state layout is unknown"),
    (16, "VPR had reserved bits set: the CPU state layout is unknown"),
];

/// The trace plugin of one QEMU backend and the file it writes.
pub(super) struct TracePlugin {
    plugin_file: File,
    trace_file: File,
    map: MmapMut,
    /// Bit per `LatencyClass` traced on the core.
    varlat: u32,
    /// Whether the next round trips record events, not only the hash, and from which event on.
    pub(super) record: Option<u64>,
}

impl TracePlugin {
    pub(super) fn new(core: Core) -> Result<Self, BackendError> {
        let start_error = |e: std::io::Error| BackendError::Start(format!("trace file: {e}"));
        let plugin_file = memfd::anonymous_file_with(c"libpqh_trace.so", TRACE_PLUGIN)?;
        let trace_file = memfd::anonymous_file(c"pqhelium-trace").map_err(start_error)?;
        trace_file.set_len(FILE_SIZE as u64).map_err(start_error)?;
        // SAFETY: the file is ours and QEMU's plugin alone; both treat it as plain words.
        let map = unsafe { memmap2::MmapOptions::new().len(FILE_SIZE).map_mut(&trace_file) }.map_err(start_error)?;
        let varlat = LatencyClass::ALL
            .into_iter()
            .filter(|&class| is_variable(core, class))
            .fold(0, |mask, class| mask | 1 << class as u32);
        Ok(Self { plugin_file, trace_file, map, varlat, record: None })
    }

    /// QEMU's arguments for trace mode: the plugin, the harness `skip` range excluded, and one instruction per
    /// translation block. TCG keeps guest registers in host registers within a block and writes them back to the CPU
    /// state only at its end (plugin callbacks in QEMU 7.2 do not make it write them back): with one instruction per
    /// block, the state the plugin reads before an instruction is exact.
    pub(super) fn qemu_args(&self, skip: (u32, u32)) -> [String; 3] {
        let plugin = format!(
            "{},trace={},size={FILE_SIZE},skip_lo={:#x},skip_hi={:#x},varlat={}",
            memfd::fd_path(&self.plugin_file),
            memfd::fd_path(&self.trace_file),
            skip.0,
            skip.1,
            self.varlat
        );
        ["-plugin".into(), plugin, "-singlestep".into()]
    }

    /// Descriptors QEMU must inherit.
    pub(super) fn fds(&self) -> [RawFd; 2] {
        [self.plugin_file.as_raw_fd(), self.trace_file.as_raw_fd()]
    }

    fn word(&self, index: usize) -> u64 {
        // Volatile: QEMU's plugin writes this memory behind the compiler's back.
        unsafe { std::ptr::read_volatile(self.map[index * 8..index * 8 + 8].as_ptr().cast::<u64>()) }
    }

    fn set_word(&mut self, index: usize, value: u64) {
        unsafe { std::ptr::write_volatile(self.map[index * 8..index * 8 + 8].as_mut_ptr().cast::<u64>(), value) }
    }

    /// Before a round trip: an empty trace.
    pub(super) fn reset(&mut self) {
        let record = self.record;
        self.set_word(H_HASH, Trace::new(None).hash);
        self.set_word(H_EVENTS, 0);
        self.set_word(H_STATUS, 0);
        self.set_word(H_FROM, record.unwrap_or(0));
        self.set_word(H_RECORD, u64::from(record.is_some()));
    }

    /// The trace of the last round trip, or why the plugin could not build it.
    pub(super) fn read(&self) -> Result<Trace, String> {
        let status = self.word(H_STATUS);
        if status != 0 {
            let why: Vec<&str> = STATUS_MESSAGES.iter().filter(|(bit, _)| status & bit != 0).map(|m| m.1).collect();
            return Err(format!("leakage trace unavailable: {}", why.join("; ")));
        }
        let (events, first) = (self.word(H_EVENTS), self.word(H_FROM));
        let recorded = (self.word(H_RECORD) != 0).then(|| {
            let n = events.saturating_sub(first).min(CAPACITY as u64) as usize;
            (0..n)
                .map_while(|i| {
                    let at = H_WORDS + i * EVENT_WORDS;
                    Event::from_words([self.word(at), self.word(at + 1), self.word(at + 2)])
                })
                .collect::<Vec<_>>()
        });
        if let Some(list) = &recorded
            && (list.len() as u64) < events.saturating_sub(first).min(CAPACITY as u64)
        {
            return Err(format!("leakage trace corrupt: event {} is of no known kind", list.len()));
        }
        Ok(Trace { hash: self.word(H_HASH), events, first, recorded })
    }
}

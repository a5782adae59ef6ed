//! Every error path of the backends, on both emulators: faults, timeouts, dead or hung workers, hostile guests,
//! bad images. After each error the backend must still work.

use std::time::Duration;

use pqhelium_guest::backend::qemu::QemuBackend;
use pqhelium_guest::backend::unicorn::UnicornBackend;
use pqhelium_guest::backend::{Arg, Backend, BackendKind, Call, CallError, FaultKind, Limits};
use pqhelium_guest::elf::{ElfError, GuestElf};
use pqhelium_kernels::{M7_IMAGE, M55_IMAGE, M85_IMAGE};

mod common;
use common::without_hanging;

const SHORT: Limits = Limits { timeout: Duration::from_secs(2) };

fn backends() -> Vec<Box<dyn Backend>> {
    vec![
        Box::new(UnicornBackend::open(&M7_IMAGE, SHORT).unwrap()),
        Box::new(QemuBackend::open(&M55_IMAGE, SHORT).unwrap()),
    ]
}

/// A well-behaved call with four register and two stack arguments: proves the backend still works.
fn assert_healthy(backend: &mut dyn Backend) {
    let words: Vec<u8> = [1u32, 2, 3, 4].iter().flat_map(|w| w.to_le_bytes()).collect();
    let args = vec![Arg::In(words), Arg::U32(4), Arg::U32(10), Arg::U32(100), Arg::U32(1000), Arg::U32(10000)];
    let out = backend.call(&Call::new("pqh_selftest_sum", args)).unwrap_or_else(|e| panic!("{}: {e}", backend.name()));
    assert_eq!(out.r0, 10 + 10 + 300 + 5000 + 70000, "{}", backend.name());
    assert!(out.instructions > 10, "{}: instructions are counted", backend.name());
}

fn fault_of(
    result: Result<pqhelium_guest::backend::CallOutput, CallError>,
    backend: &str,
) -> pqhelium_guest::backend::Fault {
    match result {
        Err(CallError::Fault(f)) => f,
        other => panic!("{backend}: expected a fault, got {other:?}"),
    }
}

#[test]
fn arguments_and_doubles_follow_aapcs() {
    for mut b in backends() {
        assert_healthy(b.as_mut());
        let (a, x, y) = (1.0 / 3.0, 3.000_000_000_000_001, -1.0);
        let out = b.call(&Call::new("pqh_selftest_fma_free", vec![Arg::F64(a), Arg::F64(x), Arg::F64(y)])).unwrap();
        // Rounded product, then rounded sum: what -ffp-contract=off promises.
        assert_eq!(out.d0.to_bits(), (a * x + y).to_bits(), "{}", b.name());
        assert_ne!((a * x + y).to_bits(), a.mul_add(x, y).to_bits(), "operands must tell fused from unfused");
    }
}

#[test]
fn invalid_memory_access_is_a_fault_with_symbol_and_offset() {
    for mut b in backends() {
        let f = fault_of(b.call(&Call::new("pqh_selftest_bad_load", vec![])), b.name());
        assert_eq!(f.kind, FaultKind::MemoryAccess { address: Some(0xF000_0000) }, "{}", b.name());
        assert!(f.location.starts_with("pqh_selftest_bad_load+0x"), "{}: {}", b.name(), f.location);
        assert_healthy(b.as_mut());
    }
}

#[test]
fn undefined_instruction_is_a_fault() {
    for mut b in backends() {
        let f = fault_of(b.call(&Call::new("pqh_selftest_undefined", vec![])), b.name());
        assert_eq!(f.kind, FaultKind::UndefinedInstruction, "{}", b.name());
        assert!(f.location.starts_with("pqh_selftest_undefined+"), "{}: {}", b.name(), f.location);
        assert_healthy(b.as_mut());
    }
}

#[test]
fn a_fault_fails_only_its_own_call_in_a_batch() {
    for mut b in backends() {
        let good = Call::new(
            "pqh_selftest_sum",
            vec![Arg::In(vec![7, 0, 0, 0]), Arg::U32(1), Arg::U32(0), Arg::U32(0), Arg::U32(0), Arg::U32(0)],
        );
        let bad = Call::new("pqh_selftest_undefined", vec![]);
        let results = b.run_batch(&[good.clone(), bad, good.clone(), good]);
        assert_eq!(results.len(), 4);
        assert!(matches!(results[1], Err(CallError::Fault(_))), "{}", b.name());
        for i in [0, 2, 3] {
            assert_eq!(results[i].as_ref().unwrap().r0, 7, "{}: call {i}", b.name());
        }
    }
}

#[test]
fn endless_loop_times_out_and_the_worker_recovers() {
    // The backends live on the thread that uses them: a QEMU dies with the thread that started it.
    without_hanging("an endless loop", || {
        for mut b in backends() {
            let result = b.call(&Call::new("pqh_selftest_endless_loop", vec![]));
            assert_eq!(result, Err(CallError::Timeout(SHORT.timeout)), "{}", b.name());
            assert_healthy(b.as_mut());
        }
    });
}

#[test]
fn writing_past_a_buffer_is_reported() {
    for mut b in backends() {
        let result = b.call(&Call::new("pqh_selftest_overrun", vec![Arg::InOut(vec![0; 32]), Arg::U32(32)]));
        assert_eq!(result, Err(CallError::BufferOverrun { arg: 0, offset: 32 }), "{}", b.name());
        let ok = b.call(&Call::new("pqh_selftest_overrun", vec![Arg::InOut(vec![0; 32]), Arg::U32(31)])).unwrap();
        assert_eq!(ok.buffers[0], (0..32).collect::<Vec<u8>>(), "{}", b.name());
    }
}

#[test]
fn missing_symbol_is_an_error_not_a_panic() {
    for mut b in backends() {
        let result = b.call(&Call::new("no_such_kernel", vec![]));
        assert_eq!(result, Err(CallError::MissingSymbol("no_such_kernel".into())), "{}", b.name());
        assert_healthy(b.as_mut());
    }
}

/// The QEMU harness runs kernels with interrupts masked: an interrupt raised inside a kernel (here by the kernel
/// itself) waits until the harness sleeps, so that no handler runs in the middle of a kernel and changes its block
/// profile (a doorbell byte arriving after the guest found its batch would, and cycle estimates would move by a few
/// cycles from run to run).
#[test]
fn an_interrupt_is_not_taken_inside_a_kernel() {
    for image in [&M55_IMAGE, &M85_IMAGE] {
        let mut b = QemuBackend::open(image, SHORT).unwrap();
        let out = b.call(&Call::new("pqh_selftest_interrupt_held", vec![])).unwrap();
        assert_eq!(out.r0, 1, "{}: the interrupt was taken inside the kernel", image.name);
        assert_healthy(&mut b);
    }
}

#[test]
fn hostile_semihosting_guest_cannot_touch_the_host() {
    let dir = tempfile::tempdir().unwrap();
    for mut b in backends() {
        let victim = dir.path().join(format!("escaped-{}", b.name()));
        let command = format!("touch {}", victim.display());
        let system = b.call(&Call::new(
            "pqh_selftest_semihost_system",
            vec![Arg::In(command.clone().into_bytes()), Arg::U32(command.len() as u32)],
        ));
        let f = fault_of(system, b.name());
        assert_eq!(f.kind, FaultKind::Breakpoint { imm: 0xab }, "{}", b.name());
        assert!(f.to_owned().location.starts_with("pqh_selftest_semihost_system+"));
        let path = victim.display().to_string();
        let open = b.call(&Call::new(
            "pqh_selftest_semihost_open",
            vec![Arg::In(path.clone().into_bytes()), Arg::U32(path.len() as u32)],
        ));
        assert_eq!(fault_of(open, b.name()).kind, FaultKind::Breakpoint { imm: 0xab }, "{}", b.name());
        assert!(!victim.exists(), "{}: the guest created a host file", b.name());
        assert_healthy(b.as_mut());
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn killed_qemu_is_detected_and_restarted() {
    without_hanging("a call to a killed QEMU", || {
        let mut b = QemuBackend::open(&M55_IMAGE, SHORT).unwrap();
        assert_healthy(&mut b);
        let pid = b.worker_pid().unwrap();
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        let result = b.call(&Call::new("keccak_f1600_interleaved", vec![Arg::InOut(vec![0; 200])]));
        // Seen dead (its pipes closed), not waited out: a timeout would call it hung.
        match &result {
            Err(CallError::WorkerDied(why)) => assert!(!why.contains("hung"), "{why}"),
            other => panic!("expected a dead worker, got {other:?}"),
        }
        assert_healthy(&mut b);
        assert_eq!(b.restarts(), 1);
        assert_ne!(b.worker_pid(), Some(pid));
    });
}

#[test]
fn hung_qemu_is_detected_and_restarted() {
    without_hanging("a call to a stopped QEMU", || {
        let mut b = QemuBackend::open(&M55_IMAGE, SHORT).unwrap();
        let pid = b.worker_pid().unwrap();
        unsafe { libc::kill(pid as i32, libc::SIGSTOP) };
        wait_until_stopped(pid);
        let result = b.call(&Call::new("keccak_f1600_interleaved", vec![Arg::InOut(vec![0; 200])]));
        match &result {
            Err(CallError::WorkerDied(why)) => assert!(why.contains("hung"), "{why}"),
            other => panic!("expected a hung worker, got {other:?}"),
        }
        assert_healthy(&mut b);
        assert_eq!(b.restarts(), 1);
    });
}

/// SIGSTOP takes effect asynchronously, thread by thread: a call made before QEMU's vCPU thread has stopped can
/// still be served. Waits until every thread of the process is in state T (stopped).
fn wait_until_stopped(pid: u32) {
    let deadline = std::time::Instant::now() + common::HANG;
    let all_stopped = || {
        let qemu = procfs::process::Process::new(pid as i32).expect("QEMU");
        let tasks = qemu.tasks().expect("QEMU's threads");
        tasks.flatten().all(|task| task.stat().is_ok_and(|stat| stat.state == 'T'))
    };
    while !all_stopped() {
        assert!(std::time::Instant::now() < deadline, "QEMU {pid} did not stop within {:?} of SIGSTOP", common::HANG);
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn malformed_and_foreign_elfs_are_rejected() {
    let image = M55_IMAGE.elf;
    assert!(matches!(GuestElf::parse("empty", &[]), Err(ElfError::Malformed(_))));
    assert!(matches!(GuestElf::parse("text", b"hello, not an ELF file at all"), Err(ElfError::Malformed(_))));
    assert!(matches!(GuestElf::parse("truncated", &image[..100]), Err(ElfError::Malformed(_))));
    let mut bad_phoff = image.to_vec();
    bad_phoff[28..32].copy_from_slice(&0x7fff_fff0u32.to_le_bytes()); // e_phoff far past the end
    assert!(matches!(GuestElf::parse("bad phoff", &bad_phoff), Err(ElfError::Malformed(_))));
    // The test binary itself: an ELF for the host architecture.
    let host = std::fs::read(std::env::current_exe().unwrap()).unwrap();
    match GuestElf::parse("host", &host) {
        Err(e @ ElfError::ForeignArchitecture { .. }) => assert!(e.to_string().contains("another architecture")),
        other => panic!("expected a foreign-architecture error, got {other:?}"),
    }
    // Random bytes behind a valid Arm identification never panic.
    let mut seed = 0x1234_5678u32;
    for _ in 0..500 {
        let mut bytes = image[..52].to_vec();
        for b in bytes.iter_mut().skip(16) {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            *b = (seed >> 24) as u8;
        }
        let _ = GuestElf::parse("fuzzed", &bytes);
    }
}

/// Replaces every occurrence of a symbol name in the image, so that it no longer has that symbol.
fn without_symbol(image: &[u8], name: &str) -> Vec<u8> {
    let mut bytes = image.to_vec();
    let needle = name.as_bytes();
    let mut found = false;
    for at in 0..bytes.len() - needle.len() {
        if &bytes[at..at + needle.len()] == needle {
            bytes[at] = b'X';
            found = true;
        }
    }
    assert!(found, "{name} is in the image");
    bytes
}

#[test]
fn an_image_without_the_harness_is_refused_by_both_backends() {
    let m7 = without_symbol(M7_IMAGE.elf, "pqh_run_batch");
    let elf = GuestElf::parse("m7", &m7).unwrap();
    assert!(matches!(
        UnicornBackend::with_elf(elf, SHORT),
        Err(pqhelium_guest::backend::BackendError::Elf(ElfError::NotAHarnessImage("pqh_run_batch")))
    ));
    let m55 = without_symbol(M55_IMAGE.elf, "__harness_start");
    let elf = GuestElf::parse("m55", &m55).unwrap();
    assert!(matches!(
        QemuBackend::with_image(elf, &m55, SHORT),
        Err(pqhelium_guest::backend::BackendError::Elf(ElfError::NotAHarnessImage("__harness_start")))
    ));
}

#[test]
fn both_emulators_are_available_here() {
    // An emulator test that cannot run must fail loudly, never skip.
    for kind in BackendKind::ALL {
        assert!(kind.availability().is_ok(), "{kind}: {:?}", kind.availability());
    }
}

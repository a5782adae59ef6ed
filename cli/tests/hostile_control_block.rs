//! Untrusted shared memory: a guest function (kernels/arm/selftest/hostile_ctrl.c) writes over the control block,
//! the instruction counter and the call slots that the host and the harness share, one field per variant. On both
//! emulators the host answers with a typed error naming the field and the value left there, on the call that wrote
//! it and no other; or, where the host reads nothing back from what was written, with exactly the honest result.
//! The calls around the hostile one get their honest results, and the next batch on the same backend works.

use std::time::Duration;

use pqhelium_guest::backend::qemu::QemuBackend;
use pqhelium_guest::backend::unicorn::UnicornBackend;
use pqhelium_guest::backend::{Arg, Backend, BackendKind, Call, CallError, CallOutput, FaultKind, Limits};
use pqhelium_kernels::{M7_IMAGE, M55_IMAGE};

mod common;
use common::without_hanging;

/// Short: the variants that never report their batch done wait this long, twice (in the batch, then alone).
const LIMITS: Limits = Limits { timeout: Duration::from_secs(1) };
const HOSTILE: &str = "pqh_selftest_hostile_ctrl";

// The variants of hostile_ctrl.c.
const HONEST: u32 = 0;
const MAGIC: u32 = 1;
const ABI_VERSION: u32 = 2;
const NCALLS: u32 = 3;
const STATUS: u32 = 4;
const CURRENT_CALL_THEN_FAULT: u32 = 5;
const FAULT_FIELDS: u32 = 6;
const FAKE_FAULT: u32 = 7;
const VIOLATION_REG: u32 = 8;
const VIOLATION_BEFORE: u32 = 9;
const VIOLATION_SP_AFTER: u32 = 10;
const REQUEST_SEQ: u32 = 11;
const DONE_SEQ_EARLY: u32 = 12;
const DONE_SEQ_FOREVER: u32 = 13;
const ICOUNT_COUNTER: u32 = 14;
const PREVIOUS_RESULTS: u32 = 15;
const OWN_ARGUMENTS: u32 = 16;
const NEXT_FUNCTION: u32 = 17;
const RESERVED: u32 = 18;
const ASLEEP: u32 = 19;
const JUMP_TO_LAST_ADDRESS: u32 = 20;

/// The harness's status codes (pqh_abi.h).
const STATUS_FAULT: u64 = 1;
/// The canary the harness loads into r7 (pqh_invoke.h).
const R7_CANARY: u32 = 0xC7C7_C7C7;

/// What a backend must answer to the hostile call.
#[derive(Clone, Copy)]
enum Answer {
    /// The result an honest call gives (`value + 1`): the host reads nothing back from what was written.
    Honest,
    /// `CallError::CorruptControlBlock` naming this field and the value the guest left in it.
    Corrupt(&'static str, u64),
    /// Another error, as described.
    Error(&'static str, fn(&CallError) -> bool),
}

fn call(variant: u32, value: u32) -> Call {
    Call::new(HOSTILE, vec![Arg::U32(variant), Arg::U32(value)])
}

fn returned(result: &Result<CallOutput, CallError>) -> Result<u32, &CallError> {
    result.as_ref().map(|out| out.r0)
}

fn open(kind: BackendKind) -> Box<dyn Backend> {
    match kind {
        BackendKind::Unicorn => Box::new(UnicornBackend::open(&M7_IMAGE, LIMITS).expect("unicorn starts")),
        BackendKind::Qemu => Box::new(QemuBackend::open(&M55_IMAGE, LIMITS).expect("qemu starts")),
        BackendKind::Model => unreachable!("the model runs no guest code"),
    }
}

/// Runs the hostile call between two honest ones on `kind`, checks every answer, then that the backend still works.
/// A hang fails the test (after `common::HANG`, far above two timeouts and a few QEMU restarts). The backend lives
/// on the one thread that runs the check: a QEMU dies with the thread that started it.
fn check(kind: BackendKind, variant: u32, value: u32, answer: Answer) {
    without_hanging(&format!("{kind}: variant {variant}"), move || check_on(kind, variant, value, answer));
}

fn check_on(kind: BackendKind, variant: u32, value: u32, answer: Answer) {
    let mut backend = open(kind);
    let results = backend.run_batch(&[call(HONEST, 10), call(variant, value), call(HONEST, 20)]);
    assert_eq!(returned(&results[0]), Ok(11), "{kind}: variant {variant}: the call before the hostile one");
    assert_eq!(returned(&results[2]), Ok(21), "{kind}: variant {variant}: the call after the hostile one");
    let hostile = &results[1];
    match answer {
        Answer::Honest => assert_eq!(returned(hostile), Ok(value + 1), "{kind}: variant {variant}"),
        Answer::Corrupt(field, left) => {
            let expected = CallError::CorruptControlBlock { field, value: left };
            assert_eq!(hostile.as_ref().err(), Some(&expected), "{kind}: variant {variant}: {hostile:?}");
        }
        Answer::Error(what, matches) => {
            let error = hostile.as_ref().expect_err(what);
            assert!(matches(error), "{kind}: variant {variant}: expected {what}, got {error:?}");
        }
    }
    let again = backend.run_batch(&[call(HONEST, 30), call(HONEST, 40)]);
    let again: Vec<_> = again.iter().map(returned).collect();
    assert_eq!(again, [Ok(31), Ok(41)], "{kind}: variant {variant}: the next batch");
}

fn both(variant: u32, value: u32, answer: Answer) {
    check(BackendKind::Unicorn, variant, value, answer);
    check(BackendKind::Qemu, variant, value, answer);
}

#[test]
fn an_honest_call_returns_its_value() {
    both(HONEST, 5, Answer::Honest);
}

#[test]
fn magic_written_over() {
    both(MAGIC, 0xBAD, Answer::Corrupt("magic", 0xBAD));
}

#[test]
fn abi_version_written_over() {
    both(ABI_VERSION, 77, Answer::Corrupt("abi_version", 77));
}

/// The harness reads ncalls once per batch, so the batch runs to its end; the host still sees the change.
#[test]
fn ncalls_written_over() {
    both(NCALLS, 0, Answer::Corrupt("ncalls", 0));
}

#[test]
fn unknown_status() {
    both(STATUS, 7, Answer::Corrupt("status", 7));
}

/// "The fault happened at call 7 of a batch of 3": no call is blamed but the one that faulted.
#[test]
fn a_fault_claimed_for_a_call_outside_the_batch() {
    both(CURRENT_CALL_THEN_FAULT, 7, Answer::Corrupt("current_call", 7));
}

/// A fault claimed for call 0, which completed: the host finds call 0's sealed result, runs the calls alone, and
/// the fault lands on the call that faulted.
#[test]
fn a_fault_claimed_for_an_earlier_call_lands_on_the_faulting_one() {
    both(
        CURRENT_CALL_THEN_FAULT,
        0,
        Answer::Error("an undefined instruction in the hostile function", |e| {
            matches!(e, CallError::Fault(f) if f.kind == FaultKind::UndefinedInstruction
                && f.location.starts_with(HOSTILE))
        }),
    );
}

/// The host reads the fault fields only after a fault.
#[test]
fn fault_fields_without_a_fault() {
    both(FAULT_FIELDS, 3, Answer::Honest);
}

/// A fault report no exception of the harness writes. unicorn runs no exception handler: there the harness never
/// reports a fault, so the status itself is the lie.
#[test]
fn a_fault_report_with_an_unknown_exception() {
    check(BackendKind::Unicorn, FAKE_FAULT, 0x1FF, Answer::Corrupt("status", STATUS_FAULT));
    check(BackendKind::Qemu, FAKE_FAULT, 0x1FF, Answer::Corrupt("fault_exc", 0x1FF));
}

/// A fault report for a call that returned: a real fault never returns to the harness, which sealed the call's
/// result. The host decodes the report first (its pc is 0xFFFFFFFF: no overflow looking for a `bkpt` there).
#[test]
fn a_fault_report_for_a_call_that_returned() {
    check(BackendKind::Unicorn, FAKE_FAULT, 3, Answer::Corrupt("status", STATUS_FAULT));
    check(
        BackendKind::Qemu,
        FAKE_FAULT,
        3,
        Answer::Error("results_seal named", |e| {
            matches!(e, CallError::CorruptControlBlock { field: "results_seal", .. })
        }),
    );
}

/// A real fault at the last halfword of the address space: reported at that pc, with no overflow on the address.
#[test]
fn a_fault_at_the_last_address() {
    both(
        JUMP_TO_LAST_ADDRESS,
        0,
        Answer::Error("a fault at 0xfffffffe", |e| matches!(e, CallError::Fault(f) if f.pc == 0xFFFF_FFFE)),
    );
}

#[test]
fn a_violation_of_an_unknown_register() {
    both(VIOLATION_REG, 99, Answer::Corrupt("violation_reg", 99));
}

/// The harness reports the canary it loaded; any other "before" value is not its report.
#[test]
fn a_violation_with_a_value_before_that_the_harness_never_loaded() {
    both(VIOLATION_BEFORE, 0x1234, Answer::Corrupt("violation_before", 0x1234));
}

/// A report the harness could have written is the call's own calling-convention violation.
#[test]
fn a_well_formed_violation_report_is_that_calls_violation() {
    both(
        VIOLATION_BEFORE,
        R7_CANARY,
        Answer::Error("r7 reported not preserved", |e| match e {
            CallError::CallingConvention(v) => v.before == u64::from(R7_CANARY) && v.after == 0,
            _ => false,
        }),
    );
}

/// sp is a 32-bit address: a 64-bit "after" value is not the harness's.
#[test]
fn a_violation_with_an_sp_beyond_32_bits() {
    both(VIOLATION_SP_AFTER, 1, Answer::Corrupt("violation_after", 1 << 32));
}

/// QEMU: the harness reports done the batch the guest asked for, never the host's: the wait ends in the timeout
/// path, which names the field. unicorn uses no sequence numbers.
#[test]
fn request_seq_written_over() {
    check(BackendKind::Unicorn, REQUEST_SEQ, 100, Answer::Honest);
    check(
        BackendKind::Qemu,
        REQUEST_SEQ,
        100,
        Answer::Error("request_seq named", |e| {
            matches!(e, CallError::CorruptControlBlock { field: "request_seq", .. })
        }),
    );
}

/// Reported done while the batch still ran: the harness finishes it long before the host looks.
#[test]
fn done_seq_reported_early() {
    both(DONE_SEQ_EARLY, 9, Answer::Honest);
}

/// done_seq never matches: QEMU's wait ends in the timeout path, which names the field; on unicorn it is an
/// endless loop.
#[test]
fn done_seq_never_matching() {
    check(
        BackendKind::Unicorn,
        DONE_SEQ_FOREVER,
        0xD0D0_D0D0,
        Answer::Error("a timeout", |e| matches!(e, CallError::Timeout(_))),
    );
    check(BackendKind::Qemu, DONE_SEQ_FOREVER, 0xD0D0_D0D0, Answer::Corrupt("done_seq", 0xD0D0_D0D0));
}

/// QEMU: the counter lives in shared memory; set back to 0 it makes the harness's count wrap to an impossible one.
/// unicorn: the counter is a read-only device register, and the write faults.
#[test]
fn instruction_counter_written_over() {
    check(
        BackendKind::Unicorn,
        ICOUNT_COUNTER,
        0,
        Answer::Error(
            "a memory fault at the counter",
            |e| matches!(e, CallError::Fault(f) if f.kind == FaultKind::MemoryAccess { address: Some(0x6000_0000) }),
        ),
    );
    check(
        BackendKind::Qemu,
        ICOUNT_COUNTER,
        0,
        Answer::Error(
            "call.icount named",
            |e| matches!(e, CallError::CorruptControlBlock { field: "call.icount", value } if *value > 1 << 63),
        ),
    );
}

/// The call before it gets a forged result in the batch: the seal catches it, and each call run alone gets its own.
#[test]
fn another_calls_results_written_over() {
    both(PREVIOUS_RESULTS, 0x0BAD_0BAD, Answer::Honest);
}

#[test]
fn own_arguments_written_over() {
    both(OWN_ARGUMENTS, 0x5EED, Answer::Corrupt("call.iargs", 0x5EED));
}

/// The next call pointed at another function: caught in the batch, harmless alone (no call follows).
#[test]
fn the_next_calls_function_written_over() {
    both(NEXT_FUNCTION, 0x0000_0101, Answer::Honest);
}

#[test]
fn reserved_words_written_over() {
    both(RESERVED, 0xEEEE_EEEE, Answer::Honest);
}

/// QEMU: the host rings the doorbell for a guest that does not sleep; the byte wakes no one and is harmless.
#[test]
fn asleep_flag_written_over() {
    both(ASLEEP, 1, Answer::Honest);
}

//! A sealed guest: guest code that drives the board's Ethernet controller reaches nothing on the host. The hostile
//! guest (kernels/arm/selftest/hostile_net.c) sends a UDP datagram to 10.0.2.2, the host alias of QEMU's user-mode
//! network, which would land on the host's 127.0.0.1.

use std::io::ErrorKind;
use std::net::UdpSocket;
use std::time::{Duration, Instant};

use pqhelium_guest::backend::qemu::QemuBackend;
use pqhelium_guest::backend::unicorn::UnicornBackend;
use pqhelium_guest::backend::{Arg, Backend, Call, CallError, FaultKind, Limits};
use pqhelium_kernels::{M7_IMAGE, M55_IMAGE};

const LIMITS: Limits = Limits { timeout: Duration::from_secs(5) };
const HOSTILE: &str = "pqh_selftest_hostile_net_send_udp";
/// The LAN9118's ID_REV register: the hostile driver's first access.
const LAN9118_ID_REV: u32 = 0x4140_0050;
/// Generous: on an open network the datagram arrives while the call is still running.
const LISTEN: Duration = Duration::from_secs(3);

/// A well-behaved call: the backend still works.
fn assert_healthy(backend: &mut dyn Backend) {
    let words: Vec<u8> = [5u32, 6, 7].iter().flat_map(|w| w.to_le_bytes()).collect();
    let args = vec![Arg::In(words), Arg::U32(3), Arg::U32(0), Arg::U32(0), Arg::U32(0), Arg::U32(0)];
    let out = backend.call(&Call::new("pqh_selftest_sum", args)).unwrap_or_else(|e| panic!("{}: {e}", backend.name()));
    assert_eq!(out.r0, 18, "{}", backend.name());
}

/// Every datagram that reaches `socket` before `LISTEN` has passed.
fn datagrams_received(socket: &UdpSocket) -> Vec<(usize, std::net::SocketAddr)> {
    let deadline = Instant::now() + LISTEN;
    let mut received = Vec::new();
    let mut buf = [0u8; 2048];
    while let Some(left) = deadline.checked_duration_since(Instant::now()).filter(|d| !d.is_zero()) {
        socket.set_read_timeout(Some(left)).unwrap();
        match socket.recv_from(&mut buf) {
            Ok(datagram) => received.push(datagram),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => break,
            Err(e) => panic!("listening on the host: {e}"),
        }
    }
    received
}

#[test]
fn a_guest_driving_the_ethernet_controller_reaches_nothing_on_qemu() {
    let listener = UdpSocket::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let mut qemu = QemuBackend::open(&M55_IMAGE, LIMITS).unwrap();
    let status = procfs::process::Process::new(qemu.worker_pid().unwrap() as i32).and_then(|p| p.status()).unwrap();
    assert_eq!(status.seccomp, Some(2), "QEMU runs under a seccomp filter");

    let out = qemu.call(&Call::new(HOSTILE, vec![Arg::U32(u32::from(port))])).expect("the hostile call returns");
    // The board's controller took and "sent" the frame: the guest's driver works; only the network is absent.
    assert_eq!(out.r0, 1, "frames the LAN9118 reports transmitted");
    let received = datagrams_received(&listener);
    assert!(received.is_empty(), "the guest reached the host's loopback: {received:?}");
    assert_healthy(&mut qemu);
}

#[test]
fn the_ethernet_controller_is_not_mapped_on_unicorn() {
    let mut unicorn = UnicornBackend::open(&M7_IMAGE, LIMITS).unwrap();
    match unicorn.call(&Call::new(HOSTILE, vec![Arg::U32(9)])) {
        Err(CallError::Fault(fault)) => {
            assert_eq!(fault.kind, FaultKind::MemoryAccess { address: Some(LAN9118_ID_REV) });
            assert!(fault.location.starts_with(HOSTILE), "{}", fault.location);
        }
        other => panic!("expected a memory fault, got {other:?}"),
    }
    assert_healthy(&mut unicorn);
}

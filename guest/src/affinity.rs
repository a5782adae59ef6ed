//! Where a campaign's threads run (`--pin`: Linux CPU affinity, for a machine the campaign has to itself).
//!
//! An emulator worker's thread packs each batch into the guest's memory and unpacks the results, and its guest
//! reads and writes those same bytes: on one CPU they stay in that CPU's caches, and the threads that generate and
//! check cases do not preempt the guest. So when the campaign leaves a CPU over, each worker gets a CPU of its own
//! (the QEMU process it starts inherits it) and the host threads get the CPUs left. With as many jobs as CPUs
//! nothing is pinned: there is no CPU to keep the host threads off the guests'.

use rustix::thread::{CpuSet, sched_getaffinity, sched_setaffinity};

/// CPUs for a campaign's threads; `None` from [`Placement::plan`] means "leave them to the scheduler".
#[derive(Debug, Clone, PartialEq)]
pub struct Placement {
    /// The CPU of each job's worker.
    workers: Vec<usize>,
    /// The CPUs of the threads that generate and check cases.
    host: Vec<usize>,
}

impl Placement {
    /// Workers on the last `jobs` of the CPUs this process may use, the host threads on the others; `None` unless
    /// that leaves the host at least one CPU.
    pub fn plan(jobs: usize) -> Option<Self> {
        Self::within(&allowed_cpus()?, jobs)
    }

    fn within(allowed: &[usize], jobs: usize) -> Option<Self> {
        if jobs == 0 || jobs >= allowed.len() {
            return None;
        }
        let (host, workers) = allowed.split_at(allowed.len() - jobs);
        Some(Self { workers: workers.iter().rev().copied().collect(), host: host.to_vec() })
    }

    /// Pins the calling thread (a worker, before it starts its emulator) to job `job`'s CPU.
    pub fn pin_worker(&self, job: usize) {
        pin_current_thread(&[self.workers[job % self.workers.len()]]);
    }

    /// Runs `f` with the calling thread pinned as job `job`'s worker (a QEMU started in `f` keeps that CPU), then
    /// gives the thread back the CPUs it had.
    pub fn as_worker<T>(&self, job: usize, f: impl FnOnce() -> T) -> T {
        let before = allowed_cpus();
        self.pin_worker(job);
        let result = f();
        if let Some(cpus) = before {
            pin_current_thread(&cpus);
        }
        result
    }

    /// Pins the calling thread (one that generates or checks cases) to the host CPUs.
    pub fn pin_host(&self) {
        pin_current_thread(&self.host);
    }
}

/// The CPUs the calling thread may run on.
fn allowed_cpus() -> Option<Vec<usize>> {
    let set = sched_getaffinity(None).ok()?;
    Some((0..CpuSet::MAX_CPU).filter(|&cpu| set.is_set(cpu)).collect())
}

/// Best effort: a thread that cannot be pinned runs where the scheduler puts it.
fn pin_current_thread(cpus: &[usize]) {
    let mut set = CpuSet::new();
    for &cpu in cpus.iter().filter(|&&cpu| cpu < CpuSet::MAX_CPU) {
        set.set(cpu);
    }
    if let Err(e) = sched_setaffinity(None, &set) {
        tracing::debug!("could not pin a thread to CPUs {cpus:?}: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_get_cpus_of_their_own_and_the_host_the_rest() {
        let p = Placement::within(&[0, 1], 1).unwrap();
        assert_eq!((p.workers.as_slice(), p.host.as_slice()), ([1].as_slice(), [0].as_slice()));
        let p = Placement::within(&[2, 3, 5, 7], 2).unwrap();
        assert_eq!((p.workers.as_slice(), p.host.as_slice()), ([7, 5].as_slice(), [2, 3].as_slice()));
    }

    #[test]
    fn nothing_is_pinned_without_a_cpu_for_the_host() {
        assert_eq!(Placement::within(&[0, 1], 2), None);
        assert_eq!(Placement::within(&[0, 1], 3), None);
        assert_eq!(Placement::within(&[4], 1), None);
    }

    #[test]
    fn a_pinned_thread_runs_only_on_its_cpu() {
        let allowed = allowed_cpus().expect("affinity readable");
        let Some(p) = Placement::within(&allowed, 1) else {
            assert_eq!(allowed.len(), 1, "one CPU: nothing to pin");
            return;
        };
        std::thread::spawn(move || {
            p.pin_worker(0);
            assert_eq!(allowed_cpus().unwrap(), vec![*allowed.last().unwrap()]);
            p.pin_host();
            assert_eq!(allowed_cpus().unwrap(), allowed[..allowed.len() - 1].to_vec());
        })
        .join()
        .unwrap();
    }
}

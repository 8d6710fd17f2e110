//! Helper threads that start beside the thread that spawns them, not behind it.
//!
//! Linux places a new thread by the load its CPUs have had lately, and on a machine of few
//! CPUs it often puts a helper on the spawning thread's own CPU, where it waits until that
//! thread's time slice ends or the balancer moves it: on two CPUs, 0.6 to 3.7 ms for the
//! helpers of one s#6 (ep#11), whose passes take 1 to 30 ms. So a helper that finds itself
//! on its spawner's CPU moves to another at once, and the spawner yields once so that such a
//! helper runs at all.

use std::thread::{Scope, ScopedJoinHandle};

/// Spawns `f` on `scope` as helper number `index` (from 1) of the calling thread.
pub(crate) fn spawn_beside<'scope, T, F>(
    scope: &'scope Scope<'scope, '_>,
    index: usize,
    f: F,
) -> ScopedJoinHandle<'scope, T>
where
    T: Send + 'scope,
    F: FnOnce() -> T + Send + 'scope,
{
    let spawner = cpu::current();
    let handle = scope.spawn(move || {
        if let Some(spawner) = spawner {
            cpu::leave(spawner, index);
        }
        f()
    });
    // A helper queued behind this thread runs now (and moves); otherwise this returns at once.
    std::thread::yield_now();
    handle
}

/// Runs `work` on each element of `each`, the first on this thread and each other on a helper
/// (the crew's, kept between calls, when free; else spawned beside it: `spawn_beside`), and
/// returns when all are done.
pub(crate) fn on_each<T: Send>(each: &mut [T], work: impl Fn(&mut T) + Sync) {
    if each.len() <= 1 {
        each.iter_mut().for_each(work);
        return;
    }
    let work = &work;
    // Kept helpers if free; spawned ones otherwise.
    let parts: Vec<SendPtr<T>> = each.iter_mut().map(|t| SendPtr(t as *mut T)).collect();
    let part = |i: usize| {
        // SAFETY: each index is run once, by one thread, while `each` is borrowed here.
        let t: *mut T = parts[i].0;
        work(unsafe { &mut *t })
    };
    if super::crew::run(parts.len() - 1, &part) {
        return;
    }
    let Some((first, rest)) = each.split_first_mut() else {
        return;
    };
    std::thread::scope(|s| {
        for (i, t) in rest.iter_mut().enumerate() {
            spawn_beside(s, i + 1, move || work(t));
        }
        work(first);
    });
}

/// A pointer to one of `on_each`'s elements, handed to the thread that works on it.
struct SendPtr<T>(*mut T);
// SAFETY: `T: Send`, and each element is worked on by one thread at a time.
unsafe impl<T: Send> Send for SendPtr<T> {}
unsafe impl<T: Send> Sync for SendPtr<T> {}

/// The CPU the calling thread runs on, if known.
pub(crate) fn current_cpu() -> Option<usize> {
    cpu::current()
}

/// Moves the calling thread off `cpu` if it runs there (`spawn_beside`): as helper `index`.
pub(crate) fn leave_cpu(cpu: usize, index: usize) {
    cpu::leave(cpu, index);
}

#[cfg(target_os = "linux")]
mod cpu {
    /// glibc's `cpu_set_t`: 1024 CPUs.
    pub(super) type CpuSet = [u64; 16];

    extern "C" {
        fn sched_getcpu() -> i32;
        fn sched_getaffinity(pid: i32, size: usize, mask: *mut CpuSet) -> i32;
        fn sched_setaffinity(pid: i32, size: usize, mask: *const CpuSet) -> i32;
    }

    /// The CPU the calling thread runs on.
    pub(super) fn current() -> Option<usize> {
        // SAFETY: no arguments; -1 on failure.
        let cpu = unsafe { sched_getcpu() };
        usize::try_from(cpu).ok()
    }

    /// The CPUs the calling thread may run on.
    pub(super) fn allowed() -> Option<CpuSet> {
        let mut mask: CpuSet = [0; 16];
        // SAFETY: `mask` is a writable cpu_set_t of its size; pid 0 is this thread.
        let done = unsafe { sched_getaffinity(0, std::mem::size_of::<CpuSet>(), &mut mask) };
        (done == 0).then_some(mask)
    }

    /// When the calling thread runs on `spawner`'s CPU, moves it to another CPU it may run on
    /// (the `index`th other, in turn), then lets it run anywhere again: the move is only
    /// where it starts.
    pub(super) fn leave(spawner: usize, index: usize) {
        if current() != Some(spawner) {
            return;
        }
        let Some(allowed) = allowed() else {
            return;
        };
        let size = std::mem::size_of::<CpuSet>();
        let others: Vec<usize> = (0..size * 8)
            .filter(|&c| c != spawner && allowed[c / 64] >> (c % 64) & 1 == 1)
            .collect();
        let Some(&to) = others.get(index.saturating_sub(1) % others.len().max(1)) else {
            return;
        };
        let mut only: CpuSet = [0; 16];
        only[to / 64] |= 1 << (to % 64);
        // SAFETY: valid cpu_set_t values of `size` bytes for this thread (pid 0); setting the
        // mask moves a running thread to a CPU in it at once.
        unsafe {
            if sched_setaffinity(0, size, &only) == 0 {
                sched_setaffinity(0, size, &allowed);
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod cpu {
    pub(super) fn current() -> Option<usize> {
        None
    }

    pub(super) fn leave(_spawner: usize, _index: usize) {}
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn allowed() -> cpu::CpuSet {
        cpu::allowed().expect("the thread's CPUs")
    }

    /// `leave` moves the thread off the CPU it runs on (where it may run elsewhere) and
    /// leaves it the CPUs it had.
    #[test]
    fn leaving_moves_off_the_cpu_and_keeps_the_mask() {
        let before = allowed();
        let cpus: u32 = before.iter().map(|w| w.count_ones()).sum();
        let Some(here) = cpu::current() else {
            return;
        };
        cpu::leave(here, 1);
        assert_eq!(allowed(), before);
        if cpus >= 2 {
            assert_ne!(cpu::current(), Some(here));
        }
    }

    /// Helpers run their work and may afterwards run on every CPU their spawner may: a helper
    /// that moved off its spawner's CPU is not left tied to the CPU it moved to.
    #[test]
    fn helpers_run_anywhere_after_starting() {
        let spawner = allowed();
        for round in 0..50 {
            std::thread::scope(|s| {
                let helpers: Vec<_> = (1..=3)
                    .map(|i| spawn_beside(s, i, move || (i * round, allowed())))
                    .collect();
                for (i, h) in (1..=3).zip(helpers) {
                    let (n, mask) = h.join().expect("no panic");
                    assert_eq!(n, i * round);
                    assert_eq!(mask, spawner, "helper {i} in round {round}");
                }
            });
        }
    }
}

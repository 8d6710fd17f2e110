//! Helper threads kept between shared searches, waiting for the next.
//!
//! A search shares out a few passes and listings, each until all its threads are done. A
//! helper spawned for each cost the spawning thread 100-140 us on this project's virtual
//! machine and started 130-220 us after it (`beside::spawn_beside`), a few times a problem:
//! the bench's problems take 5 to 500 ms on two threads. Kept, a helper waits for the next
//! share spinning for a while (the gaps between a search's shares are short, and a bench's or
//! a service's next problem often follows soon), then asleep.
//! Over the bench's 49 on two threads the helpers started 91 us after the share on average,
//! 15 us with the crew, and the 49 took 0.9% less time (ten alternating rounds, min per
//! problem; hpint#110 ser-h=13 and #49 ser-h=14, 15 and 5 ms, 4-7%).
//!
//! One crew serves one share at a time: a share that finds it taken (another search at the
//! same time, in the service) spawns its helpers as before.

use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::*};
use std::sync::{Mutex, OnceLock};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// How long a helper spins for the next share before it sleeps. The bench's problems come
/// back to back, as a service's requests may: spinning 20 ms instead of 2, two threads took
/// 1.2-2.6% less time over the 49 and 3.2% over `../shared/bench/random.jsonl` (two sets of
/// six alternating rounds, min per problem). Yielding the CPU at each look after the first
/// tens of microseconds lost that (random 1.4% slower than 2 ms of spinning). The cost: a
/// helper's core busy up to 20 ms after the last share of a solve.
const SPIN: Duration = Duration::from_millis(20);

/// The work of one share, type-erased: `run(i)` is helper `i`'s part. Only read while the
/// share waits for its helpers, so the borrow it stands for outlives every use.
type Job = &'static (dyn Fn(usize) + Sync);

struct Crew {
    /// Taken by the share using the crew.
    taken: AtomicBool,
    /// Bumped for each share: helpers wait for a change.
    generation: AtomicU64,
    /// The share's work, and how many helpers take part (the first that many).
    job: Mutex<Option<(Job, usize)>>,
    /// The CPU the share's own thread runs on: a helper woken there moves off it.
    cpu: AtomicUsize,
    /// Helpers done with the current share.
    done: AtomicUsize,
    /// A helper's panic, handed to the share's thread.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    helpers: Mutex<Vec<Helper>>,
}

struct Helper {
    thread: Thread,
    sleeping: &'static AtomicBool,
}

fn crew() -> &'static Crew {
    static CREW: OnceLock<Crew> = OnceLock::new();
    CREW.get_or_init(|| Crew {
        taken: AtomicBool::new(false),
        generation: AtomicU64::new(0),
        job: Mutex::new(None),
        cpu: AtomicUsize::new(usize::MAX),
        done: AtomicUsize::new(0),
        panic: Mutex::new(None),
        helpers: Mutex::new(Vec::new()),
    })
}

/// Runs `part(i)` for each `i` in `1..=helpers` on the crew's helpers and `part(0)` on this
/// thread, and returns when all are done; false (nothing run) when the crew is taken.
pub(crate) fn run(helpers: usize, part: &(dyn Fn(usize) + Sync)) -> bool {
    let crew = crew();
    if crew.taken.swap(true, Acquire) {
        return false;
    }
    let mut team = crew.helpers.lock().unwrap_or_else(|e| e.into_inner());
    while team.len() < helpers {
        let index = team.len();
        team.push(spawn_helper(crew, index));
    }
    // SAFETY: the job is read by helpers only between the generation's bump below and their
    // `done` count, and this function waits for every helper's count before it returns: the
    // borrow is never used after `part`'s lifetime.
    let job: Job = unsafe { std::mem::transmute::<&(dyn Fn(usize) + Sync), Job>(part) };
    *crew.job.lock().unwrap_or_else(|e| e.into_inner()) = Some((job, helpers));
    crew.done.store(0, Relaxed);
    crew.cpu
        .store(super::beside::current_cpu().unwrap_or(usize::MAX), Relaxed);
    crew.generation.fetch_add(1, SeqCst);
    // Every helper wakes, taking part or not, to count itself done.
    for h in team.iter() {
        if h.sleeping.load(SeqCst) {
            h.thread.unpark();
        }
    }
    let mine = catch_unwind(AssertUnwindSafe(|| part(0)));
    // Every helper counts itself done, taking part or not: none may still read the job.
    let all = team.len();
    drop(team);
    let mut spins = 0u32;
    while crew.done.load(Acquire) < all {
        spins += 1;
        if spins < 1 << 16 {
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
    *crew.job.lock().unwrap_or_else(|e| e.into_inner()) = None;
    let theirs = crew.panic.lock().unwrap_or_else(|e| e.into_inner()).take();
    crew.taken.store(false, Release);
    if let Err(p) = mine {
        resume_unwind(p);
    }
    if let Some(p) = theirs {
        resume_unwind(p);
    }
    true
}

/// Starts `helpers` helpers now, if the crew is free and has fewer, rather than at the first
/// share. Each runs a share's part once, so that what a thread sets up at its first work (the
/// allocator's arena, its stack's first pages) is set up as well. On two threads the bench's
/// first problem (`../shared/bench/random.jsonl`'s #5-77-2, about 5 ms) took 5.0-8.4 ms
/// (median 5.5) with its helper started at its first share, 4.9-5.6 ms (median 5.3) started
/// before (twelve runs each; run again, it took 4.7-5.5 ms either way).
pub(crate) fn hire(helpers: usize) {
    if helpers == 0 {
        return;
    }
    let _ = run(helpers, &|_| {
        std::hint::black_box(vec![0u8; 256]);
    });
}

fn spawn_helper(crew: &'static Crew, index: usize) -> Helper {
    let sleeping: &'static AtomicBool = Box::leak(Box::new(AtomicBool::new(false)));
    let seen = crew.generation.load(SeqCst);
    let handle = std::thread::Builder::new()
        .name(format!("stipula-helper-{}", index + 1))
        .spawn(move || helper(crew, index, seen, sleeping))
        .expect("a helper thread");
    Helper {
        thread: handle.thread().clone(),
        sleeping,
    }
}

/// Helper `index` (from 0; it runs part `index + 1`): waits for each share, takes part if
/// asked, counts itself done.
fn helper(crew: &'static Crew, index: usize, mut seen: u64, sleeping: &AtomicBool) {
    loop {
        let started = Instant::now();
        let mut spins = 0u32;
        loop {
            let g = crew.generation.load(SeqCst);
            if g != seen {
                seen = g;
                break;
            }
            spins += 1;
            if !spins.is_multiple_of(64) || started.elapsed() < SPIN {
                std::hint::spin_loop();
                continue;
            }
            sleeping.store(true, SeqCst);
            if crew.generation.load(SeqCst) == seen {
                std::thread::park();
            }
            sleeping.store(false, SeqCst);
        }
        // Woken, or moved while it spun, it may be on the share's own CPU.
        super::beside::leave_cpu(crew.cpu.load(Relaxed), index + 1);
        let job = *crew.job.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((job, helpers)) = job {
            if index < helpers {
                if let Err(p) = catch_unwind(AssertUnwindSafe(|| job(index + 1))) {
                    *crew.panic.lock().unwrap_or_else(|e| e.into_inner()) = Some(p);
                }
            }
        }
        crew.done.fetch_add(1, Release);
    }
}

#[cfg(test)]
mod tests {
    use super::super::beside::on_each;
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

    /// Shares run at once from several threads (one gets the crew, the others spawn their
    /// helpers) each work on every element exactly once, and return only when all are done.
    #[test]
    fn every_element_is_worked_on_once_whoever_gets_the_crew() {
        std::thread::scope(|s| {
            for caller in 0..4 {
                s.spawn(move || {
                    for round in 0..200 {
                        let mut each: Vec<usize> = vec![0; 1 + (caller + round) % 4];
                        on_each(&mut each, |n| *n += 1);
                        assert!(each.iter().all(|&n| n == 1), "{caller} {round} {each:?}");
                    }
                });
            }
        });
    }

    /// A panic in a helper's part reaches the share's thread, after every part is done; the
    /// crew serves the next share.
    #[test]
    fn a_helpers_panic_reaches_the_share_and_the_crew_goes_on() {
        for _ in 0..20 {
            let done = AtomicUsize::new(0);
            let mut each = [0usize, 1, 2];
            let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                on_each(&mut each, |i| {
                    if *i == 2 {
                        panic!("part {i}");
                    }
                    done.fetch_add(1, Relaxed);
                })
            }));
            assert!(caught.is_err());
            assert_eq!(done.load(Relaxed), 2);
            let mut each = [0u32; 3];
            on_each(&mut each, |n| *n += 7);
            assert_eq!(each, [7; 3]);
        }
    }
}

//! Runs the `amlint` binary under the caps the hostile suite holds every input to
//! (docs/security.md): a wall-clock bound, a bound on the peak resident memory of the
//! process, and a 256 KiB stack for every thread (the main thread through `RLIMIT_STACK`,
//! the others through `RUST_MIN_STACK`). A run that reaches a cap is killed and reported.
//!
//! The wall-clock cap is a hang guard for the unoptimised test build on a loaded 2-core
//! machine, not a speed measure: bench/scaling.sh measures how time grows with the input.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The stack every thread of the child gets.
pub const STACK: u64 = 256 * 1024;
/// Peak resident memory allowed to the child (the bound for inputs up to 10 MB).
pub const MEMORY: u64 = 256 * 1024 * 1024;
/// Wall-clock bound: generous for the unoptimised build, far below what a quadratic step
/// takes on the hostile inputs (minutes).
pub const WALL: Duration = Duration::from_secs(60);

/// What a capped run produced.
pub struct Run {
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub elapsed: Duration,
}

impl Run {
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// `amlint check --no-config --format json --fail-on never .` in `root`, under the caps:
/// its report (a run that fails or prints no JSON panics with what it said).
pub fn check_json(root: &Path) -> serde_json::Value {
    check_json_within(root, ".", WALL)
}

/// [`check_json`] of `target` (a file or folder under `root`), within `wall`.
pub fn check_json_within(root: &Path, target: &str, wall: Duration) -> serde_json::Value {
    let out = amlint_within(
        root,
        &[
            "check",
            "--no-config",
            "--format",
            "json",
            "--fail-on",
            "never",
            target,
        ],
        b"",
        wall,
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr_text());
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e})"))
}

/// Runs `amlint args...` in `dir` with `stdin` as its standard input, under the caps;
/// panics (naming the cap) when the child reaches one or dies of a signal.
pub fn amlint(dir: &Path, args: &[&str], stdin: &[u8]) -> Run {
    amlint_within(dir, args, stdin, WALL)
}

/// [`amlint`] with a wall-clock bound of its own: for the inputs whose linear handling
/// takes a few seconds in the unoptimised build and a quadratic one minutes, a bound
/// between the two (still a hang guard, not a speed measure).
pub fn amlint_within(dir: &Path, args: &[&str], stdin: &[u8], wall: Duration) -> Run {
    let bin = assert_cmd::cargo::cargo_bin("amlint");
    let mut command = Command::new(bin);
    command
        .current_dir(dir)
        .args(args)
        .env("AMLINT_TODAY", "2026-11-22")
        .env("RUST_MIN_STACK", STACK.to_string())
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    run_within(command, stdin, wall)
}

/// Runs `command` under the caps (see [`amlint`]). The child is reaped with `wait4`, not
/// `Child::wait`. Its peak memory is the high-water mark of its own address space
/// (`VmHWM`), sampled while it runs: `wait4`'s `ru_maxrss` also counts the memory of
/// this test process, which the child shared between fork and exec — the whole parallel
/// test suite's, which made the cap fail at random under load.
pub fn run(command: Command, stdin: &[u8]) -> Run {
    run_within(command, stdin, WALL)
}

/// [`run`] with its own wall-clock bound.
#[allow(clippy::zombie_processes)]
pub fn run_within(mut command: Command, stdin: &[u8], wall: Duration) -> Run {
    use std::os::unix::process::CommandExt;
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: STACK as libc::rlim_t,
                rlim_max: STACK as libc::rlim_t,
            };
            if libc::setrlimit(libc::RLIMIT_STACK, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let start = Instant::now();
    let mut child = command.spawn().expect("amlint starts");
    let pid = child.id() as libc::pid_t;
    let mut input = child.stdin.take().expect("stdin");
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        // The child may stop reading early (a bounded read): a broken pipe is fine.
        let _ = input.write_all(&stdin);
    });
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let out_reader = std::thread::spawn(move || drain(&mut out));
    let err_reader = std::thread::spawn(move || drain(&mut err));
    let mut status = 0;
    let mut peak_rss = 0;
    let reason = loop {
        if let Some(hwm) = high_water_mark(pid as u32) {
            peak_rss = peak_rss.max(hwm);
        }
        // SAFETY: pid is our child; status is valid for writes (no resource usage asked).
        let waited = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, std::ptr::null_mut()) };
        if waited == pid {
            break None;
        }
        assert!(waited == 0, "wait4 failed: {}", std::io::Error::last_os_error());
        if start.elapsed() > wall {
            break Some(format!("did not end within {wall:?}"));
        }
        if let Some(rss) = current_rss(pid as u32)
            && rss > MEMORY
        {
            break Some(format!("resident memory reached {} MiB", rss >> 20));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    if let Some(reason) = reason {
        let _ = child.kill();
        // SAFETY: as above; reaps the killed child.
        unsafe { libc::wait4(pid, &mut status, 0, std::ptr::null_mut()) };
        panic!("amlint {reason} (cap: {wall:?}, {} MiB)", MEMORY >> 20);
    }
    let elapsed = start.elapsed();
    let _ = writer.join();
    let stdout = out_reader.join().expect("stdout reader");
    let stderr = err_reader.join().expect("stderr reader");
    if libc::WIFSIGNALED(status) {
        panic!(
            "amlint died of signal {} after {elapsed:?}: {}",
            libc::WTERMSIG(status),
            String::from_utf8_lossy(&stderr)
        );
    }
    assert!(
        peak_rss <= MEMORY,
        "amlint's resident memory peaked at {} MiB (cap {} MiB)",
        peak_rss >> 20,
        MEMORY >> 20
    );
    Run {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        stdout,
        stderr,
        elapsed,
    }
}

/// Everything a pipe gives, up to 64 MiB (more is itself a failure of the output bound).
fn drain(pipe: &mut impl Read) -> Vec<u8> {
    const MAX: usize = 64 << 20;
    let mut all = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match pipe.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if all.len() < MAX {
                    all.extend_from_slice(&buf[..n.min(MAX - all.len())]);
                }
            }
        }
    }
    assert!(all.len() < MAX, "more than {} MiB of output", MAX >> 20);
    all
}

/// The peak resident memory of a running process's address space since its `exec`
/// (`VmHWM` of `/proc/<pid>/status`).
fn high_water_mark(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The resident memory of a running process, from `/proc/<pid>/statm`.
fn current_rss(pid: u32) -> Option<u64> {
    let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * u64::try_from(page).ok()?)
}

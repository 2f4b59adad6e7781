//! The file system as hostile input (`docs/security.md`): every file amlint reads is
//! opened here, without following a link out of its project, without opening anything
//! that is not a regular file, without waiting, and read up to a limit; every file it
//! writes is written here, as a new regular file renamed into place. Also lexical path
//! normalisation ([`normalize`], [`absolute`]), which knows nothing of links.
//!
//! The bottom layer: it imports nothing else of amlint. The only module allowed to touch
//! the file system directly (`clippy.toml`'s `disallowed-methods`).
#![allow(clippy::disallowed_methods)]

use std::fs::File;
use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};

/// Configuration files and the starter's `pyproject.toml` are small: what amlint reads
/// of one at most.
pub const MAX_CONFIG_SIZE: u64 = 4 * 1024 * 1024;
/// Largest ignore file (`.gitignore`, `.ignore`, git's `info/exclude`) the walk reads. Its
/// plain paths and names are looked up in hash sets, and at most
/// `discover::patterns::MAX_COMPILED` bytes of other patterns are compiled by the `ignore`
/// crate; most ignore files are a few kilobytes, but a generated one listing a virtual
/// environment's files one by one is megabytes (a real one: 2.6 MiB, 70,000 lines).
pub const MAX_IGNORE_SIZE: u64 = 4 * 1024 * 1024;

/// The largest baseline read: a quarter of a kilobyte per finding, 130,000 findings (a
/// baseline lives in the repository, so its size is the repository's choice; read, it
/// takes about twice its size in memory).
pub const MAX_BASELINE_SIZE: u64 = 32 * 1024 * 1024;

/// Where links may lead: the real path (links resolved) of a project's directory, or
/// anywhere ([`Boundary::anywhere`]). A path whose real location is outside it is
/// refused; special files are refused wherever they are.
#[derive(Clone, Debug, Default)]
pub struct Boundary(Option<PathBuf>, std::sync::Arc<RealDirs>);

impl PartialEq for Boundary {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl Eq for Boundary {}

/// The directories inside a boundary already resolved and found real (no link on their
/// path, inside): [`Boundary::resolve`] starts below the deepest of them, so a run that
/// resolves many paths in one folder looks at that folder's path once, not once per file.
/// Keyed by the path's bytes. Shared by the clones of a boundary; a race with another
/// process changing the tree while amlint runs is out of scope (docs/security.md).
#[derive(Debug, Default)]
struct RealDirs(std::sync::Mutex<foldhash::HashSet<Vec<u8>>>);

impl RealDirs {
    /// Most directories remembered: beyond it, paths are resolved from the root again.
    const MAX: usize = 100_000;

    /// The deepest known real directory that `abs` (absolute, without `..`) is under.
    fn deepest_of(&self, abs: &Path) -> Option<PathBuf> {
        let set = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if set.is_empty() {
            return None;
        }
        let bytes = abs.as_os_str().as_encoded_bytes();
        let mut end = bytes.len();
        loop {
            let prefix = &bytes[..end];
            if set.contains(prefix) {
                // The prefix ends before a `/` (or at the end): a whole path.
                return Some(
                    abs.ancestors()
                        .find(|a| a.as_os_str().len() == end)?
                        .to_path_buf(),
                );
            }
            end = memchr::memrchr(b'/', prefix)?;
            if end == 0 {
                return None;
            }
        }
    }

    /// Whether `dir` is known real.
    fn contains(&self, dir: &Path) -> bool {
        let set = self.0.lock().unwrap_or_else(|e| e.into_inner());
        set.contains(dir.as_os_str().as_encoded_bytes())
    }

    fn insert(&self, dir: &Path) {
        let mut set = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if set.len() < Self::MAX {
            set.insert(dir.as_os_str().as_encoded_bytes().to_vec());
        }
    }
}

impl Boundary {
    /// No boundary: links are followed anywhere (special files are still refused). For
    /// callers with no project (a library call on a single file).
    pub fn anywhere() -> Self {
        Boundary(None, Default::default())
    }

    /// The directory `root`, with the links in its own path resolved (as given when it
    /// does not exist).
    pub fn at(root: &Path) -> Self {
        Boundary(
            Some(std::fs::canonicalize(root).unwrap_or_else(|_| normalize(root))),
            Default::default(),
        )
    }

    /// The project around `dir`: the git work tree containing it, else `dir` itself.
    /// This is the boundary of a configuration file and its `rules-dirs`, of a baseline
    /// and of `amlint init` (the file's directory is `dir`).
    pub fn around(dir: &Path) -> Self {
        let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| normalize(dir));
        let tree = git_work_tree(&dir).unwrap_or(dir);
        Boundary(Some(tree), Default::default())
    }

    /// The directory, if there is one.
    pub fn root(&self) -> Option<&Path> {
        self.0.as_deref()
    }

    /// Whether `real` (a path without links) is inside.
    pub fn contains(&self, real: &Path) -> bool {
        self.0.as_ref().is_none_or(|root| real.starts_with(root))
    }

    /// The real location of `path` (made absolute against the current directory),
    /// resolved one symbolic link at a time **without looking at anything outside the
    /// boundary**: a path that leads outside (as written, or through a link) is
    /// [`Refusal::Outside`] whether or not its target exists, so a refusal tells nothing of
    /// the machine's files. Only the directories on the way to the boundary's root and
    /// those inside it are looked at (`lstat`, `readlink`). Inside, a path that does not
    /// exist is [`Refusal::Missing`] (or [`Refusal::Dangling`] through a link), and a
    /// chain of more than 40 links is [`Refusal::Loop`]. Without a boundary, links are
    /// resolved by the system (`realpath`).
    pub fn resolve(&self, path: &Path) -> Result<PathBuf, Refusal> {
        let abs = from_start(path)?;
        let Some(root) = &self.0 else {
            return std::fs::canonicalize(&abs).map_err(Refusal::of_io);
        };
        resolve_within(&abs, root, &self.1).map(|(real, _)| real)
    }

    /// Whether the directory `dir` (absolute) is inside: at once when it is written under
    /// the root, else by resolving its links ([`Boundary::resolve`]).
    pub fn contains_dir(&self, dir: &Path) -> bool {
        match &self.0 {
            None => true,
            // Written under the root: its bytes first (a walk asks this of every folder),
            // then its components (`/r/./a`, `//r/a`).
            Some(root)
                if below(
                    dir.as_os_str().as_encoded_bytes(),
                    root.as_os_str().as_encoded_bytes(),
                )
                .is_some()
                    || dir.starts_with(root) =>
            {
                true
            }
            // An ancestor of the root, as written, is outside.
            Some(root) if root.starts_with(dir) => false,
            Some(_) => self.resolve(dir).is_ok(),
        }
    }

    /// [`Boundary::resolve`], and refused when the real location is inside a `.git`
    /// directory of the project: what a file of the repository names (an `extend`, a
    /// rule directory, a component, a test's expectations, a local path) is never the
    /// repository's own git data, whose `config` may hold a token in a remote URL.
    pub fn resolve_named(&self, path: &Path) -> Result<PathBuf, Refusal> {
        let real = self.resolve(path)?;
        let inside = match &self.0 {
            Some(root) => real.strip_prefix(root).unwrap_or(&real),
            None => real.as_path(),
        };
        if inside.components().any(|c| c.as_os_str() == ".git") {
            return Err(Refusal::GitData);
        }
        Ok(real)
    }
}

/// The directory amlint was started in, looked up once (amlint never changes it).
pub fn start_dir() -> std::io::Result<&'static Path> {
    static CWD: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    CWD.get_or_init(|| std::env::current_dir().ok())
        .as_deref()
        .ok_or_else(|| std::io::Error::other("the current directory cannot be read"))
}

/// `path` made absolute against the directory amlint started in, as written (its `..`
/// are left for the resolution of links).
fn from_start(path: &Path) -> Result<PathBuf, Refusal> {
    Ok(if path.is_absolute() {
        path.to_path_buf()
    } else {
        start_dir().map_err(Refusal::of_io)?.join(path)
    })
}

/// Most symbolic links followed while resolving one path (Linux's `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// The common case of [`resolve_within`]: a file or folder (not a link) in a directory
/// already resolved. Only it is looked at; `None` when it is not that case (a link is
/// resolved by the walk like any other).
fn resolve_known_child(abs: &Path, known: &RealDirs) -> Option<Result<Resolved, Refusal>> {
    let parent = abs.parent()?;
    if !known.contains(parent) {
        return None;
    }
    match std::fs::symlink_metadata(abs) {
        Ok(meta) if !meta.file_type().is_symlink() => {
            if meta.is_dir() {
                known.insert(abs);
            }
            Some(Ok((abs.to_path_buf(), Some(meta))))
        }
        Err(e) if e.kind() == ErrorKind::NotFound => Some(Err(Refusal::Missing)),
        _ => None,
    }
}

/// Where [`resolve_within`] starts walking `abs`, and the rest of it. A path written under
/// the root starts there (the root has no links), or below the deepest directory already
/// resolved that the part of `abs` before its first `..` is under (`plain`: the length of
/// that part): the directories above are not looked at again, and a `..` after it climbs
/// from a real directory, as the system's would.
fn walk_start(abs: &Path, root: &Path, known: &RealDirs, plain: usize) -> (PathBuf, PathBuf) {
    let start = abs
        .ancestors()
        .find(|head| head.as_os_str().len() <= plain)
        .filter(|head| head.as_os_str().len() == plain)
        .and_then(|head| known.deepest_of(head))
        .or_else(|| abs.starts_with(root).then(|| root.to_path_buf()));
    match start
        .as_deref()
        .and_then(|s| abs.strip_prefix(s).ok().map(|r| (s, r)))
    {
        Some((s, rest)) => (s.to_path_buf(), rest.to_path_buf()),
        None => (PathBuf::from("/"), abs.to_path_buf()),
    }
}

/// The names of `p` (and its `..`) at the back of `pending`.
fn push_components(pending: &mut std::collections::VecDeque<std::ffi::OsString>, p: &Path) {
    use std::path::Component;
    for c in p.components() {
        match c {
            Component::Normal(n) => pending.push_back(n.to_os_string()),
            Component::ParentDir => pending.push_back(std::ffi::OsString::from("..")),
            _ => {}
        }
    }
}

/// A real path, and what `lstat` showed of it when the walk's last look was at it (not
/// when it ended at a directory known already, or after a `..`).
type Resolved = (PathBuf, Option<std::fs::Metadata>);

/// [`Boundary::resolve`] for an absolute path and a real root.
fn resolve_within(abs: &Path, root: &Path, known: &RealDirs) -> Result<Resolved, Refusal> {
    use std::collections::VecDeque;
    use std::ffi::OsString;
    let bytes = abs.as_os_str().as_encoded_bytes();
    // The part before the first `..` (all of it when there is none).
    let plain = memchr::memmem::find(bytes, b"/..").unwrap_or(bytes.len());
    if plain == bytes.len()
        && let Some(known_child) = resolve_known_child(abs, known)
    {
        return known_child;
    }
    let (mut cur, rest) = walk_start(abs, root, known, plain);
    let mut last: Option<std::fs::Metadata> = None;
    let mut pending: VecDeque<OsString> = VecDeque::new();
    push_components(&mut pending, &rest);
    let mut links = 0usize;
    let mut through_link = false;
    // Where the rest of the path leads as written (for the message of a refusal).
    let lexical = |cur: &Path, pending: &VecDeque<OsString>| {
        let mut p = cur.to_path_buf();
        p.extend(pending.iter());
        normalize(&p)
    };
    let outside = |target: PathBuf, link: bool| Refusal::Outside {
        target,
        boundary: root.to_path_buf(),
        link,
    };
    // Inside, on the way to the root, or on the way to the directory amlint was started
    // in (a path the invoker typed, `../other-repo/ml`, climbs out of it first): nothing
    // there tells anything of the machine's files.
    let start = start_dir().ok();
    let may_look =
        |p: &Path| p.starts_with(root) || root.starts_with(p) || start.is_some_and(|s| s.starts_with(p));
    while let Some(part) = pending.pop_front() {
        last = None;
        if part == ".." {
            cur.pop();
            continue;
        }
        let next = cur.join(&part);
        if !may_look(&next) {
            let mut target = next;
            target.extend(pending.iter());
            return Err(outside(normalize(&target), through_link));
        }
        if known.contains(&next) {
            // A real directory inside the root, looked at already.
            cur = next;
            continue;
        }
        let meta = match std::fs::symlink_metadata(&next) {
            Ok(m) => m,
            Err(e) => {
                let target = lexical(&next, &pending);
                if !target.starts_with(root) {
                    return Err(outside(target, through_link));
                }
                return Err(match Refusal::of_io(e) {
                    Refusal::Missing if through_link => Refusal::Dangling,
                    // `file/x`: nothing is there.
                    Refusal::Io(e) if e.raw_os_error() == Some(libc::ENOTDIR) => Refusal::Missing,
                    other => other,
                });
            }
        };
        if meta.file_type().is_symlink() {
            links += 1;
            if links > MAX_LINKS {
                return Err(Refusal::Loop);
            }
            through_link = true;
            let target = std::fs::read_link(&next).map_err(Refusal::of_io)?;
            let mut front: VecDeque<OsString> = VecDeque::new();
            push_components(&mut front, &target);
            front.extend(pending.drain(..));
            pending = front;
            if target.is_absolute() {
                cur = PathBuf::from("/");
            }
            continue;
        }
        if meta.is_dir() && next.starts_with(root) && next.as_os_str().len() > root.as_os_str().len() {
            known.insert(&next);
        }
        if !meta.is_dir() && pending.iter().any(|p| p != "..") {
            // `file/x` (and `file/../x`, which the system refuses too).
            let target = lexical(&next, &pending);
            if !target.starts_with(root) {
                return Err(outside(target, through_link));
            }
            return Err(Refusal::Missing);
        }
        cur = next;
        last = Some(meta);
    }
    if !cur.starts_with(root) {
        return Err(outside(cur, through_link));
    }
    Ok((cur, last))
}

/// The nearest directory at or above `dir` holding a `.git` (a directory, or the file of
/// a linked work tree or submodule).
pub fn git_work_tree(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())
        .map(Path::to_path_buf)
}

/// What is known of a file before it is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    /// Named by the user or by another file, or reached through a symbolic link: it may
    /// be a link, a directory, a device or a pipe, so its real path is found and looked
    /// at (`stat`) before it is opened. Opening a device can have effects of its own,
    /// and opening a pipe waits for a writer.
    Unknown,
    /// A directory listing showed a regular file (not a link). It is opened at once,
    /// without following a link and without waiting (in case something else has taken
    /// its place since), and looked at through the open file: one lookup of its path
    /// instead of two.
    Listed,
}

impl Seen {
    /// What a directory listing's type of an entry (not followed if a link) tells.
    pub fn from_listing(file_type: std::fs::FileType) -> Seen {
        if file_type.is_file() {
            Seen::Listed
        } else {
            Seen::Unknown
        }
    }
}

/// Why a file was not opened or read.
#[derive(Debug)]
pub enum Refusal {
    /// Nothing at the path.
    Missing,
    /// A directory listing showed it, and it was gone when opened.
    Vanished,
    /// A symbolic link to nothing.
    Dangling,
    /// Symbolic links that lead back to themselves.
    Loop,
    Denied,
    Directory,
    /// A pipe, socket or device (named).
    Special(&'static str),
    /// A path that leads outside the boundary, as written or through a link (`link`);
    /// `target` is where it leads as written, whether or not anything is there.
    Outside {
        target: PathBuf,
        boundary: PathBuf,
        link: bool,
    },
    /// Inside a `.git` directory of the project ([`Boundary::resolve_named`]).
    GitData,
    /// Larger than the limit (bytes).
    TooLarge {
        len: u64,
        limit: u64,
    },
    /// Reading would have waited (a kernel file such as `/proc/kmsg`).
    WouldBlock,
    /// The file changed between being looked at and being opened.
    Replaced,
    Io(std::io::Error),
}

impl Refusal {
    fn of_io(e: std::io::Error) -> Refusal {
        match e.kind() {
            ErrorKind::NotFound => Refusal::Missing,
            ErrorKind::PermissionDenied => Refusal::Denied,
            ErrorKind::WouldBlock => Refusal::WouldBlock,
            ErrorKind::IsADirectory => Refusal::Directory,
            _ if e.raw_os_error() == Some(libc::ELOOP) => Refusal::Loop,
            _ => Refusal::Io(e),
        }
    }

    /// What happened, as a clause ("this is a symbolic link to …").
    pub fn describe(&self) -> String {
        match self {
            Refusal::Missing => "no such file".to_string(),
            Refusal::Vanished => "the file was deleted while amlint was running (it was listed, then could not be opened)".to_string(),
            Refusal::Dangling => "this symbolic link points to a file that does not exist".to_string(),
            Refusal::Loop => "too many levels of symbolic links (a symlink loop)".to_string(),
            Refusal::Denied => "permission denied: amlint cannot read this file".to_string(),
            Refusal::Directory => "this is a directory, not a file".to_string(),
            Refusal::Special(what) => format!("this is {what}, not a regular file; amlint does not open it"),
            Refusal::Outside {
                target,
                boundary,
                link: true,
            } => format!(
                "this leads through a symbolic link to {}, outside the project ({}); amlint reads nothing outside the project",
                shown(target),
                shown(boundary)
            ),
            Refusal::Outside {
                target,
                boundary,
                link: false,
            } => format!(
                "{} is outside the project ({}); amlint reads nothing outside the project",
                shown(target),
                shown(boundary)
            ),
            Refusal::GitData => {
                "this is inside the repository's `.git` directory, which amlint never reads as a configuration, rule, component or test file".to_string()
            }
            Refusal::TooLarge { len, limit } => format!(
                "the file is {}, larger than the {} limit; it was not read",
                human_size(*len),
                human_size(*limit)
            ),
            Refusal::WouldBlock => "reading this file would wait for more input (a kernel or device file); amlint does not read it".to_string(),
            Refusal::Replaced => "the file was replaced while amlint was opening it".to_string(),
            Refusal::Io(e) => format!("cannot read this file: {e}"),
        }
    }
}

/// A path as text for a message: control characters escaped, so that a file name cannot
/// move the terminal's cursor or hide what follows.
pub fn shown(path: &Path) -> String {
    crate::escape::control(&path.to_string_lossy()).into_owned()
}

pub fn human_size(bytes: u64) -> String {
    if bytes >= 1024 * 1024 {
        format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
    } else if bytes >= 1024 {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{bytes} bytes")
    }
}

/// The name of a file type that is not a regular file or a directory.
fn special_name(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    let _ = t;
    "a special file"
}

/// Opens a file to read it: no open of a path whose last component is a link, without
/// waiting (a pipe opens at once, a kernel file reads `EAGAIN` instead of blocking).
fn open_nofollow(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        &mut options,
        libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_NOCTTY,
    );
    options.open(path)
}

/// The length of a regular file, or why it is not one.
fn regular(meta: &std::fs::Metadata) -> Result<u64, Refusal> {
    if meta.is_dir() {
        return Err(Refusal::Directory);
    }
    if !meta.is_file() {
        return Err(Refusal::Special(special_name(meta.file_type())));
    }
    Ok(meta.len())
}

/// Opens the regular file at `path` for reading, its real location inside `boundary`,
/// and returns it with its length. Nothing but a regular file is ever opened when `seen`
/// is [`Seen::Unknown`]: the path's links are resolved and the file looked at first; a
/// [`Seen::Listed`] file is opened at once (not through a link) and looked at through
/// the open file.
pub fn open_regular(path: &Path, seen: Seen, boundary: &Boundary) -> Result<(File, u64), Refusal> {
    if seen == Seen::Listed {
        match open_nofollow(path) {
            Ok(file) => {
                let meta = file.metadata().map_err(Refusal::of_io)?;
                let len = regular(&meta)?;
                return Ok((file, len));
            }
            // It became a link since it was listed: look at it as at any link.
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => return Err(Refusal::Vanished),
            Err(e) => return Err(Refusal::of_io(e)),
        }
    }
    let (real, meta) = look_resolved(path, boundary)?;
    regular(&meta)?;
    let file = open_nofollow(&real).map_err(|e| match e.raw_os_error() {
        Some(libc::ELOOP) => Refusal::Replaced,
        _ => Refusal::of_io(e),
    })?;
    let opened = file.metadata().map_err(Refusal::of_io)?;
    let len = regular(&opened)?;
    if !same_file(&meta, &opened) {
        return Err(Refusal::Replaced);
    }
    Ok((file, len))
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    true
}

/// Reads up to `limit` bytes of an open file whose length was `len` when opened: a file
/// larger than the limit (or growing past it) is refused, and so is one whose read
/// would wait.
pub fn read_open(file: File, len: u64, limit: u64) -> Result<Vec<u8>, Refusal> {
    if len > limit {
        return Err(Refusal::TooLarge { len, limit });
    }
    let mut bytes = Vec::with_capacity(len as usize);
    // The file may grow between `metadata` and here (or report no length, as kernel
    // files do): never read past the limit.
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(Refusal::of_io)?;
    if bytes.len() as u64 > limit {
        return Err(Refusal::TooLarge {
            len: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}

/// Reads a file that a configuration, a checked file or a test names (an `extend`, a rule
/// file, a component, a test's expectations): resolved inside `boundary` and refused in
/// the repository's `.git` ([`Boundary::resolve_named`]), a regular file, at most `limit`
/// bytes.
pub fn read_named(path: &Path, boundary: &Boundary, limit: u64) -> Result<Vec<u8>, Refusal> {
    let real = boundary.resolve_named(path)?;
    read_regular(&real, Seen::Unknown, boundary, limit)
}

/// Most bytes of a file [`scan_regular`] looks through: twice the default size limit. A file larger than the size limit is not read as text, but a script or template
/// that may define computes is still reported (not dropped); past this, a file is data,
/// and only its first bytes are looked at.
pub const MAX_SCAN: u64 = 16 * 1024 * 1024;

/// Whether any of `needles` (non-empty, shorter than a chunk) occurs in the first `max`
/// bytes (at most [`MAX_SCAN`]) of the regular file at `path` (opened as [`open_regular`]
/// opens it), read in fixed chunks: memory stays constant whatever the file's size.
pub fn scan_regular(
    path: &Path,
    seen: Seen,
    boundary: &Boundary,
    needles: &[&str],
    max: u64,
) -> Result<bool, Refusal> {
    const CHUNK: usize = 1 << 20;
    let (file, _) = open_regular(path, seen, boundary)?;
    let longest = needles.iter().map(|n| n.len()).max().unwrap_or(0);
    if longest == 0 || longest >= CHUNK {
        return Ok(false);
    }
    let finders: Vec<memchr::memmem::Finder<'_>> = needles
        .iter()
        .filter(|n| !n.is_empty())
        .map(|n| memchr::memmem::Finder::new(n.as_bytes()))
        .collect();
    let mut reader = file.take(max.min(MAX_SCAN));
    // Each chunk is searched with the last `longest - 1` bytes of the one before it in
    // front, so that a needle across two reads is found.
    let mut buf = vec![0u8; CHUNK + longest];
    let mut kept = 0usize;
    loop {
        let n = match reader.read(&mut buf[kept..]) {
            Ok(0) => return Ok(false),
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(Refusal::of_io(e)),
        };
        let filled = kept + n;
        if finders.iter().any(|f| f.find(&buf[..filled]).is_some()) {
            return Ok(true);
        }
        kept = filled.min(longest - 1);
        buf.copy_within(filled - kept..filled, 0);
    }
}

/// [`open_regular`] then [`read_open`].
pub fn read_regular(path: &Path, seen: Seen, boundary: &Boundary, limit: u64) -> Result<Vec<u8>, Refusal> {
    let (file, len) = open_regular(path, seen, boundary)?;
    read_open(file, len, limit)
}

/// Whether a file that something else (the `ignore` crate, git) will open by name is
/// safe to open: absent, a directory, or a regular file within `limit` whose real
/// location is inside `boundary`. Looked at, never opened.
///
/// The directory holding `path` must be inside the boundary and reached without a link
/// (a directory the walk lists, or one already checked): only `path` itself is looked
/// at, and resolved within the boundary when it is a link.
pub fn check_unopened(path: &Path, boundary: &Boundary, limit: u64) -> Result<(), Refusal> {
    let Ok(own) = std::fs::symlink_metadata(path) else {
        // Absent, or in a directory that cannot be searched: opening it fails too (the
        // directory's listing reports the latter).
        return Ok(());
    };
    let meta = if own.file_type().is_symlink() {
        match look_resolved(path, boundary) {
            Ok((_, meta)) => meta,
            // A dangling link opens as nothing.
            Err(Refusal::Missing | Refusal::Dangling | Refusal::Denied) => return Ok(()),
            Err(r) => return Err(r),
        }
    } else {
        own
    };
    if meta.is_dir() {
        return Ok(());
    }
    let len = regular(&meta)?;
    if len > limit {
        return Err(Refusal::TooLarge { len, limit });
    }
    Ok(())
}

/// The real location of `path` inside `boundary` ([`Boundary::resolve`]) and what is
/// there (`stat` of the real path: nothing is opened). Without a boundary, a path that is
/// not a link is looked at as named.
fn look_resolved(path: &Path, boundary: &Boundary) -> Result<(PathBuf, std::fs::Metadata), Refusal> {
    if let Some(root) = boundary.root() {
        let (real, seen) = resolve_within(&from_start(path)?, root, &boundary.1)?;
        // The walk's `lstat` of the real path is its `stat`: no link is left.
        let meta = match seen {
            Some(meta) => meta,
            None => std::fs::metadata(&real).map_err(Refusal::of_io)?,
        };
        return Ok((real, meta));
    }
    let own = std::fs::symlink_metadata(path).map_err(Refusal::of_io)?;
    if !own.file_type().is_symlink() {
        return Ok((path.to_path_buf(), own));
    }
    let real = match std::fs::canonicalize(path) {
        Ok(real) => real,
        Err(e) if e.kind() == ErrorKind::NotFound => return Err(Refusal::Dangling),
        Err(e) => return Err(Refusal::of_io(e)),
    };
    let meta = std::fs::metadata(&real).map_err(Refusal::of_io)?;
    Ok((real, meta))
}

/// What is at a path, looked at inside a boundary and never opened: for the checks that
/// need to know whether a file or folder a configuration names exists (`code:`,
/// `path:`), and how large a model folder is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Looked {
    File {
        len: u64,
    },
    Dir,
    /// A pipe, socket or device (named).
    Special(&'static str),
}

/// What is at `path` ([`Looked`]), its real location held to `boundary` as for reading:
/// a path leading outside is [`Refusal::Outside`] whether or not anything is there.
pub fn look(path: &Path, boundary: &Boundary) -> Result<Looked, Refusal> {
    let (_, meta) = look_resolved(path, boundary)?;
    Ok(found_of(&meta))
}

fn found_of(meta: &std::fs::Metadata) -> Looked {
    if meta.is_dir() {
        Looked::Dir
    } else if meta.is_file() {
        Looked::File { len: meta.len() }
    } else {
        Looked::Special(special_name(meta.file_type()))
    }
}

/// What is at `path` itself, a link not followed (`lstat`), for paths the invoker gave
/// and the walk's own bookkeeping: `None` when nothing is there (or it cannot be looked
/// at). `Some(None)` is a symbolic link.
pub fn look_here(path: &Path) -> Option<Option<Looked>> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if meta.file_type().is_symlink() {
        return Some(None);
    }
    Some(Some(found_of(&meta)))
}

/// The real path of `path` (every link resolved by the system, `realpath`), for paths the
/// invoker gave (the command line, the current directory, a workspace folder) and the
/// project's own root; `None` when it does not exist. Paths a file of the project names
/// are resolved with [`Boundary::resolve`] instead, which looks at nothing outside.
pub fn real_path(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok()
}

/// Whether `path` is a directory (links followed), for paths the invoker gave (the
/// command line, a workspace folder) and the project's own root.
pub fn is_dir(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_dir())
}

/// Whether `path` is a regular file (links followed), for paths the invoker gave.
pub fn is_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// Whether something (a file, a folder, a link, even dangling) is at `path` itself.
pub fn exists_here(path: &Path) -> bool {
    look_here(path).is_some()
}

/// One entry of a directory a walk lists: its path, its name, and what the listing
/// showed of it (a link is not followed; nothing is opened).
pub struct Listed {
    pub path: PathBuf,
    pub name: std::ffi::OsString,
    /// A directory itself (a link to one is not).
    pub is_dir: bool,
    /// How the entry is opened: at once when the listing showed a regular file.
    pub seen: Seen,
}

/// The entries of the directory `dir`, which a walk reached without following a link
/// (the directory it was given, or one a listing showed as a directory). The walk reads
/// no entry it has not looked at this way.
pub fn walk_listing(dir: &Path) -> std::io::Result<impl Iterator<Item = std::io::Result<Listed>>> {
    Ok(std::fs::read_dir(dir)?.map(move |entry| {
        entry.and_then(|e| {
            let name = e.file_name();
            e.file_type().map(|t| Listed {
                path: joined(dir, &name),
                name,
                is_dir: t.is_dir(),
                seen: Seen::from_listing(t),
            })
        })
    }))
}

/// `dir` joined with the entry `name`, allocated once at its length (`Path::join` copies
/// `dir` and grows it again for the name: a walk joins every entry it lists).
pub fn joined(dir: &Path, name: &std::ffi::OsStr) -> PathBuf {
    let mut path = PathBuf::with_capacity(dir.as_os_str().len() + 1 + name.len());
    path.push(dir);
    path.push(name);
    path
}

/// What a file or directory is at one moment, as far as its metadata tells (`lstat`, a
/// link not followed): device, inode, size, type and permissions, and the modification
/// and change times in nanoseconds. Any write changes the change time, which no user can
/// set; replacing the entry changes the inode. What [`crate::cache`] keys its facts by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mode: u64,
    pub mtime_ns: i64,
    pub ctime_ns: i64,
}

impl Stamp {
    /// A regular file (not a link, a directory or a special file).
    pub fn is_file(&self) -> bool {
        self.mode & 0o170_000 == 0o100_000
    }

    /// A directory (not a link to one).
    pub fn is_dir(&self) -> bool {
        self.mode & 0o170_000 == 0o040_000
    }
}

/// The [`Stamp`] of what is at `path` itself (a link is not followed); `None` if nothing
/// is there, it cannot be looked at, or the platform has no inode and change time (there,
/// nothing is cached).
pub fn stamp(path: &Path) -> Option<Stamp> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::symlink_metadata(path).ok()?;
        let ns = |secs: i64, nanos: i64| secs.checked_mul(1_000_000_000)?.checked_add(nanos);
        Some(Stamp {
            dev: m.dev(),
            ino: m.ino(),
            size: m.size(),
            mode: u64::from(m.mode()),
            mtime_ns: ns(m.mtime(), m.mtime_nsec())?,
            ctime_ns: ns(m.ctime(), m.ctime_nsec())?,
        })
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// Creates the directory `dir` and its parents (amlint's own cache directory, outside
/// any project), private to the user where the platform allows.
pub fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Removes the regular file at `path` (amlint's own cache files); anything else there
/// (a link, a directory) is left alone.
pub fn remove_regular(path: &Path) -> std::io::Result<()> {
    if std::fs::symlink_metadata(path)?.file_type().is_file() {
        std::fs::remove_file(path)
    } else {
        Err(std::io::Error::other("not a regular file"))
    }
}

/// Whether something is at `path`, links followed (`stat`): for the markers of a
/// repository's root (`.git`, `.jj`), which git takes as such wherever they lead; only
/// looked at, never opened.
pub fn exists_through_links(path: &Path) -> bool {
    std::fs::metadata(path).is_ok()
}

/// The entries of the folder at `path` inside `boundary`: each name with what it is
/// itself (a link is `None`, not followed), at most `max` of them (`Err(TooLarge)`
/// beyond: the caller asked for a bounded answer).
pub fn list_dir(
    path: &Path,
    boundary: &Boundary,
    max: usize,
) -> Result<Vec<(std::ffi::OsString, Option<Looked>)>, Refusal> {
    let (real, meta) = look_resolved(path, boundary)?;
    if !meta.is_dir() {
        return Err(match found_of(&meta) {
            Looked::Special(what) => Refusal::Special(what),
            _ => Refusal::Io(std::io::Error::other("not a directory")),
        });
    }
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&real).map_err(Refusal::of_io)? {
        let entry = entry.map_err(Refusal::of_io)?;
        if out.len() == max {
            return Err(Refusal::TooLarge {
                len: max as u64 + 1,
                limit: max as u64,
            });
        }
        let kind = match entry.file_type() {
            Ok(t) if t.is_symlink() => None,
            Ok(t) if t.is_dir() => Some(Looked::Dir),
            Ok(t) if t.is_file() => Some(Looked::File {
                len: std::fs::symlink_metadata(entry.path()).map_or(0, |m| m.len()),
            }),
            Ok(t) => Some(Looked::Special(special_name(t))),
            Err(e) => return Err(Refusal::of_io(e)),
        };
        out.push((entry.file_name(), kind));
    }
    Ok(out)
}

/// Why a file was not written.
#[derive(Debug)]
pub enum WriteRefusal {
    /// Something other than a regular file is at the path (named).
    NotRegular(&'static str),
    /// A file is already there (`Replace::Never`).
    Exists,
    /// The file is no longer what it was read as ([`replace_if_unchanged`]).
    Changed,
    /// The file has this many hard links: replacing it would split it from the others,
    /// which would keep the old text.
    HardLinks(u64),
    /// The user may not write the file (its permissions say so), although the directory
    /// may let a new file replace it.
    NotWritable,
    /// The file belongs to another user or group, which its replacement could not keep.
    Owner,
    /// No new file could be made in the file's directory (to be renamed over it).
    Directory(std::io::Error),
    Io(std::io::Error),
}

impl WriteRefusal {
    pub fn describe(&self) -> String {
        match self {
            WriteRefusal::NotRegular(what) => {
                format!(
                    "there is {what} at this path; amlint writes only regular files and does not replace {what}"
                )
            }
            WriteRefusal::Exists => "the file already exists".to_string(),
            WriteRefusal::Changed => {
                "the file changed on disk since amlint read it; it was left as it is".to_string()
            }
            WriteRefusal::HardLinks(n) => format!(
                "the file has {n} hard links, which replacing it would split (the other names would keep the old text); it was left as it is"
            ),
            WriteRefusal::NotWritable => {
                "you may not write this file (its permissions); it was left as it is".to_string()
            }
            WriteRefusal::Owner => "the file belongs to another user or group, which amlint cannot give its replacement; it was left as it is".to_string(),
            WriteRefusal::Directory(e) => format!(
                "amlint writes a new file beside it and renames it over it, and its directory does not allow that ({e})"
            ),
            WriteRefusal::Io(e) => e.to_string(),
        }
    }
}

/// Whether [`write_atomically`] may replace an existing file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replace {
    /// A regular file is replaced, keeping its permissions.
    Regular,
    /// Nothing is replaced (`amlint init`).
    Never,
}

/// Writes `bytes` to `path` as a regular file, atomically: a new temporary file in the
/// same directory, written and synced, then renamed over the target (or, with
/// [`Replace::Never`], linked to it, which fails when anything is there). A symbolic
/// link, pipe, socket, device or directory at `path` is refused and left alone. A regular
/// file is replaced only as writing it in place would change it: not when it has other
/// hard links (they would keep the old text), not when its permissions do not let the
/// user write it (a writable directory would let the rename do it), and with its owner,
/// group and permissions (refused when the owner or group cannot be kept); it is looked
/// at again just before the rename, which does not happen if it is no longer the file
/// it was.
pub fn write_atomically(path: &Path, bytes: &[u8], replace: Replace) -> Result<(), WriteRefusal> {
    write_checked(path, bytes, replace, &|| Ok(()))
}

/// Replaces the regular file at `path` with `bytes`, atomically as [`write_atomically`]
/// does, only if it still holds `expected` (what it was read as): compared before the
/// temporary file is written and again just before the rename, so that an edit made
/// meanwhile (an editor saving, another tool) is not overwritten. Links and special
/// files are refused; at most `expected.len()` bytes (plus one) are read.
pub fn replace_if_unchanged(path: &Path, expected: &[u8], bytes: &[u8]) -> Result<(), WriteRefusal> {
    let unchanged = || -> Result<(), WriteRefusal> {
        match read_regular(path, Seen::Unknown, &Boundary::anywhere(), expected.len() as u64) {
            Ok(now) if now == expected => Ok(()),
            Ok(_) | Err(Refusal::TooLarge { .. }) => Err(WriteRefusal::Changed),
            Err(Refusal::Io(e)) => Err(WriteRefusal::Io(e)),
            Err(_) => Err(WriteRefusal::Changed),
        }
    };
    unchanged()?;
    write_checked(path, bytes, Replace::Regular, &unchanged)
}

/// What is at `path` before [`write_checked`] writes it: nothing, or a regular file it may
/// replace (`replace`); a link, a directory, a special file or a file it may not replace
/// is refused.
fn existing_target(path: &Path, replace: Replace) -> Result<Option<std::fs::Metadata>, WriteRefusal> {
    let m = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(WriteRefusal::Io(e)),
    };
    let t = m.file_type();
    if t.is_symlink() {
        return Err(WriteRefusal::NotRegular("a symbolic link"));
    }
    if t.is_dir() {
        return Err(WriteRefusal::NotRegular("a directory"));
    }
    if !t.is_file() {
        return Err(WriteRefusal::NotRegular(special_name(t)));
    }
    if replace == Replace::Never {
        return Err(WriteRefusal::Exists);
    }
    replaceable(path, &m)?;
    Ok(Some(m))
}

/// The written temporary file `tmp` becomes `path`, never over anything there: a hard
/// link, then `tmp` removed. On a file system without hard links, a new file is made in
/// place (`O_EXCL`: still never over anything, but not atomic).
fn link_new(tmp: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let linked = std::fs::hard_link(tmp, path);
    let _ = std::fs::remove_file(tmp);
    match linked {
        Err(e) if e.kind() != ErrorKind::AlreadyExists && e.raw_os_error() != Some(libc::ENOSPC) => {
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path)?;
            let written = f.write_all(bytes).and_then(|()| f.sync_all());
            if written.is_err() {
                let _ = std::fs::remove_file(path);
            }
            written
        }
        other => other,
    }
}

/// [`write_atomically`], calling `check` just before the temporary file replaces the
/// target; its refusal leaves the target alone.
fn write_checked(
    path: &Path,
    bytes: &[u8],
    replace: Replace,
    check: &dyn Fn() -> Result<(), WriteRefusal>,
) -> Result<(), WriteRefusal> {
    use std::io::Write as _;
    let refused: std::cell::Cell<Option<WriteRefusal>> = std::cell::Cell::new(None);
    let existing = existing_target(path, replace)?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.amlint-tmp", std::process::id()));
    // Only a temporary file made here is removed: one already at its name is not ours.
    let created = std::cell::Cell::new(false);
    let result = (|| {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        let mut f = match options.open(&tmp) {
            Ok(f) => f,
            Err(e) if matches!(e.raw_os_error(), Some(libc::EACCES | libc::EPERM | libc::EROFS)) => {
                refused.set(Some(WriteRefusal::Directory(e)));
                return Err(std::io::Error::other("refused before writing"));
            }
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                let what = format!("{} is in the way of the temporary file", shown(&tmp));
                refused.set(Some(WriteRefusal::Io(std::io::Error::new(e.kind(), what))));
                return Err(e);
            }
            Err(e) => return Err(e),
        };
        created.set(true);
        if let Some(m) = &existing {
            if let Err(r) = keep_owner(&f, m) {
                refused.set(Some(r));
                return Err(std::io::Error::other("refused before writing"));
            }
            f.set_permissions(m.permissions())?;
        }
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        match replace {
            Replace::Regular => match check().and_then(|()| still(path, existing.as_ref())) {
                Ok(()) => std::fs::rename(&tmp, path),
                Err(r) => {
                    refused.set(Some(r));
                    Err(std::io::Error::other("refused before the rename"))
                }
            },
            Replace::Never => link_new(&tmp, path, bytes),
        }
    })();
    if let Err(e) = result {
        if created.get() {
            let _ = std::fs::remove_file(&tmp);
        }
        if let Some(r) = refused.take() {
            return Err(r);
        }
        if e.kind() == ErrorKind::AlreadyExists {
            return Err(WriteRefusal::Exists);
        }
        return Err(WriteRefusal::Io(e));
    }
    Ok(())
}

/// A private directory amlint made for itself in the system's temporary directory (mode
/// 0700, never an existing one, so no one else's files or links are in it), removed with
/// everything in it when dropped: `amlint test` writes each rule example's project there.
#[derive(Debug)]
pub struct Scratch(PathBuf);

impl Scratch {
    /// A new directory named `<prefix>-<pid>-<n>`.
    pub fn new(prefix: &str) -> std::io::Result<Scratch> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let base = std::env::temp_dir();
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        loop {
            let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let dir = base.join(format!("{prefix}-{}-{n}", std::process::id()));
            match builder.create(&dir) {
                Ok(()) => return Ok(Scratch(dir)),
                Err(e) if e.kind() == ErrorKind::AlreadyExists && n < 1_000_000 => continue,
                Err(e) => return Err(e),
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Creates the folder `rel` (relative, without `..`) and its parents inside.
    pub fn create_dir(&self, rel: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(self.inside(rel)?)
    }

    /// Writes `bytes` as the new file `rel` (relative, without `..`; its folders are
    /// made): never over an existing file or through a link.
    pub fn write(&self, rel: &Path, bytes: &[u8]) -> std::io::Result<()> {
        use std::io::Write as _;
        let path = self.inside(rel)?;
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NOFOLLOW);
        options.open(&path)?.write_all(bytes)
    }

    /// `rel` joined to the directory, refused unless it is a relative path that stays
    /// inside.
    fn inside(&self, rel: &Path) -> std::io::Result<PathBuf> {
        use std::path::Component;
        if rel.as_os_str().is_empty()
            || !rel
                .components()
                .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
        {
            return Err(std::io::Error::other(format!(
                "`{}` is not a path inside the example",
                shown(rel)
            )));
        }
        Ok(self.0.join(rel))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Whether the regular file `path` (`meta`) may be replaced by a new file: one link, and
/// writable by the user.
#[cfg(unix)]
fn replaceable(path: &Path, meta: &std::fs::Metadata) -> Result<(), WriteRefusal> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::MetadataExt;
    if meta.nlink() > 1 {
        return Err(WriteRefusal::HardLinks(meta.nlink()));
    }
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| WriteRefusal::Io(std::io::Error::from(ErrorKind::InvalidInput)))?;
    // SAFETY: `c` is a NUL-terminated path that outlives the call.
    if unsafe { libc::access(c.as_ptr(), libc::W_OK) } != 0 {
        let e = std::io::Error::last_os_error();
        return Err(match e.raw_os_error() {
            Some(libc::EACCES | libc::EPERM | libc::EROFS) => WriteRefusal::NotWritable,
            _ => WriteRefusal::Io(e),
        });
    }
    Ok(())
}

#[cfg(not(unix))]
fn replaceable(_: &Path, meta: &std::fs::Metadata) -> Result<(), WriteRefusal> {
    if meta.permissions().readonly() {
        return Err(WriteRefusal::NotWritable);
    }
    Ok(())
}

/// Gives the new file `f` the owner and group of the file it replaces (`meta`), when they
/// are not already its own: refused when the user may not (another user's file).
#[cfg(unix)]
fn keep_owner(f: &File, meta: &std::fs::Metadata) -> Result<(), WriteRefusal> {
    use std::os::unix::fs::MetadataExt;
    let new = f.metadata().map_err(WriteRefusal::Io)?;
    if (new.uid(), new.gid()) == (meta.uid(), meta.gid()) {
        return Ok(());
    }
    match std::os::unix::fs::fchown(f, Some(meta.uid()), Some(meta.gid())) {
        Ok(()) => Ok(()),
        Err(e) if e.raw_os_error() == Some(libc::EPERM) => Err(WriteRefusal::Owner),
        Err(e) => Err(WriteRefusal::Io(e)),
    }
}

#[cfg(not(unix))]
fn keep_owner(_: &File, _: &std::fs::Metadata) -> Result<(), WriteRefusal> {
    Ok(())
}

/// Just before the rename: the file at `path` is still the one `before` describes (or
/// still absent), and may still be replaced.
fn still(path: &Path, before: Option<&std::fs::Metadata>) -> Result<(), WriteRefusal> {
    let now = match std::fs::symlink_metadata(path) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == ErrorKind::NotFound => None,
        Err(e) => return Err(WriteRefusal::Io(e)),
    };
    match (before, &now) {
        (None, None) => Ok(()),
        (Some(b), Some(n)) if n.file_type().is_file() && same_file(b, n) => replaceable(path, n),
        _ => Err(WriteRefusal::Changed),
    }
}

/// `a/./b/../c` → `a/c`, without touching the file system (symbolic links are kept).
pub fn normalize(path: &Path) -> PathBuf {
    if is_normal(path) {
        return path.to_path_buf();
    }
    rebuilt(path)
}

/// [`normalize`] of a path the caller owns: returned as it is when already normal.
fn normalize_owned(path: PathBuf) -> PathBuf {
    if is_normal(&path) { path } else { rebuilt(&path) }
}

/// `path` rebuilt from its components without `.`, `..` and empty ones.
fn rebuilt(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            // `..` takes back a name; above the start of a relative path it is kept
            // (`../../x` stays so: popping the first `..` lost a level), and above the
            // root it is the root.
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(".."),
            },
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Whether [`normalize`] would return `path` as it is: no `.`, `..` or empty component
/// (a walk asks this for every file and directory; rebuilding the path costs more).
pub fn is_normal(path: &Path) -> bool {
    if cfg!(windows) {
        return false;
    }
    let Some(s) = path.to_str() else {
        return false;
    };
    let body = s.strip_prefix('/').unwrap_or(s).as_bytes();
    // The searcher for `//`, built once (building it cost more than the search).
    static SLASHES: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"//"));
    // No empty component (`//`, a leading or trailing `/`), and no `.` or `..` one: the
    // dots are few, so each is looked at rather than every byte.
    !body.is_empty()
        && body.first() != Some(&b'/')
        && body.last() != Some(&b'/')
        && SLASHES.find(body).is_none()
        && memchr::memchr_iter(b'.', body).all(|i| {
            if i > 0 && body[i - 1] != b'/' {
                return true;
            }
            match body.get(i + 1) {
                None | Some(b'/') => false,
                Some(b'.') => !matches!(body.get(i + 2), None | Some(b'/')),
                Some(_) => true,
            }
        })
}

/// `path` made absolute against `cwd` and normalised.
pub fn absolute(path: &Path, cwd: &Path) -> PathBuf {
    if path.is_absolute() {
        normalize(path)
    } else {
        // `./x`, as a walk of `.` writes every path, is joined as `x`: the result is then
        // normal and not rebuilt (which cost 2 % of a 10,000-file run).
        match path.strip_prefix(".").unwrap_or(path) {
            rest if rest.as_os_str().is_empty() => normalize(cwd),
            rest => normalize_owned(cwd.join(rest)),
        }
    }
}

/// `path` written from `cwd` (all three absolute and normal): below `cwd`, the rest of
/// it; else, when both are inside the project `root`, through `..` (`../infra/main.tf`
/// from `root/jobs`), so that a file outside the directory a run starts in is shown as
/// the others are, not as an absolute path of the machine. `None` otherwise (a path
/// outside the project is shown as it is).
pub fn relative_within(path: &Path, cwd: &Path, root: &Path) -> Option<PathBuf> {
    WrittenFrom::new(cwd, root).path(path)
}

/// [`relative_within`] for many paths from one working directory: where `cwd` lies in
/// the project is worked out once, and each path is compared as bytes (a partial run
/// writes every file of the rest of the project this way).
pub struct WrittenFrom {
    /// The project root's bytes.
    root: Vec<u8>,
    /// The working directory's bytes.
    cwd: Vec<u8>,
    /// The working directory below the root (`""` at the root), or `None` outside it.
    cwd_in_root: Option<Vec<u8>>,
}

impl WrittenFrom {
    pub fn new(cwd: &Path, root: &Path) -> Self {
        let root = root.as_os_str().as_encoded_bytes().to_vec();
        let cwd = cwd.as_os_str().as_encoded_bytes().to_vec();
        let cwd_in_root = below(&cwd, &root).map(<[u8]>::to_vec);
        WrittenFrom {
            root,
            cwd,
            cwd_in_root,
        }
    }

    /// `path` written from the working directory: the rest of it below the working
    /// directory, else through `..` when both are inside the project; `None` otherwise.
    pub fn path(&self, path: &Path) -> Option<PathBuf> {
        let bytes = path.as_os_str().as_encoded_bytes();
        // Below the working directory, whatever the project (outside a git work tree, a
        // one-file run's project is the file's folder, below where the run started).
        if let Some(rel) = below(bytes, &self.cwd) {
            // SAFETY: the end of an `OsStr` after an ASCII separator (or after its root).
            return Some(PathBuf::from(unsafe {
                std::ffi::OsStr::from_encoded_bytes_unchecked(rel)
            }));
        }
        let cwd = self.cwd_in_root.as_deref()?;
        let rel = below(bytes, &self.root)?;
        // `""` has no part (`split` would give one empty one).
        fn parts(b: &[u8]) -> impl Iterator<Item = &[u8]> {
            b.split(|&c| std::path::is_separator(c as char))
                .filter(|part| !part.is_empty())
        }
        let common = parts(rel).zip(parts(cwd)).take_while(|(a, b)| a == b).count();
        let mut out: Vec<u8> = Vec::with_capacity(rel.len() + 8);
        let mut push = |part: &[u8]| {
            if !out.is_empty() {
                out.push(std::path::MAIN_SEPARATOR as u8);
            }
            out.extend_from_slice(part);
        };
        for _ in parts(cwd).skip(common) {
            push(b"..");
        }
        for part in parts(rel).skip(common) {
            push(part);
        }
        // SAFETY: the bytes are whole parts of an `OsStr` (split at ASCII separators)
        // joined by ASCII bytes, as `OsStr::from_encoded_bytes_unchecked` requires.
        Some(PathBuf::from(unsafe {
            std::ffi::OsString::from_encoded_bytes_unchecked(out)
        }))
    }
}

/// The rest of `path` below `root` (both normal), without its leading separator; `""`
/// for the root itself; `None` outside it (`/rr/a` is not below `/r`).
fn below<'p>(path: &'p [u8], root: &[u8]) -> Option<&'p [u8]> {
    let rest = path.strip_prefix(root)?;
    let sep = |c: u8| std::path::is_separator(c as char);
    if rest.is_empty() || root.last().is_some_and(|&c| sep(c)) {
        return Some(rest);
    }
    match rest.split_first() {
        Some((&c, tail)) if sep(c) => Some(tail),
        _ => None,
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_joined_to_its_directory_as_path_join_does() {
        use std::ffi::OsStr;
        for dir in ["/", "/r", "/r/", "r", "r/a", ".", "./x", "a/../b", ""] {
            for name in ["b.yml", ".git", "é ü", "a b"] {
                let (dir, name) = (Path::new(dir), OsStr::new(name));
                let path = joined(dir, name);
                assert_eq!(path, dir.join(name), "{dir:?} + {name:?}");
                assert_eq!(path.as_os_str(), dir.join(name).as_os_str(), "{dir:?} + {name:?}");
            }
        }
    }

    #[test]
    fn paths_within_the_project_are_written_from_the_working_directory() {
        let rel = |p: &str, cwd: &str| relative_within(Path::new(p), Path::new(cwd), Path::new("/r"));
        assert_eq!(rel("/r/a/b.yml", "/r"), Some(PathBuf::from("a/b.yml")));
        assert_eq!(rel("/r/a/b.yml", "/r/a"), Some(PathBuf::from("b.yml")));
        assert_eq!(
            rel("/r/infra/main.tf", "/r/jobs/x"),
            Some(PathBuf::from("../../infra/main.tf"))
        );
        assert_eq!(rel("/r/main.tf", "/r/jobs"), Some(PathBuf::from("../main.tf")));
        // Outside the project: shown as it is.
        assert_eq!(rel("/r/a.yml", "/home"), None);
        // Below the working directory, whatever the project: a one-file run outside git
        // has the file's folder as its project, below where the run started.
        assert_eq!(rel("/r/a.yml", "/"), Some(PathBuf::from("r/a.yml")));
        assert_eq!(
            relative_within(
                Path::new("/w/p/ml/c.yml"),
                Path::new("/w/p"),
                Path::new("/w/p/ml")
            ),
            Some(PathBuf::from("ml/c.yml"))
        );
        assert_eq!(rel("/other/a.yml", "/r"), None);
        assert_eq!(rel("/rr/a.yml", "/r"), None);
        assert_eq!(rel("/r/a.yml", "/rr"), None);
        // The root itself, and a root of `/`.
        assert_eq!(rel("/r", "/r"), Some(PathBuf::new()));
        assert_eq!(rel("/r/a/b.yml", "/r/a/b.yml"), Some(PathBuf::new()));
        assert_eq!(rel("/r", "/r/a/b"), Some(PathBuf::from("../..")));
        assert_eq!(
            relative_within(Path::new("/a/b.yml"), Path::new("/c"), Path::new("/")),
            Some(PathBuf::from("../a/b.yml"))
        );
        // Names that share a beginning are different parts.
        assert_eq!(rel("/r/ab/x.yml", "/r/a"), Some(PathBuf::from("../ab/x.yml")));
        assert_eq!(rel("/r/a/x.yml", "/r/ab"), Some(PathBuf::from("../a/x.yml")));
    }

    /// [`WrittenFrom`] agrees with `Path::strip_prefix` and components, the way it was
    /// first written, on every pair of a small tree's paths.
    #[test]
    fn written_from_agrees_with_components() {
        fn reference(path: &Path, cwd: &Path, root: &Path) -> Option<PathBuf> {
            if let Ok(rel) = path.strip_prefix(cwd) {
                return Some(rel.to_path_buf());
            }
            if !path.starts_with(root) || !cwd.starts_with(root) {
                return None;
            }
            let common = path
                .components()
                .zip(cwd.components())
                .take_while(|(a, b)| a == b)
                .count();
            let mut out = PathBuf::new();
            out.extend(cwd.components().skip(common).map(|_| ".."));
            out.extend(path.components().skip(common));
            Some(out)
        }
        let paths = [
            "/",
            "/r",
            "/r/a",
            "/r/a/b",
            "/r/a/b/c.yml",
            "/r/ab",
            "/r/ab/c",
            "/rr",
            "/rr/a",
            "/x/y",
            "/r/a/bc",
        ];
        for root in ["/", "/r", "/r/a"] {
            for cwd in paths {
                let from = WrittenFrom::new(Path::new(cwd), Path::new(root));
                for path in paths {
                    assert_eq!(
                        from.path(Path::new(path)),
                        reference(Path::new(path), Path::new(cwd), Path::new(root)),
                        "{path} from {cwd} in {root}"
                    );
                }
            }
        }
    }

    #[test]
    fn normalising() {
        assert_eq!(normalize(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        // Audit 11, defect 9: every `..` above a relative path's start is kept.
        assert_eq!(normalize(Path::new("../../x.yml")), PathBuf::from("../../x.yml"));
        assert_eq!(
            normalize(Path::new("a/../../../x.yml")),
            PathBuf::from("../../x.yml")
        );
        assert_eq!(normalize(Path::new("./../b/../../x")), PathBuf::from("../../x"));
        assert_eq!(normalize(Path::new("/../x")), PathBuf::from("/x"));
        assert_eq!(
            absolute(Path::new("x/../y.yml"), Path::new("/w")),
            PathBuf::from("/w/y.yml")
        );
        // A leading `.` (a walk of `.`) is taken off before joining, with the same result.
        for (path, abs) in [
            ("./a/b.yml", "/w/d/a/b.yml"),
            (".//a/./b.yml", "/w/d/a/b.yml"),
            ("./../x", "/w/x"),
            (".", "/w/d"),
            ("./", "/w/d"),
            ("./.", "/w/d"),
            ("..", "/w"),
            ("a/b/", "/w/d/a/b"),
        ] {
            assert_eq!(
                absolute(Path::new(path), Path::new("/w/d")),
                PathBuf::from(abs),
                "{path}"
            );
            assert_eq!(
                absolute(Path::new(path), Path::new("/w/d/")),
                PathBuf::from(abs),
                "{path}"
            );
        }
        // Paths already normal come back as they are; the rest are rebuilt.
        for (path, normal) in [
            ("/a/b.yml", "/a/b.yml"),
            ("a/b", "a/b"),
            ("/a//b", "/a/b"),
            ("a/b/", "a/b"),
            ("./a", "a"),
            ("a/..", ""),
            ("/", "/"),
        ] {
            assert_eq!(normalize(Path::new(path)), PathBuf::from(normal), "{path}");
        }
        assert!(is_normal(Path::new("/a/b.yml")) && !is_normal(Path::new("/a/./b")));
        // The same answer as the definition: no empty, `.` or `..` component.
        let by_components = |s: &str| {
            let body = s.strip_prefix('/').unwrap_or(s);
            !body.is_empty() && body.split('/').all(|c| !matches!(c, "" | "." | ".."))
        };
        for s in [
            "/",
            "//",
            "//a",
            "/a/",
            "a",
            ".",
            "..",
            "...",
            "./a",
            "../a",
            "a/.",
            "a/..",
            "a/...",
            "a/.b",
            "a/..b",
            "a/b.",
            "a/b..",
            "a./b",
            "a../b",
            ".a/b",
            "/a/./b",
            "/a/../b",
            "/a//b",
            "/.hidden/x.yml",
            "/a/b.c.d",
            "a/b/",
            "/a/.../b",
        ] {
            assert_eq!(is_normal(Path::new(s)), by_components(s), "{s}");
        }
    }

    fn mkfifo(path: &Path) {
        let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }

    /// Links are followed inside the boundary only; pipes and devices are never opened
    /// (the test would hang if one were).
    #[cfg(unix)]
    /// A boundary remembers the real directories it has walked and starts later walks
    /// below them, `..` included: whatever it resolved before, it resolves each path as a
    /// boundary that has seen nothing does, and as the system does inside the project.
    #[test]
    fn a_boundary_that_remembers_resolves_as_one_that_does_not() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.yml"), "s: 1\n").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("a/b/c")).unwrap();
        std::fs::write(root.join("a/b/f.yml"), "f: 1\n").unwrap();
        std::fs::write(root.join("a/x.yml"), "x: 1\n").unwrap();
        std::os::unix::fs::symlink("a/b", root.join("l")).unwrap();
        std::os::unix::fs::symlink("..", root.join("a/up")).unwrap();
        std::os::unix::fs::symlink("../../..", root.join("a/b/c/far")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("a/out")).unwrap();
        let paths = [
            "a",
            "a/b",
            "a/b/c",
            "a/b/f.yml",
            "a/b/../x.yml",
            "a/b/c/../f.yml",
            "a/b/c/../../x.yml",
            "l/f.yml",
            "l/../x.yml",
            "l/c/../../x.yml",
            "a/up/a/b/f.yml",
            "a/up/l/../x.yml",
            "a/b/../../l/f.yml",
            "a/b/nope/../f.yml",
            "a/b/f.yml/../x.yml",
            "nope/../a/x.yml",
            "a/b/c/far/x",
            "a/b/c/../c/../../b/f.yml",
            "a/out/secret.yml",
            "a/out/../a/x.yml",
            "a/b/../../..",
            "a/..",
            "a/b/..",
        ];
        let shared = Boundary::at(&root);
        for round in 0..3 {
            let order: Vec<&str> = match round {
                1 => paths.iter().rev().copied().collect(),
                _ => paths.to_vec(),
            };
            for p in order {
                let path = root.join(p);
                let fresh = Boundary::at(&root);
                let want = format!("{:?}", fresh.resolve(&path));
                assert_eq!(format!("{:?}", shared.resolve(&path)), want, "{p}, round {round}");
                assert_eq!(
                    format!("{:?}", look(&path, &shared)),
                    format!("{:?}", look(&path, &Boundary::at(&root))),
                    "{p}, round {round}"
                );
                if let Ok(real) = fresh.resolve(&path) {
                    assert_eq!(real, std::fs::canonicalize(&path).unwrap(), "{p}");
                }
            }
        }
        // What was remembered is used: a later `..` path starts below the directories
        // already resolved (the walk's start, not its end, is what differs).
        assert!(shared.1.contains(&root.join("a/b/c")));
        assert_eq!(
            walk_start(
                &root.join("a/b/c/../f.yml"),
                &root,
                &shared.1,
                root.join("a/b/c").as_os_str().len()
            )
            .0,
            root.join("a/b/c")
        );
    }

    #[test]
    fn what_is_opened_and_what_is_refused() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "token = 1\n").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("a.yml"), "a: 1\n").unwrap();
        std::os::unix::fs::symlink(root.join("a.yml"), root.join("inside.yml")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), root.join("out.yml")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", root.join("zero.yml")).unwrap();
        mkfifo(&root.join("pipe.yml"));
        let b = Boundary::at(root);
        let read = |name: &str, seen| read_regular(&root.join(name), seen, &b, 100);
        assert_eq!(read("a.yml", Seen::Listed).unwrap(), b"a: 1\n");
        assert_eq!(read("a.yml", Seen::Unknown).unwrap(), b"a: 1\n");
        assert_eq!(read("inside.yml", Seen::Unknown).unwrap(), b"a: 1\n");
        assert!(matches!(
            read("out.yml", Seen::Unknown),
            Err(Refusal::Outside { .. })
        ));
        // Listed as a file, a link now: looked at as a link.
        assert!(matches!(
            read("out.yml", Seen::Listed),
            Err(Refusal::Outside { .. })
        ));
        assert!(matches!(
            read("zero.yml", Seen::Unknown),
            Err(Refusal::Outside { .. })
        ));
        assert!(matches!(
            read_regular(&root.join("zero.yml"), Seen::Unknown, &Boundary::anywhere(), 100),
            Err(Refusal::Special("a device"))
        ));
        assert!(matches!(
            read("pipe.yml", Seen::Unknown),
            Err(Refusal::Special(_))
        ));
        assert!(matches!(read("pipe.yml", Seen::Listed), Err(Refusal::Special(_))));
        assert!(matches!(read("gone.yml", Seen::Listed), Err(Refusal::Vanished)));
        assert!(matches!(read("gone.yml", Seen::Unknown), Err(Refusal::Missing)));
        assert!(matches!(
            read_regular(&root.join("a.yml"), Seen::Listed, &b, 3),
            Err(Refusal::TooLarge { len: 5, limit: 3 })
        ));
        assert!(check_unopened(&root.join("a.yml"), &b, 100).is_ok());
        assert!(check_unopened(&root.join("none"), &b, 100).is_ok());
        assert!(check_unopened(&root.join("pipe.yml"), &b, 100).is_err());
        assert!(check_unopened(&root.join("out.yml"), &b, 100).is_err());
        assert!(check_unopened(&root.join("a.yml"), &b, 3).is_err());
    }

    /// `scan_regular` finds a word anywhere in its first `MAX_SCAN` bytes, across the
    /// edge of two reads too, and refuses what `read_regular` refuses.
    #[cfg(unix)]
    #[test]
    fn a_large_file_is_searched_in_chunks() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let b = Boundary::at(root);
        let needle = "az ml compute create";
        let scan = |bytes: &[u8]| {
            std::fs::write(root.join("big.sh"), bytes).unwrap();
            scan_regular(
                &root.join("big.sh"),
                Seen::Listed,
                &b,
                &["nothing here", needle],
                MAX_SCAN,
            )
            .unwrap()
        };
        let chunk = 1 << 20;
        for at in [0, chunk - 5, chunk - 1, chunk, 3 * chunk + 7] {
            let mut bytes = vec![b'#'; 4 * chunk];
            bytes[at..at + needle.len()].copy_from_slice(needle.as_bytes());
            assert!(scan(&bytes), "at {at}");
        }
        assert!(!scan(&vec![b'#'; 4 * chunk]));
        // Cut by the last byte: not found.
        let mut cut = vec![b'#'; 2 * chunk];
        let end = cut.len();
        cut[end - needle.len() + 1..].copy_from_slice(&needle.as_bytes()[..needle.len() - 1]);
        assert!(!scan(&cut));
        // Past `MAX_SCAN`: not looked at (a sparse file, not written out).
        let sparse = std::fs::File::create(root.join("big.sh")).unwrap();
        sparse.set_len(MAX_SCAN + 10).unwrap();
        drop(sparse);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(root.join("big.sh"))
            .unwrap();
        std::io::Write::write_all(&mut f, needle.as_bytes()).unwrap();
        assert!(!scan_regular(&root.join("big.sh"), Seen::Listed, &b, &[needle], u64::MAX).unwrap());
        // Nor past the budget given.
        std::fs::write(root.join("late.sh"), format!("{}{needle}", "#".repeat(1000))).unwrap();
        assert!(!scan_regular(&root.join("late.sh"), Seen::Listed, &b, &[needle], 1000).unwrap());
        assert!(scan_regular(&root.join("late.sh"), Seen::Listed, &b, &[needle], 1020).unwrap());
        mkfifo(&root.join("pipe.sh"));
        assert!(matches!(
            scan_regular(&root.join("pipe.sh"), Seen::Unknown, &b, &[needle], MAX_SCAN),
            Err(Refusal::Special(_))
        ));
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("s.sh"), needle).unwrap();
        std::os::unix::fs::symlink(outside.path().join("s.sh"), root.join("out.sh")).unwrap();
        assert!(matches!(
            scan_regular(&root.join("out.sh"), Seen::Unknown, &b, &[needle], MAX_SCAN),
            Err(Refusal::Outside { .. })
        ));
    }

    /// A kernel file that never ends reads `EAGAIN` instead of waiting.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_kernel_file_does_not_block() {
        // /proc/self/... files are regular files of length 0 whose text is generated;
        // reading `status` ends, and the limit bounds what is kept.
        let r = read_regular(
            Path::new("/proc/self/status"),
            Seen::Unknown,
            &Boundary::anywhere(),
            10,
        );
        assert!(matches!(r, Err(Refusal::TooLarge { limit: 10, .. })), "{r:?}");
    }

    #[cfg(unix)]
    #[test]
    fn writing_replaces_only_regular_files_and_keeps_their_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let file = root.join("b.json");
        std::fs::write(&file, "old").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomically(&file, b"new", Replace::Regular).unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "new");
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        std::os::unix::fs::symlink(&file, root.join("link.json")).unwrap();
        mkfifo(&root.join("pipe.json"));
        for name in ["link.json", "pipe.json"] {
            let r = write_atomically(&root.join(name), b"x", Replace::Regular);
            assert!(matches!(r, Err(WriteRefusal::NotRegular(_))), "{name}: {r:?}");
        }
        assert!(
            std::fs::symlink_metadata(root.join("link.json"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert!(matches!(
            write_atomically(&file, b"x", Replace::Never),
            Err(WriteRefusal::Exists)
        ));
        write_atomically(&root.join("new.toml"), b"n", Replace::Never).unwrap();
        assert_eq!(std::fs::read_to_string(root.join("new.toml")).unwrap(), "n");
        // No temporary file is left behind.
        let names: Vec<String> = std::fs::read_dir(root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|n| !n.contains("amlint-tmp")), "{names:?}");
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(shown(Path::new("a.yml")), "a.yml");
        assert_eq!(shown(Path::new("a\u{1b}[2J\n.yml")), "a\\u{1b}[2J\\n.yml");
    }

    #[test]
    fn the_project_around_a_directory_is_its_git_work_tree() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("repo/.git")).unwrap();
        std::fs::create_dir_all(root.join("repo/ml/x")).unwrap();
        std::fs::create_dir_all(root.join("plain/x")).unwrap();
        assert_eq!(
            Boundary::around(&root.join("repo/ml/x")).root(),
            Some(root.join("repo").as_path())
        );
        assert_eq!(
            Boundary::around(&root.join("plain/x")).root(),
            Some(root.join("plain/x").as_path())
        );
        assert!(Boundary::at(&root.join("repo")).contains(&root.join("repo/a")));
        assert!(!Boundary::at(&root.join("repo")).contains(&root.join("repository")));
    }
}

//! The persisted project cache (issue 38): what a one-file or subfolder run learns of the
//! rest of the project, kept between runs so that the next run neither lists every
//! directory nor reads every file again to find the few that name what it looks for.
//!
//! Only facts of the file system are kept, each under the [`fsio::Stamp`] of what it
//! describes (device, inode, size, type, modification and change times) and used only
//! while a fresh `lstat` gives the same stamp:
//!
//! - a directory's listing: each entry's name and whether it is a regular file, a
//!   directory or something else;
//! - a file's trigrams: which three-byte sequences its text holds in ASCII lower case, as
//!   a bit set ([`Grams`]). A name with a trigram the set lacks is not in the file, which
//!   is then not read; any other file is read and searched as without a cache;
//! - and, when the caller can say it, the trigrams of the only places of that text where
//!   a name can be defined ([`FileFileSummary::defines`]: the pipeline's values of `name:`/`type:`
//!   keys in a YAML or JSON file nobody else reads): a file that mentions a name only
//!   elsewhere (a Kubernetes manifest's `value: cpu-cluster`) is not read either.
//!
//! Nothing a check decides is cached: a cached fact only spares a listing or a read whose
//! result it records. Any write to a file or directory sets its change time, which no user
//! can set, and replacing one changes its inode; an entry changed within two seconds of
//! being looked at (the granularity of some file systems' times) is not recorded at all.
//!
//! One file per project root and amlint version, in `AMLINT_CACHE_DIR`, else
//! `$XDG_CACHE_HOME/amlint`, else `~/.cache/amlint` (outside every repository: a pull
//! request cannot plant one), written as a new file renamed into place (two runs sharing
//! it each write a whole one), checked by a checksum when read (a damaged one is ignored),
//! at most [`MAX_BYTES`], and the [`KEEP`] most recent kept. `--no-cache` bypasses it.
//! `docs/cache.md` tells users the same.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::fsio::{self, Stamp};

/// The format of the file; with amlint's version, part of what names it. Raised whenever
/// what an entry means changes (2: [`FileSummary::defines`]; 3: the workflows reader also
/// reads files that call a local template or action, which then have no `defines`; 4: the
/// scripts and workflows readers also read files that mention `.sh`, a script they may
/// run; 5: and `python -m `, a module they may run; 6: and `python $`, a file a variable
/// names; 7: the Python reader's `load_compute`), so that no build reads another's. The definition readers' words decide which
/// files have `defines`: a test of `facts::sources` fails when they change and this does
/// not.
pub const FORMAT: u32 = 7;
const MAGIC: &[u8; 8] = b"AMLCACHE";
/// The largest cache file written or read (a 10,000-file repository's is about 5 MB).
pub const MAX_BYTES: u64 = 64 * 1024 * 1024;
/// How many projects' caches the directory keeps (the most recently written).
pub const KEEP: usize = 32;
/// How old (change and modification time) an entry must be to be recorded.
const SETTLE_NS: i64 = 2_000_000_000;
/// The file name's extension.
const EXTENSION: &str = "amlc";

/// The directory caches are kept in, from the environment: `AMLINT_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/amlint`, else `$HOME/.cache/amlint`; `None` without any (no cache).
pub fn default_dir() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = var("AMLINT_CACHE_DIR") {
        return Some(dir);
    }
    if let Some(dir) = var("XDG_CACHE_HOME").filter(|d| d.is_absolute()) {
        return Some(dir.join("amlint"));
    }
    var("HOME")
        .filter(|d| d.is_absolute())
        .map(|home| home.join(".cache").join("amlint"))
}

/// What a cached listing says an entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    File = 0,
    Dir = 1,
    Other = 2,
}

impl Kind {
    fn of(listed: &fsio::Listed) -> Kind {
        match (listed.is_dir, listed.seen) {
            (true, _) => Kind::Dir,
            (false, fsio::Seen::Listed) => Kind::File,
            (false, fsio::Seen::Unknown) => Kind::Other,
        }
    }

    fn from_byte(b: u8) -> Option<Kind> {
        [Kind::File, Kind::Dir, Kind::Other].get(usize::from(b)).copied()
    }
}

type Entries = Vec<(Box<[u8]>, Kind)>;
/// A path's key (its bytes) and what was recorded of it now.
type Recorded<T> = Vec<(Box<[u8]>, Stamp, T)>;

/// Where a record of the cache file lies in its bytes (checked whole when the file was
/// read; a record is decoded only when its path is looked up): its first byte and the one
/// after it, and where its key ends and its stamp begins (the key is its first bytes after
/// their length).
#[derive(Clone, Copy)]
struct At {
    start: u32,
    end: u32,
    stamp: u32,
}

impl At {
    fn key(self, bytes: &[u8]) -> &[u8] {
        &bytes[self.start as usize + 4..self.stamp as usize]
    }
    fn record(self, bytes: &[u8]) -> &[u8] {
        &bytes[self.start as usize..self.end as usize]
    }
}

/// A record read from the cache file: where it lies, whether this run used it (only those
/// are saved again), and what more is known of its place (`T`).
struct Record<T> {
    at: At,
    used: AtomicBool,
    more: T,
}

/// Where a file's record holds its trigram sets (`(start, words)` in the file's bytes).
/// A directory's record is its key and stamp, then its entries (decoded by
/// [`Cache::listing`]), and needs nothing more.
struct GramsAt {
    grams: (u32, u32),
    defines: Option<(u32, u32)>,
}

/// The records of one kind read from a cache file, found by their keys' hash (records
/// are not copied out of the file's bytes: a 20,000-file project's cache holds 30,000,
/// read on every one-file run).
struct Table<T> {
    records: Vec<Record<T>>,
    index: hashbrown::HashTable<u32>,
    /// Seeded per process: a cache file cannot be made of keys that collide (where
    /// `AMLINT_CACHE_DIR` is inside a checked repository, a pull request could plant one).
    hasher: foldhash::fast::RandomState,
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Table::with_capacity(0)
    }
}

impl<T> Table<T> {
    fn with_capacity(n: usize) -> Self {
        Table {
            records: Vec::with_capacity(n),
            index: hashbrown::HashTable::with_capacity(n),
            hasher: foldhash::fast::RandomState::default(),
        }
    }

    /// Adds the record at `at` unless one of its key is there (a file written by amlint
    /// has none twice).
    fn add(&mut self, at: At, more: T, bytes: &[u8]) {
        let key = at.key(bytes);
        let hash = std::hash::BuildHasher::hash_one(&self.hasher, key);
        let (records, hasher) = (&self.records, &self.hasher);
        if self
            .index
            .find(hash, |&i| records[i as usize].at.key(bytes) == key)
            .is_none()
        {
            let i = u32::try_from(self.records.len()).unwrap_or(u32::MAX);
            let rehash =
                |&j: &u32| std::hash::BuildHasher::hash_one(hasher, records[j as usize].at.key(bytes));
            self.index.insert_unique(hash, i, rehash);
            let used = AtomicBool::new(false);
            self.records.push(Record { at, used, more });
        }
    }

    fn get(&self, key: &[u8], bytes: &[u8]) -> Option<&Record<T>> {
        let hash = std::hash::BuildHasher::hash_one(&self.hasher, key);
        self.index
            .find(hash, |&i| self.records[i as usize].at.key(bytes) == key)
            .map(|&i| &self.records[i as usize])
    }

    /// The places of the records this run used.
    fn used(&self) -> Vec<At> {
        self.records
            .iter()
            .filter(|r| r.used.load(Ordering::Relaxed))
            .map(|r| r.at)
            .collect()
    }

    fn len(&self) -> usize {
        self.records.len()
    }

    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
}

/// What is kept of a file's text: the trigrams of all of it, and of the places where it
/// may define a name (`None`: anywhere, or the caller could not say).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileSummary {
    pub grams: Grams,
    pub defines: Option<Grams>,
}

/// One project's cache for one run: what was read from its file, what this run used of
/// it, and what it recorded anew; [`Cache::save`] writes what is still true.
pub struct Cache {
    path: PathBuf,
    identity: Vec<u8>,
    /// Entries whose times are at or after this (nanoseconds since the epoch) are not
    /// recorded.
    settled_before: i64,
    /// The cache file's bytes, which the records below are places of.
    bytes: Arc<Vec<u8>>,
    dirs: Table<()>,
    files: Table<GramsAt>,
    new_dirs: Mutex<Recorded<Entries>>,
    new_files: Mutex<Recorded<FileSummary>>,
}

impl std::fmt::Debug for Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cache")
            .field("path", &self.path)
            .field("dirs", &self.dirs.len())
            .field("files", &self.files.len())
            .finish()
    }
}

/// What the cache knows of a file: its summary, while its stamp is unchanged (it need
/// not be read), or only its stamp now (`None` if it has none: it is read, never recorded).
pub enum FileLookup {
    Known(FileSummary),
    Unknown(Option<Stamp>),
}

impl Cache {
    /// The cache of the project whose root is `root` (absolute), kept in `dir`: what its
    /// file holds if it is whole and was written by this version of amlint for this root,
    /// else nothing (a missing, damaged or foreign file is replaced by the next save).
    pub fn open(dir: &Path, root: &Path) -> Cache {
        let identity = identity_of(root);
        let path = dir.join(format!("{:016x}.{EXTENSION}", checksum(&identity)));
        let settle = std::env::var("AMLINT_CACHE_SETTLE_MS")
            .ok()
            .and_then(|v| v.parse::<i64>().ok())
            .map_or(SETTLE_NS, |ms| ms.saturating_mul(1_000_000));
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
        let mut cache = Cache {
            path,
            identity,
            settled_before: now.saturating_sub(settle),
            bytes: Arc::default(),
            dirs: Table::default(),
            files: Table::default(),
            new_dirs: Mutex::default(),
            new_files: Mutex::default(),
        };
        if let Ok(bytes) = fsio::read_regular(
            &cache.path,
            fsio::Seen::Unknown,
            &fsio::Boundary::anywhere(),
            MAX_BYTES,
        ) && let Some((dirs, files)) = parse(&bytes, &cache.identity)
        {
            cache.bytes = Arc::new(bytes);
            cache.dirs = dirs;
            cache.files = files;
        }
        cache
    }

    /// Where the cache is kept.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The entries of the walked directory `dir` (as [`fsio::walk_listing`] gives them):
    /// from the cache while the directory's stamp is the one recorded, else listed, and
    /// recorded if it has settled and every entry could be read.
    pub fn listing(&self, dir: &Path) -> std::io::Result<Vec<std::io::Result<fsio::Listed>>> {
        let stamp = fsio::stamp(dir).filter(Stamp::is_dir);
        let key = key_of(dir);
        if let Some(stamp) = stamp
            && let Some(record) = self.dirs.get(key, &self.bytes)
            && let Some(entries) = self.entries_if(record.at, &stamp)
        {
            record.used.store(true, Ordering::Relaxed);
            return Ok(entries
                .into_iter()
                .map(|(name, kind)| Ok(listed(dir, name, kind)))
                .collect());
        }
        let fresh: Vec<std::io::Result<fsio::Listed>> = fsio::walk_listing(dir)?.collect();
        if let Some(stamp) = stamp.filter(|s| self.settled(s))
            && fresh.iter().all(Result::is_ok)
        {
            let entries = fresh
                .iter()
                .flatten()
                .map(|l| (Box::from(l.name.as_encoded_bytes()), Kind::of(l)))
                .collect();
            lock(&self.new_dirs).push((key.into(), stamp, entries));
        }
        Ok(fresh)
    }

    /// What the cache knows of the file at `path` now (one `lstat`).
    pub fn file(&self, path: &Path) -> FileLookup {
        let stamp = fsio::stamp(path).filter(Stamp::is_file);
        if let Some(stamp) = stamp
            && let Some(record) = self.files.get(key_of(path), &self.bytes)
            && stamp_at(&self.bytes, record.at.stamp).as_ref() == Some(&stamp)
        {
            record.used.store(true, Ordering::Relaxed);
            let grams = |(start, words): (u32, u32)| Grams {
                bytes: Arc::clone(&self.bytes),
                start: start as usize,
                words: words as usize,
            };
            return FileLookup::Known(FileSummary {
                grams: grams(record.more.grams),
                defines: record.more.defines.map(grams),
            });
        }
        FileLookup::Unknown(stamp)
    }

    /// The entries of the directory record at `at`, if its stamp is `stamp`.
    fn entries_if(&self, at: At, stamp: &Stamp) -> Option<Vec<(&[u8], Kind)>> {
        if stamp_at(&self.bytes, at.stamp).as_ref() != Some(stamp) {
            return None;
        }
        let mut r = Reader {
            all: &self.bytes,
            pos: at.stamp as usize + STAMP_BYTES,
            end: at.end as usize,
        };
        let n = r.count(5)?;
        (0..n)
            .map(|_| {
                let kind = Kind::from_byte(r.take(1)?[0])?;
                Some((r.bytes()?, kind))
            })
            .collect()
    }

    /// Records the trigrams of the file at `path`, read as `lower` (ASCII lower case)
    /// when its stamp was `stamp` (taken before it was opened), if it has settled; with
    /// the text where it may define a name, when `defines` can say (called only then).
    pub fn record_file(
        &self,
        path: &Path,
        stamp: Stamp,
        lower: &[u8],
        defines: impl FnOnce() -> Option<Vec<u8>>,
    ) {
        if stamp.is_file() && self.settled(&stamp) {
            let summary = FileSummary {
                grams: Grams::of(lower),
                defines: defines().map(|d| Grams::of(&d)),
            };
            lock(&self.new_files).push((key_of(path).into(), stamp, summary));
        }
    }

    fn settled(&self, stamp: &Stamp) -> bool {
        stamp.mtime_ns < self.settled_before && stamp.ctime_ns < self.settled_before
    }

    /// Writes what is still true (the entries this run used or recorded) if it differs
    /// from what was read, then removes all but the [`KEEP`] most recent caches of the
    /// directory. Returns whether it wrote.
    pub fn save(&self) -> std::io::Result<bool> {
        let new_dirs = std::mem::take(&mut *lock(&self.new_dirs));
        let new_files = std::mem::take(&mut *lock(&self.new_files));
        let (old_dirs, old_files) = (self.dirs.used(), self.files.used());
        let unchanged = new_dirs.is_empty()
            && new_files.is_empty()
            && old_dirs.len() == self.dirs.len()
            && old_files.len() == self.files.len();
        if unchanged {
            return Ok(false);
        }
        let mut w = Writer(Vec::new());
        w.0.extend_from_slice(MAGIC);
        w.u32(FORMAT);
        w.bytes(&self.identity);
        // What this run used of the old file is written as it was read.
        let bytes = &self.bytes[..];
        w.len(old_dirs.len() + new_dirs.len());
        for at in old_dirs {
            w.0.extend_from_slice(at.record(bytes));
        }
        for (key, stamp, entries) in &new_dirs {
            w.bytes(key);
            w.stamp(stamp);
            w.len(entries.len());
            for (name, kind) in entries {
                w.0.push(*kind as u8);
                w.bytes(name);
            }
        }
        w.len(old_files.len() + new_files.len());
        for at in old_files {
            w.0.extend_from_slice(at.record(bytes));
        }
        for (key, stamp, summary) in &new_files {
            w.bytes(key);
            w.stamp(stamp);
            w.grams(&summary.grams);
            match &summary.defines {
                None => w.0.push(0),
                Some(defines) => {
                    w.0.push(1);
                    w.grams(defines);
                }
            }
        }
        let sum = checksum(&w.0);
        w.u64(sum);
        if w.0.len() as u64 > MAX_BYTES {
            return Ok(false);
        }
        let dir = self.path.parent().unwrap_or(Path::new("."));
        fsio::create_private_dir(dir)?;
        match fsio::write_atomically(&self.path, &w.0, fsio::Replace::Regular) {
            Ok(()) => {}
            // Another run replaced it meanwhile with a whole cache of its own: kept.
            Err(fsio::WriteRefusal::Changed) => return Ok(false),
            Err(e) => return Err(std::io::Error::other(e.describe())),
        }
        evict(dir);
        Ok(true)
    }
}

/// Removes all but the [`KEEP`] most recently written caches of `dir` (best effort: two
/// runs may remove the same file).
fn evict(dir: &Path) {
    let Ok(listed) = fsio::list_dir(dir, &fsio::Boundary::anywhere(), 100_000) else {
        return;
    };
    let mut caches: Vec<(i64, PathBuf)> = listed
        .into_iter()
        .filter(|(name, looked)| {
            matches!(looked, Some(fsio::Looked::File { .. }))
                && Path::new(name).extension().is_some_and(|e| e == EXTENSION)
        })
        .filter_map(|(name, _)| {
            let path = dir.join(name);
            fsio::stamp(&path).map(|s| (s.mtime_ns, path))
        })
        .collect();
    if caches.len() <= KEEP {
        return;
    }
    caches.sort_by_key(|c| std::cmp::Reverse(c.0));
    for (_, path) in caches.into_iter().skip(KEEP) {
        let _ = fsio::remove_regular(&path);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn key_of(path: &Path) -> &[u8] {
    path.as_os_str().as_encoded_bytes()
}

/// What a cache file must say it was written for: this amlint, this format, this root.
fn identity_of(root: &Path) -> Vec<u8> {
    let mut id = format!("amlint {} format {FORMAT}\0", env!("CARGO_PKG_VERSION")).into_bytes();
    id.extend_from_slice(key_of(root));
    id
}

fn listed(dir: &Path, name: &[u8], kind: Kind) -> fsio::Listed {
    let name = os_string(name);
    fsio::Listed {
        path: fsio::joined(dir, &name),
        name,
        is_dir: kind == Kind::Dir,
        seen: if kind == Kind::File {
            fsio::Seen::Listed
        } else {
            fsio::Seen::Unknown
        },
    }
}

#[cfg(unix)]
fn os_string(bytes: &[u8]) -> std::ffi::OsString {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::OsStr::from_bytes(bytes).to_os_string()
}

/// Never called where there are no stamps (nothing is recorded there).
#[cfg(not(unix))]
fn os_string(bytes: &[u8]) -> std::ffi::OsString {
    String::from_utf8_lossy(bytes).into_owned().into()
}

/// A 64-bit checksum of `bytes` (not cryptographic: it finds a damaged file; the file is
/// the user's own, outside every project). foldhash with its fixed seed: the same for the
/// same build, and a build whose hash differs only misses the cache once.
fn checksum(bytes: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    foldhash::quality::FixedState::default().hash_one(bytes)
}

/// The trigrams of a text in ASCII lower case, as a bit set of a power-of-two size
/// (folded in halves while it stays at most 35 % full): a name (three bytes or more)
/// with a trigram whose bit is clear is not in the text. An empty set is a text too
/// varied to summarise (over 60 % full at the largest size): it may hold anything.
///
/// Kept as the little-endian bytes of its 64-bit words, as the cache file writes them: a
/// set read from the file is a view of the file's bytes, not a copy (a 20,000-file
/// project's cache holds 30,000 sets, read on every one-file run).
#[derive(Clone, Debug)]
pub struct Grams {
    bytes: Arc<Vec<u8>>,
    start: usize,
    words: usize,
}

impl PartialEq for Grams {
    fn eq(&self, other: &Grams) -> bool {
        self.raw() == other.raw()
    }
}

impl Eq for Grams {}

impl Grams {
    /// Largest set, in bits.
    const MAX_BITS: usize = 1 << 18;

    /// The trigrams of `lower` (the text in ASCII lower case).
    pub fn of(lower: &[u8]) -> Grams {
        let bits = (lower.len().saturating_mul(2))
            .next_power_of_two()
            .clamp(64, Self::MAX_BITS);
        let mut words = vec![0u64; bits / 64];
        let mask = bits - 1;
        // The trigram ending at each byte, rolled in (the text can be megabytes).
        let mut gram: u32 = 0;
        for (i, &b) in lower.iter().enumerate() {
            gram = (gram << 8 | u32::from(b)) & 0x00FF_FFFF;
            if i >= 2 {
                let bit = gram_bit(gram) & mask;
                words[bit / 64] |= 1 << (bit % 64);
            }
        }
        let ones = |w: &[u64]| w.iter().map(|x| x.count_ones() as usize).sum::<usize>();
        while words.len() > 1 {
            let half = words.len() / 2;
            let folded: Vec<u64> = (0..half).map(|i| words[i] | words[i + half]).collect();
            if ones(&folded) * 100 > half * 64 * 35 {
                break;
            }
            words = folded;
        }
        if ones(&words) * 100 > words.len() * 64 * 60 {
            words.clear();
        }
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        Grams {
            bytes: Arc::new(bytes),
            start: 0,
            words: words.len(),
        }
    }

    /// The words' bytes.
    fn raw(&self) -> &[u8] {
        &self.bytes[self.start..self.start + self.words * 8]
    }

    /// Whether the text may contain `needle` (in ASCII lower case): false only if it
    /// certainly does not.
    pub fn may_contain(&self, needle: &[u8]) -> bool {
        if needle.len() < 3 || self.words == 0 {
            return true;
        }
        let raw = self.raw();
        let mask = self.words * 64 - 1;
        needle.windows(3).all(|t| {
            let gram = u32::from(t[0]) << 16 | u32::from(t[1]) << 8 | u32::from(t[2]);
            let bit = gram_bit(gram) & mask;
            // Bit `bit` of the little-endian words is bit `bit % 8` of byte `bit / 8`.
            raw[bit / 8] & (1 << (bit % 8)) != 0
        })
    }
}

/// Where a trigram (three bytes, the first highest) falls: a multiplicative hash whose
/// high half is folded into the low bits the set's sizes use.
fn gram_bit(gram: u32) -> usize {
    let h = gram.wrapping_mul(0x9E37_79B1);
    (h ^ (h >> 15)) as usize
}

struct Writer(Vec<u8>);

impl Writer {
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn len(&mut self, n: usize) {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX));
    }
    fn bytes(&mut self, b: &[u8]) {
        self.len(b.len());
        self.0.extend_from_slice(b);
    }
    fn stamp(&mut self, s: &Stamp) {
        for v in [s.dev, s.ino, s.size, s.mode, s.mtime_ns as u64, s.ctime_ns as u64] {
            self.u64(v);
        }
    }
    fn grams(&mut self, g: &Grams) {
        self.len(g.words);
        self.0.extend_from_slice(g.raw());
    }
}

/// The bytes of a [`Stamp`] in the file.
const STAMP_BYTES: usize = 48;

/// Reads a cache file: `None` unless it is whole (magic, format, checksum) and says it
/// was written for `identity`, and every record is well formed. Every length is checked
/// against what is left, so a file cannot make it allocate more than its own size; the
/// records are found in place, not copied.
type Parsed = (Table<()>, Table<GramsAt>);

fn parse(bytes: &[u8], identity: &[u8]) -> Option<Parsed> {
    let end = bytes.len().checked_sub(8)?;
    let (body, sum) = bytes.split_at_checked(end)?;
    if checksum(body) != u64::from_le_bytes(sum.try_into().ok()?) {
        return None;
    }
    let mut r = Reader {
        all: bytes,
        pos: 0,
        end,
    };
    if r.take(MAGIC.len())? != MAGIC || r.u32()? != FORMAT || r.bytes()? != identity {
        return None;
    }
    let place = |n: usize| u32::try_from(n).ok();
    let n = r.count(4 + STAMP_BYTES + 4)?;
    let mut dirs = Table::with_capacity(n);
    for _ in 0..n {
        let start = r.pos;
        r.bytes()?;
        let stamp = r.pos;
        r.take(STAMP_BYTES)?;
        let n = r.count(5)?;
        for _ in 0..n {
            Kind::from_byte(r.take(1)?[0])?;
            r.bytes()?;
        }
        let at = At {
            start: place(start)?,
            end: place(r.pos)?,
            stamp: place(stamp)?,
        };
        dirs.add(at, (), bytes);
    }
    let n = r.count(4 + STAMP_BYTES + 4 + 1)?;
    let mut files = Table::with_capacity(n);
    for _ in 0..n {
        let start = r.pos;
        r.bytes()?;
        let stamp = r.pos;
        r.take(STAMP_BYTES)?;
        let grams = r.grams()?;
        let defines = match r.take(1)?[0] {
            0 => None,
            1 => Some(r.grams()?),
            _ => return None,
        };
        let at = At {
            start: place(start)?,
            end: place(r.pos)?,
            stamp: place(stamp)?,
        };
        files.add(at, GramsAt { grams, defines }, bytes);
    }
    (r.pos == r.end).then_some((dirs, files))
}

/// The stamp written at `pos` of the file's bytes.
fn stamp_at(bytes: &[u8], pos: u32) -> Option<Stamp> {
    let pos = pos as usize;
    Reader {
        all: bytes,
        pos,
        end: pos.checked_add(STAMP_BYTES)?.min(bytes.len()),
    }
    .stamp()
}

/// Reads `all[..end]` (the file without its checksum) from `pos` on.
struct Reader<'a> {
    all: &'a [u8],
    pos: usize,
    end: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let start = self.pos;
        let end = start.checked_add(n).filter(|&e| e <= self.end)?;
        self.pos = end;
        Some(&self.all[start..end])
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
    /// A count of items of at least `min` bytes each: no more than what is left holds.
    fn count(&mut self, min: usize) -> Option<usize> {
        let n = self.u32()? as usize;
        (n <= (self.end - self.pos) / min).then_some(n)
    }
    /// A trigram set: a count of words (zero or a power of two), then the words; returns
    /// where the words start in the file's bytes, and how many there are.
    fn grams(&mut self) -> Option<(u32, u32)> {
        let n = self.count(8)?;
        if n != 0 && !n.is_power_of_two() {
            return None;
        }
        let start = self.pos;
        self.take(n * 8)?;
        Some((u32::try_from(start).ok()?, u32::try_from(n).ok()?))
    }
    fn stamp(&mut self) -> Option<Stamp> {
        Some(Stamp {
            dev: self.u64()?,
            ino: self.u64()?,
            size: self.u64()?,
            mode: self.u64()?,
            mtime_ns: self.u64()? as i64,
            ctime_ns: self.u64()? as i64,
        })
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A cache that records everything at once (no settling), in `dir`, for `root`.
    fn unsettled(dir: &Path, root: &Path) -> Cache {
        let mut cache = Cache::open(dir, root);
        cache.settled_before = i64::MAX;
        cache
    }

    fn names(entries: Vec<std::io::Result<fsio::Listed>>) -> Vec<(String, bool, bool)> {
        let mut out: Vec<_> = entries
            .into_iter()
            .map(|e| {
                let e = e.unwrap();
                let file = matches!(e.seen, fsio::Seen::Listed);
                (e.name.to_string_lossy().into_owned(), e.is_dir, file)
            })
            .collect();
        out.sort();
        out
    }

    proptest! {
        /// A text holds every name its trigrams do not rule out: never a false "no".
        #[test]
        fn grams_never_rule_out_a_name_the_text_holds(text in "[a-z0-9_ :-]{0,400}", start in 0usize..400, len in 0usize..40) {
            let lower = text.as_bytes();
            let grams = Grams::of(lower);
            let start = start.min(lower.len());
            let end = (start + len).min(lower.len());
            prop_assert!(grams.may_contain(&lower[start..end]));
        }
    }

    #[test]
    fn grams_rule_out_most_names_a_text_lacks() {
        let text = "$schema: https://azuremlschemas.azureedge.net/latest/commandJob.schema.json\ncompute: azureml:cpu-cluster\n";
        let grams = Grams::of(text.to_ascii_lowercase().as_bytes());
        assert!(grams.may_contain(b"cpu-cluster"));
        assert!(
            grams.may_contain(b"ml"),
            "shorter than a trigram: may be anywhere"
        );
        let absent = ["gpu-cluster-a100", "serverlesst05", "k8s-compute", "zzzz"];
        assert!(absent.iter().all(|n| !grams.may_contain(n.as_bytes())));
        // Too varied to summarise: the empty set, which rules out nothing.
        let noise: Vec<u8> = (0..200_000u32)
            .flat_map(|i| checksum(&i.to_le_bytes()).to_le_bytes())
            .collect();
        let g = Grams::of(&noise);
        assert!(g.words == 0 && g.may_contain(b"anything"));
    }

    /// A listing and a file's trigrams are saved, read back, and used while unchanged;
    /// a changed file or directory is looked at again, and what is gone is dropped.
    #[cfg(unix)]
    #[test]
    fn what_is_cached_is_used_only_while_unchanged() {
        let root = tempfile::tempdir().unwrap();
        let store = tempfile::tempdir().unwrap();
        let (root, store) = (root.path(), store.path());
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("a.yml"), "compute: azureml:cpu-cluster\n").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", root.join("link")).unwrap();

        let first = unsettled(store, root);
        let listed = names(first.listing(root).unwrap());
        let expected = vec![
            ("a.yml".to_string(), false, true),
            ("link".to_string(), false, false),
            ("sub".to_string(), true, false),
        ];
        assert_eq!(listed, expected);
        let stamp = match first.file(&root.join("a.yml")) {
            FileLookup::Unknown(Some(stamp)) => stamp,
            _ => panic!("nothing cached yet"),
        };
        first.record_file(
            &root.join("a.yml"),
            stamp,
            b"compute: azureml:cpu-cluster\n",
            || Some(b"job-1\n".to_vec()),
        );
        assert!(first.save().unwrap());

        // Read back: both are known, and nothing new means nothing written.
        let second = unsettled(store, root);
        assert_eq!(second.dirs.len(), 1);
        assert_eq!(names(second.listing(root).unwrap()), expected);
        let FileLookup::Known(FileSummary { grams, defines }) = second.file(&root.join("a.yml")) else {
            panic!("the file's trigrams were saved");
        };
        assert!(grams.may_contain(b"cpu-cluster") && !grams.may_contain(b"westeurope-k8s-inference"));
        let defines = defines.expect("where it may define a name was saved");
        assert!(defines.may_contain(b"job-1") && !defines.may_contain(b"cpu-cluster"));
        assert!(!second.save().unwrap());

        // The file rewritten (another inode, another size): looked at again.
        std::fs::remove_file(root.join("a.yml")).unwrap();
        std::fs::write(root.join("a.yml"), "compute: azureml:gpu-cluster-2\n").unwrap();
        let third = unsettled(store, root);
        assert!(matches!(
            third.file(&root.join("a.yml")),
            FileLookup::Unknown(Some(_))
        ));
        // The directory changed too (its entry replaced): listed again, and the same.
        assert_eq!(names(third.listing(root).unwrap()), expected);
        // What this run did not use is dropped from the file.
        assert!(third.save().unwrap());
        let fourth = unsettled(store, root);
        assert!(fourth.files.is_empty());
        assert_eq!(fourth.dirs.len(), 1);
    }

    /// An entry changed less than the settling time ago is used for this run but never
    /// recorded: a change made later within the same tick of the file system's clock
    /// could not be told from it.
    #[cfg(unix)]
    #[test]
    fn what_has_not_settled_is_not_recorded() {
        let root = tempfile::tempdir().unwrap();
        let store = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("a.yml"), "a: 1\n").unwrap();
        let cache = Cache::open(store.path(), root.path());
        assert_eq!(names(cache.listing(root.path()).unwrap()).len(), 1);
        let FileLookup::Unknown(Some(stamp)) = cache.file(&root.path().join("a.yml")) else {
            panic!("a regular file has a stamp");
        };
        cache.record_file(&root.path().join("a.yml"), stamp, b"a: 1\n", || None);
        assert!(!cache.save().unwrap(), "nothing settled: nothing written");
        assert!(!cache.path().exists());
    }

    /// A damaged, truncated or foreign cache file is ignored (and never panics), and one
    /// written for another project root is not used for this one.
    #[cfg(unix)]
    #[test]
    fn a_damaged_or_foreign_cache_is_ignored() {
        let root = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        let store = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("a.yml"), "a: 1\n").unwrap();
        let cache = unsettled(store.path(), root.path());
        let _ = cache.listing(root.path()).unwrap();
        assert!(cache.save().unwrap());
        let bytes = std::fs::read(cache.path()).unwrap();
        let identity = identity_of(root.path());
        assert!(parse(&bytes, &identity).is_some());
        assert!(parse(&bytes, &identity_of(other.path())).is_none());
        for cut in 0..bytes.len() {
            assert!(parse(&bytes[..cut], &identity).is_none(), "cut at {cut}");
        }
        for i in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[i] ^= 0x40;
            assert!(parse(&damaged, &identity).is_none(), "byte {i}");
        }
        // Another root's cache lives in another file: nothing of this one is seen there.
        assert!(unsettled(store.path(), other.path()).dirs.is_empty());
    }

    /// At most `KEEP` caches are kept: the oldest go.
    #[cfg(unix)]
    #[test]
    fn old_caches_are_removed() {
        let store = tempfile::tempdir().unwrap();
        for i in 0..KEEP + 3 {
            std::fs::write(store.path().join(format!("{i:04}.{EXTENSION}")), b"x").unwrap();
        }
        std::fs::write(store.path().join("notes.txt"), b"mine").unwrap();
        evict(store.path());
        let left: Vec<_> = std::fs::read_dir(store.path()).unwrap().flatten().collect();
        assert_eq!(left.len(), KEEP + 1);
        assert!(store.path().join("notes.txt").exists());
    }
}

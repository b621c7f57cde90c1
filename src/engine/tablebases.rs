//! The endgame databases an engine searches with: one open set per directory
//! shared by every engine of the process, read in the background so that a
//! search never waits for a file.

use crate::egdb::Tablebase;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

/// The sets of databases open in this process, by canonical directory; an
/// entry lives while some engine holds its set.
static OPEN_TABLEBASES: Mutex<Vec<(PathBuf, Weak<Tablebase>)>> = Mutex::new(Vec::new());

/// The cache's entries, those no engine holds any more dropped.
fn live_tablebases() -> std::sync::MutexGuard<'static, Vec<(PathBuf, Weak<Tablebase>)>> {
    let mut open = OPEN_TABLEBASES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    open.retain(|(_, tb)| tb.strong_count() > 0);
    open
}

/// The open set for the canonical `dir` in `open`, if any.
fn find_tablebase(open: &[(PathBuf, Weak<Tablebase>)], dir: &Path) -> Option<Arc<Tablebase>> {
    open.iter()
        .find(|(d, _)| d == dir)
        .and_then(|(_, tb)| tb.upgrade())
}

/// How many sets of endgame databases this process holds open (each set is
/// one directory, however its path was spelled).
#[must_use]
pub fn open_tablebases() -> usize {
    live_tablebases().len()
}

/// The databases in `dir`, shared by every engine of the process that uses
/// the same directory (however its path is spelled) while any of them does;
/// the slices it loads are read-only. The directory is read without holding
/// the cache's lock.
pub(super) fn open_tablebase(dir: &Path) -> Result<Arc<Tablebase>, String> {
    let dir = dir.canonicalize().map_err(|e| e.to_string())?;
    if let Some(tb) = find_tablebase(&live_tablebases(), &dir) {
        return Ok(tb);
    }
    let mut tb = Tablebase::new();
    tb.add_directory(&dir).map_err(|e| e.to_string())?;
    add_builtin(&mut tb);
    let tb = Arc::new(tb);
    {
        let mut open = live_tablebases();
        if let Some(other) = find_tablebase(&open, &dir) {
            // another engine opened it meanwhile: share that one
            return Ok(other);
        }
        open.push((dir, Arc::downgrade(&tb)));
    }
    // Searches never wait for a file (a large slice takes longer to read than
    // a move may): the small slices are read now, the rest on a thread of
    // their own, and each answers probes once it is in memory.
    tb.preload(PRELOAD_NOW_PIECES);
    let bg = Arc::clone(&tb);
    let spawned = std::thread::Builder::new()
        .name("egdb-preload".into())
        .spawn(move || {
            let t = std::time::Instant::now();
            let bytes = bg.preload(bg.probe_pieces());
            tracing::info!(
                bytes,
                secs = t.elapsed().as_secs_f64(),
                "endgame databases in memory"
            );
        });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "no thread to read the endgame databases; reading them now");
        tb.preload(tb.probe_pieces());
    }
    Ok(tb)
}

/// Adds the slices built into kingme that `tb`'s directory lacks (a damaged
/// built-in pack is logged and left out).
fn add_builtin(tb: &mut Tablebase) {
    if let Err(e) = tb.add_builtin() {
        tracing::warn!(error = %e, "the endgame databases built into kingme are unusable");
    }
}

/// Only the databases built into kingme (when no database directory
/// exists), shared by every engine of the process that uses them.
pub(super) fn open_builtin_tablebase() -> Arc<Tablebase> {
    // the empty path stands for no directory
    let key = PathBuf::new();
    let mut open = live_tablebases();
    if let Some(tb) = find_tablebase(&open, &key) {
        return tb;
    }
    let mut tb = Tablebase::new();
    add_builtin(&mut tb);
    // searches never wait for a slice: the built-in ones are in the binary,
    // so all of them are made ready now
    tb.preload(tb.probe_pieces());
    let tb = Arc::new(tb);
    open.push((key, Arc::downgrade(&tb)));
    tb
}

/// Slices of up to this many pieces (the small ones) are read when the databases
/// are opened, before any search probes them.
const PRELOAD_NOW_PIECES: u32 = 4;

pub(super) fn describe_tablebase(tb: &Tablebase, dir: Option<&Path>) -> String {
    let Some(dir) = dir else {
        return match tb.max_pieces() {
            0 => "no endgame database found (no data directory; set EGDBPath); playing without"
                .to_string(),
            n => format!(
                "endgame databases: every position of up to {n} pieces, and those of {} \
                 with at most {} king, built into kingme (kingme egdb build --pieces 6 puts \
                 more in the data directory)",
                crate::egdb::pack::BUILTIN_PARTIAL_PIECES,
                crate::egdb::pack::BUILTIN_PARTIAL_KINGS
            ),
        };
    };
    if tb.max_pieces() == 0 {
        format!(
            "no endgame database found in {} (kingme egdb build makes one); playing without",
            dir.display()
        )
    } else {
        format!(
            "endgame databases: {} slices, every position of up to {} pieces, in {}",
            tb.slices().len(),
            tb.max_pieces(),
            dir.display()
        )
    }
}

//! The compact database format (version 4) against the files it is
//! converted from: every position of the 4-piece set gives the same value and
//! conversion distance (positions with a capture pending found by a capture
//! search), the engine's database move is the same, and damage is an error,
//! never a wrong value.

mod common;

use common::cli::{kingme_egdb, temp_dir, text};
use kingme::egdb::index::SliceIndex;
use kingme::egdb::{self, Material, Tablebase};
use kingme::Position;
use std::fmt::Display;
use std::path::{Path, PathBuf};

fn open(dir: &Path) -> Tablebase {
    let mut tb = Tablebase::new();
    tb.add_directory(dir).unwrap();
    tb
}

fn size(dir: &Path, ext: &str) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(ext))
        .map(|e| e.metadata().unwrap().len())
        .sum()
}

/// Every position of slice `m`, with its index.
fn positions(m: Material) -> impl Iterator<Item = (u64, Position)> {
    let ix = SliceIndex::new(m);
    (0..ix.len()).filter_map(move |i| Some((i, ix.position(i)?)))
}

/// Probes the positions of slice `m` that `skip` leaves with `damaged`: each
/// answer is `want`'s, each error names `path` and says every one of `says`.
/// How many were errors and how many right.
fn errors_and_right<T: PartialEq + std::fmt::Debug, E: Display>(
    m: Material,
    skip: impl Fn(&Position) -> bool,
    damaged: impl Fn(&Position) -> Result<T, E>,
    want: impl Fn(&Position) -> T,
    path: &Path,
    says: &[&str],
) -> (usize, usize) {
    let (mut errors, mut right) = (0, 0);
    for (_, pos) in positions(m).filter(|(_, p)| !skip(p)) {
        match damaged(&pos) {
            Ok(v) => {
                assert_eq!(v, want(&pos), "{}", pos.to_fen());
                right += 1;
            }
            Err(e) => {
                assert!(e.to_string().contains(path.to_str().unwrap()), "{e}");
                for s in says {
                    assert!(e.to_string().contains(s), "{e}");
                }
                errors += 1;
            }
        }
    }
    (errors, right)
}

/// Builds the 4-piece set in version 1 and converts it into `out`.
fn full_and_compact(tag: &str) -> (PathBuf, PathBuf) {
    let full = temp_dir(&format!("compact-{tag}-full"));
    let compact = temp_dir(&format!("compact-{tag}-compact"));
    egdb::build(&egdb::BuildOptions {
        threads: 2,
        format: egdb::build::Format::Full,
        ..egdb::BuildOptions::new(full.clone(), 4)
    })
    .unwrap();
    let args = [
        "--quiet",
        "--sample",
        "20000",
        "--out",
        compact.to_str().unwrap(),
    ];
    let out = kingme_egdb("convert", &args, &full);
    assert!(out.status.success(), "{}", text(&out.stderr));
    (full, compact)
}

#[test]
fn every_position_of_four_pieces_has_the_same_value_and_distance() {
    let (full_dir, compact_dir) = full_and_compact("same");
    let (full, compact) = (open(&full_dir), open(&compact_dir));
    assert_eq!(compact.max_pieces(), 4);
    assert_eq!(full.slices(), compact.slices());
    let (mut count, mut captures) = (0u64, 0u64);
    for m in full.slices() {
        for (i, pos) in positions(m) {
            count += 1;
            captures += u64::from(pos.must_capture());
            let want = full.probe_dtc(&pos).unwrap();
            assert_eq!(compact.probe_dtc(&pos).unwrap(), want, "{}", pos.to_fen());
            assert_eq!(compact.probe_wdl(&pos).unwrap(), want.0, "{}", pos.to_fen());
            if i % 97 == 0 {
                // the conversion play: the same move, or one as good
                let a = full.best_move(&pos).unwrap();
                let b = compact.best_move(&pos).unwrap();
                assert_eq!(a.map(|x| x.1), b.map(|x| x.1), "{}", pos.to_fen());
                if let (Some((ma, _)), Some((mb, _))) = (a, b) {
                    let d = |m| full.probe_dtc(&pos.after(m)).unwrap();
                    assert_eq!(d(ma), d(mb), "{}: {ma} or {mb}", pos.to_fen());
                }
            }
        }
    }
    assert!(captures > count / 10, "{captures} of {count}");
    let (fv, fd) = (size(&full_dir, ".wld"), size(&full_dir, ".dtc"));
    let (cv, cd) = (size(&compact_dir, ".wld"), size(&compact_dir, ".dtc"));
    assert!(
        cv * 2 < fv && cd * 2 < fd,
        "values {fv} -> {cv}, distances {fd} -> {cd}"
    );
}

#[test]
fn converting_in_place_is_restartable_and_a_probe_names_a_damaged_file() {
    let (full_dir, compact_dir) = full_and_compact("damage");
    let full = open(&full_dir);
    // in place: the second run finds every slice compact
    let out = kingme_egdb("convert", &["--quiet", "--sample", "20000"], &full_dir);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("kept 0 compact"),
        "{}",
        text(&out.stdout)
    );
    let out = kingme_egdb("convert", &["--quiet"], &full_dir);
    assert!(
        text(&out.stdout).contains("converted 0 slices"),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(size(&full_dir, ".wld"), size(&compact_dir, ".wld"));

    // one byte of one block of a 4-piece slice flipped: that block's
    // positions are errors, every other position keeps its value
    let m: egdb::Material = "bm2bk0wm2wk0".parse().unwrap();
    let path = compact_dir.join(format!("{m}.wld"));
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.len() - 10;
    bytes[at] ^= 0x55;
    std::fs::write(&path, &bytes).unwrap();
    let damaged = open(&compact_dir);
    let (errors, right) = errors_and_right(
        m,
        Position::must_capture,
        |p| damaged.probe_wdl(p),
        |p| full.probe_wdl(p).unwrap(),
        &path,
        &["corrupted block"],
    );
    assert!(errors > 0 && right > 0, "{errors} errors, {right} right");

    // a truncated file and a wrong version: one error naming the file
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let e = open(&compact_dir).check_slice(m).unwrap_err().to_string();
    assert!(
        e.contains(path.to_str().unwrap()) && e.contains("truncated"),
        "{e}"
    );
    bytes[8] = 9;
    std::fs::write(&path, &bytes).unwrap();
    let e = open(&compact_dir).check_slice(m).unwrap_err().to_string();
    assert!(
        e.contains(path.to_str().unwrap()) && e.contains("version 9"),
        "{e}"
    );
    let out = kingme_egdb("probe", &["W:W5,6:B27,28"], &compact_dir);
    assert_eq!(
        text(&out.stdout).trim(),
        "W:W5,6:B27,28 unknown",
        "{}",
        text(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&full_dir);
    let _ = std::fs::remove_dir_all(&compact_dir);
}

/// The version 3 files of the slices of up to 3 pieces, as kingme wrote them
/// before version 4 (kept in `tests/data/egdb-v3`).
const V3_SET: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/egdb-v3");

fn version(path: &Path) -> u32 {
    egdb::file::version_of(path).unwrap().unwrap()
}

#[test]
fn version_3_files_are_read_and_upgraded_to_version_4_with_the_same_values_and_distances() {
    let full_dir = temp_dir("upgrade-full");
    egdb::build(&egdb::BuildOptions {
        threads: 2,
        format: egdb::build::Format::Full,
        ..egdb::BuildOptions::new(full_dir.clone(), 3)
    })
    .unwrap();
    let dir = temp_dir("upgrade-v3");
    std::fs::create_dir_all(&dir).unwrap();
    for e in std::fs::read_dir(V3_SET).unwrap().flatten() {
        std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
        assert_eq!(version(&e.path()), 3, "{}", e.path().display());
    }
    let full = open(&full_dir);
    let every_position = |tb: &Tablebase| {
        let mut n = 0;
        for m in full.slices() {
            for (_, pos) in positions(m) {
                let want = full.probe_dtc(&pos).unwrap();
                assert_eq!(tb.probe_dtc(&pos).unwrap(), want, "{}", pos.to_fen());
                n += 1;
            }
        }
        n
    };
    // read as they are
    let count = every_position(&open(&dir));
    assert!(count > 100_000, "{count}");

    let out = kingme_egdb("convert", &["--quiet"], &dir);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("converted 9 slices, kept 0 compact"),
        "{}",
        text(&out.stdout)
    );
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        assert_eq!(version(&e.path()), 4, "{}", e.path().display());
    }
    // the distances take fewer bytes; every value and distance is the same
    assert!(size(&dir, ".dtc") < size(Path::new(V3_SET), ".dtc"));
    assert_eq!(every_position(&open(&dir)), count);

    // a damaged distance block is an error naming the file, never a distance
    let path = dir.join("bm0bk2wm0wk1.dtc");
    let mut bytes = std::fs::read(&path).unwrap();
    // a byte of the first block (after the 64-byte header and the index of
    // block offsets and checksums)
    let blocks = u32::from_le_bytes(bytes[44..48].try_into().unwrap()) as usize;
    bytes[64 + 8 * blocks + 4 + 3] ^= 0x55;
    std::fs::write(&path, &bytes).unwrap();
    let damaged = open(&dir);
    let (errors, right) = errors_and_right(
        "bm0bk2wm0wk1".parse().unwrap(),
        |_| false,
        |p| damaged.probe_dtc(p),
        |p| full.probe_dtc(p).unwrap(),
        &path,
        &[],
    );
    assert!(errors > 0 && right > 0, "{errors} errors, {right} right");
    let _ = std::fs::remove_dir_all(&full_dir);
    let _ = std::fs::remove_dir_all(&dir);
}

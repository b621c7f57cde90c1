//! Opening books: a tiny book built in seconds round-trips through its file,
//! every stored move is legal, builds are reproducible and resumable, a
//! corrupt, truncated or wrong-version file is refused with its name, and the
//! engine answers from the book only where it should (and plays on without a
//! book it could not open); the books of a build's shards merge into one.

mod common;

use kingme::board::{Game, Position, Variant};
use kingme::book::{self, file, stats, Book, BuildOptions};
use kingme::engine::{Engine, EngineOption, Event, GoLimits};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kingme-book-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn options(positions: usize, threads: usize) -> BuildOptions {
    BuildOptions {
        roots: book::roots(),
        depth: 4,
        dropout: 20,
        seed: 7,
        threads,
        positions: Some(positions),
        time: None,
        save_every: Duration::from_secs(3600),
        hash_mib: 1,
        eval: kingme::eval::Evaluator::default(),
        egdb: None,
    }
}

fn build(path: &Path, opts: &BuildOptions) -> book::BuildReport {
    book::build(path, opts, &AtomicBool::new(false), &mut |_| {}).unwrap()
}

/// A tiny book that reaches past the roots: every root, then more.
fn tiny(dir: &Path) -> PathBuf {
    let path = dir.join("tiny.kmb");
    build(&path, &options(200, 1));
    path
}

/// [`tiny`] in a fresh directory named by `tag`: the directory, the book's
/// path and the book.
fn tiny_book(tag: &str) -> (PathBuf, PathBuf, Book) {
    let dir = temp_dir(tag);
    let path = tiny(&dir);
    let book = Book::open(&path).unwrap();
    (dir, path, book)
}

/// The first entry of `book` that `pred` accepts (`what` it is).
fn entry_where(book: &Book, what: &str, pred: impl Fn(&file::RawEntry) -> bool) -> file::RawEntry {
    book.view()
        .entries()
        .into_iter()
        .find(|e| pred(e))
        .expect(what)
}

/// An engine that plays from the book at `path`.
fn engine_with_book(path: &Path) -> Engine {
    let mut e = Engine::new();
    e.set(EngineOption::BookFile(path.display().to_string()))
        .unwrap();
    e.set(EngineOption::OwnBook(true)).unwrap();
    e
}

#[test]
fn a_tiny_book_round_trips_and_every_move_is_legal() {
    let (_, path, book) = tiny_book("round");
    assert_eq!(book.len(), 200);
    let view = book.view();
    assert_eq!(view.params.depth, 4);
    // writing the entries read back gives the same bytes
    let again = file::encode(&view.params, &view.entries());
    assert_eq!(again, std::fs::read(&path).unwrap());
    // every move legal, all legal moves there, flags and backed-up values agree
    let v = stats::verify(&view).unwrap();
    assert_eq!(v.positions, 200);
    assert!(v.in_book > 0, "the book grew past its roots");
    // every root is in the book (157 roots before anything deeper)
    let (plies, unreached) = stats::by_plies(&view, &book::roots());
    assert_eq!(plies[0], 157);
    assert_eq!(unreached, 0);
    // a probe gives legal moves, best first, for every entry
    for e in view.entries() {
        let moves = book.probe(&e.pos).expect("in the book");
        assert!(moves.iter().all(|m| e.pos.is_legal(m.mv)));
        assert!(moves.windows(2).all(|w| w[0].value >= w[1].value));
    }
    let out_of_book = Position::from_fen(Variant::English, "B:W18,K30:B14,K3").unwrap();
    assert!(book.probe(&out_of_book).is_none());
}

#[test]
fn the_same_seed_and_budget_give_the_same_file_and_a_resumed_build_the_same_book() {
    let dir = temp_dir("same");
    let (a, b, c, d) = (
        dir.join("a.kmb"),
        dir.join("b.kmb"),
        dir.join("c.kmb"),
        dir.join("d.kmb"),
    );
    build(&a, &options(192, 1));
    build(&b, &options(192, 1));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    // several threads search the same positions (each with a cleared table)
    build(&d, &options(192, 2));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&d).unwrap());
    // stopped at 176 positions (a whole number of batches), continued to 192
    let first = build(&c, &options(176, 1));
    assert_eq!(first.positions, 176);
    let second = build(&c, &options(192, 1));
    assert_eq!((second.resumed, second.added), (176, 16));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&c).unwrap());
    // a different seed breaks ties differently, but continuing a file with
    // other parameters is refused
    let mut other = options(190, 1);
    other.depth = 5;
    let err = book::build(&c, &other, &AtomicBool::new(false), &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("--depth 4"), "{err}");
}

#[test]
fn corrupt_truncated_or_foreign_files_are_refused_by_name() {
    let dir = temp_dir("corrupt");
    let path = tiny(&dir);
    let good = std::fs::read(&path).unwrap();
    // `bytes` as `file` of the directory: the error opening it, and its name
    let refused = |file: &str, bytes: &[u8]| {
        let p = dir.join(file);
        std::fs::write(&p, bytes).unwrap();
        (
            Book::open(&p).unwrap_err().to_string(),
            p.display().to_string(),
        )
    };

    let mut bytes = good.clone();
    let at = bytes.len() - 5;
    bytes[at] ^= 0x10;
    let (err, name) = refused("flipped.kmb", &bytes);
    assert!(err.contains(&name) && err.contains("checksum"), "{err}");

    let (err, name) = refused("short.kmb", &good[..good.len() - 12]);
    assert!(err.contains(&name) && err.contains("bytes"), "{err}");

    let mut bytes = good.clone();
    bytes[8] = 9;
    let (err, name) = refused("version.kmb", &bytes);
    assert!(err.contains(&name) && err.contains("version 9"), "{err}");

    let text = b"not a book at all, but long enough to hold a header of sixty-four bytes";
    let (err, _) = refused("text.kmb", text);
    assert!(err.contains("not a kingme book"), "{err}");

    // a checksum recomputed over a body whose entries are out of order is
    // still refused (never read as wrong moves)
    let view = file::View::new(&good, "good").unwrap();
    let mut swapped = good.clone();
    let (e0, e1) = (file::HEADER_BYTES, file::HEADER_BYTES + file::ENTRY_BYTES);
    let first: Vec<u8> = swapped[e0..e1].to_vec();
    swapped.copy_within(e1..e1 + file::ENTRY_BYTES, e0);
    swapped[e1..e1 + file::ENTRY_BYTES].copy_from_slice(&first);
    let sum = file::checksum(&swapped[file::HEADER_BYTES..]);
    swapped[40..48].copy_from_slice(&sum.to_le_bytes());
    assert!(view.len() > 2);
    let err = file::View::new(&swapped, "swapped")
        .unwrap_err()
        .to_string();
    assert!(err.contains("swapped: not a kingme book"), "{err}");
}

#[test]
fn verify_finds_an_illegal_or_missing_move() {
    let start = Position::startpos(Variant::English);
    let params = book::BookParams {
        depth: 1,
        dropout: 20,
        seed: 0,
    };
    let legal: Vec<file::RawMove> = start
        .legal_moves()
        .iter()
        .map(|m| file::RawMove {
            from: m.from().index(),
            to: m.to().index(),
            depth: 1,
            flags: 0,
            value: 0,
            captured: 0,
        })
        .collect();
    let mut illegal = legal.clone();
    illegal[0].to = 31; // no man moves from its square to 32
    let bad = file::encode(
        &params,
        &[file::RawEntry {
            pos: start,
            moves: illegal,
        }],
    );
    let view = file::View::new(&bad, "bad").unwrap();
    assert!(matches!(
        stats::verify(&view),
        Err(stats::VerifyError::Illegal { .. })
    ));
    let missing = file::encode(
        &params,
        &[file::RawEntry {
            pos: start,
            moves: legal[1..].to_vec(),
        }],
    );
    let view = file::View::new(&missing, "missing").unwrap();
    assert!(matches!(
        stats::verify(&view),
        Err(stats::VerifyError::Moves { .. })
    ));
    // and an engine never plays an illegal stored move: it leaves the book
    let book = Book::from_static(Box::leak(bad.into_boxed_slice()), "bad").unwrap();
    assert!(book.probe(&start).is_none());
}

fn answer(engine: &mut Engine, game: &Game, limits: GoLimits) -> (Vec<Event>, kingme::Move) {
    let events = engine.search_blocking(game, limits);
    let mv = common::best_move(&events);
    (events, mv)
}

fn movetime(ms: u64) -> GoLimits {
    GoLimits {
        movetime: Some(Duration::from_millis(ms)),
        ..GoLimits::default()
    }
}

#[test]
fn the_engine_answers_from_the_book_only_in_it_and_only_for_a_game_move() {
    let (_, path, book) = tiny_book("engine");
    let mut e = engine_with_book(&path);
    let game = Game::new(Variant::English);
    let best = book.probe(game.position()).unwrap()[0];
    // in the book: the best book move, no search
    let (events, mv) = answer(&mut e, &game, movetime(2000));
    assert_eq!(mv, best.mv);
    assert!(matches!(events[0], Event::Book { mv, .. } if mv == best.mv));
    assert!(!events.iter().any(|e| matches!(e, Event::Info(_))));
    // a fixed depth, analysis or OwnBook off searches
    let (events, _) = answer(
        &mut e,
        &game,
        GoLimits {
            depth: Some(3),
            ..GoLimits::default()
        },
    );
    assert!(events.iter().any(|e| matches!(e, Event::Info(_))));
    assert!(!events.iter().any(|e| matches!(e, Event::Book { .. })));
    e.set(EngineOption::OwnBook(false)).unwrap();
    let (events, _) = answer(&mut e, &game, movetime(50));
    assert!(!events.iter().any(|e| matches!(e, Event::Book { .. })));
    e.set(EngineOption::OwnBook(true)).unwrap();
    // out of the book: searched
    let out = Game::from_position(
        Position::from_fen(Variant::English, "B:W18,24,27,28:B12,16,20").unwrap(),
    );
    let (events, _) = answer(&mut e, &out, movetime(50));
    assert!(events.iter().any(|e| matches!(e, Event::Info(_))));
    assert!(!events.iter().any(|e| matches!(e, Event::Book { .. })));
}

#[test]
fn book_variety_zero_is_deterministic_and_above_zero_varies() {
    let (_, path, book) = tiny_book("variety");
    // a position whose two best moves are within 20 centi-men
    let pos = entry_where(&book, "a position with two good moves", |e| {
        let m = book.probe(&e.pos).unwrap();
        m.len() >= 2 && m[0].value - m[1].value <= 20 && m[0].value.abs() < 1000
    })
    .pos;
    let game = Game::from_position(pos);
    let mut e = engine_with_book(&path);
    let first = answer(&mut e, &game, movetime(1000)).1;
    for _ in 0..30 {
        assert_eq!(answer(&mut e, &game, movetime(1000)).1, first);
    }
    e.set(EngineOption::BookVariety(40)).unwrap();
    let mut seen = std::collections::HashSet::new();
    for _ in 0..200 {
        let (_, mv) = answer(&mut e, &game, movetime(1000));
        assert!(pos.is_legal(mv));
        let m = book.probe(&pos).unwrap();
        let v = m.iter().find(|b| b.mv == mv).unwrap().value;
        assert!(m[0].value - v <= 40, "a move more than 40 below the best");
        seen.insert(mv);
    }
    assert!(seen.len() >= 2, "{seen:?}");
}

#[test]
fn over_the_protocol_a_bad_book_is_one_error_and_the_engine_plays_on() {
    let dir = temp_dir("protocol");
    let path = tiny(&dir);
    let corrupt = dir.join("corrupt.kmb");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.truncate(100);
    std::fs::write(&corrupt, &bytes).unwrap();
    let script = format!(
        "setoption name OwnBook value true\nsetoption name BookFile value {}\nsetoption name BookFile value {}\nposition startpos\ngo movetime 3000\nquit\n",
        path.display(),
        corrupt.display()
    );
    // quit waits for the answer of a running search
    let out = common::cli::kingme_with_input(&[], &script);
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    let errors: Vec<&&str> = lines.iter().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 1, "{text}");
    assert!(errors[0].contains(&corrupt.display().to_string()), "{text}");
    // the good book stays: the start is answered from it, without a search
    let book = Book::open(&path).unwrap();
    let best = book.probe(&Position::startpos(Variant::English)).unwrap()[0].mv;
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with(&format!("info string book {best} "))),
        "{text}"
    );
    assert!(
        lines.contains(&format!("bestmove {best}").as_str()),
        "{text}"
    );
    assert!(!lines.iter().any(|l| l.starts_with("info depth")), "{text}");
}

#[test]
fn the_command_line_builds_probes_counts_and_verifies() {
    let dir = temp_dir("cli");
    let out = dir.join("cli.kmb");
    let run = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_kingme"))
            .args(args)
            .output()
            .unwrap();
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let p = out.to_str().unwrap();
    let (ok, text, err) = run(&[
        "book",
        "build",
        "--out",
        p,
        "--positions",
        "170",
        "--depth",
        "3",
        "--threads",
        "1",
        "--quiet",
    ]);
    assert!(ok, "{err}");
    assert!(text.contains("positions 170"), "{text}");
    let (ok, text, _) = run(&["book", "verify", "--book", p]);
    assert!(ok && text.contains("ok, 170 positions"), "{text}");
    let (ok, text, _) = run(&["book", "stats", "--book", p]);
    assert!(ok && text.contains("plies  0: 157"), "{text}");
    let (ok, text, _) = run(&["book", "probe", "--book", p, "startpos", "B:W18:B14"]);
    assert!(ok, "{text}");
    assert!(text.contains("B:W18:B14: not in the book"), "{text}");
    let start_line = text.lines().next().unwrap();
    assert!(start_line.starts_with("startpos: "), "{text}");
    // a corrupt file: one line naming it, failure
    std::fs::write(dir.join("bad.kmb"), b"garbage").unwrap();
    let bad = dir.join("bad.kmb");
    let (ok, _, err) = run(&["book", "verify", "--book", bad.to_str().unwrap()]);
    assert!(!ok && err.contains("bad.kmb"), "{err}");
}

#[test]
fn the_shipped_book_plays_by_default_and_not_when_turned_off() {
    let game = Game::new(Variant::English);
    let mut e = Engine::new();
    assert!(e.options().own_book);
    // the shipped book holds the start and every ballot
    let shipped = Book::shipped().unwrap();
    assert!(shipped.len() > 157);
    assert!(shipped.probe(game.position()).is_some());
    let (events, mv) = answer(&mut e, &game, movetime(2000));
    assert!(matches!(events[0], Event::Book { .. }), "{events:?}");
    assert_eq!(mv, shipped.probe(game.position()).unwrap()[0].mv);
    e.set(EngineOption::OwnBook(false)).unwrap();
    let (events, _) = answer(&mut e, &game, movetime(50));
    assert!(!events.iter().any(|e| matches!(e, Event::Book { .. })));
}

/// The value stored for `mv` in `pos`'s entry of `entries`.
fn stored_value(entries: &[file::RawEntry], pos: &Position, mv: kingme::Move) -> i16 {
    let e = entries.iter().find(|e| e.pos == *pos).expect("in the book");
    e.moves
        .iter()
        .find(|r| r.find_in(&[mv]).is_some())
        .expect("a book move")
        .value
}

#[test]
fn learning_moves_the_exit_move_towards_its_games_and_backs_values_up_again() {
    use kingme::board::Outcome;
    let (_, _, book) = tiny_book("learn");
    let view = book.view();
    let before = view.entries();
    // a book position with a move out of the book that is no win or loss
    let (pos, raw) = before
        .iter()
        .find_map(|e| {
            let r = e
                .moves
                .iter()
                .find(|r| r.flags & file::FLAG_IN_BOOK == 0 && r.value.abs() < 1000)?;
            Some((e.pos, *r))
        })
        .expect("a move leaving the tiny book");
    let mv = raw.find_in(&pos.legal_moves()).unwrap();
    let mover = pos.turn();
    let game = |outcome| book::PlayedGame {
        start: pos,
        moves: vec![mv],
        outcome,
    };
    let weight = 40;
    // one win: half the weight, upwards
    let (after, report) = book::learn(before.clone(), &[game(Outcome::Win(mover))], weight);
    assert_eq!(
        (report.games, report.learned, report.moves_changed),
        (1, 1, 1)
    );
    assert_eq!(stored_value(&after, &pos, mv), raw.value + 20);
    // one win and two losses: net -1 over 3 games, -40 / 4 = -10
    let games = [
        game(Outcome::Win(mover)),
        game(Outcome::Win(!mover)),
        game(Outcome::Win(!mover)),
        // a game that starts outside the book teaches nothing
        book::PlayedGame {
            start: Position::from_fen(Variant::English, "B:W18,K30:B14,K3").unwrap(),
            moves: vec![],
            outcome: Outcome::Draw,
        },
    ];
    let (after, report) = book::learn(before.clone(), &games, weight);
    assert_eq!(
        (report.games, report.learned, report.moves_changed),
        (4, 3, 1)
    );
    assert_eq!(stored_value(&after, &pos, mv), raw.value - 10);
    // draws move nothing; every other leaf move keeps its value
    let (same, report) = book::learn(before.clone(), &[game(Outcome::Draw)], weight);
    assert_eq!(report.moves_changed, 0);
    assert!(file::encode(&view.params, &same) == file::encode(&view.params, &before));
    for a in &after {
        let b = before
            .iter()
            .find(|b| b.pos == a.pos)
            .expect("the same positions");
        for (x, y) in a.moves.iter().zip(&b.moves) {
            if x.flags & file::FLAG_IN_BOOK == 0 && !(a.pos == pos && x.find_in(&[mv]).is_some()) {
                assert_eq!(x.value, y.value);
            }
        }
    }
    // the learned book is a valid book: values backed up by negamax again
    let bytes = file::encode(&view.params, &after);
    let learned = file::View::new(&bytes, "learned").unwrap();
    stats::verify(&learned).unwrap();
}

#[test]
fn the_command_line_learns_from_pdn_files() {
    let (dir, path, book) = tiny_book("learn-cli");
    let e = entry_where(&book, "the start is a root", |e| {
        e.pos == Position::startpos(Variant::English)
    });
    // the start's best move out of the book, lost by Black (its mover) twice
    let raw = *e
        .moves
        .iter()
        .filter(|r| r.flags & file::FLAG_IN_BOOK == 0)
        .max_by_key(|r| r.value)
        .expect("a move out of the book");
    let mv = raw.find_in(&e.pos.legal_moves()).unwrap();
    let pdn = dir.join("games.pdn");
    let game = format!("[Result \"0-2\"]\n\n1. {mv} 0-2\n\n");
    std::fs::write(&pdn, format!("{game}{game}[Result \"*\"]\n1. {mv} *\n")).unwrap();
    let out = dir.join("learned.kmb");
    let o = Command::new(env!("CARGO_BIN_EXE_kingme"))
        .args(["book", "learn", "--book"])
        .arg(&path)
        .arg("--out")
        .arg(&out)
        .args(["--weight", "30"])
        .arg(&pdn)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(text.contains("learned from 2 of 2 games (1 "), "{text}");
    let learned = Book::open(&out).unwrap();
    let moves = learned
        .probe(&Position::startpos(Variant::English))
        .unwrap();
    let m = moves.iter().find(|m| m.mv == mv).unwrap();
    // two losses: -30 * 2 / 3 = -20
    assert_eq!(m.value, i32::from(raw.value) - 20);
    // a missing PDN file: one error naming it, no book written
    let missing = dir.join("nowhere.pdn");
    let o = Command::new(env!("CARGO_BIN_EXE_kingme"))
        .args(["book", "learn", "--out"])
        .arg(dir.join("x.kmb"))
        .arg(&missing)
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("nowhere.pdn"));
    assert!(!dir.join("x.kmb").exists());
}

#[test]
fn shard_builds_merge_into_one_book_of_every_root_that_a_build_continues() {
    use kingme::shard::Shard;
    let dir = temp_dir("shards");
    let stop = AtomicBool::new(false);
    let shard = |k| Shard::new(k, 2).unwrap();
    let built = |path: &Path, opts: &BuildOptions, k| {
        book::build_shard(path, opts, shard(k), &stop, &mut |_| {})
    };
    let parts = [dir.join("1.kmb"), dir.join("2.kmb")];
    let roots = book::roots();
    let mut held = Vec::new();
    for (k, p) in (1..=2).zip(&parts) {
        let r = built(p, &options(96, 2), k).unwrap();
        assert_eq!(r.positions, 96);
        let bytes = std::fs::read(p).unwrap();
        let view = file::View::new(&bytes, "shard").unwrap();
        assert_eq!(
            (view.shard, bytes[8]),
            (shard(k), 2),
            "a shard's book is version 2"
        );
        // the shard's roots are searched first: all of them are in its book
        let mine = shard(k).part_of(&roots);
        assert!(mine.iter().all(|r| view.find(r).is_some()));
        held.push(view.entries());
    }
    let merged = dir.join("merged.kmb");
    let report = book::merge(&[parts[1].clone(), parts[0].clone()], &merged).unwrap();
    let bytes = std::fs::read(&merged).unwrap();
    let view = file::View::new(&bytes, "merged").unwrap();
    assert_eq!(
        (view.shard, bytes[8]),
        (Shard::WHOLE, 1),
        "a whole book is version 1"
    );
    let params = book::BookParams {
        depth: 4,
        dropout: 20,
        seed: 7,
    };
    assert_eq!(view.params, params);
    // every position of both books, once, each with its moves; the values
    // backed up through the join agree with the rules of the format
    let all: std::collections::HashSet<Position> = held.iter().flatten().map(|e| e.pos).collect();
    assert_eq!((view.len(), report.positions), (all.len(), all.len()));
    assert_eq!(report.shared, 192 - all.len());
    for e in held.iter().flatten() {
        let i = view.find(&e.pos).expect("every position of a shard");
        let moves = |m: &[file::RawMove]| {
            let mut v: Vec<_> = m.iter().map(|m| (m.from, m.to, m.captured)).collect();
            v.sort_unstable();
            v
        };
        assert_eq!(moves(&view.moves(i)), moves(&e.moves));
    }
    assert!(roots.iter().all(|r| view.find(r).is_some()));
    stats::verify(&view).unwrap();
    // a build continues the merged book over all the roots
    let more = build(&merged, &options(all.len() + 16, 1));
    assert_eq!((more.resumed, more.added), (all.len(), 16));

    // a shard continued as another is refused, naming its shard
    let e = built(&parts[0], &options(112, 1), 2)
        .unwrap_err()
        .to_string();
    assert!(e.contains("--shard 1/2"), "{e}");
    let refused = |inputs: &[&PathBuf]| {
        let inputs: Vec<PathBuf> = inputs.iter().map(|p| (*p).clone()).collect();
        book::merge(&inputs, &dir.join("refused.kmb"))
            .unwrap_err()
            .to_string()
    };
    let e = refused(&[&parts[0], &parts[1], &parts[0]]);
    assert!(e.contains("1/2 again"), "{e}");
    let e = refused(&[&parts[1]]);
    assert!(e.contains("shards 1 of 2 missing"), "{e}");
    // another seed is another build
    let seeded = dir.join("seeded.kmb");
    let mut other = options(79, 1);
    other.seed = 8;
    built(&seeded, &other, 2).unwrap();
    let e = refused(&[&parts[0], &seeded]);
    assert!(e.contains("seeded.kmb") && e.contains("--seed 8"), "{e}");
    // two books whose searches of one position differ
    let first = held[0].clone();
    let mut changed = first.clone();
    let leaf = changed[0]
        .moves
        .iter_mut()
        .find(|m| m.flags & file::FLAG_IN_BOOK == 0)
        .expect("a move out of the book");
    leaf.value += 1;
    let (a, b) = (dir.join("a.kmb"), dir.join("b.kmb"));
    std::fs::write(&a, file::encode(&params, &first)).unwrap();
    std::fs::write(&b, file::encode(&params, &changed)).unwrap();
    let e = refused(&[&a, &b]);
    assert!(
        e.contains("a.kmb") && e.contains("b.kmb") && e.contains("disagree"),
        "{e}"
    );
    assert!(!dir.join("refused.kmb").exists());
}

#[test]
fn a_build_whose_output_is_not_a_terminal_logs_its_progress_in_plain_lines() {
    // no --quiet and standard error a pipe: the bar draws nothing there, so the
    // build writes a line of its progress each KINGME_PROGRESS_SECS instead
    let dir = temp_dir("logged");
    let out = dir.join("logged.kmb");
    let o = Command::new(env!("CARGO_BIN_EXE_kingme"))
        .args(["book", "build", "--out", out.to_str().unwrap()])
        .args(["--time", "3", "--depth", "6", "--threads", "1"])
        .env("KINGME_PROGRESS_SECS", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let progress: Vec<&str> = err
        .lines()
        .filter(|l| {
            let b = l.as_bytes();
            b.len() > 9
                && b[..8].iter().enumerate().all(|(i, c)| match i {
                    2 | 5 => *c == b':',
                    _ => c.is_ascii_digit(),
                })
                && l[9..]
                    .split([' ', ','])
                    .next()
                    .is_some_and(|w| w.ends_with("/3"))
        })
        .collect();
    assert!(!progress.is_empty(), "no progress line in:\n{err}");
    assert!(
        progress.iter().any(|l| l.contains("positions (+")),
        "no line carries the build's message:\n{err}"
    );
}

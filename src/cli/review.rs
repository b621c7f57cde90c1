//! `kingme review`: every move of the games of a PDN file judged, as a
//! table, JSON and annotated PDN.

use clap::Args;
use kingme::board::pdn::{parse_pdn, PdnGame};
use kingme::board::{Color, Game};
use kingme::engine::{Engine, EngineOption, Event, GoLimits, MoveComment, ReviewEnd};
use kingme::protocol::ReviewParams;
use kingme::review::json::{
    JsonError, JsonGame, JsonPlayer, JsonSettings, ReviewFile, JSON_FORMAT, JSON_VERSION,
};
use kingme::review::{
    annotated_game, MoveReview, Order, PlayerSummary, ReviewSettings, Sides, Thresholds, Verdict,
};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Whether stdout went away (a pager or `head` closed it): the review then
/// goes on for its files, silently.
static STDOUT_GONE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Writes to stdout unless it is gone.
fn write_out(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    if STDOUT_GONE.load(Ordering::Relaxed) {
        return;
    }
    if std::io::stdout().write_fmt(args).is_err() {
        STDOUT_GONE.store(true, Ordering::Relaxed);
    }
}

macro_rules! say {
    () => { write_out(format_args!("\n")) };
    ($($t:tt)*) => { write_out(format_args!("{}\n", format_args!($($t)*))) };
}

macro_rules! say_part {
    ($($t:tt)*) => { write_out(format_args!($($t)*)) };
}

#[derive(Args, Debug)]
pub(crate) struct ReviewArgs {
    /// The PDN file: every game in it is reviewed (or the one --game names).
    file: PathBuf,
    /// Review only this game of the file (from 1).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    game: Option<u64>,
    /// Milliseconds of search per position [default: 500 when no limit is given].
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
    movetime: Option<u64>,
    /// Search each position to this depth.
    #[arg(long, value_name = "D", value_parser = clap::value_parser!(u32).range(1..=127))]
    depth: Option<u32>,
    /// Search each position this many nodes.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// Search threads.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=kingme::engine::MAX_THREADS as u64))]
    threads: u64,
    /// Transposition table, MiB (one table for the whole game).
    #[arg(long, default_value_t = kingme::engine::DEFAULT_HASH_MIB as u64,
          value_parser = clap::value_parser!(u64).range(1..=kingme::engine::MAX_HASH_MIB as u64))]
    hash: u64,
    /// Endgame databases besides the ones built into kingme (exact verdicts
    /// where they know both positions).
    #[arg(long, value_name = "DIR")]
    egdb: Option<PathBuf>,
    /// The evaluation: builtin, patterns, network, hand, or a weights file.
    #[arg(long, default_value = "builtin", value_name = "EVAL")]
    eval: String,
    /// Whose moves are judged: black, white or both.
    #[arg(long, default_value = "both")]
    side: Sides,
    /// The losses in expected result (0 to 1) from which a move is an
    /// inaccuracy, a mistake and a blunder.
    #[arg(long, default_value_t = Thresholds::default())]
    thresholds: Thresholds,
    /// The order the positions are searched in: backward (from the last, one
    /// table, as analysis modes do) or forward.
    #[arg(long, default_value = "backward", value_parser = ["backward", "forward"])]
    order: String,
    /// Also write the review as JSON to this file (schema: src/review/json.rs).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Also write the games annotated as PDN to this file: each move's value
    /// and depth, ?!, ? and ?? marks, the better move as a variation.
    #[arg(long, value_name = "FILE")]
    pdn: Option<PathBuf>,
    /// No progress bar, and only the summaries on the terminal.
    #[arg(long)]
    quiet: bool,
}

impl ReviewArgs {
    /// Each position's limits, as the protocol's `review` takes them.
    fn params(&self) -> ReviewParams {
        ReviewParams {
            movetime: self.movetime.map(Duration::from_millis),
            depth: self.depth,
            nodes: self.nodes,
            side: Sides::Both,
        }
        .effective()
    }
}

/// One game reviewed, with what the output needs.
struct Reviewed {
    number: usize,
    pdn: PdnGame,
    game: Game,
    reviews: Vec<MoveReview>,
    end: ReviewEnd,
}

fn tag_or<'a>(g: &'a PdnGame, name: &str, default: &'a str) -> &'a str {
    g.tag(name).filter(|v| !v.is_empty()).unwrap_or(default)
}

/// `Black` and `White`, or `?` when a tag is missing.
fn names(g: &PdnGame) -> (String, String) {
    (
        tag_or(g, "Black", "?").to_string(),
        tag_or(g, "White", "?").to_string(),
    )
}

/// The game replayed, or one line naming the game and its move.
fn replay(number: usize, g: &PdnGame) -> Result<Game, String> {
    let (b, w) = names(g);
    let name = format!("game {number} ({b} - {w})");
    let variant = g.variant();
    let start = match g.tag("FEN") {
        Some(f) => {
            kingme::Position::from_fen(variant, f).map_err(|e| format!("{name}: FEN: {e}"))?
        }
        None => kingme::Position::startpos(variant),
    };
    let mut game = Game::from_position(start);
    for (i, m) in g.moves.iter().enumerate() {
        let first = start.turn();
        let offset = usize::from(first == Color::White);
        let number = (i + offset) / 2 + 1;
        let dots = if game.position().turn() == Color::Black {
            "."
        } else {
            "..."
        };
        if game.result().is_some() {
            return Err(format!(
                "{name}: move {number}{dots} {m}: the game was already over"
            ));
        }
        game.play_text(m)
            .map_err(|e| format!("{name}: move {number}{dots} {m}: {e}"))?;
    }
    if game.moves().is_empty() {
        return Err(format!("{name}: no moves"));
    }
    Ok(game)
}

fn verdict_cell(r: &MoveReview) -> String {
    match (r.exact_verdict(), r.forced) {
        (_, true) => "only move".to_string(),
        (Some(e), _) => format!("{} ({})", r.verdict, e.words()),
        (None, _) => r.verdict.to_string(),
    }
}

fn print_table(rv: &Reviewed, limits: &str) {
    let (b, w) = names(&rv.pdn);
    let result = rv.pdn.result_text();
    say!(
        "game {}: {b} (Black) - {w} (White), {result}, {} moves, {limits} a position",
        rv.number,
        rv.game.moves().len()
    );
    let engine_said = rv.pdn.comments.iter().any(|c| {
        c.as_deref()
            .is_some_and(|c| c.parse::<MoveComment>().is_ok())
    });
    say_part!(
        "  {:<7} {:<10} {:>7} {:<10} {:>9} {:>9}  {:<12}",
        "move",
        "played",
        "loss",
        "best",
        "its value",
        "played",
        "verdict"
    );
    say!("{}", if engine_said { "  engine said" } else { "" });
    let first = rv.game.start().turn();
    for r in &rv.reviews {
        let dots = if r.mover == Color::Black { "." } else { "..." };
        let number = format!("{}{dots}", r.move_number(first));
        let said = rv
            .pdn
            .comments
            .get(r.ply)
            .and_then(|c| c.as_deref())
            .filter(|c| c.parse::<MoveComment>().is_ok())
            .unwrap_or("");
        let verdict = verdict_cell(r);
        let line = format!(
            "  {number:<7} {:<10} {:>7.4} {:<10} {:>9} {:>9}  {verdict:<12}  {said}",
            r.played.to_string(),
            r.loss,
            if r.best == r.played {
                "=".to_string()
            } else {
                r.best.to_string()
            },
            r.best_score.to_string(),
            r.played_score.to_string(),
        );
        say!("{}", line.trim_end());
    }
    for (side, name, s) in [("Black", &b, &rv.end.black), ("White", &w, &rv.end.white)] {
        if s.moves > 0 {
            say!("  {side} ({name}): {}", side_line(s));
        }
    }
    if !rv.end.complete {
        say!("  (stopped before every move was judged)");
    }
    say!();
}

fn side_line(s: &kingme::review::SideSummary) -> String {
    let counts: Vec<String> = Verdict::ALL
        .iter()
        .map(|v| format!("{} {v}", s.count(*v)))
        .collect();
    format!(
        "{} moves, average loss {:.4}, {}",
        s.moves,
        s.average_loss(),
        counts.join(", ")
    )
}

/// Reviews one game on `engine`, the bar counting its moves.
fn review_one(
    engine: &mut Engine,
    game: &Game,
    limits: &GoLimits,
    settings: ReviewSettings,
    stop: &'static std::sync::atomic::AtomicBool,
    bar: &indicatif::ProgressBar,
) -> (Vec<MoveReview>, ReviewEnd) {
    engine.new_game(game.variant());
    let (tx, rx) = std::sync::mpsc::channel();
    let handle = engine.review(
        game,
        limits.clone(),
        settings,
        Box::new(move |e| {
            let _ = tx.send(e);
        }),
    );
    let mut reviews = Vec::new();
    let mut stopping = false;
    loop {
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(Event::Reviewed(r)) => {
                bar.inc(1);
                reviews.push(*r);
            }
            Ok(Event::ReviewDone(end)) => {
                reviews.sort_by_key(|r| r.ply);
                return (reviews, end);
            }
            Ok(_) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                if stop.load(Ordering::Relaxed) && !stopping {
                    handle.stop();
                    stopping = true;
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                reviews.sort_by_key(|r| r.ply);
                let end = ReviewEnd::of(&reviews, false);
                return (reviews, end);
            }
        }
    }
}

pub(crate) fn run_review(a: &ReviewArgs) -> Result<(), String> {
    let text =
        std::fs::read_to_string(&a.file).map_err(|e| format!("{}: {e}", a.file.display()))?;
    let games = parse_pdn(&text).map_err(|e| format!("{}: {e}", a.file.display()))?;
    if games.is_empty() {
        return Err(format!("{}: no games", a.file.display()));
    }
    if let Some(n) = a.game {
        if n as usize > games.len() {
            return Err(format!(
                "{}: --game {n}, but the file has {} games",
                a.file.display(),
                games.len()
            ));
        }
    }
    let mut engine = Engine::new();
    let set = |e: &mut Engine, o: EngineOption| e.set(o).map_err(|e| e.to_string());
    set(&mut engine, EngineOption::Hash(a.hash as usize))?;
    set(&mut engine, EngineOption::Threads(a.threads as usize))?;
    set(
        &mut engine,
        EngineOption::Eval(super::evaluator_of(&a.eval)?),
    )?;
    if let Some(dir) = &a.egdb {
        set(
            &mut engine,
            EngineOption::EgdbPath(dir.display().to_string()),
        )?;
    }
    let settings = ReviewSettings {
        sides: a.side,
        thresholds: a.thresholds,
        order: if a.order == "forward" {
            Order::Forward
        } else {
            Order::Backward
        },
        scale: engine.options().eval.result_scale(),
    };
    let limits = a.params().limits();
    let limits_text = a.params().to_string();
    // every game replayed first: the bar counts the moves to judge
    let mut todo = Vec::new();
    let mut errors = Vec::new();
    for (i, g) in games.into_iter().enumerate() {
        let number = i + 1;
        if a.game.is_some_and(|n| n as usize != number) {
            continue;
        }
        match replay(number, &g) {
            Ok(game) => todo.push((number, g, game)),
            Err(e) => {
                eprintln!("kingme review: {}: {e}", a.file.display());
                errors.push(JsonError {
                    game: number,
                    message: e,
                });
            }
        }
    }
    let moves: u64 = todo
        .iter()
        .map(|(_, _, g)| {
            g.positions()[..g.moves().len()]
                .iter()
                .filter(|p| a.side.includes(p.turn()))
                .count() as u64
        })
        .sum();
    let bar = super::progress_bar(
        moves,
        a.quiet,
        "{elapsed_precise} [{bar:30}] {pos}/{len} moves judged, {msg} (eta {eta})",
    );
    let stop = super::stop_on_signal();
    let t = Instant::now();
    let mut reviewed = Vec::new();
    let mut players: Vec<PlayerSummary> = Vec::new();
    for (number, pdn, game) in todo {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        bar.set_message(format!("game {number}"));
        let (reviews, end) = review_one(&mut engine, &game, &limits, settings, stop, &bar);
        let (b, w) = names(&pdn);
        PlayerSummary::add_game(&mut players, &b, &end.black);
        PlayerSummary::add_game(&mut players, &w, &end.white);
        let rv = Reviewed {
            number,
            pdn,
            game,
            reviews,
            end,
        };
        bar.suspend(|| {
            if a.quiet {
                let (b, w) = names(&rv.pdn);
                say!("game {}: {b} - {w}", rv.number);
                for (side, s) in [("Black", &rv.end.black), ("White", &rv.end.white)] {
                    if s.moves > 0 {
                        say!("  {side}: {}", side_line(s));
                    }
                }
            } else {
                print_table(&rv, &limits_text);
            }
        });
        reviewed.push(rv);
    }
    bar.finish_and_clear();
    if reviewed.len() > 1 || players.len() > 2 {
        say!("players over {} games:", reviewed.len());
        for p in &players {
            say!(
                "  {:<24} {} games, {}",
                p.name,
                p.games,
                side_line(&p.moves)
            );
        }
    }
    say!(
        "review {}: {} games reviewed, {} refused, {limits_text} a position, eval {}, time {:.1}s",
        a.file.display(),
        reviewed.len(),
        errors.len(),
        engine.options().eval.describe(),
        t.elapsed().as_secs_f64()
    );
    if let Some(path) = &a.json {
        let file = ReviewFile {
            format: JSON_FORMAT.into(),
            version: JSON_VERSION,
            settings: JsonSettings {
                limits: limits_text.clone(),
                sides: a.side.to_string(),
                order: a.order.clone(),
                thresholds: [
                    a.thresholds.inaccuracy,
                    a.thresholds.mistake,
                    a.thresholds.blunder,
                ],
                scale: settings.scale,
                eval: engine.options().eval.describe(),
            },
            games: reviewed
                .iter()
                .map(|rv| {
                    let sides = [&rv.end.black, &rv.end.white];
                    JsonGame::of(
                        rv.number,
                        &rv.pdn,
                        &rv.game,
                        &rv.reviews,
                        sides,
                        rv.end.complete,
                    )
                })
                .collect(),
            errors: errors.clone(),
            players: players.iter().map(JsonPlayer::of).collect(),
        };
        let text = serde_json::to_string_pretty(&file).map_err(|e| e.to_string())?;
        kingme::checked_file::write_atomically(path, [text.as_bytes()])
            .map_err(|e| e.to_string())?;
    }
    if let Some(path) = &a.pdn {
        let annotator = format!("kingme review, {limits_text} a position");
        let text: String = reviewed
            .iter()
            .map(|rv| annotated_game(&rv.pdn, &rv.game, &rv.reviews, &annotator))
            .collect();
        kingme::checked_file::write_atomically(path, [text.as_bytes()])
            .map_err(|e| e.to_string())?;
    }
    if stop.load(Ordering::Relaxed) {
        return Err("stopped: the games reviewed so far are written".into());
    }
    if !errors.is_empty() {
        return Err(format!(
            "{} of the games could not be reviewed (above)",
            errors.len()
        ));
    }
    Ok(())
}

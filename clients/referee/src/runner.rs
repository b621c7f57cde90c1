//! A run: the games of a schedule (or of one shard of it) on `concurrency`
//! worker threads, each with its own connections to the engines its games
//! need. Results come back to the calling thread, which counts them
//! ([`Standings`]), rewrites the state file, writes the PDN as games finish,
//! reports progress, and stops early when an SPRT decides or when told to.
//! [`run_match`] is the run of two engines, A and B, reported as a match.

use crate::engine::{Engine, EngineError, EngineSpec};
use crate::game::{play_game, GameRecord, GameSetup, Player, TimeControl};
use crate::openings::BallotError;
use crate::pdn;
pub use crate::report::{GameSummary, MatchReport};
use crate::schedule::{Entrant, Schedule, Shard, Slot, TournamentKind};
pub use crate::standings::{Finished, RatingSettings, Standings};
use crate::state::{RunState, StateError, StoredGame};
use crate::stats::Sprt;
use kingme::Variant;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// Everything a match of two engines needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// Engine A (results are from its point of view).
    pub engine_a: EngineSpec,
    /// Engine B.
    pub engine_b: EngineSpec,
    /// Options for A.
    pub options_a: Vec<(String, String)>,
    /// Options for B.
    pub options_b: Vec<(String, String)>,
    /// Games to play (an SPRT may stop earlier).
    pub games: usize,
    /// The rules.
    pub variant: Variant,
    /// Time per move or game clock.
    pub tc: TimeControl,
    /// Games played at once.
    pub concurrency: usize,
    /// Optional SPRT.
    pub sprt: Option<Sprt>,
    /// Longest game in plies (then a draw).
    pub max_plies: usize,
    /// Endgame databases that end a game as soon as it reaches a position they know.
    pub egdb: Option<std::sync::Arc<kingme::egdb::Tablebase>>,
    /// Seed for the opening order.
    pub seed: u64,
    /// Grace before a loss on time.
    pub margin: Duration,
    /// Limit for connecting, handshakes and `isready`.
    pub setup_timeout: Duration,
    /// Where to write the games.
    pub pdn: Option<PathBuf>,
    /// `Event` tag.
    pub event: String,
    /// Set from outside (a signal handler, say) to start no more games: the
    /// games under way finish and the report says `interrupted`.
    pub interrupt: Option<Arc<AtomicBool>>,
}

/// Everything a run of a schedule needs.
#[derive(Clone, Debug)]
pub struct TournamentConfig {
    /// What is played.
    pub schedule: Schedule,
    /// The part of it played here; `None` for all of it.
    pub shard: Option<Shard>,
    /// The databases named by `schedule.adjudicate_egdb`, opened.
    pub egdb: Option<Arc<kingme::egdb::Tablebase>>,
    /// Games played at once.
    pub concurrency: usize,
    /// Grace before a loss on time.
    pub margin: Duration,
    /// Limit for connecting, handshakes and `isready`.
    pub setup_timeout: Duration,
    /// Where to write the games. With `state`, the file is first written
    /// again from the state's games, then the new games are appended.
    pub pdn: Option<PathBuf>,
    /// The state file ([`crate::state`]): read when it exists (only the
    /// games it lacks are played), rewritten after every finished game.
    pub state: Option<PathBuf>,
    /// `Event` tag.
    pub event: String,
    /// How the Elo table is fitted.
    pub ratings: RatingSettings,
    /// Set from outside (a signal handler, say) to start no more games: the
    /// games under way finish and the report says `interrupted`.
    pub interrupt: Option<Arc<AtomicBool>>,
}

/// Why a run could not run.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// An engine could not be started or refused its options.
    #[error("engine {side} ({spec}): {error}")]
    Engine {
        /// Its name, or `A`, `B`... for engines known by their spec.
        side: String,
        /// Its spec.
        spec: String,
        /// The cause (in the message, so not chained again).
        error: EngineError,
    },
    /// The opening data is bad.
    #[error(transparent)]
    Ballots(#[from] BallotError),
    /// The schedule's openings are not those of the ballot deck.
    #[error("the schedule's openings are not those of this referee's {0} deck")]
    Openings(Variant),
    /// A schedule this referee cannot play.
    #[error("{0}")]
    Schedule(String),
    /// The state file can't be used or written.
    #[error(transparent)]
    State(#[from] StateError),
    /// The PDN file could not be written.
    #[error("PDN file {path}: {source}")]
    Pdn {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
}

/// Progress of a match as games finish.
pub trait Progress {
    /// A game has finished; `report` is the match so far (`in_progress`).
    fn game(&mut self, record: &GameRecord, report: &MatchReport);
}

/// Progress of a run as games finish.
pub trait TournamentProgress {
    /// A game has finished; `standings` is the count so far.
    fn game(&mut self, record: &GameRecord, standings: &Standings);
}

/// No progress output.
pub struct Quiet;

impl Progress for Quiet {
    fn game(&mut self, _: &GameRecord, _: &MatchReport) {}
}

impl TournamentProgress for Quiet {
    fn game(&mut self, _: &GameRecord, _: &Standings) {}
}

fn label(name: &str, options: &[(String, String)]) -> String {
    if options.is_empty() {
        name.to_string()
    } else {
        let o: Vec<String> = options.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{name} ({})", o.join(", "))
    }
}

/// `A`, `B`, ... for engine `i` (the 27th and later by number).
fn letter(i: usize) -> String {
    u8::try_from(i)
        .ok()
        .filter(|&i| i < 26)
        .map_or_else(|| (i + 1).to_string(), |i| char::from(b'A' + i).to_string())
}

/// Plays a match of two engines: the run of a two-engine schedule, reported
/// from engine A's view.
pub fn run_match(
    cfg: &MatchConfig,
    progress: &mut dyn Progress,
) -> Result<MatchReport, MatchError> {
    struct AsMatch<'a>(&'a mut dyn Progress);
    impl TournamentProgress for AsMatch<'_> {
        fn game(&mut self, record: &GameRecord, standings: &Standings) {
            self.0.game(record, &standings.match_report());
        }
    }
    let deck = Schedule::deck(cfg.variant, cfg.seed)?;
    let entrant = |spec: &EngineSpec, options: &[(String, String)]| Entrant {
        name: None,
        spec: spec.clone(),
        options: options.to_vec(),
        nodes: None,
    };
    let run = TournamentConfig {
        schedule: Schedule {
            tournament: TournamentKind::RoundRobin,
            engines: vec![
                entrant(&cfg.engine_a, &cfg.options_a),
                entrant(&cfg.engine_b, &cfg.options_b),
            ],
            games: cfg.games,
            variant: cfg.variant,
            time_control: cfg.tc,
            seed: cfg.seed,
            max_plies: cfg.max_plies,
            adjudicate_egdb: None,
            sprt: cfg.sprt,
            openings: Schedule::names(&deck),
        },
        shard: None,
        egdb: cfg.egdb.clone(),
        concurrency: cfg.concurrency,
        margin: cfg.margin,
        setup_timeout: cfg.setup_timeout,
        pdn: cfg.pdn.clone(),
        state: None,
        event: cfg.event.clone(),
        ratings: RatingSettings {
            anchor: 0,
            prior_draws: 0.0,
        },
        interrupt: cfg.interrupt.clone(),
    };
    Ok(run_tournament(&run, &mut AsMatch(progress))?.match_report())
}

/// Writes `games` as a whole new PDN file at `path`, each with `event`.
pub fn write_pdn(path: &std::path::Path, games: &[Finished], event: &str) -> std::io::Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    for g in games {
        f.write_all(pdn::write_game(&g.record, event, &g.date).as_bytes())?;
    }
    f.flush()
}

/// Plays the schedule (the games of `cfg.shard` that the state file does not
/// hold yet); the count at the end.
pub fn run_tournament(
    cfg: &TournamentConfig,
    progress: &mut dyn TournamentProgress,
) -> Result<Standings, MatchError> {
    let started = Instant::now();
    let schedule = &cfg.schedule;
    let engines = &schedule.engines;
    let pairings = schedule.pairings();
    if engines.len() < 2 {
        return Err(MatchError::Schedule(
            "a run needs two engines or more".into(),
        ));
    }
    if schedule.sprt.is_some() && pairings.len() != 1 {
        return Err(MatchError::Schedule(
            "an SPRT needs exactly one pairing (two engines)".into(),
        ));
    }
    if cfg.ratings.anchor >= engines.len() {
        return Err(MatchError::Schedule(
            "the Elo anchor is not an engine".into(),
        ));
    }
    let deck = Schedule::deck(schedule.variant, schedule.seed)?;
    if Schedule::names(&deck) != schedule.openings {
        return Err(MatchError::Openings(schedule.variant));
    }
    let loaded = match &cfg.state {
        Some(path) => match RunState::load(path)? {
            Some(state) => {
                state.check(path, schedule, cfg.shard)?;
                Some(state)
            }
            None => None,
        },
        None => None,
    };

    // Preflight: start every engine once, so a wrong spec or option stops
    // the run at once; these connections go to the first worker.
    let who = |i: usize| engines[i].name.clone().unwrap_or_else(|| letter(i));
    let mut first = Vec::with_capacity(engines.len());
    for (i, e) in engines.iter().enumerate() {
        let mut options = vec![("Variant".to_string(), schedule.variant.name().to_string())];
        options.extend(e.options.iter().cloned());
        let engine = Engine::start(&e.spec, &options, cfg.setup_timeout).map_err(|error| {
            MatchError::Engine {
                side: who(i),
                spec: e.spec.to_string(),
                error,
            }
        })?;
        first.push(engine);
    }
    let mut labels: Vec<String> = engines
        .iter()
        .zip(&first)
        .map(|(e, engine)| {
            e.name
                .clone()
                .unwrap_or_else(|| label(engine.name(), &e.options))
        })
        .collect();
    let plain = labels.clone();
    for (i, l) in labels.iter_mut().enumerate() {
        if engines[i].name.is_none() && plain.iter().filter(|x| **x == plain[i]).count() > 1 {
            l.push_str(&format!(" [{}]", letter(i)));
        }
    }
    let mut first = Some(first);

    let mut standings = Standings::new(
        schedule.clone(),
        labels.clone(),
        cfg.shard.into_iter().collect(),
        Vec::new(),
        cfg.ratings,
        Some(started),
    );
    let sequential = cfg.shard.is_none();
    let mut state = match (&cfg.state, loaded) {
        (Some(path), Some(mut state)) => {
            for g in &state.games {
                let (slot, record) = g.record(schedule).map_err(|detail| StateError::BadGame {
                    path: path.clone(),
                    round: g.round,
                    detail,
                })?;
                let date = g.date.clone();
                standings.add(Finished { slot, record, date }, sequential);
            }
            state.labels = labels.clone();
            Some((path, state))
        }
        (Some(path), None) => Some((
            path,
            RunState::new(
                schedule.clone(),
                cfg.shard,
                labels.clone(),
                cfg.event.clone(),
            ),
        )),
        (None, _) => None,
    };
    if let Some((path, s)) = &state {
        s.save(path)?;
    }

    let pdn_err = |p: &PathBuf| {
        let path = p.display().to_string();
        move |source| MatchError::Pdn { path, source }
    };
    let mut pdn_file = match &cfg.pdn {
        Some(p) => {
            if state.is_some() {
                write_pdn(p, standings.games(), &cfg.event).map_err(pdn_err(p))?;
            }
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(state.is_some())
                .write(true)
                .truncate(state.is_none())
                .open(p)
                .map_err(pdn_err(p))?;
            Some(std::io::BufWriter::new(file))
        }
        None => None,
    };
    let date = pdn::today();

    let done: BTreeSet<usize> = standings.games().iter().map(|g| g.slot.round).collect();
    let todo: Vec<Slot> = if standings.decided() {
        standings.stopped = true;
        Vec::new()
    } else {
        schedule
            .slots(cfg.shard)
            .into_iter()
            .filter(|s| !done.contains(&s.round))
            .collect()
    };

    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(standings.stopped);
    let interrupted = || {
        cfg.interrupt
            .as_deref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
    };
    let (tx, rx) = mpsc::channel::<(Slot, GameRecord)>();
    let mut pdn_error = None;
    let mut state_error = None;

    std::thread::scope(|scope| {
        for w in 0..cfg.concurrency.max(1) {
            let tx = tx.clone();
            let (next, stop, deck, todo, pairings) = (&next, &stop, &deck, &todo, &pairings);
            let mut players: Vec<Option<Player>> = engines
                .iter()
                .zip(&labels)
                .map(|(e, l)| {
                    let mut p = Player::new(e.spec.clone(), e.options.clone(), l.clone());
                    p.nodes = e.nodes;
                    Some(p)
                })
                .collect();
            if let Some(up) = first.take() {
                for (p, e) in players.iter_mut().zip(up) {
                    if let Some(p) = p {
                        p.engine = Some(e);
                    }
                }
            }
            std::thread::Builder::new()
                .name(format!("referee-{w}"))
                .spawn_scoped(scope, move || loop {
                    if stop.load(Ordering::Relaxed) || interrupted() {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&slot) = todo.get(i) else { break };
                    let (a, b) = pairings[slot.pairing];
                    let setup = GameSetup {
                        round: slot.round,
                        variant: schedule.variant,
                        opening: &deck[schedule.opening_of(slot.pair())],
                        a_color: slot.first_color(),
                        tc: schedule.time_control,
                        max_plies: schedule.max_plies,
                        egdb: cfg.egdb.as_deref(),
                        margin: cfg.margin,
                        setup_timeout: cfg.setup_timeout,
                    };
                    let (Some(pa), Some(pb)) = (players[a].take(), players[b].take()) else {
                        unreachable!("each player is put back after its game")
                    };
                    let mut pair = [pa, pb];
                    let record = play_game(&mut pair, &setup);
                    let [pa, pb] = pair;
                    players[a] = Some(pa);
                    players[b] = Some(pb);
                    if tx.send((slot, record)).is_err() {
                        break;
                    }
                })
                .expect("spawn worker thread");
        }
        drop(tx);
        for (slot, record) in rx {
            let finished = Finished {
                slot,
                record: record.clone(),
                date: date.clone(),
            };
            if standings.add(finished, sequential) {
                stop.store(true, Ordering::Relaxed);
            }
            if let Some((path, s)) = &mut state {
                s.push(StoredGame::new(slot, &record, &date));
                if let Err(e) = s.save(path) {
                    // without a state the run can't be resumed: stop it
                    state_error.get_or_insert(e);
                    stop.store(true, Ordering::Relaxed);
                }
            }
            if let Some(f) = &mut pdn_file {
                let text = pdn::write_game(&record, &cfg.event, &date);
                if let Err(e) = f.write_all(text.as_bytes()).and_then(|()| f.flush()) {
                    pdn_error.get_or_insert(e);
                }
            }
            standings.stopped = stop.load(Ordering::Relaxed);
            standings.interrupted = interrupted();
            progress.game(&record, &standings);
        }
    });
    if let Some(e) = state_error {
        return Err(e.into());
    }
    if let (Some(e), Some(p)) = (pdn_error, &cfg.pdn) {
        return Err(pdn_err(p)(e));
    }
    standings.stopped = stop.load(Ordering::Relaxed);
    standings.interrupted = interrupted();
    standings.in_progress = false;
    Ok(standings)
}

//! One refereed game between engine A and engine B.
//!
//! Every `bestmove` is read in the current position with the kingme rules; an
//! illegal or unreadable move, a timeout, an `error` reply, a crash or a
//! disconnect loses the game for that engine, and its connection is dropped (the
//! next game reconnects or restarts it). The game also ends by the rules, by
//! threefold repetition, by the 40-move rule (English) or at the maximum length.

use crate::engine::{Engine, EngineError, EngineSpec};
use crate::openings::Opening;
use kingme::board::EndReason;
use kingme::board::Outcome;
use kingme::engine::MoveComment;
use kingme::{Color, Game, Variant};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::{Duration, Instant};

/// One of the two engines of a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Side {
    /// `--engine-a`: results are from its point of view.
    A,
    /// `--engine-b`.
    B,
}

impl Side {
    /// The other engine.
    #[must_use]
    pub fn other(self) -> Side {
        match self {
            Side::A => Side::B,
            Side::B => Side::A,
        }
    }

    fn index(self) -> usize {
        match self {
            Side::A => 0,
            Side::B => 1,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::A => "A",
            Side::B => "B",
        })
    }
}

/// How long a search limited to `nodes` may take before its answer counts
/// as missing: ten seconds plus a millisecond for every hundred nodes (an
/// engine slower than 100,000 nodes a second is taken as stuck).
fn nodes_deadline_ms(nodes: u64) -> i64 {
    // u64::MAX / 100 + 10,000 is far below i64::MAX: the cast keeps the value
    (10_000 + nodes / 100) as i64
}

/// How long engines may think.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TimeControl {
    /// A fixed time per move, in milliseconds (`go movetime`).
    MoveTime(u64),
    /// A fixed number of nodes per move (`go nodes`): the same search
    /// whatever the machine's speed, to compare knowledge without speed.
    Nodes(u64),
    /// A game clock per side with an increment per move, in milliseconds
    /// (`go wtime btime winc binc`).
    Clock {
        /// Starting time per side.
        base_ms: u64,
        /// Added after each move.
        inc_ms: u64,
    },
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControl::MoveTime(ms) => write!(f, "movetime {ms} ms"),
            TimeControl::Nodes(n) => write!(f, "{n} nodes a move"),
            TimeControl::Clock { base_ms, inc_ms } => {
                write!(
                    f,
                    "{}+{}",
                    *base_ms as f64 / 1000.0,
                    *inc_ms as f64 / 1000.0
                )
            }
        }
    }
}

/// Why a game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Termination {
    /// By the rules of the variant (no move, no pieces, blocked).
    Rules {
        /// The reason, in words.
        reason: String,
    },
    /// Threefold repetition.
    Repetition,
    /// 40 moves each without a capture or a man move (English).
    FortyMoves,
    /// The game reached a position the endgame databases know: adjudicated
    /// with their value.
    Database {
        /// The position's FEN.
        fen: String,
    },
    /// The maximum game length was reached: adjudicated a draw.
    MaxPlies {
        /// The limit.
        plies: usize,
    },
    /// An engine sent a move that is not legal (or not a move).
    Illegal {
        /// The offender.
        by: Side,
        /// What it sent.
        text: String,
        /// Why it was refused.
        detail: String,
    },
    /// An engine did not answer in time.
    Timeout {
        /// The offender.
        by: Side,
        /// The wait.
        detail: String,
    },
    /// An engine crashed, disconnected or could not be started.
    Crash {
        /// The offender.
        by: Side,
        /// What happened.
        detail: String,
    },
    /// An engine refused a command with an `error` line.
    Refused {
        /// The offender.
        by: Side,
        /// Its error line.
        detail: String,
    },
}

impl Termination {
    /// The engine at fault, if the game ended by a fault.
    #[must_use]
    pub fn fault(&self) -> Option<Side> {
        match self {
            Termination::Illegal { by, .. }
            | Termination::Timeout { by, .. }
            | Termination::Crash { by, .. }
            | Termination::Refused { by, .. } => Some(*by),
            _ => None,
        }
    }

    /// A short key for counting (`rules`, `illegal`, ...).
    #[must_use]
    pub fn key(&self) -> &'static str {
        match self {
            Termination::Rules { .. } => "rules",
            Termination::Repetition => "repetition",
            Termination::FortyMoves => "forty_moves",
            Termination::MaxPlies { .. } => "max_plies",
            Termination::Database { .. } => "database",
            Termination::Illegal { .. } => "illegal",
            Termination::Timeout { .. } => "timeout",
            Termination::Crash { .. } => "crash",
            Termination::Refused { .. } => "refused",
        }
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Termination::Rules { reason } => f.write_str(reason),
            Termination::Repetition => f.write_str("threefold repetition"),
            Termination::FortyMoves => f.write_str("40-move rule"),
            Termination::MaxPlies { plies } => write!(f, "adjudicated draw after {plies} plies"),
            Termination::Database { fen } => {
                write!(f, "adjudicated from the endgame database at {fen}")
            }
            Termination::Illegal { by, text, detail } => {
                write!(f, "engine {by} played illegal move '{text}': {detail}")
            }
            Termination::Timeout { by, detail } => write!(f, "engine {by} lost on time: {detail}"),
            Termination::Crash { by, detail } => write!(f, "engine {by} crashed: {detail}"),
            Termination::Refused { by, detail } => write!(f, "engine {by} refused: {detail}"),
        }
    }
}

/// A game's result from engine A's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Score {
    /// A won.
    Win,
    /// Drawn.
    Draw,
    /// A lost.
    Loss,
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// 1-based game number in the match.
    pub round: usize,
    /// The rules.
    pub variant: Variant,
    /// The opening's name.
    pub opening: String,
    /// The start position's FEN, `None` for the standard start.
    pub fen: Option<String>,
    /// The colour engine A played.
    pub a_color: Color,
    /// Black's name.
    pub black: String,
    /// White's name.
    pub white: String,
    /// The moves from the start position, in full notation.
    pub moves: Vec<String>,
    /// What the engine said of each move (one per move): the score and depth
    /// of its last `info` before `bestmove`, and the time the referee measured.
    pub comments: Vec<MoveComment>,
    /// Who won.
    pub outcome: Outcome,
    /// Why the game ended.
    pub termination: Termination,
}

impl GameRecord {
    /// The result for engine A.
    #[must_use]
    pub fn score(&self) -> Score {
        match self.outcome {
            Outcome::Draw => Score::Draw,
            Outcome::Win(c) if c == self.a_color => Score::Win,
            Outcome::Win(_) => Score::Loss,
        }
    }
}

/// One engine of the match, with its connection if it is up.
#[derive(Debug)]
pub struct Player {
    /// Where it lives.
    pub spec: EngineSpec,
    /// `setoption` pairs sent after the handshake.
    pub options: Vec<(String, String)>,
    /// The name written in the PDN.
    pub label: String,
    /// Nodes a move of its own, instead of the time control's count (with
    /// [`TimeControl::Nodes`] only; other time controls ignore it).
    pub nodes: Option<u64>,
    /// The live connection, `None` until needed or after a fault.
    pub engine: Option<Engine>,
}

impl Player {
    /// A player with no connection yet.
    #[must_use]
    pub fn new(spec: EngineSpec, options: Vec<(String, String)>, label: String) -> Player {
        Player {
            spec,
            options,
            label,
            nodes: None,
            engine: None,
        }
    }

    /// Connects if needed and starts a new game in `variant`.
    pub fn new_game(&mut self, variant: Variant, timeout: Duration) -> Result<(), EngineError> {
        if let Some(e) = &mut self.engine {
            let ok = e
                .send(&format!("newgame {}", variant.name()))
                .and_then(|()| e.sync(timeout));
            if ok.is_ok() {
                return Ok(());
            }
            self.engine = None; // dead: start afresh below
        }
        let mut options = vec![("Variant".to_string(), variant.name().to_string())];
        options.extend(self.options.iter().cloned());
        let mut e = Engine::start(&self.spec, &options, timeout)?;
        e.send(&format!("newgame {}", variant.name()))?;
        e.sync(timeout)?;
        self.engine = Some(e);
        Ok(())
    }
}

/// How one game is played.
#[derive(Clone, Debug)]
pub struct GameSetup<'a> {
    /// 1-based game number.
    pub round: usize,
    /// The rules.
    pub variant: Variant,
    /// Where the game starts.
    pub opening: &'a Opening,
    /// Engine A's colour.
    pub a_color: Color,
    /// The time control.
    pub tc: TimeControl,
    /// Adjudicated a draw after this many plies.
    pub max_plies: usize,
    /// Adjudicate a game as soon as it reaches a position these endgame
    /// databases know.
    pub egdb: Option<&'a kingme::egdb::Tablebase>,
    /// Grace added to every time limit before an engine loses on time.
    pub margin: Duration,
    /// Limit for connecting, the handshake and `isready`.
    pub setup_timeout: Duration,
}

fn fault_of(by: Side, e: &EngineError) -> Termination {
    match e {
        EngineError::Timeout { .. } => Termination::Timeout {
            by,
            detail: e.to_string(),
        },
        EngineError::Rejected(line) => Termination::Refused {
            by,
            detail: line.clone(),
        },
        _ => Termination::Crash {
            by,
            detail: e.to_string(),
        },
    }
}

/// Plays one game; `players[0]` is engine A, `players[1]` engine B.
pub fn play_game(players: &mut [Player; 2], setup: &GameSetup<'_>) -> GameRecord {
    let start = setup.opening.position;
    let side_of = |c: Color| if c == setup.a_color { Side::A } else { Side::B };
    let color_of = |s: Side| match s {
        Side::A => setup.a_color,
        Side::B => !setup.a_color,
    };
    let mut record = GameRecord {
        round: setup.round,
        variant: setup.variant,
        opening: setup.opening.name.clone(),
        fen: (!setup.opening.is_startpos()).then(|| start.to_fen()),
        a_color: setup.a_color,
        black: players[side_of(Color::Black).index()].label.clone(),
        white: players[side_of(Color::White).index()].label.clone(),
        moves: Vec::new(),
        comments: Vec::new(),
        outcome: Outcome::Draw,
        termination: Termination::Repetition,
    };
    let lose = |record: &mut GameRecord, t: Termination| {
        let by = t.fault().expect("a fault");
        record.outcome = Outcome::Win(!color_of(by));
        record.termination = t;
    };

    for side in [Side::A, Side::B] {
        if let Err(e) = players[side.index()].new_game(setup.variant, setup.setup_timeout) {
            players[side.index()].engine = None;
            lose(&mut record, fault_of(side, &e));
            return record;
        }
    }

    let mut game = Game::from_position(start);
    let mut clock = match setup.tc {
        TimeControl::Clock { base_ms, .. } => [base_ms as i64; 2],
        TimeControl::MoveTime(_) | TimeControl::Nodes(_) => [0; 2],
    };
    let position_head = if setup.opening.is_startpos() {
        "position startpos".to_string()
    } else {
        format!("position fen {}", start.to_fen())
    };
    loop {
        if let Some(end) = game.result() {
            record.outcome = end.outcome;
            record.termination = match end.reason {
                EndReason::Repetition => Termination::Repetition,
                EndReason::FortyMoves => Termination::FortyMoves,
                _ => Termination::Rules {
                    reason: end.to_string(),
                },
            };
            break;
        }
        if let Some(outcome) = setup.egdb.and_then(|tb| tb.outcome(game.position())) {
            record.outcome = outcome;
            record.termination = Termination::Database {
                fen: game.position().to_fen(),
            };
            break;
        }
        if game.moves().len() >= setup.max_plies {
            record.outcome = Outcome::Draw;
            record.termination = Termination::MaxPlies {
                plies: setup.max_plies,
            };
            break;
        }
        let turn = game.position().turn();
        let side = side_of(turn);
        let player = &mut players[side.index()];
        let Some(engine) = player.engine.as_mut() else {
            lose(
                &mut record,
                Termination::Crash {
                    by: side,
                    detail: "no connection".into(),
                },
            );
            break;
        };
        let mut position = position_head.clone();
        if !record.moves.is_empty() {
            position.push_str(" moves ");
            position.push_str(&record.moves.join(" "));
        }
        let (go, limit_ms) = match setup.tc {
            TimeControl::MoveTime(ms) => (format!("go movetime {ms}"), ms as i64),
            TimeControl::Nodes(n) => {
                let n = player.nodes.unwrap_or(n);
                (format!("go nodes {n}"), nodes_deadline_ms(n))
            }
            TimeControl::Clock { inc_ms, .. } => (
                format!(
                    "go wtime {} btime {} winc {inc_ms} binc {inc_ms}",
                    clock[1].max(0),
                    clock[0].max(0)
                ),
                clock[usize::from(turn == Color::White)].max(0),
            ),
        };
        let t0 = Instant::now();
        // a limit too far to add to the clock waits as long as a day does
        let deadline = t0
            .checked_add(Duration::from_millis(limit_ms as u64) + setup.margin)
            .unwrap_or(t0 + Duration::from_secs(86_400));
        let answer = engine.search(setup.variant, &position, &go, deadline);
        let elapsed = t0.elapsed();
        let best = match answer {
            Ok(b) => b,
            Err(e) => {
                player.engine = None;
                lose(&mut record, fault_of(side, &e));
                break;
            }
        };
        let mv = match game.position().parse_move(&best.text) {
            Ok(m) => m,
            Err(e) => {
                player.engine = None;
                lose(
                    &mut record,
                    Termination::Illegal {
                        by: side,
                        text: best.text.clone(),
                        detail: e.to_string(),
                    },
                );
                break;
            }
        };
        if let TimeControl::Clock { inc_ms, .. } = setup.tc {
            let i = usize::from(turn == Color::White);
            let used = elapsed.as_millis() as i64;
            if used > clock[i] + setup.margin.as_millis() as i64 {
                player.engine = None;
                lose(
                    &mut record,
                    Termination::Timeout {
                        by: side,
                        detail: format!("used {used} ms with {} ms left", clock[i]),
                    },
                );
                break;
            }
            clock[i] = (clock[i] - used).max(0) + inc_ms as i64;
        }
        game.play_unchecked(mv);
        record.moves.push(mv.to_string());
        record.comments.push(MoveComment {
            score: best.score,
            depth: best.score.and(best.depth),
            book: best.book,
            time: Some(elapsed),
        });
    }
    record
}

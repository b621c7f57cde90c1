//! The exact values a review uses: the English endgame databases and the
//! solved mini-checkers table.

use super::judge::ExactValues;
use crate::board::{Move, Position, Variant};
use crate::egdb::{Tablebase, Wdl};
use crate::search::Score;
use crate::solve::MiniTablebase;
use std::sync::Arc;

/// The databases and the mini table a review may consult.
#[derive(Clone, Default)]
pub struct Oracle {
    /// English endgame databases, for positions of at most `pieces` pieces.
    pub egdb: Option<Arc<Tablebase>>,
    /// The most pieces of a position the databases are asked about.
    pub pieces: u32,
    /// The solved mini-checkers table.
    pub mini: Option<&'static MiniTablebase>,
}

impl ExactValues for Oracle {
    fn exact(&self, pos: &Position) -> Option<(Score, Option<Move>)> {
        match pos.variant() {
            Variant::Mini => {
                let t = self.mini?;
                if !t.contains(pos) {
                    return None;
                }
                Some((Score::from(t.value(pos)), t.best_move(pos)))
            }
            Variant::English => {
                let tb = self.egdb.as_ref()?;
                if pos.occupied().count() > self.pieces.min(tb.probe_pieces()) {
                    return None;
                }
                let (mv, wdl) = match tb.best_move(pos).ok()? {
                    Some((m, v)) => (Some(m), v),
                    None => (None, tb.probe_wdl(pos).ok()?),
                };
                let score = match wdl {
                    // a position without a move is lost now
                    Wdl::Loss if mv.is_none() => Score::Loss(0),
                    v => Score::from(v),
                };
                Some((score, mv))
            }
        }
    }
}

//! Board vocabulary and rules: squares, bitboards, pieces, moves, positions,
//! FEN and move notation, move generation, the game record and PDN games.

mod bitboard;
mod color;
mod fen;
mod game;
pub(crate) mod movecount;
pub(crate) mod movegen;
mod mv;
mod notation;
pub mod pdn;
mod piece;
mod position;
mod square;
mod square_text;
mod variant;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use color::{ByColor, Color};
pub use fen::ParseFenError;
pub use game::{EndReason, Game, GameEnd, FORTY_MOVE_PLIES};
pub use mv::{Move, MoveList, MAX_MOVES, MAX_PATH};
pub use notation::{join_or_none, ParseMoveError};
pub use piece::{Piece, Role};
pub use position::{Outcome, Position};
pub use square::Square;
pub use square_text::{format_square_text, parse_square_text, ParseSquareTextError, PieceLetters};
pub use variant::{English, Mini, ParseVariantError, Rules, Variant};

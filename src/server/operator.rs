//! The operator's say over server files, as command-line flags shared by
//! every server front end (`kingme --listen`, `kingme-web`): which directories
//! clients may name files in, and the databases, evaluation and opening book
//! every session starts with.

use crate::engine::{Engine, EngineOption};
use crate::files::FileAccess;
use crate::protocol::{parse_option, SessionConfig};
use std::path::PathBuf;

/// `--allow-files DIR...`, `--egdb DIR`, `--eval-file FILE`, `--book FILE`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct OperatorFiles {
    /// Let network clients name files (EvalFile, EGDBPath, BookFile) inside this
    /// directory (repeatable; symlinks are followed before the check).
    /// Without it, they can name no server file.
    #[arg(long, value_name = "DIR")]
    pub allow_files: Vec<PathBuf>,
    /// Endgame databases every session starts with (instead of $KINGME_EGDB
    /// or the data directory).
    #[arg(long, value_name = "DIR")]
    pub egdb: Option<PathBuf>,
    /// Evaluation weights every session starts with (a kingme weights file).
    #[arg(long, value_name = "FILE")]
    pub eval_file: Option<PathBuf>,
    /// Opening book every session plays from (OwnBook on, this BookFile).
    #[arg(long, value_name = "FILE")]
    pub book: Option<PathBuf>,
}

impl OperatorFiles {
    /// The engine options every session starts with, read and checked now,
    /// so that a bad file is refused at start rather than in every session.
    pub fn defaults(&self) -> Result<Vec<EngineOption>, String> {
        let mut defaults = Vec::new();
        if let Some(f) = &self.eval_file {
            let text = f.to_string_lossy();
            defaults
                .push(parse_option("EvalFile", &text).map_err(|e| format!("--eval-file: {e}"))?);
        }
        if let Some(d) = &self.egdb {
            let d = d
                .canonicalize()
                .map_err(|e| format!("--egdb {}: {e}", d.display()))?;
            let text = d.to_string_lossy();
            defaults.push(parse_option("EGDBPath", &text).map_err(|e| format!("--egdb: {e}"))?);
        }
        if let Some(f) = &self.book {
            let f = f
                .canonicalize()
                .map_err(|e| format!("--book {}: {e}", f.display()))?;
            defaults.push(EngineOption::BookFile(f.to_string_lossy().into_owned()));
            defaults.push(EngineOption::OwnBook(true));
        }
        let mut engine = Engine::new();
        for o in &defaults {
            engine.set(o.clone()).map_err(|e| e.to_string())?;
        }
        Ok(defaults)
    }

    /// Sets a network server's session config: its defaults and file access.
    pub fn apply_to(&self, session: &mut SessionConfig) -> Result<(), String> {
        session.defaults = self.defaults()?;
        session.files =
            FileAccess::within(&self.allow_files).map_err(|e| format!("--allow-files {e}"))?;
        Ok(())
    }
}

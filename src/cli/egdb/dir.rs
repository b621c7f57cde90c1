//! The database directory every `kingme egdb` command takes.

use clap::Args;
use kingme::egdb;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct DirArg {
    /// Database directory [default: $KINGME_EGDB, else ~/.local/share/kingme/egdb].
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

pub(super) fn dir_of(a: &DirArg) -> Result<PathBuf, String> {
    a.dir
        .clone()
        .or_else(egdb::default_dir)
        .ok_or_else(|| "no database directory: give --dir or set KINGME_EGDB".to_string())
}

//! `kingme merge-data`: data files, or the shards of one run, joined into one.

use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub(crate) struct MergeArgs {
    /// The data file to write (refused if it exists, unless --force).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Overwrite FILE if it exists.
    #[arg(long)]
    force: bool,
    /// The data files: every shard of one datagen or rescore run (in any
    /// order), or whole files (joined in the order given).
    #[arg(required = true, value_name = "IN")]
    inputs: Vec<PathBuf>,
}

pub(crate) fn run_merge(a: &MergeArgs) -> Result<(), String> {
    super::check_output(&a.out, false, a.force)?;
    let s = kingme::datagen::merge::merge(&a.inputs, &a.out).map_err(|e| e.to_string())?;
    let h = s.header;
    let job = match h.whole {
        0 => String::new(),
        n => format!(" of {n}"),
    };
    println!(
        "merge-data {} positions {} from {} files ({} repeats left out) {}{job} seed {}",
        a.out.display(),
        s.positions,
        a.inputs.len(),
        s.repeats,
        h.source,
        h.seed
    );
    Ok(())
}

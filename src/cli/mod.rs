//! The `kingme` command line, one file per subcommand (the engine itself when
//! none is given); each parses its flags with clap, calls the library and
//! prints.

pub(crate) mod bench;
pub(crate) mod book;
pub(crate) mod datagen;
pub(crate) mod dxp;
pub(crate) mod egdb;
pub(crate) mod endings;
pub(crate) mod merge;
pub(crate) mod perft;
mod progress;
pub(crate) mod rescore;
pub(crate) mod review;
pub(crate) mod serve;
mod signals;
pub(crate) mod solve;
pub(crate) mod train;

pub(crate) use progress::progress_bar;
pub(crate) use signals::stop_on_signal;

pub(crate) fn evaluator_of(text: &str) -> Result<kingme::eval::Evaluator, String> {
    kingme::eval::Evaluator::from_name(text).map_err(|e| e.to_string())
}

/// `threads`, or one per core when not given.
pub(crate) fn threads_or_all(threads: Option<usize>) -> usize {
    threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1)
}

/// The endgame databases a datagen or rescoring run uses: none with `--no-egdb`,
/// else the built-in ones and those in `dir`.
pub(crate) fn run_tablebase(
    dir: Option<&std::path::Path>,
    none: bool,
) -> Result<Option<std::sync::Arc<kingme::egdb::Tablebase>>, String> {
    if none {
        return Ok(None);
    }
    let mut tb = kingme::egdb::Tablebase::new();
    if let Some(dir) = dir {
        tb.add_directory(dir).map_err(|e| e.to_string())?;
    }
    tb.add_builtin().map_err(|e| e.to_string())?;
    Ok(Some(std::sync::Arc::new(tb)))
}

/// A data file to write: refused if it exists unless `append` (then continued,
/// and `true` returned with it) or `force` (then overwritten).
pub(crate) fn check_output(
    path: &std::path::Path,
    append: bool,
    force: bool,
) -> Result<bool, String> {
    let exists = path.exists();
    if exists && !force && !append {
        return Err(format!(
            "{} exists (use --append to continue it, --force to overwrite it)",
            path.display()
        ));
    }
    Ok(append && exists)
}

/// `path` opened for writing: at its end when `continued`, else created empty.
pub(crate) fn open_output(
    path: &std::path::Path,
    continued: bool,
) -> Result<std::io::BufWriter<std::fs::File>, String> {
    if continued {
        std::fs::OpenOptions::new().append(true).open(path)
    } else {
        std::fs::File::create(path)
    }
    .map(std::io::BufWriter::new)
    .map_err(|e| format!("{}: {e}", path.display()))
}

/// The options `kingme datagen` and `kingme rescore` share: the search's
/// depth, evaluation, databases and threads, and how `--out` is written.
#[derive(clap::Args, Debug)]
pub(crate) struct LabelArgs {
    /// Search this depth instead of --nodes.
    #[arg(long, value_name = "D", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub(crate) depth: Option<u32>,
    /// Endgame databases the searches probe besides the 5 pieces built into
    /// kingme (datagen: they also end the games and give their results).
    #[arg(long, value_name = "DIR")]
    egdb: Option<std::path::PathBuf>,
    /// Search without endgame databases (datagen: play games out without them).
    #[arg(long, conflicts_with = "egdb")]
    no_egdb: bool,
    /// Continue FILE if it exists: what it holds is not done again (a run can
    /// be stopped and continued in chunks).
    #[arg(long, conflicts_with = "force")]
    append: bool,
    /// Threads playing or searching [default: all cores].
    #[arg(long)]
    threads: Option<usize>,
    /// The evaluation that searches: builtin, patterns, network, hand, or a weights file.
    #[arg(long, default_value = "builtin", value_name = "EVAL")]
    eval: String,
    /// Overwrite FILE if it exists.
    #[arg(long)]
    force: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

impl LabelArgs {
    /// Whether `out` is continued ([`check_output`]).
    pub(crate) fn continues(&self, out: &std::path::Path) -> Result<bool, String> {
        check_output(out, self.append, self.force)
    }

    /// The endgame databases ([`run_tablebase`]).
    pub(crate) fn tablebase(
        &self,
    ) -> Result<Option<std::sync::Arc<kingme::egdb::Tablebase>>, String> {
        run_tablebase(self.egdb.as_deref(), self.no_egdb)
    }

    /// The threads ([`threads_or_all`]).
    pub(crate) fn threads(&self) -> usize {
        threads_or_all(self.threads)
    }

    /// The evaluation.
    pub(crate) fn evaluator(&self) -> Result<kingme::eval::Evaluator, String> {
        evaluator_of(&self.eval)
    }

    /// A progress bar of `len` steps, hidden with `--quiet`.
    pub(crate) fn progress_bar(&self, len: u64, template: &str) -> indicatif::ProgressBar {
        progress_bar(len, self.quiet, template)
    }
}

/// A search budget as the summary lines print it.
pub(crate) fn budget(nodes: u64, depth: Option<u32>) -> String {
    match depth {
        Some(d) => format!("depth {d}"),
        None => format!("nodes {nodes}"),
    }
}

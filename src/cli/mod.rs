//! The `kingme` command line, one file per subcommand (the engine itself when
//! none is given); each parses its flags with clap, calls the library and
//! prints.

pub(crate) mod bench;
pub(crate) mod book;
pub(crate) mod datagen;
pub(crate) mod dxp;
pub(crate) mod egdb;
pub(crate) mod endings;
pub(crate) mod perft;
pub(crate) mod rescore;
pub(crate) mod serve;
mod signals;
pub(crate) mod solve;
pub(crate) mod train;

pub(crate) use signals::stop_on_signal;

pub(crate) fn evaluator_of(text: &str) -> Result<kingme::eval::Evaluator, String> {
    kingme::eval::Evaluator::from_name(text).map_err(|e| e.to_string())
}

pub(crate) fn progress_bar(len: u64, quiet: bool, template: &str) -> indicatif::ProgressBar {
    if quiet {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
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

/// A search budget as the summary lines print it.
pub(crate) fn budget(nodes: u64, depth: Option<u32>) -> String {
    match depth {
        Some(d) => format!("depth {d}"),
        None => format!("nodes {nodes}"),
    }
}

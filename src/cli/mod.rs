//! The `kingme` command line, one file per subcommand (the engine itself when
//! none is given); each parses its flags with clap, calls the library and
//! prints.

pub(crate) mod bench;
pub(crate) mod book;
pub(crate) mod datagen;
pub(crate) mod dxp;
pub(crate) mod egdb;
pub(crate) mod perft;
pub(crate) mod rescore;
pub(crate) mod serve;
pub(crate) mod solve;
pub(crate) mod train;

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

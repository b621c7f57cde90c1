//! The progress bars of the long commands: drawn on a terminal, hidden with
//! `--quiet`, and written as a plain line at intervals when standard error is
//! a file or a pipe (a log of a job run in the background), where a bar
//! would draw nothing.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{FormattedDuration, ProgressBar, ProgressStyle};

/// The environment variable that sets the seconds between two plain progress
/// lines (whole seconds, at least 1).
pub(crate) const EVERY_VAR: &str = "KINGME_PROGRESS_SECS";

/// The seconds between two plain progress lines when [`EVERY_VAR`] is unset.
const DEFAULT_EVERY_SECS: u64 = 60;

/// A progress bar of `len` steps drawn with `template`; hidden when `quiet`.
pub(crate) fn progress_bar(len: u64, quiet: bool, template: &str) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    if !std::io::stderr().is_terminal() {
        log_lines(&bar, every());
    }
    bar
}

/// The interval [`EVERY_VAR`] asks for, else the default.
fn every() -> Duration {
    let secs = std::env::var(EVERY_VAR)
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .filter(|&s| s >= 1)
        .unwrap_or(DEFAULT_EVERY_SECS);
    Duration::from_secs(secs)
}

/// Writes `bar`'s state to standard error every `every` until it is finished
/// or dropped.
fn log_lines(bar: &ProgressBar, every: Duration) {
    let weak = bar.downgrade();
    std::thread::spawn(move || loop {
        std::thread::sleep(every);
        let Some(bar) = weak.upgrade() else { return };
        if bar.is_finished() {
            return;
        }
        eprintln!("{}", line(&bar));
    });
}

/// One plain progress line: the time elapsed, the position (of the length
/// when known, with the time left), and the bar's message.
fn line(bar: &ProgressBar) -> String {
    let elapsed = bar.elapsed();
    let pos = bar.position();
    let mut s = FormattedDuration(elapsed).to_string();
    match bar.length() {
        Some(len) if len > 0 => {
            s.push_str(&format!(" {pos}/{len}"));
            if pos > 0 && pos < len {
                let left = elapsed.as_secs_f64() * (len - pos) as f64 / pos as f64;
                s.push_str(&format!(
                    " (eta {})",
                    FormattedDuration(Duration::from_secs_f64(left))
                ));
            }
        }
        _ => s.push_str(&format!(" {pos}")),
    }
    let msg = bar.message();
    if !msg.is_empty() {
        s.push_str(", ");
        s.push_str(&msg);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_gives_position_length_time_left_and_message() {
        let bar = ProgressBar::hidden();
        bar.set_length(400);
        bar.set_position(100);
        bar.set_message("positions 100");
        let l = line(&bar);
        assert!(l.contains(" 100/400"), "{l}");
        assert!(l.contains("(eta "), "{l}");
        assert!(l.ends_with(", positions 100"), "{l}");
        let done = ProgressBar::hidden();
        done.set_length(5);
        done.set_position(5);
        assert!(!line(&done).contains("eta"), "{}", line(&done));
    }

    #[test]
    fn a_line_starts_with_the_time_elapsed_as_hours_minutes_seconds() {
        let l = line(&ProgressBar::hidden());
        let b = l.as_bytes();
        assert!(b.len() >= 8, "{l}");
        for (i, c) in b[..8].iter().enumerate() {
            match i {
                2 | 5 => assert_eq!(*c, b':', "{l}"),
                _ => assert!(c.is_ascii_digit(), "{l}"),
            }
        }
    }
}

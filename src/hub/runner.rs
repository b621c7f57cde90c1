//! Running a Hub session on stdin and stdout: a reader thread feeding one
//! channel with lines, the searches feeding it with events.

use super::{Flow, HubSession, Input, MAX_LINE};
use crate::server::framing::read_bounded;
use std::io::{BufRead, Write};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// Reads `input` line by line into `tx` (lines over [`MAX_LINE`] become
/// [`Input::TooLong`]), then sends [`Input::Closed`].
pub fn read_input(input: impl BufRead, tx: &SyncSender<Input>) {
    let _ = read_bounded(input, b'\n', MAX_LINE, |l| {
        let item = match l {
            Some(bytes) => Input::Line(String::from_utf8_lossy(&bytes).into_owned()),
            None => Input::TooLong,
        };
        tx.send(item).is_ok()
    });
    let _ = tx.send(Input::Closed);
}

/// Runs a session on `rx` (fed by [`read_input`] and by the searches through
/// `tx`), writing to `out`, until `quit` or end of input (after which a
/// running limited search still finishes and writes its `done`).
pub fn serve(
    tx: SyncSender<Input>,
    rx: &Receiver<Input>,
    mut out: impl Write,
) -> std::io::Result<()> {
    let mut session = HubSession::new(tx);
    let mut lines = Vec::new();
    let result = loop {
        let Ok(input) = rx.recv() else {
            break Ok(());
        };
        let flow = session.handle(input, &mut lines);
        let written = lines
            .drain(..)
            .try_for_each(|l| writeln!(out, "{l}"))
            .and_then(|()| out.flush());
        if written.is_err() || flow == Flow::Quit {
            break written;
        }
    };
    session.shutdown(rx);
    result
}

/// `kingme hub`: a Hub session on stdin and stdout. Panic messages are
/// silenced: stderr must stay empty, as pydraughts reads it as protocol.
pub fn run() -> std::io::Result<()> {
    std::panic::set_hook(Box::new(|_| {}));
    let (tx, rx) = sync_channel(256);
    let reader_tx = tx.clone();
    std::thread::Builder::new()
        .name("kingme-hub-stdin".into())
        .spawn(move || read_input(std::io::stdin().lock(), &reader_tx))?;
    serve(tx, &rx, std::io::stdout().lock())
}

//! Bounded records from a byte stream: lines for stdio and Hub, NUL-ended
//! messages for DXP. A record over the limit is skipped, never buffered.

use std::io::BufRead;

/// Reads `input` as records of at most `max` bytes, each ended by `delimiter`
/// (the last one possibly not), until EOF, handing each to `emit`:
/// `Some(bytes)` for a record (without its delimiter), `None` for one that was
/// too long (its bytes are skipped, never buffered). Stops early when `emit`
/// returns false; a read error ends it with that error.
pub fn read_bounded(
    mut input: impl BufRead,
    delimiter: u8,
    max: usize,
    mut emit: impl FnMut(Option<Vec<u8>>) -> bool,
) -> std::io::Result<()> {
    let mut line = Vec::new();
    let mut discarding = false;
    loop {
        let buf = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            if !line.is_empty() && !discarding {
                emit(Some(std::mem::take(&mut line)));
            }
            break;
        }
        let (chunk, newline) = match buf.iter().position(|&b| b == delimiter) {
            Some(i) => (&buf[..i], true),
            None => (buf, false),
        };
        if !discarding {
            if line.len() + chunk.len() > max {
                discarding = true;
                line = Vec::new();
                if !emit(None) {
                    return Ok(());
                }
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let used = chunk.len() + usize::from(newline);
        input.consume(used);
        if newline {
            if !discarding && !emit(Some(std::mem::take(&mut line))) {
                return Ok(());
            }
            discarding = false;
        }
    }
    Ok(())
}

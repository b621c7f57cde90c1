//! Line framing for TCP: telnet option bytes dropped, lines bounded by
//! `LinesCodec::new_with_max_length`, and line errors (too long, not UTF-8)
//! turned into items so one bad line never ends the connection.

use bytes::{Buf, BufMut, BytesMut};
use tokio_util::codec::{Decoder, Encoder, LinesCodec, LinesCodecError};

/// One framed input line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// A line's bytes, without its LF (a trailing CR is kept; the session drops it).
    Text(Vec<u8>),
    /// A line longer than the reader's limit of `max` bytes; its bytes were
    /// discarded.
    TooLong {
        /// The limit.
        max: usize,
    },
}

/// Where the telnet filter is inside an `IAC` sequence.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
enum Telnet {
    #[default]
    Data,
    /// After IAC (255).
    Iac,
    /// After IAC WILL/WONT/DO/DONT: one option byte follows.
    Option,
    /// Inside IAC SB ... IAC SE.
    Sub,
    /// After IAC inside a subnegotiation.
    SubIac,
}

/// The kingme TCP codec: see the module docs. Output lines end in LF, or CRLF
/// once the client has shown it speaks telnet (CRLF line ends or IAC bytes).
#[derive(Debug)]
pub struct KingmeCodec {
    lines: LinesCodec,
    max: usize,
    clean: BytesMut,
    telnet: Telnet,
    crlf: bool,
}

const IAC: u8 = 255;
const SB: u8 = 250;
const SE: u8 = 240;

impl KingmeCodec {
    /// A codec whose lines may hold at most `max` bytes.
    #[must_use]
    pub fn new(max: usize) -> KingmeCodec {
        KingmeCodec {
            // Room for the CR that LinesCodec strips itself.
            lines: LinesCodec::new_with_max_length(max + 1),
            max,
            clean: BytesMut::new(),
            telnet: Telnet::Data,
            crlf: false,
        }
    }

    /// Moves `src` into `clean`, dropping telnet commands.
    fn filter(&mut self, src: &mut BytesMut) {
        while src.has_remaining() {
            let b = src.get_u8();
            self.telnet = match (self.telnet, b) {
                (Telnet::Data, IAC) => Telnet::Iac,
                (Telnet::Data, b) => {
                    if b == b'\n' && self.clean.last() == Some(&b'\r') {
                        self.crlf = true;
                    }
                    self.clean.put_u8(b);
                    Telnet::Data
                }
                (Telnet::Iac, IAC) => {
                    // An escaped 255 data byte: never valid in a UTF-8 line anyway.
                    self.clean.put_u8(IAC);
                    Telnet::Data
                }
                (Telnet::Iac, 251..=254) => {
                    self.crlf = true;
                    Telnet::Option
                }
                (Telnet::Iac, SB) => {
                    self.crlf = true;
                    Telnet::Sub
                }
                (Telnet::Iac, _) => Telnet::Data,
                (Telnet::Option, _) => Telnet::Data,
                (Telnet::Sub, IAC) => Telnet::SubIac,
                (Telnet::Sub, _) => Telnet::Sub,
                (Telnet::SubIac, SE) => Telnet::Data,
                (Telnet::SubIac, _) => Telnet::Sub,
            };
        }
    }

    fn next_line(&mut self, eof: bool) -> Result<Option<Line>, std::io::Error> {
        let r = if eof {
            self.lines.decode_eof(&mut self.clean)
        } else {
            self.lines.decode(&mut self.clean)
        };
        match r {
            Ok(Some(s)) => Ok(Some(Line::Text(s.into_bytes()))),
            Ok(None) => Ok(None),
            Err(LinesCodecError::MaxLineLengthExceeded) => {
                Ok(Some(Line::TooLong { max: self.max }))
            }
            Err(LinesCodecError::Io(e)) if e.kind() == std::io::ErrorKind::InvalidData => {
                // Not UTF-8: LinesCodec has consumed the line; pass on bytes the
                // session will reject with an error line.
                Ok(Some(Line::Text(vec![0xff])))
            }
            Err(LinesCodecError::Io(e)) => Err(e),
        }
    }
}

impl Decoder for KingmeCodec {
    type Item = Line;
    type Error = std::io::Error;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Line>, std::io::Error> {
        self.filter(src);
        self.next_line(false)
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Line>, std::io::Error> {
        self.filter(src);
        self.next_line(true)
    }
}

impl Encoder<String> for KingmeCodec {
    type Error = std::io::Error;

    /// Writes `line` (which may hold several lines) with the line ending in use.
    fn encode(&mut self, line: String, dst: &mut BytesMut) -> Result<(), std::io::Error> {
        let eol: &[u8] = if self.crlf { b"\r\n" } else { b"\n" };
        dst.reserve(line.len() + 2);
        for (i, part) in line.split('\n').enumerate() {
            if i > 0 {
                dst.put_slice(eol);
            }
            dst.put_slice(part.as_bytes());
        }
        dst.put_slice(eol);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(codec: &mut KingmeCodec, chunks: &[&[u8]]) -> Vec<Line> {
        let mut out = Vec::new();
        let mut buf = BytesMut::new();
        for c in chunks {
            buf.extend_from_slice(c);
            while let Some(l) = codec.decode(&mut buf).expect("decode") {
                out.push(l);
            }
        }
        out
    }

    #[test]
    fn telnet_commands_split_across_reads_are_dropped() {
        let mut c = KingmeCodec::new(64);
        let lines = feed(
            &mut c,
            &[
                b"\xff",
                b"\xfd",
                b"\x01is",
                b"re\xff\xfa\x1f\x00",
                b"\x50\xff",
                b"\xf0ady\r\n",
            ],
        );
        assert_eq!(lines, [Line::Text(b"isready".to_vec())]);
        let mut out = BytesMut::new();
        c.encode("a\nb".into(), &mut out).expect("encode");
        assert_eq!(&out[..], b"a\r\nb\r\n", "CRLF after telnet input");
    }

    #[test]
    fn long_lines_and_bad_bytes_become_items() {
        let mut c = KingmeCodec::new(8);
        let lines = feed(&mut c, &[b"0123456789", b"abc\nok\n\xc3\x28\nnext\n"]);
        assert_eq!(
            lines,
            [
                Line::TooLong { max: 8 },
                Line::Text(b"ok".to_vec()),
                Line::Text(vec![0xff]),
                Line::Text(b"next".to_vec()),
            ]
        );
        let mut out = BytesMut::new();
        c.encode("x".into(), &mut out).expect("encode");
        assert_eq!(&out[..], b"x\n", "LF for a plain client");
    }
}

//! DXP framing on TCP: each message ends in a NUL byte. A message over
//! [`MAX_MESSAGE`] bytes becomes [`ParseDxpError::TooLong`] (its bytes are
//! skipped, never buffered) and a bad one its parse error: items, so that one
//! bad message never ends the connection.

use super::message::{DxpMessage, ParseDxpError, MAX_MESSAGE};
use bytes::{Buf, BufMut, BytesMut};
use tokio_util::codec::{Decoder, Encoder};

/// The DXP codec: NUL-ended messages in, messages out.
#[derive(Debug, Default)]
pub(super) struct DxpCodec {
    /// Skipping the rest of an overlong message.
    discarding: bool,
}

impl DxpCodec {
    fn next(&mut self, src: &mut BytesMut, eof: bool) -> Option<Result<DxpMessage, ParseDxpError>> {
        loop {
            let end = src.iter().position(|&b| b == 0);
            if self.discarding {
                match end {
                    Some(i) => {
                        src.advance(i + 1);
                        self.discarding = false;
                    }
                    None => {
                        src.clear();
                        return None;
                    }
                }
                continue;
            }
            return match end {
                Some(i) if i <= MAX_MESSAGE => {
                    let m = src.split_to(i + 1);
                    Some(DxpMessage::parse(&m[..i]))
                }
                Some(_) => {
                    self.discarding = true;
                    Some(Err(ParseDxpError::TooLong))
                }
                None if src.len() > MAX_MESSAGE => {
                    self.discarding = true;
                    Some(Err(ParseDxpError::TooLong))
                }
                None if eof && !src.is_empty() => {
                    let m = src.split();
                    Some(DxpMessage::parse(&m))
                }
                None => None,
            };
        }
    }
}

impl Decoder for DxpCodec {
    type Item = Result<DxpMessage, ParseDxpError>;
    type Error = std::io::Error;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Self::Item>, std::io::Error> {
        Ok(self.next(src, false))
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Self::Item>, std::io::Error> {
        Ok(self.next(src, true))
    }
}

impl Encoder<&DxpMessage> for DxpCodec {
    type Error = std::io::Error;

    fn encode(&mut self, m: &DxpMessage, dst: &mut BytesMut) -> Result<(), std::io::Error> {
        dst.put_slice(m.to_string().as_bytes());
        dst.put_u8(0);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_and_bad_messages_are_items() {
        let mut c = DxpCodec::default();
        let mut buf = BytesMut::new();
        buf.extend_from_slice(&[b'C'; 300]);
        assert!(matches!(
            c.decode(&mut buf).unwrap(),
            Some(Err(ParseDxpError::TooLong))
        ));
        assert!(c.decode(&mut buf).unwrap().is_none());
        buf.extend_from_slice(b"CC\0Xjunk\0K1\0");
        assert!(matches!(c.decode(&mut buf).unwrap(), Some(Err(_))), "Xjunk");
        assert_eq!(
            c.decode(&mut buf).unwrap(),
            Some(Ok(DxpMessage::BackAcc { code: 1 }))
        );
        assert!(c.decode(&mut buf).unwrap().is_none());
    }
}

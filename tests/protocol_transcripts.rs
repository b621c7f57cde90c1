//! The transcripts in protocol/transcripts replayed over the in-process
//! session, a spawned `kingme` on stdio, and TCP on 127.0.0.1:0.

mod common;

use common::{replay, transcripts, InProcess, Server, StdioChild, Tcp};
use kingme::protocol::SessionConfig;

#[test]
fn transcripts_in_process() {
    for (name, text) in transcripts() {
        let mut c = InProcess::new(SessionConfig::default());
        replay(&mut c, &name, &text);
    }
}

#[test]
fn transcripts_over_stdio() {
    for (name, text) in transcripts() {
        let mut c = StdioChild::spawn(&[]);
        replay(&mut c, &name, &text);
    }
}

#[test]
fn transcripts_over_tcp() {
    let mut config = common::test_server_config();
    // Same caps as a local session, so the transcripts read the same.
    config.session = SessionConfig::default();
    let server = Server::start(config);
    for (name, text) in transcripts() {
        let mut c = Tcp::connect_greeted(server.addr);
        replay(&mut c, &name, &text);
    }
}

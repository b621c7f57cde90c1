//! The address a `kingme --listen 127.0.0.1:0` child prints on its stderr
//! (shared with `examples/protocol_load.rs`, which includes this file).

use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::process::Child;

/// Reads the piped stderr of `child` up to its `kingme listening on ADDR`
/// line and returns ADDR; the rest of stderr is read and dropped on a thread
/// of its own. Panics, the child killed and waited for, when stderr ends
/// first.
pub fn listening_address(child: &mut Child) -> SocketAddr {
    let mut err = BufReader::new(child.stderr.take().expect("piped stderr"));
    let mut line = String::new();
    loop {
        line.clear();
        if err.read_line(&mut line).unwrap_or(0) == 0 {
            let _ = child.kill();
            let _ = child.wait();
            panic!("kingme printed no address");
        }
        if let Some(a) = line.trim().strip_prefix("kingme listening on ") {
            let addr = a.parse().expect("address");
            std::thread::spawn(move || {
                let _ = err.read_to_end(&mut Vec::new());
            });
            return addr;
        }
    }
}

//! A session's engine and its options: the engine made on first need with
//! the operator's defaults and a share of the hash budget, the handshake's
//! option list, and `setoption` (caps, the budget, the file policy).

use super::*;
use crate::engine::option_table::{OptionDecl, Scope};

impl Session {
    pub(super) fn engine(&mut self) -> &mut Engine {
        if self.engine.is_none() {
            let e = self.new_engine();
            self.engine = Some(e);
        }
        self.engine.as_mut().expect("made above")
    }

    /// A new engine with the operator's defaults and the table its server's
    /// policy lets it hold (the smallest table, outside the budget, when the
    /// budget is spent: the connection limit bounds those), its table
    /// allocated by its first search.
    fn new_engine(&mut self) -> Engine {
        let mut e = Engine::new();
        for o in &self.config.defaults {
            if let Err(err) = e.set(o.clone()) {
                tracing::warn!(error = %err, "a server default option was not taken");
            }
        }
        let mut hash = self.config.default_hash_mib.unwrap_or(e.hash_mib());
        if self.policy.hold_hash(Some(hash)).is_err() {
            hash = 1;
        }
        e.set_hash_lazily(hash);
        e
    }

    /// `setoption name Hash`: within the session's cap (checked by the
    /// caller) and what its server's policy lets it hold.
    fn set_hash(&mut self, mib: usize, out: &mut Vec<Response>) {
        let _ = self.engine();
        let before = match self.policy.hold_hash(Some(mib)) {
            Ok(before) => before,
            Err(e) => {
                out.push(Response::Error(format!("setoption: {e}")));
                return;
            }
        };
        if let Err(e) = self.engine().set(EngineOption::Hash(mib)) {
            out.push(Response::Error(format!("setoption: {e}")));
            let _ = self.policy.hold_hash(before);
        }
    }

    /// The session's own cap on option `decl` (`Hash`, `Threads`), and
    /// how its error line names it; the handshake and `setoption` read it.
    fn cap(&self, decl: &OptionDecl) -> Option<(usize, &'static str)> {
        match decl.name {
            "Hash" => Some((self.config.max_hash_mib, "Hash (MiB)")),
            "Threads" => Some((self.config.max_threads, "Threads")),
            _ => None,
        }
    }

    /// The options this session offers, each with its type, range and
    /// default (a capped option within the session's cap; `Hash` at the
    /// session's own default).
    fn option_kinds(&self) -> Vec<(&'static str, OptionKind)> {
        self.config
            .registry
            .iter()
            .map(|d| {
                let mut kind = d.kind();
                if let (OptionKind::Spin { default, max, .. }, Some((cap, _))) =
                    (&mut kind, self.cap(d))
                {
                    *max = (*max).min(cap as i64);
                    if d.name == "Hash" {
                        if let Some(h) = self.config.default_hash_mib {
                            *default = h as i64;
                        }
                    }
                    *default = (*default).min(*max);
                }
                (d.name, kind)
            })
            .collect()
    }

    pub(super) fn hello(&mut self, uci: bool, out: &mut Vec<Response>) {
        let ids = [
            ("name", "kingme".to_string()),
            ("version", env!("CARGO_PKG_VERSION").to_string()),
            ("author", crate::AUTHORS.to_string()),
            ("protocol", PROTOCOL_VERSION.to_string()),
        ];
        for (key, value) in ids {
            out.push(Response::Id {
                key: key.into(),
                value,
            });
        }
        for (name, kind) in self.option_kinds() {
            out.push(Response::Option {
                name: name.to_string(),
                kind,
            });
        }
        out.push(Response::HelloOk { uci });
    }

    pub(super) fn set_option(&mut self, name: &str, value: Option<&str>, out: &mut Vec<Response>) {
        let Some(value) = value else {
            out.push(Response::Error(format!(
                "setoption: option {name} needs a value (setoption name {name} value <V>)"
            )));
            return;
        };
        // UCI's spelling of an empty string value.
        let value = if value == "<empty>" { "" } else { value };
        let registry = self.config.registry;
        let Some(decl) = options::find(registry, name) else {
            let names: Vec<&str> = registry.iter().map(|d| d.name).collect();
            out.push(Response::Error(format!(
                "setoption: unknown option '{name}' (options: {})",
                names.join(", ")
            )));
            return;
        };
        if decl.scope == Scope::Process && !self.config.process_options {
            out.push(Response::Error(format!(
                "setoption: {name} is the server's, shared by every session (the operator sets it: kingme --egdb-cache MIB)"
            )));
            return;
        }
        // the session's caps come before the option's own range
        if let Some((max, what)) = self.cap(decl) {
            if value.trim().parse::<u64>().is_ok_and(|v| v > max as u64) {
                out.push(Response::Error(format!(
                    "setoption: {what} is capped at {max} in this session"
                )));
                return;
            }
        }
        // a server file is read at its resolved path, inside the allowed directories
        let path;
        let value = if decl.names_server_file(value) {
            match self.config.files.resolve(value.trim()) {
                Ok(p) => {
                    path = p.to_string_lossy().into_owned();
                    path.as_str()
                }
                Err(e) => {
                    out.push(Response::Error(format!("setoption: {name}: {e}")));
                    return;
                }
            }
        } else {
            value
        };
        match decl.read(value) {
            Err(e) => out.push(Response::Error(format!("setoption: {e}"))),
            Ok(OptionValue::Variant(v)) => {
                if v != self.game.variant() {
                    self.new_game(v);
                }
            }
            Ok(OptionValue::Reply(b)) => self.reply = b,
            Ok(OptionValue::Engine(EngineOption::Hash(mib))) => self.set_hash(mib, out),
            Ok(OptionValue::Engine(o)) => {
                if let Err(e) = options::give(self.engine(), decl, value, o) {
                    out.push(Response::Error(format!("setoption: {e}")));
                } else if let Some(n) = self.engine().take_egdb_notice() {
                    out.push(Response::InfoString(n));
                }
            }
        }
    }
}

//! A session's engine and its options: the engine made on first need with
//! the operator's defaults and a share of the hash budget, the handshake's
//! option list, and `setoption` (caps, the budget, the file policy).

use super::*;
use crate::protocol::response::{REPLY_HELP, VARIANT_HELP};

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
    fn set_hash(&mut self, name: &str, value: &str, out: &mut Vec<Response>) {
        let mib = match options::parse_option(name, value) {
            Ok(EngineOption::Hash(mib)) => mib,
            Ok(_) => unreachable!("the Hash option parses to Hash"),
            Err(e) => {
                out.push(Response::Error(format!("setoption: {e}")));
                return;
            }
        };
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

    fn option_specs(&self) -> Vec<OptionSpec> {
        let mut specs = vec![OptionSpec {
            name: "Variant".into(),
            hub: None,
            kind: OptionKind::Combo {
                default: Variant::English.name().into(),
                values: Variant::ALL.iter().map(|v| v.name().into()).collect(),
            },
            help: VARIANT_HELP,
        }];
        for mut s in engine_option_specs() {
            if let OptionKind::Spin { default, max, .. } = &mut s.kind {
                if s.name == "Hash" {
                    *max = (*max).min(self.config.max_hash_mib as i64);
                    if let Some(d) = self.config.default_hash_mib {
                        *default = d as i64;
                    }
                    *default = (*default).min(*max);
                } else if s.name == "Threads" {
                    *max = (*max).min(self.config.max_threads as i64);
                }
            }
            specs.push(s);
        }
        specs.push(OptionSpec {
            name: "Reply".into(),
            hub: None,
            kind: OptionKind::Check { default: false },
            help: REPLY_HELP,
        });
        specs
    }

    pub(super) fn hello(&mut self, uci: bool, out: &mut Vec<Response>) {
        let ids = [
            ("name", "kingme".to_string()),
            ("version", env!("CARGO_PKG_VERSION").to_string()),
            ("author", "the kingme developers".to_string()),
            ("protocol", PROTOCOL_VERSION.to_string()),
        ];
        for (key, value) in ids {
            out.push(Response::Id {
                key: key.into(),
                value,
            });
        }
        for s in self.option_specs() {
            out.push(Response::Option {
                name: s.name,
                kind: s.kind,
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
        let lower = name.to_ascii_lowercase();
        let capped = |max: usize, what: &str| -> Option<String> {
            match value.trim().parse::<u64>() {
                Ok(v) if v > max as u64 => Some(format!(
                    "setoption: {what} is capped at {max} in this session"
                )),
                _ => None,
            }
        };
        match lower.as_str() {
            "variant" => match value.parse::<Variant>() {
                Ok(v) => {
                    if v != self.game.variant() {
                        self.new_game(v);
                    }
                }
                Err(e) => out.push(Response::Error(format!("setoption: {e}"))),
            },
            "reply" => match parse_bool(value) {
                Some(b) => self.reply = b,
                None => out.push(Response::Error(format!(
                    "setoption: bad value '{value}' for option Reply: expected true or false"
                ))),
            },
            "egdbcache" if !self.config.process_options => out.push(Response::Error(format!(
                "setoption: {name} is the server's, shared by every session (the operator sets it: kingme --egdb-cache MIB)"
            ))),
            "hash" | "threads" => {
                let (max, what) = if lower == "hash" {
                    (self.config.max_hash_mib, "Hash (MiB)")
                } else {
                    (self.config.max_threads, "Threads")
                };
                if let Some(e) = capped(max, what) {
                    out.push(Response::Error(e));
                } else if lower == "hash" {
                    self.set_hash(name, value, out);
                } else if let Err(e) = options::set_option(self.engine(), name, value) {
                    out.push(Response::Error(format!("setoption: {e}")));
                }
            }
            _ => {
                let specs = self.option_specs();
                if !specs.iter().any(|s| s.name.eq_ignore_ascii_case(name)) {
                    let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
                    out.push(Response::Error(format!(
                        "setoption: unknown option '{name}' (options: {})",
                        names.join(", ")
                    )));
                } else if options::names_server_file(name, value) {
                    match self.config.files.resolve(value.trim()) {
                        Err(e) => out.push(Response::Error(format!("setoption: {name}: {e}"))),
                        Ok(path) => {
                            let path = path.to_string_lossy();
                            if let Err(e) = options::set_option(self.engine(), name, &path) {
                                out.push(Response::Error(format!("setoption: {e}")));
                            } else if let Some(n) = self.engine().take_egdb_notice() {
                                out.push(Response::InfoString(n));
                            }
                        }
                    }
                } else if let Err(e) = options::set_option(self.engine(), name, value) {
                    out.push(Response::Error(format!("setoption: {e}")));
                } else if let Some(n) = self.engine().take_egdb_notice() {
                    out.push(Response::InfoString(n));
                }
            }
        }
    }
}

//! Options are declared once: an option added to a registry in one place is
//! offered by every front end (the kingme handshake, `help`, `setoption` and
//! its unknown-option line, Hub's `hello` and `set-param`), and PROTOCOL.md's
//! option table is the one the registry makes.

use kingme::engine::option_table::{
    self, markdown_table, OptionCodec, OptionDecl, OptionType, OptionValue, OptionValues, Scope,
    REGISTRY,
};
use kingme::engine::EngineOption;
use kingme::hub::HubSession;
use kingme::protocol::{Session, SessionConfig};

/// kingme's options and one more, declared only here: `Lines`, another name
/// for the number of lines the engine reports, from 1 to 9.
fn registry_with_lines() -> option_table::Registry {
    let lines = OptionDecl {
        name: "Lines",
        hub: Some("lines"),
        scope: Scope::Search,
        ty: OptionType::Spin { min: 1, max: 9 },
        help: "lines reported, declared by the test alone",
        read: |text, decl| {
            usize::read_value(text, decl).map(|n| OptionValue::Engine(EngineOption::MultiPv(n)))
        },
        write: |v: &OptionValues| v.engine.multipv.to_string(),
    };
    let mut all = REGISTRY.to_vec();
    all.push(lines);
    Box::leak(all.into_boxed_slice())
}

fn kingme_lines(session: &mut Session, line: &str) -> Vec<String> {
    let mut out = Vec::new();
    session.handle_line(line.as_bytes(), &mut out);
    out.iter().map(ToString::to_string).collect()
}

#[test]
fn an_option_declared_once_is_in_the_kingme_handshake_help_and_setoption() {
    let registry = registry_with_lines();
    let config = SessionConfig {
        registry,
        ..SessionConfig::default()
    };
    let (mut session, _events) = Session::new(config);

    let hello = kingme_lines(&mut session, "kingme");
    assert!(
        hello
            .iter()
            .any(|l| l == "option name Lines type spin default 1 min 1 max 9"),
        "{hello:?}"
    );

    let help = kingme_lines(&mut session, "help").join("\n");
    assert!(
        help.lines().any(|l| l.trim_start().starts_with("Lines")
            && l.ends_with("lines reported, declared by the test alone")),
        "{help}"
    );

    // the range is the declaration's, and the value reaches the engine
    let bad = kingme_lines(&mut session, "setoption name Lines value 12");
    assert_eq!(
        bad,
        ["error setoption: bad value '12' for option Lines: expected an integer from 1 to 9"]
    );
    assert!(kingme_lines(&mut session, "setoption name lines value 4").is_empty());

    let unknown = kingme_lines(&mut session, "setoption name Colour value red");
    assert_eq!(unknown.len(), 1);
    assert!(
        unknown[0].starts_with("error setoption: unknown option 'Colour' (options: Variant, ")
            && unknown[0].ends_with(", Reply, Lines)"),
        "{unknown:?}"
    );

    // kingme's own registry does not have it
    let (mut plain, _events) = Session::new(SessionConfig::default());
    let hello = kingme_lines(&mut plain, "kingme");
    assert!(!hello.iter().any(|l| l.contains("Lines")), "{hello:?}");
}

#[test]
fn an_option_declared_once_is_in_hubs_hello_and_set_param() {
    let (mut hub, _events) = HubSession::with_registry(registry_with_lines());
    let mut out = Vec::new();
    hub.handle_line("hub", &mut out);
    assert!(
        out.iter()
            .any(|l| l == "param name=lines value=1 type=int min=1 max=9"),
        "{out:?}"
    );
    out.clear();
    hub.handle_line("set-param name=lines value=3", &mut out);
    assert!(out.is_empty(), "{out:?}");
    hub.handle_line("hub", &mut out);
    // Lines and MultiPV are one value: both read 3 now
    assert!(
        out.iter()
            .any(|l| l.starts_with("param name=lines value=3 ")),
        "{out:?}"
    );
    assert!(
        out.iter()
            .any(|l| l.starts_with("param name=multipv value=3 ")),
        "{out:?}"
    );
    out.clear();
    hub.handle_line("set-param name=lines value=0", &mut out);
    assert_eq!(
        out,
        ["error message=\"bad value '0' for option Lines: expected an integer from 1 to 9\""]
    );
}

/// The text of PROTOCOL.md between `begin` and `end`.
fn protocol_md_between(begin: &str, end: &str) -> String {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/protocol/PROTOCOL.md"))
        .expect("PROTOCOL.md");
    let start = doc.find(begin).expect("PROTOCOL.md marks the table") + begin.len();
    let stop = doc[start..].find(end).expect("the table's end marker") + start;
    doc[start..stop].to_string()
}

/// PROTOCOL.md's option table is the registry's (regenerate it from the
/// message when an option changes).
#[test]
fn protocol_md_holds_the_registrys_option_table() {
    let have = protocol_md_between(
        "<!-- option table: made from kingme's option registry -->\n",
        "<!-- end of option table -->",
    );
    let want = markdown_table(REGISTRY);
    assert!(
        have == want,
        "PROTOCOL.md's option table is out of date; it should read:\n{want}"
    );
}

/// PROTOCOL.md's level table is what the levels do.
#[test]
fn protocol_md_holds_the_levels_table() {
    let have = protocol_md_between(
        "<!-- level table: made from kingme's levels -->\n",
        "<!-- end of level table -->",
    );
    let want = kingme::engine::levels_table();
    assert!(
        have == want,
        "PROTOCOL.md's level table is out of date; it should read:\n{want}"
    );
}

//! Setting an engine's option from its text, with the engine's refusals in
//! the option's own words.

use super::option_decl::OptionError;
use super::option_table::{find, parse_option, EngineOption, OptionDecl, REGISTRY};
use super::options::EngineError;
use super::Engine;

/// Gives `engine` an option it has read, reporting what it refuses in the
/// words of option `decl` and value `value`: a directory that can't be read
/// is a bad value of `EGDBPath`; one that holds no databases is taken (the
/// engine's notice says so).
pub fn give(
    engine: &mut Engine,
    decl: &OptionDecl,
    value: &str,
    option: EngineOption,
) -> Result<(), OptionError> {
    match engine.set(option) {
        Ok(()) => Ok(()),
        Err(EngineError::NoTablebase { reason, .. }) => Err(decl.bad_value(
            value,
            format!("a directory of endgame database files ({reason})"),
        )),
        Err(EngineError::NoBook { reason, .. }) => Err(decl.bad_value(
            value,
            format!("a kingme book file, or empty for the shipped book ({reason})"),
        )),
        Err(e) => Err(e.into()),
    }
}

/// Sets an engine option from its text: [`parse_option`], then [`give`].
pub fn set_option(engine: &mut Engine, name: &str, value: &str) -> Result<(), OptionError> {
    let option = parse_option(name, value)?;
    let decl = find(REGISTRY, name).expect("parse_option found it");
    give(engine, decl, value, option)
}

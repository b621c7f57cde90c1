//! The page, embedded in the binary: plain HTML, CSS and JavaScript modules
//! with no build step and nothing loaded from elsewhere. The files live in
//! `src/page/`; `app.js` is the entry module and its header lists the others.

/// HTML.
const HTML: &str = "text/html; charset=utf-8";
/// JavaScript (ES modules need a JavaScript type to load).
const JS: &str = "text/javascript; charset=utf-8";
/// CSS.
const CSS: &str = "text/css; charset=utf-8";

/// The page itself (`/`).
pub const INDEX_HTML: &str = include_str!("page/index.html");

/// `(name, body, content type)` rows for files of `src/page/`, listed by type.
macro_rules! page_files {
    ($($mime:ident: $($name:literal),+;)+) => {
        &[$($(($name, include_str!(concat!("page/", $name)), $mime)),+),+]
    };
}

/// Every served file: name (the path after `/`), body, content type.
pub const FILES: &[(&str, &str, &str)] = page_files! {
    HTML: "index.html";
    CSS: "style.css";
    JS: "app.js", "protocol.js", "game.js", "play.js", "clock.js", "pdn.js", "record.js",
        "board.js", "graph.js", "analysis.js", "review.js", "view.js", "controls.js";
};

/// The body and content type of the file served at `/{name}`.
#[must_use]
pub fn file(name: &str) -> Option<(&'static str, &'static str)> {
    FILES
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|&(_, body, mime)| (body, mime))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page reads `win 500+N` as a database win: its constant is the
    /// engine's.
    #[test]
    fn the_page_knows_the_engine_s_database_win_plies() {
        let (game, _) = file("game.js").unwrap();
        let want = format!("export const DB_PLIES = {};", kingme::search::DB_WIN_PLIES);
        assert!(game.contains(&want), "game.js must say {want}");
    }

    /// Every module of the page is served (a module missing here fails to
    /// load in the browser).
    #[test]
    fn every_page_module_is_served() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/page");
        for entry in std::fs::read_dir(dir).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            if name.ends_with(".js") || name.ends_with(".css") || name.ends_with(".html") {
                assert!(file(&name).is_some(), "{name} is not served");
            }
        }
    }
}

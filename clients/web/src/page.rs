//! The page, embedded in the binary: plain HTML, CSS and JavaScript with no
//! build step and nothing loaded from elsewhere. The files live in `src/page/`.

/// The page itself (`/`).
pub const INDEX_HTML: &str = include_str!("page/index.html");
/// The board and protocol client (`/app.js`).
pub const APP_JS: &str = include_str!("page/app.js");
/// The styles (`/style.css`).
pub const STYLE_CSS: &str = include_str!("page/style.css");

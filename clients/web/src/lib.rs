//! `kingme-web`: a browser board for kingme.
//!
//! # Layout
//!
//! - [`page`]: the one page (HTML, CSS, JS modules) embedded in the binary,
//!   served at `/` and `/{file}` (`/app.js`, `/style.css`, ...). The page speaks the kingme protocol text
//!   itself over a WebSocket at `/ws`: it is a protocol-aware GUI.
//! - [`bridge`]: one WebSocket (one browser tab) to one kingme session, either a
//!   [`kingme::protocol::Session`] driven in-process the way the engine's TCP
//!   server drives it, or a connection to a kingme TCP server
//!   (`--engine tcp:HOST:PORT`). A tab that goes away frees its session (the
//!   search is stopped and its thread joined); bad messages get `error` lines.
//! - [`engine`]: where the tabs' sessions run ([`EngineSpec`]: in this
//!   process or on a kingme server; a program is refused when read).
//! - [`access`]: who may use it: allowed hosts only (against DNS rebinding),
//!   and the per-launch [`Key`] when there is one.
//! - `config`: [`WebConfig`], the limits of lines and messages, the live
//!   counters ([`Stats`]) and what every handler shares.
//! - This file: the router ([`app`]) and [`serve`].

pub mod access;
pub mod bridge;
mod config;
pub mod engine;
pub mod page;

use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};

pub use access::{host_name, HostError, Key};
use config::Shared;
pub use config::{Stats, WebConfig, DEFAULT_IDLE_TIMEOUT, MAX_FRAME, MAX_LINE, MAX_MESSAGE};
pub use engine::EngineSpec;
pub use kingme::server::ParseEngineSpecError;

/// The server's routes, the counters they update, and the sender that tells
/// every open tab the server is shutting down (send `true`).
pub fn app(mut config: WebConfig) -> (Router, Arc<Stats>, watch::Sender<bool>) {
    config.policy.search_slots = Some(Arc::new(Semaphore::new(config.max_searches.max(1))));
    let stats = Arc::new(Stats::default());
    let (tx, rx) = watch::channel(false);
    let shared = Arc::new(Shared {
        tabs: Arc::new(Semaphore::new(config.max_sessions)),
        config,
        stats: Arc::clone(&stats),
        shutdown: rx,
    });
    let router = Router::new()
        .route(
            "/",
            get(|| async { asset(page::INDEX_HTML, "text/html; charset=utf-8") }),
        )
        .route("/{file}", get(page_file))
        .route("/favicon.ico", get(|| async { StatusCode::NO_CONTENT }))
        .route("/ws", get(ws_upgrade))
        .fallback(|| async { (StatusCode::NOT_FOUND, "not found\n") })
        .layer(axum::middleware::from_fn_with_state(
            Arc::new(access::Access {
                allowed_hosts: shared.config.allowed_hosts.clone(),
                key: shared.config.key.clone(),
            }),
            access::guard,
        ))
        .with_state(shared);
    (router, stats, tx)
}

/// Serves `listener` until `shutdown` completes; then tells every tab, stops
/// their searches and waits (up to 5 s) for their sessions to close.
pub async fn serve(
    listener: TcpListener,
    config: WebConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let (router, stats, tx) = app(config);
    let res = axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            shutdown.await;
            let _ = tx.send(true);
        })
        .await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while stats.sessions() > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    res
}

/// A file of the page (`/app.js`, `/style.css`, the other modules), or 404.
async fn page_file(Path(name): Path<String>) -> Response {
    match page::file(&name) {
        Some((body, mime)) => asset(body, mime),
        None => (StatusCode::NOT_FOUND, "not found\n").into_response(),
    }
}

/// An embedded file with its type and a strict content security policy (the
/// page loads nothing from elsewhere).
fn asset(body: &'static str, mime: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, mime),
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'self'; connect-src 'self'; img-src 'self' data:; \
                 style-src 'self'; script-src 'self'; base-uri 'none'; form-action 'none'; \
                 frame-ancestors 'none'",
            ),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::CACHE_CONTROL, "no-cache"),
            (header::REFERRER_POLICY, "no-referrer"),
        ],
        body,
    )
        .into_response()
}

/// Whether a WebSocket upgrade comes from our own page: no `Origin` (a program),
/// or one naming the host the request was sent to. Other sites' pages may not
/// drive the engine through a visitor's browser.
fn same_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let origin = origin.to_str().ok().and_then(|o| o.split_once("://"));
    matches!((origin, host), (Some((_, o)), Some(h)) if o.eq_ignore_ascii_case(h))
}

async fn ws_upgrade(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    if !same_origin(&headers) {
        return (StatusCode::FORBIDDEN, "cross-origin WebSocket refused\n").into_response();
    }
    ws.max_message_size(MAX_FRAME)
        .max_frame_size(MAX_FRAME)
        .on_upgrade(move |socket| bridge::run(socket, shared))
        .into_response()
}

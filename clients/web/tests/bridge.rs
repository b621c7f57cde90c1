//! The WebSocket bridge holds up: a tab that closes mid-search frees its session
//! (the search thread is joined), bad messages get `error` lines and the session
//! goes on, oversized messages are refused, other sites' pages are refused, and
//! the TCP mode relays to a real kingme server. A real WebSocket client
//! (tokio-tungstenite) talks to the server started in-process on 127.0.0.1:0.

use futures_util::{SinkExt, StreamExt};
use kingme_web::{app, EngineSpec, Stats, WebConfig, MAX_LINE, MAX_MESSAGE};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Tests that count search threads run one at a time.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

async fn start(config: WebConfig) -> (SocketAddr, Arc<Stats>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (router, stats, _shutdown) = app(config);
    tokio::spawn(async move { axum::serve(listener, router).await });
    (addr, stats)
}

async fn connect(addr: SocketAddr) -> Ws {
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
        .await
        .expect("WebSocket upgrade");
    ws
}

/// Reads lines until one satisfies `want`; returns every line read. Panics after 10 s.
async fn read_until(ws: &mut Ws, want: impl Fn(&str) -> bool) -> Vec<String> {
    let mut lines = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let msg = tokio::time::timeout(left, ws.next())
            .await
            .unwrap_or_else(|_| panic!("timed out; got {lines:?}"));
        match msg {
            Some(Ok(Message::Text(t))) => {
                for l in t.as_str().split('\n') {
                    lines.push(l.to_string());
                    if want(l) {
                        return lines;
                    }
                }
            }
            Some(Ok(Message::Close(f))) => panic!("closed ({f:?}); got {lines:?}"),
            Some(Ok(_)) => {}
            other => panic!("socket ended ({other:?}); got {lines:?}"),
        }
    }
}

async fn send(ws: &mut Ws, text: &str) {
    ws.send(Message::Text(text.into())).await.unwrap();
}

/// The threads of this process named like the engine's search threads.
fn search_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .map(|d| {
            d.filter_map(Result::ok)
                .filter(|e| {
                    std::fs::read_to_string(e.path().join("comm"))
                        .is_ok_and(|c| c.trim().starts_with("kingme-search"))
                })
                .count()
        })
        .unwrap_or(0)
}

async fn wait_for(what: &str, mut cond: impl FnMut() -> bool) -> Duration {
    let t = Instant::now();
    while !cond() {
        assert!(t.elapsed() < Duration::from_secs(5), "{what} within 5 s");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    t.elapsed()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tab_that_closes_mid_search_frees_its_session() {
    let _serial = SERIAL.lock().await;
    let (addr, stats) = start(WebConfig::default()).await;
    for clean in [false, true] {
        let mut ws = connect(addr).await;
        read_until(&mut ws, |l| l.starts_with("info string kingme")).await;
        send(&mut ws, "go infinite").await;
        read_until(&mut ws, |l| l.starts_with("info depth")).await;
        assert_eq!(stats.sessions(), 1);
        assert!(search_threads() >= 1, "a search is running");
        if clean {
            ws.close(None).await.unwrap();
        } else {
            drop(ws); // the tab vanishes without a close frame
        }
        let took = wait_for("the session closes", || stats.sessions() == 0).await;
        assert_eq!(search_threads(), 0, "the search thread was joined");
        eprintln!("clean close {clean}: session freed in {took:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_messages_get_errors_and_the_session_goes_on() {
    let (addr, stats) = start(WebConfig::default()).await;
    let mut ws = connect(addr).await;
    read_until(&mut ws, |l| l.starts_with("info string kingme")).await;

    ws.send(Message::Binary(vec![0, 159, 146, 150].into()))
        .await
        .unwrap();
    let l = read_until(&mut ws, |l| l.starts_with("error")).await;
    assert!(l.last().unwrap().contains("binary message"), "{l:?}");

    send(&mut ws, &"x".repeat(MAX_LINE + 1)).await;
    let l = read_until(&mut ws, |l| l.starts_with("error")).await;
    assert!(l.last().unwrap().contains("line too long"), "{l:?}");

    send(&mut ws, &"isready\n".repeat(MAX_MESSAGE / 8 + 1)).await;
    let l = read_until(&mut ws, |l| l.starts_with("error")).await;
    assert!(l.last().unwrap().contains("message too long"), "{l:?}");
    assert!(!l.iter().any(|l| l == "readyok"), "nothing of it was run");

    for garbage in [
        "jump",
        "go depth x",
        "position fen Q:W99",
        "play 1-99",
        "\u{0}\u{7}",
        "setoption name Hash value 1000000",
    ] {
        send(&mut ws, garbage).await;
        let l = read_until(&mut ws, |l| l.starts_with("error")).await;
        assert_eq!(l.len(), 1, "one error line for {garbage:?}: {l:?}");
    }
    // Several lines in one message, CRLF or LF, are each answered.
    send(&mut ws, "newgame mini\r\nmoves\nisready\n").await;
    let l = read_until(&mut ws, |l| l == "readyok").await;
    assert_eq!(l, ["moves 4-7 5-7 5-8 6-8 6-9", "readyok"]);

    // A message over the frame cap can't be read: an error line, then the
    // socket closes (a close frame 1009 when it gets through before the reset).
    // The server may reset the connection before the client has finished writing
    // the huge frame (a broken pipe here); then the error line can be lost with it.
    let sent = ws
        .send(Message::Text("x".repeat(kingme_web::MAX_FRAME + 1).into()))
        .await
        .is_ok();
    let mut saw_error = false;
    let mut ended = false;
    while let Ok(msg) = tokio::time::timeout(Duration::from_secs(5), ws.next()).await {
        match msg {
            Some(Ok(Message::Text(t))) => {
                saw_error |= t.as_str().starts_with("error message too big");
            }
            Some(Ok(Message::Close(f))) => {
                assert_eq!(f.map(|f| f.code), Some(CloseCode::Size));
                ended = true;
                break;
            }
            Some(Ok(_)) => {}
            Some(Err(_)) | None => {
                ended = true;
                break;
            }
        }
    }
    assert!(saw_error || !sent, "an error line before closing");
    assert!(ended, "the socket was closed");
    wait_for("the session closes", || stats.sessions() == 0).await;

    // The server still serves.
    let mut ws = connect(addr).await;
    send(&mut ws, "isready").await;
    read_until(&mut ws, |l| l == "readyok").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_is_served_and_other_sites_may_not_connect() {
    let (addr, _) = start(WebConfig::default()).await;
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    tcp.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut page = String::new();
    tcp.read_to_string(&mut page).await.unwrap();
    assert!(page.starts_with("HTTP/1.1 200"), "{page:.200}");
    assert!(page
        .to_ascii_lowercase()
        .contains("content-security-policy: default-src 'self'"));
    assert!(page.contains("<svg id=\"board\""));

    let mut req = format!("ws://{addr}/ws").into_client_request().unwrap();
    req.headers_mut()
        .insert("origin", "http://evil.example".parse().unwrap());
    let err = tokio_tungstenite::connect_async(req).await.unwrap_err();
    assert!(err.to_string().contains("403"), "{err}");

    let mut req = format!("ws://{addr}/ws").into_client_request().unwrap();
    req.headers_mut()
        .insert("origin", format!("http://{addr}").parse().unwrap());
    assert!(tokio_tungstenite::connect_async(req).await.is_ok());
}

/// One plain HTTP/1.1 GET; the whole response as text.
async fn http_get(addr: SocketAddr, path: &str) -> String {
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    tcp.write_all(
        format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .await
    .unwrap();
    let mut text = String::new();
    tcp.read_to_string(&mut text).await.unwrap();
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_module_is_served_with_its_type_and_every_import_is_served() {
    let (addr, _) = start(WebConfig::default()).await;
    let names: Vec<&str> = kingme_web::page::FILES.iter().map(|f| f.0).collect();
    for &(name, body, _) in kingme_web::page::FILES {
        let res = http_get(addr, &format!("/{name}")).await;
        assert!(res.starts_with("HTTP/1.1 200"), "/{name}: {res:.200}");
        let head = res.to_ascii_lowercase();
        let want = match name.rsplit('.').next() {
            Some("js") => "content-type: text/javascript",
            Some("css") => "content-type: text/css",
            _ => "content-type: text/html",
        };
        assert!(
            head.contains(want),
            "/{name} is served as {want}: {res:.300}"
        );
        assert!(head.contains("x-content-type-options: nosniff"));
        // Every module a module imports is one of the served files.
        for import in body.split("from './").skip(1) {
            let target = import.split('\'').next().unwrap();
            assert!(
                names.contains(&target),
                "{name} imports ./{target}, which is not served"
            );
        }
    }
    let index = http_get(addr, "/").await;
    assert!(index.contains(r#"<script type="module" src="/app.js">"#));
    for missing in ["/nope.js", "/package.json", "/..%2Fpage.rs"] {
        let res = http_get(addr, missing).await;
        assert!(res.starts_with("HTTP/1.1 404"), "{missing}: {res:.200}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_tcp_the_bridge_relays_and_a_closed_tab_stops_the_search() {
    let _serial = SERIAL.lock().await;
    let engine = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let engine_addr = engine.local_addr().unwrap();
    tokio::spawn(kingme::server::serve(
        engine,
        kingme::server::ServerConfig::default(),
        std::future::pending(),
    ));
    let (addr, stats) = start(WebConfig {
        engine: EngineSpec::Tcp(engine_addr.to_string()),
        ..WebConfig::default()
    })
    .await;
    let mut ws = connect(addr).await;
    read_until(&mut ws, |l| l.starts_with("info string kingme")).await;
    send(&mut ws, "moves").await;
    let l = read_until(&mut ws, |l| l.starts_with("moves")).await;
    assert_eq!(
        l.last().unwrap(),
        "moves 9-13 9-14 10-14 10-15 11-15 11-16 12-16"
    );
    ws.send(Message::Binary(vec![1, 2, 3].into()))
        .await
        .unwrap();
    let l = read_until(&mut ws, |l| l.starts_with("error")).await;
    assert!(l.last().unwrap().contains("binary message"), "{l:?}");
    send(&mut ws, "bogus").await;
    read_until(&mut ws, |l| l.starts_with("error unknown command")).await;

    send(&mut ws, "go infinite").await;
    read_until(&mut ws, |l| l.starts_with("info depth")).await;
    wait_for("a search thread runs", || search_threads() >= 1).await;
    drop(ws);
    wait_for("the tab's session closes", || stats.sessions() == 0).await;
    wait_for("the engine's search thread ends", || search_threads() == 0).await;

    // An unreachable engine is reported, not a crash.
    let closed = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let dead = closed.local_addr().unwrap();
    drop(closed);
    let (addr, _) = start(WebConfig {
        engine: EngineSpec::Tcp(dead.to_string()),
        ..WebConfig::default()
    })
    .await;
    let mut ws = connect(addr).await;
    read_until(&mut ws, |l| l.starts_with("error cannot reach the engine")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_tcp_the_bridge_authenticates_to_a_server_with_a_token() {
    let engine = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let engine_addr = engine.local_addr().unwrap();
    let mut server = kingme::server::ServerConfig::default();
    server.session.token = Some("s3cret".parse().unwrap());
    tokio::spawn(kingme::server::serve(
        engine,
        server,
        std::future::pending(),
    ));
    let bridge = |token: Option<&str>| WebConfig {
        engine: EngineSpec::Tcp(engine_addr.to_string()),
        engine_token: token.map(|t| t.parse().unwrap()),
        ..WebConfig::default()
    };

    let (addr, _) = start(bridge(Some("s3cret"))).await;
    let mut ws = connect(addr).await;
    send(&mut ws, "moves").await;
    let l = read_until(&mut ws, |l| l.starts_with("moves")).await;
    assert!(
        l[0].starts_with("info string kingme"),
        "greeting passed on: {l:?}"
    );
    assert!(
        !l[0].contains("auth"),
        "the bridge answered auth already: {l:?}"
    );
    assert!(
        !l.iter().any(|l| l.contains("s3cret") || l == "authok"),
        "{l:?}"
    );

    // A wrong token, and none at all, are reported to the tab.
    let (addr, _) = start(bridge(Some("guess"))).await;
    let mut ws = connect(addr).await;
    let l = read_until(&mut ws, |l| l.starts_with("error")).await;
    assert!(l.last().unwrap().contains("refused the token"), "{l:?}");
    let (addr, _) = start(bridge(None)).await;
    let mut ws = connect(addr).await;
    send(&mut ws, "moves").await;
    let l = read_until(&mut ws, |l| l.starts_with("error")).await;
    assert!(l.last().unwrap().contains("not authenticated"), "{l:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_tab_is_closed_but_never_mid_search() {
    let _serial = SERIAL.lock().await;
    let idle = Duration::from_millis(400);
    let (addr, stats) = start(WebConfig {
        idle_timeout: idle,
        ..WebConfig::default()
    })
    .await;

    // a search longer than the idle timeout is not cut short, and its answer
    // restarts the clock
    let mut ws = connect(addr).await;
    read_until(&mut ws, |l| l.starts_with("info string kingme")).await;
    send(&mut ws, "go movetime 1000").await;
    let t = Instant::now();
    let l = read_until(&mut ws, |l| {
        l.starts_with("bestmove") || l.starts_with("error")
    })
    .await;
    assert!(l.last().unwrap().starts_with("bestmove"), "{l:?}");
    assert!(
        t.elapsed() >= Duration::from_millis(900),
        "{:?}",
        t.elapsed()
    );

    // then, left alone, the tab hears why and is closed
    let answered = Instant::now();
    let l = read_until(&mut ws, |l| l.starts_with("error")).await;
    assert!(l.last().unwrap().contains("idle for"), "{l:?}");
    assert!(answered.elapsed() >= idle - Duration::from_millis(50));
    let end = tokio::time::timeout(Duration::from_secs(5), ws.next()).await;
    assert!(
        matches!(end, Ok(Some(Ok(Message::Close(_))) | None)),
        "closed: {end:?}"
    );
    wait_for("the idle session closes", || stats.sessions() == 0).await;
    assert_eq!(search_threads(), 0);
}

#[test]
fn engine_specs_parse() {
    assert_eq!(
        "inprocess".parse::<EngineSpec>().unwrap(),
        EngineSpec::InProcess
    );
    assert_eq!(
        "tcp:127.0.0.1:7777".parse::<EngineSpec>().unwrap(),
        EngineSpec::Tcp("127.0.0.1:7777".into())
    );
    for bad in [
        "tcp:",
        "tcp:host",
        "tcp::77",
        "tcp:host:99999",
        "udp:1.2.3.4:5",
        "",
    ] {
        assert!(bad.parse::<EngineSpec>().is_err(), "{bad}");
    }
}

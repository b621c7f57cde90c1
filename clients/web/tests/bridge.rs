//! The WebSocket bridge holds up: a tab that closes mid-search frees its session
//! (the search thread is joined), bad messages get `error` lines and the session
//! goes on, oversized messages are refused, other sites' pages are refused, and
//! the TCP mode relays to a real kingme server. Only allowed hosts are served
//! (loopback and `--allow-host`, against DNS rebinding), and with a key only
//! requests that carry it (raw HTTP requests with chosen headers). A real WebSocket client
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

/// A kingme TCP server with `config`, in this process; its address.
async fn engine_server(config: kingme::server::ServerConfig) -> SocketAddr {
    let engine = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = engine.local_addr().unwrap();
    tokio::spawn(kingme::server::serve(
        engine,
        config,
        std::future::pending(),
    ));
    addr
}

/// The board's sessions on the kingme server at `addr`, sending `token`.
fn over_tcp(addr: SocketAddr, token: Option<&str>) -> WebConfig {
    WebConfig {
        engine: EngineSpec::Tcp {
            addr: addr.to_string(),
            token: token.map(|t| t.parse().unwrap()),
        },
        ..WebConfig::default()
    }
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
    let engine_addr = engine_server(kingme::server::ServerConfig::default()).await;
    let (addr, stats) = start(over_tcp(engine_addr, None)).await;
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
    let (addr, _) = start(over_tcp(dead, None)).await;
    let mut ws = connect(addr).await;
    read_until(&mut ws, |l| l.starts_with("error cannot reach the engine")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_tcp_the_bridge_authenticates_to_a_server_with_a_token() {
    let server = kingme::server::ServerConfig {
        token: Some("s3cret".parse().unwrap()),
        ..kingme::server::ServerConfig::default()
    };
    let engine_addr = engine_server(server).await;
    let bridge = |token| over_tcp(engine_addr, token);

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
    // a search, not a book move
    send(&mut ws, "setoption name OwnBook value false").await;
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
    // (the server's clock restarted when it sent the bestmove, a moment before
    // this one: the bestmove may have been late to reach this end)
    assert!(answered.elapsed() >= idle / 2, "{:?}", answered.elapsed());
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
        EngineSpec::Tcp {
            addr: "127.0.0.1:7777".into(),
            token: None
        }
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

/// A reply read off the socket: status, head (lowercased) and body.
struct Reply {
    status: u16,
    head: String,
    body: String,
}

impl std::fmt::Debug for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{:.200}", self.head, self.body)
    }
}

/// Sends `GET path` with exactly `headers` and reads the reply (its body by
/// Content-Length; none after a 101).
async fn get_with(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> Reply {
    let mut req = format!("GET {path} HTTP/1.1\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    tcp.write_all(req.as_bytes()).await.unwrap();
    let read = async {
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        let head_end = loop {
            if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            let n = tcp.read(&mut chunk).await.unwrap();
            assert!(
                n > 0,
                "the reply ended in its head: {:?}",
                String::from_utf8_lossy(&buf)
            );
            buf.extend_from_slice(&chunk[..n]);
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
        let status = head[9..12].parse().unwrap();
        let len = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .map_or(0, |n| n.trim().parse().unwrap());
        while status != 101 && buf.len() < head_end + len {
            let n = tcp.read(&mut chunk).await.unwrap();
            assert!(n > 0, "the reply ended in its body");
            buf.extend_from_slice(&chunk[..n]);
        }
        let body = String::from_utf8_lossy(&buf[head_end..]).into_owned();
        Reply { status, head, body }
    };
    tokio::time::timeout(Duration::from_secs(10), read)
        .await
        .expect("a reply within 10 s")
}

/// `GET path` naming `host`, plus `extra` headers.
async fn page_at(addr: SocketAddr, host: &str, path: &str, extra: &[(&str, &str)]) -> Reply {
    let mut h = vec![("Host", host), ("Connection", "close")];
    h.extend_from_slice(extra);
    get_with(addr, path, &h).await
}

/// A WebSocket upgrade of `path` naming `host`, from a page of that host
/// (`Origin: http://HOST`), plus `extra` headers.
async fn upgrade_at(addr: SocketAddr, host: &str, path: &str, extra: &[(&str, &str)]) -> Reply {
    let origin = format!("http://{host}");
    let mut h = vec![
        ("Host", host),
        ("Origin", origin.as_str()),
        ("Upgrade", "websocket"),
        ("Connection", "Upgrade"),
        ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
        ("Sec-WebSocket-Version", "13"),
    ];
    h.extend_from_slice(extra);
    get_with(addr, path, &h).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foreign_host_is_refused_even_from_its_own_origin() {
    let (addr, stats) = start(WebConfig::default()).await;
    let port = addr.port();
    // A page of evil.example whose name was rebound to 127.0.0.1 sends these.
    let r = upgrade_at(addr, &format!("evil.example:{port}"), "/ws", &[]).await;
    assert_eq!(r.status, 403, "{r:?}");
    assert!(r.body.contains("not allowed"), "{r:?}");
    assert!(r.body.contains("--allow-host evil.example\n"), "{r:?}");
    for host in [
        format!("evil.example:{port}"),
        "evil.example".to_string(),
        format!("EVIL.Example:{port}"),
        format!("localhost.evil.example:{port}"),
        format!("127.0.0.1.nip.io:{port}"),
        format!("0.0.0.0:{port}"),
        format!("10.1.2.3:{port}"),
        format!("[::2]:{port}"),
    ] {
        for path in ["/", "/app.js", "/favicon.ico", "/nope"] {
            let r = page_at(addr, &host, path, &[]).await;
            assert_eq!(r.status, 403, "{host} {path}: {r:?}");
            assert!(r.body.contains("--allow-host"), "{host} {path}: {r:?}");
            assert!(r.head.contains("content-type: text/plain"), "{r:?}");
        }
        let r = upgrade_at(addr, &host, "/ws", &[]).await;
        assert_eq!(r.status, 403, "{host} /ws: {r:?}");
    }
    // No Host, two of them, or one that is no host at all.
    let r = get_with(addr, "/", &[("Connection", "close")]).await;
    assert_eq!(r.status, 400, "{r:?}");
    let two = [
        ("Host", "localhost"),
        ("Host", "evil.example"),
        ("Connection", "close"),
    ];
    assert_eq!(get_with(addr, "/", &two).await.status, 400);
    let r = page_at(addr, "evil.example:80@127.0.0.1", "/", &[]).await;
    assert_eq!(r.status, 400, "{r:?}");
    assert_eq!(stats.sessions(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loopback_hosts_are_served() {
    let (addr, _) = start(WebConfig::default()).await;
    let port = addr.port();
    for host in [
        "localhost".to_string(),
        format!("localhost:{port}"),
        format!("LocalHost:{port}"),
        format!("127.0.0.1:{port}"),
        format!("127.8.9.10:{port}"),
        format!("[::1]:{port}"),
        "[::1]".to_string(),
    ] {
        let r = page_at(addr, &host, "/", &[]).await;
        assert_eq!(r.status, 200, "{host}: {r:?}");
        assert!(r.body.contains("<svg id=\"board\""), "{host}");
        assert!(!r.head.contains("set-cookie"), "no key, no cookie: {r:?}");
        assert_eq!(page_at(addr, &host, "/app.js", &[]).await.status, 200);
        let r = upgrade_at(addr, &host, "/ws", &[]).await;
        assert_eq!(r.status, 101, "{host}: {r:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_allowed_host_is_served_and_its_origin_still_checked() {
    let (addr, _) = start(WebConfig {
        allowed_hosts: vec![kingme_web::host_name("Board.LAN").unwrap()],
        ..WebConfig::default()
    })
    .await;
    let port = addr.port();
    for host in [format!("board.lan:{port}"), "BOARD.lan".to_string()] {
        let r = page_at(addr, &host, "/", &[]).await;
        assert_eq!(r.status, 200, "{host}: {r:?}");
        let r = upgrade_at(addr, &host, "/ws", &[]).await;
        assert_eq!(r.status, 101, "{host}: {r:?}");
    }
    for host in [
        format!("other.lan:{port}"),
        format!("board.lan.evil.example:{port}"),
    ] {
        assert_eq!(page_at(addr, &host, "/", &[]).await.status, 403, "{host}");
        assert_eq!(
            upgrade_at(addr, &host, "/ws", &[]).await.status,
            403,
            "{host}"
        );
    }
    // Loopback is still served.
    assert_eq!(page_at(addr, "localhost", "/", &[]).await.status, 200);
    // Another site's page may not connect through the allowed name.
    let host = format!("board.lan:{port}");
    let r = get_with(
        addr,
        "/ws",
        &[
            ("Host", &host),
            ("Origin", "http://evil.example"),
            ("Upgrade", "websocket"),
            ("Connection", "Upgrade"),
            ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
            ("Sec-WebSocket-Version", "13"),
        ],
    )
    .await;
    assert_eq!(r.status, 403, "{r:?}");
    assert!(r.body.contains("cross-origin"), "{r:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_key_only_requests_that_carry_it_are_served() {
    let key = kingme_web::Key::generate().unwrap();
    let wrong = kingme_web::Key::generate().unwrap();
    let (secret, name) = (key.as_str(), key.cookie_name());
    let (addr, stats) = start(WebConfig {
        key: Some(key.clone()),
        ..WebConfig::default()
    })
    .await;
    let host = format!("127.0.0.1:{}", addr.port());

    // The page: refused without the key or with a wrong one, no cookie set.
    for path in [
        "/",
        "/app.js",
        &format!("/?key={}", wrong.as_str()),
        "/?key=",
    ] {
        let r = page_at(addr, &host, path, &[]).await;
        assert_eq!(r.status, 403, "{path}: {r:?}");
        assert!(r.body.contains("needs its key"), "{path}: {r:?}");
        assert!(!r.head.contains("set-cookie"), "{path}: {r:?}");
    }
    // With it, served, and the cookie set.
    for path in [
        format!("/?key={secret}"),
        format!("/?variant=mini&key={secret}&level=easy"),
    ] {
        let r = page_at(addr, &host, &path, &[]).await;
        assert_eq!(r.status, 200, "{path}: {r:?}");
        assert!(r.body.contains("<svg id=\"board\""));
        let cookie = r
            .head
            .lines()
            .find_map(|l| l.strip_prefix("set-cookie: "))
            .unwrap_or_else(|| panic!("a cookie is set: {r:?}"));
        let parts: Vec<&str> = cookie.split(';').map(str::trim).collect();
        assert_eq!(parts[0], format!("{name}={secret}"));
        for attr in ["httponly", "samesite=strict", "path=/"] {
            assert!(parts.contains(&attr), "{attr} in {cookie}");
        }
    }
    // The page's modules come with the cookie.
    let good = format!("{name}={secret}");
    let r = page_at(addr, &host, "/app.js", &[("Cookie", &good)]).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert!(!r.head.contains("set-cookie"), "{r:?}");

    // The WebSocket: refused without the key, with a wrong one, or with the
    // right value under another cookie's name...
    let wrong_cookie = format!("{name}={}", wrong.as_str());
    let other_name = format!("kingme-web-key-0={secret}");
    let wrong_query = format!("/ws?key={}", wrong.as_str());
    for (path, cookie) in [
        ("/ws", None),
        ("/ws", Some(wrong_cookie.as_str())),
        ("/ws", Some(other_name.as_str())),
        (wrong_query.as_str(), None),
        ("/ws?key=", None),
    ] {
        let extra: Vec<(&str, &str)> = cookie.map(|c| ("Cookie", c)).into_iter().collect();
        let r = upgrade_at(addr, &host, path, &extra).await;
        assert_eq!(r.status, 403, "{path} {cookie:?}: {r:?}");
    }
    // ...served with the cookie (among others) or the key in its query.
    let among = format!("theme=dark; {good}; x=y");
    let query = format!("/ws?key={secret}");
    for (path, cookie) in [
        ("/ws", Some(good.as_str())),
        ("/ws", Some(among.as_str())),
        (query.as_str(), None),
        (wrong_query.as_str(), Some(good.as_str())),
    ] {
        let extra: Vec<(&str, &str)> = cookie.map(|c| ("Cookie", c)).into_iter().collect();
        let r = upgrade_at(addr, &host, path, &extra).await;
        assert_eq!(r.status, 101, "{path} {cookie:?}: {r:?}");
    }
    // The key does not make a foreign host acceptable.
    let evil = format!("evil.example:{}", addr.port());
    let r = upgrade_at(addr, &evil, &query, &[("Cookie", &good)]).await;
    assert_eq!(r.status, 403, "{r:?}");
    assert!(r.body.contains("not allowed"), "{r:?}");

    // A real client with the cookie gets a working session (the sessions of
    // the upgrades above close on their own, a moment later).
    let mut req = format!("ws://{addr}/ws").into_client_request().unwrap();
    req.headers_mut().insert("cookie", good.parse().unwrap());
    let (mut ws, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    send(&mut ws, "isready").await;
    let l = read_until(&mut ws, |l| l == "readyok").await;
    assert!(l[0].starts_with("info string kingme"), "{l:?}");
    wait_for("only the real tab's session is left", || {
        stats.sessions() == 1
    })
    .await;
    let err = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("403"), "{err}");
}

/// The kingme-web binary, killed when dropped.
struct Server(std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Runs the kingme-web binary with `args`; returns it and the first `lines` lines it prints.
fn run_binary(args: &[&str], lines: usize) -> (Server, Vec<String>) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kingme-web"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let server = Server(child);
    let printed = (0..lines)
        .map(|_| {
            let mut line = String::new();
            out.read_line(&mut line).unwrap();
            line
        })
        .collect();
    (server, printed)
}

/// The URL in a line kingme-web printed: its address and its `?key=` (if any).
fn printed_url(line: &str) -> (String, SocketAddr, Option<String>) {
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("a URL in {line:?}"));
    let rest = url.strip_prefix("http://").unwrap();
    let (hostport, tail) = rest.split_once('/').unwrap();
    let key = tail.strip_prefix("?key=").map(str::to_string);
    let port: u16 = hostport.rsplit_once(':').unwrap().1.parse().unwrap();
    (
        hostport.to_string(),
        SocketAddr::from(([127, 0, 0, 1], port)),
        key,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_asks_for_a_key_beyond_loopback_or_when_told() {
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_kingme-web"))
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("--allow-host <NAME>"), "{help}");
    assert!(help.contains("--require-key"), "{help}");

    // On loopback: the URL as before, and no key needed.
    let (_server, out) = run_binary(&["--listen", "127.0.0.1:0"], 1);
    let (shown, addr, key) = printed_url(&out[0]);
    assert_eq!(key, None, "{out:?}");
    assert_eq!(upgrade_at(addr, &shown, "/ws", &[]).await.status, 101);

    // --require-key: a fresh key in the URL, and needed.
    let (_server, out) = run_binary(&["--listen", "127.0.0.1:0", "--require-key"], 1);
    let (shown, addr, key) = printed_url(&out[0]);
    let key = key.unwrap_or_else(|| panic!("a key in {out:?}"));
    assert_eq!(key.len(), 32, "{key}");
    assert!(key.bytes().all(|b| b.is_ascii_hexdigit()), "{key}");
    assert_eq!(upgrade_at(addr, &shown, "/ws", &[]).await.status, 403);
    let r = page_at(addr, &shown, &format!("/?key={key}"), &[]).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert!(r.head.contains("set-cookie: kingme-web-key-"), "{r:?}");
    let r = upgrade_at(addr, &shown, &format!("/ws?key={key}"), &[]).await;
    assert_eq!(r.status, 101, "{r:?}");
    drop(_server);

    // Beyond loopback (every interface): a key is needed without asking; the
    // URL names loopback, and --allow-host names are printed too.
    let (_server, out) = run_binary(&["--listen", "0.0.0.0:0", "--allow-host", "Box.Example"], 2);
    let (shown, addr, key) = printed_url(&out[0]);
    assert!(shown.starts_with("127.0.0.1:"), "{out:?}");
    let key = key.unwrap_or_else(|| panic!("a key in {out:?}"));
    let (named, _, named_key) = printed_url(&out[1]);
    assert_eq!(named, format!("box.example:{}", addr.port()), "{out:?}");
    assert_eq!(named_key.as_deref(), Some(key.as_str()));
    assert_eq!(upgrade_at(addr, &shown, "/ws", &[]).await.status, 403);
    let with_key = format!("/ws?key={key}");
    assert_eq!(upgrade_at(addr, &shown, &with_key, &[]).await.status, 101);
    assert_eq!(upgrade_at(addr, &named, &with_key, &[]).await.status, 101);
    let evil = format!("evil.example:{}", addr.port());
    assert_eq!(upgrade_at(addr, &evil, &with_key, &[]).await.status, 403);
}

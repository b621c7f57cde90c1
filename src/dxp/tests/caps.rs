//! The DXP server under the TCP server's caps: games from one address, the hash budget, the search slots.

use super::*;

#[test]
fn a_second_game_from_one_address_over_its_cap_is_refused() {
    let addr = server_with(DxpConfig {
        limits: ServerLimits {
            max_connections: 4,
            max_per_address: 1,
            ..ServerLimits::default()
        },
        ..Default::default()
    });
    let mut a = Client::connect(addr);
    a.send(&REQ_BLACK.replacen('Z', "W", 1));
    assert_eq!(a.recv(), format!("A{:<32}0", "kingme"));
    let mut b = Client::connect(addr);
    b.send(REQ_BLACK);
    assert_eq!(
        b.recv(),
        format!("A{:<32}3", "kingme"),
        "one game per address"
    );
    drop(a);
    // the address's place frees once its game has closed
    accepted_soon(addr);
}

#[test]
fn each_games_table_is_reserved_from_the_hash_budget() {
    let server = ServerLimits {
        hash_budget_mib: 20,
        ..ServerLimits::default()
    }
    .policy(None, None);
    let options = [EngineOption::Level(Level::Easy), EngineOption::Hash(16)];
    let mut a = server.session();
    assert_eq!(super::server::new_engine(&options, &mut a).hash_mib(), 16);
    let mut b = server.session();
    assert_eq!(
        super::server::new_engine(&options, &mut b).hash_mib(),
        1,
        "over the budget: the smallest table"
    );
    drop(a);
    let mut c = server.session();
    assert_eq!(
        super::server::new_engine(&options, &mut c).hash_mib(),
        16,
        "a closed game's share is free again"
    );
}

#[test]
fn with_one_search_slot_a_second_games_search_waits_for_the_first() {
    let server = ServerLimits {
        max_searches: 1,
        ..ServerLimits::default()
    }
    .policy(None, None);
    let (mut a, mut a_answers) = playing_connection(Box::new(server.session()));
    let (mut b, mut b_answers) = playing_connection(Box::new(server.session()));
    a.next_turn();
    b.next_turn();
    assert_eq!(a.search.phase(), Phase::Searching);
    assert_eq!(b.search.phase(), Phase::Queued, "no slot is free for b");
    let slots = b.queued_on().expect("b waits on the server's slots");
    assert!(Arc::clone(&slots).try_acquire_owned().is_err());
    let (id, mv) = recv_timeout(&mut a_answers, Duration::from_secs(20)).unwrap();
    a.handle(Input::Search { id, mv });
    assert!(a.out.iter().any(|m| matches!(m, DxpMessage::Move(_))));
    let permit = slots
        .try_acquire_owned()
        .expect("a's answered search freed its slot");
    let mut out = Vec::new();
    b.slot_granted(permit, &mut out);
    assert_eq!(b.search.phase(), Phase::Searching);
    let (id, mv) = recv_timeout(&mut b_answers, Duration::from_secs(20)).unwrap();
    b.handle(Input::Search { id, mv });
    assert!(b.out.iter().any(|m| matches!(m, DxpMessage::Move(_))));
}

#[test]
fn two_games_share_one_search_slot_over_tcp() {
    let addr = server_with(DxpConfig {
        limits: ServerLimits {
            max_connections: 2,
            max_searches: 1,
            ..ServerLimits::default()
        },
        ..Default::default()
    });
    let mut a = Client::connect(addr);
    let mut b = Client::connect(addr);
    a.send(REQ_BLACK);
    b.send(REQ_BLACK);
    for c in [&mut a, &mut b] {
        assert_eq!(c.recv(), format!("A{:<32}0", "kingme"));
        assert!(c.recv().starts_with('M'), "each game gets our first move");
    }
}

//! Hub's parameters: MultiPV, the registry's names in `hello`, the book set by a parameter.

use super::*;

#[test]
fn multipv_param_gives_several_lines_best_first() {
    let mut h = Harness::new();
    assert!(h
        .send("hub")
        .contains(&"param name=multipv value=1 type=int min=1 max=64".to_string()));
    assert!(h.send("set-param name=multipv value=3").is_empty());
    assert!(h.send("set-param name=multipv value=0")[0].starts_with("error message="));
    let out = h.think(&["pos", "level depth=4"]);
    let start = Position::startpos(Variant::English);
    let infos: Vec<_> = out
        .iter()
        .filter(|l| l.starts_with("info "))
        .map(|l| {
            tokens_ok(l);
            parse_line(l).unwrap()
        })
        .collect();
    // four iterations of three lines, then the summary
    assert_eq!(infos.len(), 4 * 3 + 1, "{out:?}");
    for (n, set) in infos[..12].chunks(3).enumerate() {
        let mut firsts = Vec::new();
        let mut last_score = f64::INFINITY;
        for (k, l) in set.iter().enumerate() {
            assert_eq!(l.value("depth"), Some((n + 1).to_string().as_str()));
            assert_eq!(l.value("multipv"), Some((k + 1).to_string().as_str()));
            let first = l
                .value("pv")
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .to_string();
            let m = parse_move(&start, &first).unwrap();
            assert!(!firsts.contains(&m), "{set:?}");
            firsts.push(m);
            let score: f64 = l.value("score").unwrap().parse().unwrap();
            assert!(score <= last_score, "{set:?}");
            last_score = score;
        }
    }
    let best = infos[9].value("pv").unwrap().split(' ').next().unwrap();
    assert!(
        out.last()
            .unwrap()
            .starts_with(&format!("done move={best}")),
        "{out:?}"
    );
    // go analyze with multipv: several lines until stop
    h.send_all(&["level infinite", "go analyze"]);
    h.until_line(|l| l.contains(" multipv=3 "));
    let out = h.finish_with("stop");
    assert!(out.last().unwrap().starts_with("done move="), "{out:?}");
}

/// Hub's `hello` offers exactly the table's Hub options (and the variant),
/// each settable under that name: an option added to the table with a Hub
/// name shows up here without another edit.
#[test]
fn hello_lists_the_option_tables_hub_names() {
    let mut h = Harness::new();
    let out = h.send("hub");
    let params: Vec<String> = out
        .iter()
        .filter(|l| l.starts_with("param "))
        .map(|l| parse_line(l).unwrap().value("name").unwrap().to_string())
        .collect();
    let mut expected = vec!["variant".to_string()];
    expected.extend(
        crate::engine::option_table::engine_options().filter_map(|s| s.hub.map(str::to_string)),
    );
    assert_eq!(params, expected);
    for l in out.iter().filter(|l| l.starts_with("param ")) {
        let p = parse_line(l).unwrap();
        let line = format!(
            "set-param name={} value={}",
            p.value("name").unwrap(),
            wire::quote(p.value("value").unwrap())
        );
        assert!(h.send(&line).is_empty(), "{line}");
    }
    let e = h.send("set-param name=colour value=red");
    assert!(e[0].contains("unknown parameter 'colour'"), "{e:?}");
}

#[test]
fn plays_from_the_book_set_by_param_and_searches_without_it() {
    use crate::book::{self, BuildOptions};
    let dir = std::env::temp_dir().join(format!("kingme-hub-book-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("hub.kmb");
    let opts = BuildOptions {
        roots: book::roots(),
        depth: 2,
        dropout: 20,
        seed: 1,
        threads: 1,
        positions: Some(160),
        time: None,
        save_every: Duration::from_secs(3600),
        hash_mib: 1,
        eval: crate::eval::Evaluator::default(),
        egdb: None,
    };
    book::build(
        &path,
        &opts,
        &std::sync::atomic::AtomicBool::new(false),
        &mut |_| {},
    )
    .unwrap();
    let best = book::Book::open(&path)
        .unwrap()
        .probe(&Position::startpos(Variant::English))
        .unwrap()[0]
        .mv;
    let mut h = Harness::new();
    let hello = h.send("hub");
    assert!(hello
        .iter()
        .any(|l| l.starts_with("param name=book value=true type=bool")));
    assert!(h.send("set-param name=book value=true").is_empty());
    assert!(h
        .send(&format!(
            "set-param name=book-file value=\"{}\"",
            path.display()
        ))
        .is_empty());
    h.send_all(&[
        "pos pos=Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww",
        "level move-time=5",
    ]);
    let t = std::time::Instant::now();
    assert!(h.send("go think").is_empty());
    let out = h.until_done();
    assert!(
        t.elapsed() < Duration::from_secs(3),
        "a book move takes no search time"
    );
    assert_eq!(
        out.last().unwrap(),
        &format!("done move={}", wire::format_move(best)),
        "{out:?}"
    );
    assert!(
        out[0].starts_with("info depth=") && out[0].contains("nodes=0"),
        "{out:?}"
    );
    for l in &out {
        tokens_ok(l);
    }
    // OwnBook off: a search
    assert!(h.send("set-param name=book value=false").is_empty());
    let out = h.think(&["level move-time=0.05"]);
    assert!(
        out.iter()
            .any(|l| l.contains("nodes=") && !l.contains("nodes=0 ")),
        "{out:?}"
    );
    // a bad file is an error and the session goes on
    let bad = h.send("set-param name=book-file value=/nonexistent/book.kmb");
    assert!(bad.iter().any(|l| l.starts_with("error")), "{bad:?}");
}

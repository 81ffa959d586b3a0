//! Move handling without the network: the session layer, the table actor
//! and the store (in memory, so the group commit runs but nothing is
//! synced), driven through in-process clients.
//!
//! `table/one` plays games on one table, one move at a time (latency);
//! `table/concurrent` plays on 100 tables at once (throughput).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use oxo_server::{AppState, Config, LocalClient, RateLimit};

/// Sends `text` and reads until its `ok`.
async fn request(c: &mut LocalClient, text: &str) -> String {
    assert!(c.send(text).await, "the server closed the connection");
    let mut last_table = String::new();
    loop {
        let m = c.recv().await.expect("connection open");
        if m.starts_with(r#"{"type":"ok""#) {
            return last_table;
        }
        assert!(!m.starts_with(r#"{"type":"error""#), "{text} -> {m}");
        if m.starts_with(r#"{"type":"table""#) {
            last_table = m;
        }
    }
}

fn table_id(state: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(state).expect("JSON");
    v["table"]["id"].as_str().expect("table id").to_owned()
}

async fn pair(state: &AppState) -> (LocalClient, LocalClient, String) {
    let mut x = state.connect_local();
    let mut o = state.connect_local();
    request_hello(&mut x).await;
    request_hello(&mut o).await;
    let created = request(
        &mut x,
        r#"{"type":"create_table","id":1,"options":{"seat":"X","public":false}}"#,
    )
    .await;
    let table = table_id(&created);
    request(
        &mut o,
        &format!(r#"{{"type":"join_table","id":1,"table_id":"{table}"}}"#),
    )
    .await;
    while x.try_recv().is_some() {}
    (x, o, table)
}

async fn request_hello(c: &mut LocalClient) {
    assert!(c.send(r#"{"type":"hello","version":1}"#).await);
    let welcome = c.recv().await.expect("welcome");
    assert!(welcome.starts_with(r#"{"type":"welcome""#), "{welcome}");
}

/// One round (X wins in 5 moves), then a rematch by both.
async fn round(x: &mut LocalClient, o: &mut LocalClient, table: &str) {
    for (ply, cell) in ["a1", "b1", "a2", "b2", "a3"].into_iter().enumerate() {
        let by_x = ply % 2 == 0;
        let (mover, other) = if by_x {
            (&mut *x, &mut *o)
        } else {
            (&mut *o, &mut *x)
        };
        let state = request(
            mover,
            &format!(r#"{{"type":"move","id":1,"table_id":"{table}","cell":"{cell}"}}"#),
        )
        .await;
        black_box(state);
        while other.try_recv().is_some() {}
    }
    request(x, &format!(r#"{{"type":"rematch","table_id":"{table}"}}"#)).await;
    request(o, &format!(r#"{{"type":"rematch","table_id":"{table}"}}"#)).await;
    while x.try_recv().is_some() {}
}

fn config() -> Config {
    Config {
        rate_limit: RateLimit::UNLIMITED,
        ..Config::in_memory()
    }
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let state = rt.block_on(async { AppState::new(config()).expect("state") });
    let mut group = c.benchmark_group("table");
    group.throughput(Throughput::Elements(5));
    let (mut x, mut o, table) = rt.block_on(pair(&state));
    group.bench_function("one", |b| {
        b.iter(|| rt.block_on(round(&mut x, &mut o, &table)));
    });

    const TABLES: usize = 100;
    let pairs: Vec<_> = rt.block_on(async {
        let mut pairs = Vec::with_capacity(TABLES);
        for _ in 0..TABLES {
            pairs.push(pair(&state).await);
        }
        pairs
    });
    let mut pairs: Vec<Option<_>> = pairs.into_iter().map(Some).collect();
    group.throughput(Throughput::Elements(5 * TABLES as u64));
    group.bench_function("concurrent", |b| {
        b.iter(|| {
            rt.block_on(async {
                let tasks: Vec<_> = pairs
                    .iter_mut()
                    .map(|p| {
                        let (mut x, mut o, table) = p.take().expect("a pair");
                        tokio::spawn(async move {
                            round(&mut x, &mut o, &table).await;
                            (x, o, table)
                        })
                    })
                    .collect();
                for (slot, task) in pairs.iter_mut().zip(tasks) {
                    *slot = Some(task.await.expect("a round"));
                }
            });
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

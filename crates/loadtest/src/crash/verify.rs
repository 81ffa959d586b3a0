//! The checks after the last kill: every game seen, fetched through the
//! server's HTTP API, must be numbered, legal and played in turn, and every
//! acknowledged move must be in it at its ply.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use oxo_core::Game;
use oxo_protocol::{GameId, GameRecord, TableId};

use super::report::CrashReport;
use crate::http;
use crate::ledger::Ledger;

/// Fetches every game seen and checks it, and every acknowledged move.
pub(super) async fn verify(ledger: &Ledger, addr: SocketAddr, report: &mut CrashReport) {
    let (games, acked) = {
        let inner = ledger.lock();
        (inner.games.clone(), inner.acked.clone())
    };
    report.acknowledged_moves = acked.len() as u64;
    let mut records: HashMap<GameId, GameRecord> = HashMap::new();
    let mut problems: Vec<String> = Vec::new();
    for (game_id, (table_id, round, token)) in &games {
        let path = format!("/api/games/{game_id}");
        let record = match http::get(addr, &path, Some(token), Duration::from_secs(10)).await {
            Ok(r) if r.status == 200 => match serde_json::from_slice::<GameRecord>(&r.body) {
                Ok(rec) => rec,
                Err(e) => {
                    problems.push(format!("GET {path}: unreadable record: {e}"));
                    continue;
                }
            },
            Ok(r) => {
                problems.push(format!("GET {path}: HTTP {}", r.status));
                continue;
            }
            Err(e) => {
                problems.push(format!("GET {path}: {e}"));
                continue;
            }
        };
        report.games_checked += 1;
        report.moves_checked += record.moves.len() as u64;
        if let Err(why) = check_record(&record, table_id, *round) {
            report.bad_games += 1;
            problems.push(format!("game {game_id}: {why}"));
        }
        records.insert(game_id.clone(), record);
    }
    for a in &acked {
        let Some(game_id) = &a.game_id else {
            report.lost_moves += 1;
            problems.push(format!(
                "table {} round {} ply {}: acknowledged, but the state never named its game",
                a.table_id, a.round, a.ply
            ));
            continue;
        };
        let found = records
            .get(game_id)
            .and_then(|r| r.moves.get(a.ply as usize - 1))
            .map(|m| (m.ply, m.cell));
        if found != Some((a.ply, a.cell)) {
            report.lost_moves += 1;
            problems.push(format!(
                "game {game_id} (table {} round {}): acknowledged move {} at ply {} is missing (found {found:?})",
                a.table_id, a.round, a.cell, a.ply
            ));
        }
    }
    // Keep the report readable: the first few problems and a count.
    let total = problems.len();
    report.problems.extend(problems.into_iter().take(20));
    if total > 20 {
        report.problems.push(format!("… and {} more", total - 20));
    }
}

/// Checks one record: its table and round, moves numbered 1..n, legal in
/// order, each by the player whose turn it was.
fn check_record(record: &GameRecord, table_id: &TableId, round: u32) -> Result<(), String> {
    if record.table_id.as_ref() != Some(table_id) || record.round != round {
        return Err(format!(
            "recorded at table {} round {}, seen at table {table_id} round {round}",
            record
                .table_id
                .as_ref()
                .map_or("(not shown)", TableId::as_str),
            record.round
        ));
    }
    let mut game = Game::with_first(record.first);
    for (i, m) in record.moves.iter().enumerate() {
        if m.ply as usize != i + 1 {
            return Err(format!("move {} is numbered {}", i + 1, m.ply));
        }
        if m.player != game.player_of_ply(i) {
            return Err(format!(
                "ply {} was played by {} out of turn",
                m.ply, m.player
            ));
        }
        game.play(m.cell)
            .map_err(|e| format!("ply {} ({}) is illegal: {e}", m.ply, m.cell))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use oxo_core::{ByPlayer, Player, Square};
    use oxo_protocol::{RecordPlayer, RecordedMove};

    use super::*;

    fn record(first: Player, cells: &[(u32, Player, Square)]) -> GameRecord {
        let p = |id: &str| RecordPlayer {
            id: id.into(),
            name: id.into(),
            bot: None,
        };
        GameRecord {
            id: "g".into(),
            table_id: Some("t".into()),
            round: 1,
            players: ByPlayer {
                x: p("a"),
                o: p("b"),
            },
            first,
            moves: cells
                .iter()
                .map(|&(ply, player, cell)| RecordedMove {
                    ply,
                    player,
                    cell,
                    at_ms: 0,
                })
                .collect(),
            outcome: None,
            started_at_ms: 0,
            ended_at_ms: None,
        }
    }

    #[test]
    fn records_are_checked() {
        use Player::{O, X};
        use Square::{A1, B2};
        assert!(check_record(&record(X, &[(1, X, B2), (2, O, A1)]), &"t".into(), 1).is_ok());
        assert!(check_record(&record(O, &[(1, O, B2)]), &"t".into(), 1).is_ok());
        assert!(check_record(&record(X, &[(1, X, B2)]), &"u".into(), 1).is_err());
        assert!(check_record(&record(X, &[(2, X, B2)]), &"t".into(), 1).is_err());
        assert!(check_record(&record(X, &[(1, O, B2)]), &"t".into(), 1).is_err());
        assert!(check_record(&record(X, &[(1, X, B2), (2, O, B2)]), &"t".into(), 1).is_err());
    }

    /// The checks catch a missing move and a missing game, against a tiny
    /// HTTP server that knows one game with two moves.
    #[tokio::test]
    async fn verify_finds_lost_moves() {
        use Player::{O, X};
        use Square::{A1, B2, C3};
        use tokio::io::{AsyncReadExt, AsyncWriteExt};

        let mut rec = record(X, &[(1, X, B2), (2, O, A1)]);
        rec.id = "g1".into();
        let body = serde_json::to_string(&rec).expect("serializes");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move {
            while let Ok((mut tcp, _)) = listener.accept().await {
                let mut buf = [0u8; 1024];
                let n = tcp.read(&mut buf).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]).into_owned();
                let (status, body) = if head.starts_with("GET /api/games/g1 ") {
                    ("200 OK", body.clone())
                } else {
                    ("404 Not Found", r#"{"error":"no such game"}"#.to_owned())
                };
                let reply = format!(
                    "HTTP/1.1 {status}\r\ncontent-length: {}\r\n\r\n{body}",
                    body.len()
                );
                let _ = tcp.write_all(reply.as_bytes()).await;
            }
        });
        let ledger = Ledger::default();
        ledger.seen(&"t".into(), &Some("g1".into()), 1, "token");
        ledger.ack(&"t".into(), Some("g1".into()), 1, 1, B2);
        ledger.ack(&"t".into(), Some("g1".into()), 1, 2, A1);
        ledger.ack(&"t".into(), Some("g1".into()), 1, 3, C3);
        ledger.seen(&"t".into(), &Some("g2".into()), 2, "token");
        ledger.ack(&"t".into(), Some("g2".into()), 2, 1, B2);
        let mut report = CrashReport::default();
        verify(&ledger, addr, &mut report).await;
        assert_eq!(report.acknowledged_moves, 4);
        assert_eq!(report.lost_moves, 2, "{report}");
        assert_eq!(report.games_checked, 1);
        assert_eq!(report.moves_checked, 2);
        assert_eq!(report.bad_games, 0);
        assert!(!report.passed());
        assert!(
            report.problems.iter().any(|p| p.contains("HTTP 404")),
            "{report}"
        );
    }
}

//! The reads of the HTTP API, token look-ups and the loading of claimed
//! tables, in PostgreSQL's SQL.
//!
//! As in SQLite's reads: stored text that does not parse is
//! [`ServerError::Corrupt`], and who may see what is decided by the shared
//! rules in `rows`. A claimed table that does not read back is skipped
//! (and logged), never fatal.

use std::collections::HashMap;
use std::sync::Arc;

use oxo_core::ByPlayer;
use oxo_protocol::{ChatLine, GameRecord, GameSummary, PlayerId, RecordedMove, Scores};
use tokio_postgres::{GenericClient, IsolationLevel, Row};

use super::error::db;
use super::lease::Held;
use crate::error::ServerError;
use crate::ids::TokenHash;
use crate::store::replay::saved_game;
use crate::store::rows::{
    GamePlayer, GameRow, GameStart, GamesQuery, MoveRow, PLAYER_SCAN, PlayerRow, SavedGame,
    SavedTable, TableRow,
};
use crate::store::text::{self, from_json, token_hash_of};

/// A `BIGINT` column that holds a `u32`.
fn small(r: &Row, at: usize, what: &str) -> Result<u32, ServerError> {
    let n: i64 = r.try_get(at).map_err(db)?;
    u32::try_from(n).map_err(|_| ServerError::Corrupt(format!("{what} {n}")))
}

/// The player holding `token_hash`, if any.
pub(super) async fn player_by_token(
    client: &impl GenericClient,
    token_hash: TokenHash,
) -> Result<Option<PlayerRow>, ServerError> {
    let row = client
        .query_opt(
            "SELECT id, name FROM players WHERE token_hash = $1",
            &[&&token_hash[..]],
        )
        .await
        .map_err(db)?;
    Ok(row.map(|r| PlayerRow {
        id: r.get(0),
        token_hash,
        name: r.get(1),
    }))
}

/// The open tables where `player` holds a seat in play, oldest first.
pub(super) async fn seats_in_play(
    client: &impl GenericClient,
    player: &str,
) -> Result<Vec<String>, ServerError> {
    let rows = client
        .query(
            "SELECT id FROM tables
             WHERE status IN ('waiting', 'in_progress') AND (x_player = $1 OR o_player = $1)
             ORDER BY seq",
            &[&player],
        )
        .await
        .map_err(db)?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

/// The columns of `games` that [`game_row`] reads, in its order.
const GAME_COLUMNS: &str = "seq, id, table_id, round, first, x_id, x_name, x_bot, o_id, o_name,
                            o_bot, started_ms, ended_ms, outcome, public";

/// A `games` row whose columns are [`GAME_COLUMNS`].
fn game_row(r: &Row) -> Result<GameRow, ServerError> {
    let player = |at: usize| -> Result<GamePlayer, ServerError> {
        let bot: Option<String> = r.try_get(at + 2).map_err(db)?;
        Ok(GamePlayer {
            id: Arc::from(r.try_get::<_, String>(at).map_err(db)?),
            name: Arc::from(r.try_get::<_, String>(at + 1).map_err(db)?),
            bot: bot.map(|b| text::parse("bot level", &b)).transpose()?,
        })
    };
    let outcome: Option<String> = r.try_get(13).map_err(db)?;
    Ok(GameRow {
        start: GameStart {
            seq: r.try_get(0).map_err(db)?,
            id: Arc::from(r.try_get::<_, String>(1).map_err(db)?),
            table_id: Arc::from(r.try_get::<_, String>(2).map_err(db)?),
            round: small(r, 3, "round")?,
            first: text::parse("player", &r.try_get::<_, String>(4).map_err(db)?)?,
            players: ByPlayer {
                x: player(5)?,
                o: player(8)?,
            },
            at_ms: r.try_get(11).map_err(db)?,
            public: r.try_get(14).map_err(db)?,
        },
        ended_ms: r.try_get(12).map_err(db)?,
        outcome: outcome.map(|o| from_json("outcome", &o)).transpose()?,
    })
}

/// `GET /api/games/{id}`: the record of game `id` as `asker` may see it.
pub(super) async fn game_record(
    client: &impl GenericClient,
    id: &str,
    asker: Option<&str>,
) -> Result<Option<GameRecord>, ServerError> {
    let sql = format!("SELECT {GAME_COLUMNS} FROM games WHERE id = $1");
    let Some(row) = client.query_opt(&sql, &[&id]).await.map_err(db)? else {
        return Ok(None);
    };
    let game = game_row(&row)?;
    let rows = client
        .query(
            "SELECT ply, player, cell, at_ms FROM moves WHERE game = $1 ORDER BY ply",
            &[&game.start.seq],
        )
        .await
        .map_err(db)?;
    let moves = rows
        .iter()
        .map(|r| {
            Ok(RecordedMove {
                ply: small(r, 0, "ply")?,
                player: text::parse("player", &r.try_get::<_, String>(1).map_err(db)?)?,
                cell: text::parse("cell", &r.try_get::<_, String>(2).map_err(db)?)?,
                at_ms: r.try_get(3).map_err(db)?,
            })
        })
        .collect::<Result<Vec<_>, ServerError>>()?;
    Ok(Some(game.record(moves, asker)))
}

/// `GET /api/games?player=&limit=`: finished games, newest first, that
/// `query` lists, looking at the newest [`PLAYER_SCAN`] at most: of the
/// public games and the asker's own (through the indexes `games_public`,
/// migration 8, `games_x` and `games_o`, migration 6), or with a player, of
/// that player's.
pub(super) async fn recent_games(
    client: &impl GenericClient,
    query: &GamesQuery,
) -> Result<Vec<GameSummary>, ServerError> {
    let rows = listed_rows(client, query).await?;
    let mut out = Vec::new();
    for r in &rows {
        if out.len() >= query.limit as usize {
            break;
        }
        let (x_id, o_id): (&str, &str) = (r.get(1), r.get(3));
        if !query.lists(x_id, o_id, r.get(8)) {
            continue;
        }
        let id: String = r.get(0);
        let outcome: Option<String> = r.get(5);
        let outcome =
            outcome.ok_or_else(|| ServerError::Corrupt(format!("game {id} has no outcome")))?;
        out.push(GameSummary {
            players: ByPlayer {
                x: r.get(2),
                o: r.get(4),
            },
            outcome: from_json("outcome", &outcome)?,
            moves: small(r, 6, "moves")?,
            ended_at_ms: r.get(7),
            id: id.into(),
        });
    }
    Ok(out)
}

/// The rows of the games `query` lists, newest first and at most
/// `query.limit` of them: what [`recent_games`] fetches from the database,
/// one page, never the whole scan to be paged here.
pub(super) async fn listed_rows(
    client: &impl GenericClient,
    query: &GamesQuery,
) -> Result<Vec<Row>, ServerError> {
    const COLUMNS: &str = "id, x_id, x_name, o_id, o_name, outcome, moves, ended_ms, public, seq";
    let scan = i64::from(PLAYER_SCAN);
    let rows = match &query.player {
        // The newest finished games of public tables, walked down
        // `games_public`, and the asker's own at private tables, walked down
        // `games_x` and `games_o` (the rule of `GamesQuery::lists` for no
        // player): the private games of others are never walked. Without
        // an asker the last two find nothing.
        None => client
            .query(
                &format!(
                    "SELECT {COLUMNS} FROM (
                         (SELECT {COLUMNS} FROM games
                          WHERE ended_ms IS NOT NULL AND public
                          ORDER BY ended_ms DESC, seq DESC LIMIT $1)
                         UNION ALL
                         (SELECT {COLUMNS} FROM games
                          WHERE x_id = $2 AND ended_ms IS NOT NULL AND NOT public
                          ORDER BY ended_ms DESC, seq DESC LIMIT $1)
                         UNION ALL
                         (SELECT {COLUMNS} FROM games
                          WHERE o_id = $2 AND x_id <> $2 AND ended_ms IS NOT NULL AND NOT public
                          ORDER BY ended_ms DESC, seq DESC LIMIT $1)
                     ) AS listed
                     ORDER BY ended_ms DESC, seq DESC LIMIT $3"
                ),
                &[&scan, &query.asker, &i64::from(query.limit)],
            )
            .await
            .map_err(db)?,
        // The player's games as X and as O, each walked down its index
        // and merged; a game against oneself only once. Only the games
        // the asker may see come back (the rule of `GamesQuery::lists`,
        // which is applied again below), at most `limit` of them.
        Some(player) => {
            let private_too = query.asker.as_ref() == Some(player);
            client
                .query(
                    &format!(
                        "SELECT {COLUMNS} FROM (
                             (SELECT {COLUMNS} FROM games
                              WHERE x_id = $1 AND ended_ms IS NOT NULL
                              ORDER BY ended_ms DESC, seq DESC LIMIT $2)
                             UNION ALL
                             (SELECT {COLUMNS} FROM games
                              WHERE o_id = $1 AND x_id <> $1 AND ended_ms IS NOT NULL
                              ORDER BY ended_ms DESC, seq DESC LIMIT $2)
                             ORDER BY ended_ms DESC, seq DESC LIMIT $2
                         ) AS newest
                         WHERE public OR $3
                         ORDER BY ended_ms DESC, seq DESC LIMIT $4"
                    ),
                    &[player, &scan, &private_too, &i64::from(query.limit)],
                )
                .await
                .map_err(db)?
        }
    };
    Ok(rows)
}

/// The tables `held` (claimed by this node), with their seated players and
/// current games replayed. A table that does not read back is skipped with
/// a warning naming it and why; it stays in the database as it was.
///
/// The five reads (tables, players, games, moves, chat) share one snapshot (a
/// read-only `REPEATABLE READ` transaction): read one by one, a commit
/// landing between them (a round starting just before the claim, say)
/// would show a table whose game is not there yet.
///
/// # Errors
///
/// Only if a query as a whole fails.
pub(super) async fn load_tables(
    client: &mut tokio_postgres::Client,
    held: &[Held],
) -> Result<Vec<SavedTable>, ServerError> {
    if held.is_empty() {
        return Ok(Vec::new());
    }
    let tx = client
        .build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .await
        .map_err(db)?;
    let out = load_in(&tx, held).await?;
    tx.commit().await.map_err(db)?;
    Ok(out)
}

/// [`load_tables`]' reads, on `client` (the snapshot's transaction).
async fn load_in(
    client: &impl GenericClient,
    held: &[Held],
) -> Result<Vec<SavedTable>, ServerError> {
    let seqs: Vec<i64> = held.iter().map(|h| h.0).collect();
    let epochs: HashMap<i64, i64> = held.iter().copied().collect();
    let tables = client
        .query(
            "SELECT seq, id, options, status, x_player, o_player, bot_seat, round, score_x,
                    score_o, draws, game, created_ms, x_away_until_ms, o_away_until_ms,
                    x_rematch, o_rematch
             FROM tables WHERE seq = ANY($1) AND status <> 'closed' ORDER BY seq",
            &[&seqs],
        )
        .await
        .map_err(db)?;
    let players: HashMap<String, (Vec<u8>, String)> = client
        .query(
            "SELECT p.id, p.token_hash, p.name FROM players p
             WHERE p.id IN (SELECT x_player FROM tables WHERE seq = ANY($1)
                            UNION SELECT o_player FROM tables WHERE seq = ANY($1))",
            &[&seqs],
        )
        .await
        .map_err(db)?
        .iter()
        .map(|r| (r.get(0), (r.get(1), r.get(2))))
        .collect();
    let games: HashMap<i64, Row> = client
        .query(
            "SELECT seq, id, first, outcome, started_ms FROM games
             WHERE seq IN (SELECT game FROM tables WHERE seq = ANY($1))",
            &[&seqs],
        )
        .await
        .map_err(db)?
        .into_iter()
        .map(|r| (r.get(0), r))
        .collect();
    let mut moves: HashMap<i64, Vec<Row>> = HashMap::new();
    for r in client
        .query(
            "SELECT game, player, cell, req_id, at_ms FROM moves
             WHERE game IN (SELECT game FROM tables WHERE seq = ANY($1))
             ORDER BY game, ply",
            &[&seqs],
        )
        .await
        .map_err(db)?
    {
        moves.entry(r.get(0)).or_default().push(r);
    }
    let mut chat = chat_of(client, &seqs).await?;
    let mut earlier = super::earlier::of_tables(client, &seqs).await?;
    let mut out = Vec::with_capacity(tables.len());
    for row in &tables {
        let seq: i64 = row.get(0);
        let epoch = epochs.get(&seq).copied().unwrap_or(0);
        match table(row, epoch, &players, &games, &moves) {
            Ok(t) => out.push(SavedTable {
                chat: chat.remove(&seq).unwrap_or_default(),
                earlier: earlier.remove(&seq).unwrap_or_default(),
                ..t
            }),
            Err(error) => {
                let id: String = row.get(1);
                tracing::warn!(table = %id, %error, "skipping a table that does not read back");
            }
        }
    }
    Ok(out)
}

/// The chat messages of the tables with keys `seqs`, by table key, each
/// with its number, oldest first. The history is a convenience: a message
/// that does not read is left out (and logged), and costs its table
/// nothing else.
async fn chat_of(
    client: &impl GenericClient,
    seqs: &[i64],
) -> Result<HashMap<i64, Vec<(i64, ChatLine)>>, ServerError> {
    let mut chat: HashMap<i64, Vec<(i64, ChatLine)>> = HashMap::new();
    for r in client
        .query(
            "SELECT table_seq, n, from_id, from_name, text, watching FROM chat
             WHERE table_seq = ANY($1) ORDER BY table_seq, n",
            &[&seqs],
        )
        .await
        .map_err(db)?
    {
        let table: i64 = r.get(0);
        let line = (|| {
            Ok::<_, tokio_postgres::Error>((
                r.try_get::<_, i64>(1)?,
                ChatLine {
                    from_id: PlayerId::from(r.try_get::<_, String>(2)?),
                    from_name: r.try_get(3)?,
                    text: r.try_get(4)?,
                    watching: r.try_get(5)?,
                },
            ))
        })();
        match line {
            Ok(line) => chat.entry(table).or_default().push(line),
            Err(e) => tracing::warn!(table, error = %e, "a chat message did not read back"),
        }
    }
    Ok(chat)
}

/// One claimed table, checked and replayed.
fn table(
    r: &Row,
    epoch: i64,
    players: &HashMap<String, (Vec<u8>, String)>,
    games: &HashMap<i64, Row>,
    moves: &HashMap<i64, Vec<Row>>,
) -> Result<SavedTable, ServerError> {
    let seq: i64 = r.get(0);
    let player = |at: usize| -> Result<Option<PlayerRow>, ServerError> {
        let id: Option<String> = r.try_get(at).map_err(db)?;
        // A seat whose player row is gone counts as empty.
        let Some((id, (hash, name))) = id.and_then(|id| players.get(&id).map(|p| (id, p))) else {
            return Ok(None);
        };
        Ok(Some(PlayerRow {
            token_hash: token_hash_of(hash)?,
            name: name.clone(),
            id,
        }))
    };
    let seated = ByPlayer {
        x: player(4)?,
        o: player(5)?,
    };
    let game_key: Option<i64> = r.try_get(11).map_err(db)?;
    let game = match game_key.and_then(|k| games.get(&k).map(|g| (k, g))) {
        None => None,
        Some((key, head)) => Some(replay(
            key,
            head,
            moves.get(&key).map_or(&[], Vec::as_slice),
        )?),
    };
    let bot_seat: Option<String> = r.try_get(6).map_err(db)?;
    Ok(SavedTable {
        row: TableRow {
            seq,
            id: Arc::from(r.try_get::<_, String>(1).map_err(db)?),
            options: from_json("options", &r.try_get::<_, String>(2).map_err(db)?)?,
            status: text::parse("table status", &r.try_get::<_, String>(3).map_err(db)?)?,
            seats: ByPlayer {
                x: seated.x.as_ref().map(|p| Arc::from(p.id.as_str())),
                o: seated.o.as_ref().map(|p| Arc::from(p.id.as_str())),
            },
            bot_seat: bot_seat
                .as_deref()
                .map(|p| text::parse("player", p))
                .transpose()?,
            round: small(r, 7, "round")?,
            scores: Scores {
                x: small(r, 8, "score")?,
                o: small(r, 9, "score")?,
                draws: small(r, 10, "draws")?,
            },
            game: game.as_ref().map(|g| g.seq),
            created_ms: r.try_get(12).map_err(db)?,
            away_until_ms: ByPlayer {
                x: r.try_get(13).map_err(db)?,
                o: r.try_get(14).map_err(db)?,
            },
            rematch: ByPlayer {
                x: r.try_get(15).map_err(db)?,
                o: r.try_get(16).map_err(db)?,
            },
        },
        players: seated,
        game,
        chat: Vec::new(),
        earlier: Vec::new(),
        epoch,
    })
}

/// A game's current state: its rows checked, then replayed.
fn replay(seq: i64, head: &Row, moves: &[Row]) -> Result<SavedGame, ServerError> {
    let id: String = head.try_get(1).map_err(db)?;
    let in_game = |e: ServerError| match e {
        ServerError::Corrupt(what) => ServerError::Corrupt(format!("game {id}: {what}")),
        other => other,
    };
    let moves = moves
        .iter()
        .map(|m| {
            let req: Option<i64> = m.try_get(3).map_err(db)?;
            Ok(MoveRow {
                player: text::parse("player", &m.try_get::<_, String>(1).map_err(db)?)?,
                cell: text::parse("cell", &m.try_get::<_, String>(2).map_err(db)?)?,
                // Request ids are opaque 64-bit values, stored bit for bit.
                req_id: req.map(|r| r as u64),
                at_ms: m.try_get(4).map_err(db)?,
            })
        })
        .collect::<Result<Vec<_>, ServerError>>()
        .map_err(in_game)?;
    let outcome: Option<String> = head.try_get(3).map_err(db)?;
    let outcome = outcome
        .as_deref()
        .map(|o| from_json("outcome", o))
        .transpose()
        .map_err(in_game)?;
    let first = text::parse("player", &head.try_get::<_, String>(2).map_err(db)?)?;
    let started_ms: i64 = head.try_get(4).map_err(db)?;
    saved_game(
        seq,
        Arc::from(id.as_str()),
        first,
        started_ms,
        &moves,
        outcome,
    )
}

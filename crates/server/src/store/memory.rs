//! An in-memory [`Store`]: plain maps behind one lock, for tests.
//!
//! It keeps the promises of the trait and the constraints of the SQLite
//! schema (unique player ids and token hashes, unique table and game ids
//! and keys, one move per ply), so the same tests hold both to the same
//! contract (see `conformance`). Nothing is durable: it is for tests of
//! everything above the store, and for checking what a store must do.
//!
//! A commit applies its writes to a copy of the data and swaps the copy in
//! only if every write applied: atomic by construction, and a cost in
//! proportion to the data, which suits tests and nothing bigger.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use futures_util::future::BoxFuture;
use oxo_core::ByPlayer;
use oxo_protocol::{ChatLine, GameId, GameRecord, GameSummary, RecordedMove, TableStatus};

use super::contract::{Store, StoreFuture};
use super::replay::saved_game;
use super::rows::{
    CHAT_KEPT, EARLIER_ROUNDS, EarlierMove, GameRow, GamesQuery, MoveRow, PLAYER_SCAN, PlayerRow,
    SavedTable, TableRow, Write,
};
use crate::error::ServerError;
use crate::ids::TokenHash;

/// The in-memory store.
#[derive(Debug)]
pub(crate) struct Memory {
    data: Mutex<Data>,
    next_table: AtomicI64,
    next_game: AtomicI64,
    closed: AtomicBool,
}

#[derive(Clone, Debug, Default)]
struct Data {
    /// Players by id: token hash and name.
    players: HashMap<Arc<str>, (TokenHash, Arc<str>)>,
    by_token: HashMap<TokenHash, Arc<str>>,
    tables: BTreeMap<i64, TableRow>,
    games: BTreeMap<i64, StoredGame>,
    /// Moves by game key and ply.
    moves: BTreeMap<(i64, u32), RecordedMove>,
    /// Request ids of moves that had one, by game key and ply.
    req_ids: HashMap<(i64, u32), u64>,
    /// Chat messages by table key and number.
    chat: BTreeMap<(i64, i64), ChatLine>,
}

/// A game as kept here: its row, and its number of moves once it ended.
#[derive(Clone, Debug)]
struct StoredGame {
    row: GameRow,
    moves: u32,
}

fn refused(what: String) -> ServerError {
    ServerError::Database(what)
}

impl Data {
    fn apply(&mut self, write: Write) -> Result<(), ServerError> {
        match write {
            Write::Player {
                id,
                token_hash,
                name,
            } => {
                if self.players.contains_key(&id) || self.by_token.contains_key(&token_hash) {
                    return Err(refused(format!("player {id} exists")));
                }
                self.by_token.insert(token_hash, Arc::clone(&id));
                self.players.insert(id, (token_hash, name));
            }
            Write::PlayerName { id, name } => {
                if let Some(player) = self.players.get_mut(&id) {
                    player.1 = Arc::clone(&name);
                }
                let playing = self.games.values_mut().filter(|g| g.row.ended_ms.is_none());
                for game in playing {
                    for seat in [&mut game.row.start.players.x, &mut game.row.start.players.o] {
                        if seat.id == id {
                            seat.name = Arc::clone(&name);
                        }
                    }
                }
            }
            Write::Table(row) => match self.tables.get_mut(&row.seq) {
                // As an update: the id, options and creation stay.
                Some(old) => {
                    *old = TableRow {
                        id: Arc::clone(&old.id),
                        options: old.options,
                        created_ms: old.created_ms,
                        ..*row
                    };
                }
                None => {
                    if self.tables.values().any(|t| t.id == row.id) {
                        return Err(refused(format!("table {} exists", row.id)));
                    }
                    self.tables.insert(row.seq, *row);
                }
            },
            Write::GameStart(start) => {
                let taken = self.games.contains_key(&start.seq)
                    || self.games.values().any(|g| g.row.start.id == start.id);
                if taken {
                    return Err(refused(format!("game {} exists", start.id)));
                }
                let row = GameRow {
                    start: *start,
                    ended_ms: None,
                    outcome: None,
                };
                self.games
                    .insert(row.start.seq, StoredGame { row, moves: 0 });
            }
            Write::Move(m) => {
                let key = (m.game, m.ply);
                if self.moves.contains_key(&key) {
                    return Err(refused(format!("game {} has a move {}", m.game, m.ply)));
                }
                let recorded = RecordedMove {
                    ply: m.ply,
                    player: m.player,
                    cell: m.cell,
                    at_ms: m.at_ms,
                };
                self.moves.insert(key, recorded);
                if let Some(req) = m.req_id {
                    self.req_ids.insert(key, req);
                }
            }
            Write::GameEnd(end) => {
                if let Some(game) = self.games.get_mut(&end.game) {
                    game.row.ended_ms = Some(end.at_ms);
                    game.row.outcome = Some(end.outcome);
                    game.moves = end.moves;
                }
            }
            Write::Chat(c) => {
                // As the SQL stores: a message takes the place of one of
                // the same number.
                self.chat.insert((c.table, c.n), c.line);
                self.chat
                    .retain(|&(table, n), _| table != c.table || n > c.n - CHAT_KEPT);
            }
            Write::ChatCleared { table } => self.chat.retain(|&(t, _), _| t != table),
            Write::HealthProbe { .. } | Write::Fence { .. } => {}
        }
        Ok(())
    }

    fn moves_of(&self, game: i64) -> impl Iterator<Item = (&(i64, u32), &RecordedMove)> {
        self.moves.range((game, 0)..=(game, u32::MAX))
    }

    fn player(&self, id: &str) -> Option<PlayerRow> {
        self.players.get(id).map(|(token_hash, name)| PlayerRow {
            id: id.to_owned(),
            token_hash: *token_hash,
            name: name.to_string(),
        })
    }

    fn saved_table(&self, row: &TableRow) -> Result<SavedTable, ServerError> {
        // A seat whose player is gone counts as empty, as in SQLite.
        let seated = ByPlayer {
            x: row.seats.x.as_deref().and_then(|id| self.player(id)),
            o: row.seats.o.as_deref().and_then(|id| self.player(id)),
        };
        let game = match row.game.and_then(|key| self.games.get(&key)) {
            None => None,
            Some(StoredGame { row: game, .. }) => {
                let seq = game.start.seq;
                let moves: Vec<MoveRow> = self
                    .moves_of(seq)
                    .map(|(key, m)| MoveRow {
                        player: m.player,
                        cell: m.cell,
                        req_id: self.req_ids.get(key).copied(),
                        at_ms: m.at_ms,
                    })
                    .collect();
                let id = Arc::clone(&game.start.id);
                Some(saved_game(
                    seq,
                    id,
                    game.start.first,
                    game.start.at_ms,
                    &moves,
                    game.outcome,
                )?)
            }
        };
        Ok(SavedTable {
            row: TableRow {
                seats: ByPlayer {
                    x: seated.x.as_ref().map(|p| Arc::from(p.id.as_str())),
                    o: seated.o.as_ref().map(|p| Arc::from(p.id.as_str())),
                },
                game: game.as_ref().map(|g| g.seq),
                ..row.clone()
            },
            players: seated,
            game,
            chat: self
                .chat
                .range((row.seq, i64::MIN)..=(row.seq, i64::MAX))
                .map(|(&(_, n), line)| (n, line.clone()))
                .collect(),
            earlier: self.earlier_moves(row),
            epoch: 0,
        })
    }

    /// The moves with a request id of `row`'s rounds before its current
    /// one (the last [`EARLIER_ROUNDS`]), oldest first, as SQL reads them.
    fn earlier_moves(&self, row: &TableRow) -> Vec<EarlierMove> {
        let mut games: Vec<&GameRow> = self
            .games
            .values()
            .map(|g| &g.row)
            .filter(|g| {
                *g.start.table_id == *row.id
                    && g.start.round < row.round
                    && g.start.round + EARLIER_ROUNDS >= row.round
            })
            .collect();
        games.sort_by_key(|g| g.start.round);
        games
            .into_iter()
            .flat_map(|g| {
                self.moves_of(g.start.seq).filter_map(|(key, m)| {
                    self.req_ids.get(key).map(|&req_id| EarlierMove {
                        game_id: Arc::clone(&g.start.id),
                        ply: m.ply,
                        player: m.player,
                        cell: m.cell,
                        req_id,
                    })
                })
            })
            .collect()
    }
}

impl Memory {
    /// An empty store; the first keys are 1.
    pub(crate) fn new() -> Memory {
        Memory {
            data: Mutex::default(),
            next_table: AtomicI64::new(1),
            next_game: AtomicI64::new(1),
            closed: AtomicBool::new(false),
        }
    }

    /// The data, unless the store is closed.
    fn data(&self) -> Result<MutexGuard<'_, Data>, ServerError> {
        if self.closed.load(Ordering::Acquire) {
            return Err(ServerError::StoreClosed);
        }
        Ok(self.data.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn commit_now(&self, writes: Vec<Write>) -> Result<(), ServerError> {
        let mut data = self.data()?;
        let mut next = data.clone();
        for write in writes {
            next.apply(write)?;
        }
        *data = next;
        Ok(())
    }

    fn game_record_now(
        &self,
        id: &str,
        asker: Option<&str>,
    ) -> Result<Option<GameRecord>, ServerError> {
        let data = self.data()?;
        let Some(StoredGame { row: game, .. }) =
            data.games.values().find(|g| &*g.row.start.id == id)
        else {
            return Ok(None);
        };
        let moves = data.moves_of(game.start.seq).map(|(_, m)| *m).collect();
        Ok(Some(game.record(moves, asker)))
    }

    fn recent_games_now(&self, query: &GamesQuery) -> Result<Vec<GameSummary>, ServerError> {
        let data = self.data()?;
        let mut ended: Vec<(&StoredGame, i64)> = data
            .games
            .values()
            .filter_map(|g| g.row.ended_ms.map(|at| (g, at)))
            .filter(|(g, _)| {
                // With a player, only that player's games are looked at
                // (as SQLite walks its indexes by player).
                let players = &g.row.start.players;
                query
                    .player
                    .as_deref()
                    .is_none_or(|p| *players.x.id == *p || *players.o.id == *p)
            })
            .collect();
        // Newest first; among games that ended in the same millisecond, the
        // later key first (as SQLite walks its index backwards).
        ended.sort_by_key(|&(g, at)| std::cmp::Reverse((at, g.row.start.seq)));
        Ok(ended
            .into_iter()
            .take(PLAYER_SCAN as usize)
            .filter(|(g, _)| {
                let start = &g.row.start;
                query.lists(&start.players.x.id, &start.players.o.id, start.public)
            })
            .take(query.limit as usize)
            .filter_map(|(g, ended_at_ms)| {
                let start = &g.row.start;
                Some(GameSummary {
                    id: GameId::from(Arc::clone(&start.id)),
                    players: ByPlayer {
                        x: start.players.x.name.to_string(),
                        o: start.players.o.name.to_string(),
                    },
                    outcome: g.row.outcome?,
                    moves: g.moves,
                    ended_at_ms,
                })
            })
            .collect())
    }
}

impl Store for Memory {
    fn next_table_seq(&self) -> i64 {
        self.next_table.fetch_add(1, Ordering::Relaxed)
    }

    fn next_game_seq(&self) -> i64 {
        self.next_game.fetch_add(1, Ordering::Relaxed)
    }

    fn commit(&self, writes: Vec<Write>) -> StoreFuture<'_, ()> {
        Box::pin(std::future::ready(self.commit_now(writes)))
    }

    fn player_by_token(&self, token_hash: TokenHash) -> StoreFuture<'_, Option<PlayerRow>> {
        let found = self.data().map(|data| {
            let id = data.by_token.get(&token_hash)?;
            data.player(id)
        });
        Box::pin(std::future::ready(found))
    }

    fn game_record<'a>(
        &'a self,
        id: &'a str,
        asker: Option<&'a str>,
    ) -> StoreFuture<'a, Option<GameRecord>> {
        Box::pin(std::future::ready(self.game_record_now(id, asker)))
    }

    fn recent_games(&self, query: GamesQuery) -> StoreFuture<'_, Vec<GameSummary>> {
        Box::pin(std::future::ready(self.recent_games_now(&query)))
    }

    fn health(&self, _limit: Duration) -> BoxFuture<'_, Result<(), String>> {
        let health = self.data().map(drop).map_err(|e| e.to_string());
        Box::pin(std::future::ready(health))
    }

    fn unfinished_tables(&self) -> Result<Vec<SavedTable>, ServerError> {
        let data = self.data()?;
        let mut saved = Vec::new();
        for row in data.tables.values() {
            if row.status == TableStatus::Closed {
                continue;
            }
            match data.saved_table(row) {
                Ok(table) => saved.push(table),
                Err(error) => tracing::warn!(
                    table = %row.id,
                    %error,
                    "skipped an unfinished table that could not be read back; the others resume"
                ),
            }
        }
        Ok(saved)
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        self.closed.store(true, Ordering::Release);
        Box::pin(std::future::ready(()))
    }
}

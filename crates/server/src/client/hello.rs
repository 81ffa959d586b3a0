//! `hello`: who a client is. A new player (an account, a token and a row in
//! the store), or a returning one proving themselves with their token; and
//! names, which `hello` and `set_name` both change.
//!
//! A returning player's seats in play are attached again at once: each of
//! those tables sends its state after the `welcome`.

use std::sync::Arc;
use std::time::Instant;

use oxo_protocol::{ClientMsg, ErrorCode, PROTOCOL_VERSION, PlayerId, Request, ServerMsg, TableId};

use super::validate;
use super::{Client, Flow, Who};
use crate::accounts::{Account, Budget};
use crate::close;
use crate::conn::Conn;
use crate::error::ClientError;
use crate::handle::TableCmd;
use crate::ids::{hash_token, is_token_shaped, new_id, new_token};
use crate::log_pace::Pace;
use crate::store::Write;

/// Messages before `hello` that are tolerated before the connection closes.
const HELLO_STRIKES: u32 = 3;

/// How long a rename waits for its tables to show the new name before
/// its `ok` (they take microseconds; a table stuck behind a slow write
/// does not hold the reply longer).
const SHOWN_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// How often a returning player's table that is changing owner is looked
/// for again (see [`Client::find_moving`]).
const MOVING_RETRY: std::time::Duration = std::time::Duration::from_millis(100);

impl Client {
    /// A request before `hello`: `hello` itself, or a strike.
    pub(super) async fn before_hello(&mut self, req: Request) -> Flow {
        match req.msg {
            ClientMsg::Hello {
                version,
                token,
                name,
            } => {
                if let Err(e) = self.hello(req.id, version, token, name).await {
                    self.refuse(req.id, e);
                }
                Flow::Continue
            }
            _ => {
                self.refuse(
                    req.id,
                    ClientError::new(
                        ErrorCode::HelloRequired,
                        "Send hello first: {\"type\":\"hello\",\"version\":1}",
                    ),
                );
                self.strike()
            }
        }
    }

    /// A message before `hello` that is not one (refused already, as
    /// unreadable or as `hello_required`): the third closes the connection.
    pub(super) fn strike(&mut self) -> Flow {
        let Who::Stranger { strikes, .. } = &mut self.who else {
            return Flow::Continue;
        };
        *strikes += 1;
        if *strikes >= HELLO_STRIKES {
            self.outbox
                .close(close::POLICY, "hello required as the first message");
            return Flow::Close;
        }
        Flow::Continue
    }

    async fn hello(
        &mut self,
        id: Option<u64>,
        version: i64,
        token: Option<String>,
        name: Option<String>,
    ) -> Result<(), ClientError> {
        if version != i64::from(PROTOCOL_VERSION) {
            return Err(ClientError::new(
                ErrorCode::UnsupportedVersion,
                format!(
                    "Protocol version {version} is not supported; this server speaks {PROTOCOL_VERSION}"
                ),
            ));
        }
        let name = name.map(|n| validate::name(&n)).transpose()?;
        let (account, token) = match token {
            Some(token) => {
                let account = self.resume(&token).await?;
                if let Some(name) = name {
                    // The tables hear of it when this connection attaches.
                    match self.rename(&account, name, false, Instant::now()).await {
                        // Past the player's renames budget, the player comes
                        // back under the name they have (the welcome says
                        // which).
                        Err(e) if e.code == ErrorCode::RateLimited => {}
                        renamed => renamed?,
                    }
                }
                (account, token)
            }
            None => self.new_player(name).await?,
        };
        let conn = Conn {
            outbox: Arc::clone(&self.outbox),
            account: Arc::clone(&account),
        };
        self.who = Who::Player(Arc::clone(&account));
        // The games to resume: tables in play. Finished rounds are not
        // listed or re-attached; a client that wants one back joins it.
        let tables = self.seats_in_play(&account).await;
        self.outbox.send_msg(&ServerMsg::Welcome {
            id,
            version: PROTOCOL_VERSION,
            token,
            player_id: PlayerId::from(Arc::clone(&account.id)),
            name: account.name().to_string(),
            tables: tables
                .iter()
                .map(|t| TableId::from(Arc::clone(t)))
                .collect(),
        });
        // Back in every seat in play: each table sends its state.
        let until = tokio::time::Instant::now() + self.shared.config.lease_ttl * 2;
        for table_id in tables {
            if let Some(handle) = self.find_moving(&table_id, until).await {
                if self.make_room(&table_id).await {
                    self.attached.insert(Arc::clone(&table_id), handle.clone());
                    let _ = handle.send(TableCmd::Attach(Box::new(conn.clone()))).await;
                }
            }
        }
        Ok(())
    }

    /// The table `table_id` for a returning player's seat: in a cluster it
    /// may be changing owner (a failover, a clean stop's hand-over, which
    /// take about a lease), so it is looked for again until `until`, that
    /// its state follows the `welcome` as soon as it runs again (a client
    /// may also `sync` it; see docs/cluster.md). `None` if it is not found.
    async fn find_moving(
        &self,
        table_id: &str,
        until: tokio::time::Instant,
    ) -> Option<crate::handle::TableHandle> {
        loop {
            match self.find(table_id).await {
                Ok(handle) => return Some(handle),
                Err(e)
                    if e.code == ErrorCode::TableMoving
                        && tokio::time::Instant::now() < until
                        && !self.shared.shutdown.is_cancelled() =>
                {
                    tokio::time::sleep(MOVING_RETRY).await;
                }
                Err(_) => return None,
            }
        }
    }

    /// The tables where `account` holds a seat in play: those here, and in
    /// a cluster with a bus, on every node (from the database).
    async fn seats_in_play(&self, account: &Account) -> Vec<Arc<str>> {
        let mut tables = account.tables_in_play();
        if self.shared.on_bus() {
            match self.shared.store.seats_in_play(&account.id).await {
                Ok(stored) => {
                    for id in stored {
                        if !tables.iter().any(|t| **t == *id) {
                            tables.push(Arc::from(id));
                        }
                    }
                }
                Err(e) => store_failed("list a player's tables", &e),
            }
        }
        tables
    }

    /// A new player, stored before anyone hears of them, and their token;
    /// limited per client address.
    async fn new_player(
        &self,
        name: Option<Arc<str>>,
    ) -> Result<(Arc<Account>, String), ClientError> {
        if let Who::Stranger {
            peer: Some(addr), ..
        } = self.who
        {
            if let Err(wait) = self.shared.new_players.take(addr, Instant::now()) {
                return Err(ClientError::new(
                    ErrorCode::RateLimited,
                    format!(
                        "Too many new players from your address; try again in {:.0} s, \
                         or say hello with your token to come back as yourself",
                        wait.ceil()
                    ),
                ));
            }
        }
        let (token, token_hash) = new_token();
        let name = name.unwrap_or_else(|| Arc::from("Player"));
        let account = Account::new(new_id(), token_hash, Arc::clone(&name));
        self.shared
            .store
            .commit(vec![Write::Player {
                id: Arc::clone(&account.id),
                token_hash,
                name,
            }])
            .await
            .map_err(|e| {
                store_failed("store a new player", &e);
                ClientError::internal()
            })?;
        Ok((self.shared.accounts.insert(account), token))
    }

    /// The account holding `token`.
    async fn resume(&self, token: &str) -> Result<Arc<Account>, ClientError> {
        let invalid = || {
            ClientError::new(
                ErrorCode::InvalidToken,
                "Unknown session token; send hello without a token to start afresh",
            )
        };
        if !is_token_shaped(token) {
            return Err(invalid());
        }
        let hash = hash_token(token);
        if let Some(account) = self.shared.accounts.get(&hash) {
            return Ok(account);
        }
        let row = self
            .shared
            .store
            .player_by_token(hash)
            .await
            .map_err(|e| {
                store_failed("look up a token", &e);
                ClientError::internal()
            })?
            .ok_or_else(invalid)?;
        Ok(self
            .shared
            .accounts
            .insert(Account::new(Arc::from(row.id), hash, Arc::from(row.name))))
    }

    /// Stores `account`'s new `name`, then uses it; with `tell_tables`, the
    /// tables where the player sits show it at once. The name the player
    /// has already costs and does nothing; another counts against the
    /// player's renames budget (`rate_limited` past it), given back if it
    /// could not be stored.
    pub(super) async fn rename(
        &self,
        account: &Arc<Account>,
        name: Arc<str>,
        tell_tables: bool,
        at: Instant,
    ) -> Result<(), ClientError> {
        if *account.name() == *name {
            return Ok(());
        }
        let limit = self.shared.config.names_limit;
        let spent = account
            .spend(Budget::Names, limit, at)
            .ok_or_else(|| ClientError::too_many_renames(limit))?;
        let stored = self
            .shared
            .store
            .commit(vec![Write::PlayerName {
                id: Arc::clone(&account.id),
                name: Arc::clone(&name),
            }])
            .await;
        if let Err(e) = stored {
            spent.give_back();
            store_failed("store a name", &e);
            return Err(ClientError::internal());
        }
        account.set_name(name);
        if !tell_tables {
            return Ok(());
        }
        let mut tables = account.tables();
        if self.shared.on_bus() {
            tables = self.seats_in_play(account).await;
        }
        let mut shown = Vec::new();
        for table_id in tables {
            if let Ok(handle) = self.find(&table_id).await {
                let (tx, rx) = tokio::sync::oneshot::channel();
                if handle
                    .send(TableCmd::renamed(Arc::clone(account), Some(tx)))
                    .await
                {
                    shown.push(rx);
                }
            }
        }
        // Each table's state with the new name reaches this connection
        // before the `ok` (a table elsewhere in a cluster is not waited
        // for: its sender is dropped when the command is passed on).
        let _ = tokio::time::timeout(SHOWN_WAIT, futures_util::future::join_all(shown)).await;
        Ok(())
    }
}

/// Logs that the store could not do `what` for a `hello` or a rename,
/// paced: while the database is down every player who comes meets it.
fn store_failed(what: &str, e: &dyn std::fmt::Display) {
    static FAILED: Pace = Pace::new();
    if let Some(skipped) = FAILED.check(Instant::now()) {
        tracing::error!(error = %e, skipped, "could not {what}");
    }
}

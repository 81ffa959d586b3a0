//! Starting and stopping the server: open the store, resume the tables the
//! last run left unfinished, start the lobby task; and, at the end, stop
//! everything in order and close the store.
//!
//! This is where the parts are composed: it imports the state, the store,
//! the tables and the lobby, and none of them imports it back. Each task
//! gets what it uses: the lobby task its lobby, two settings and the
//! shutdown token, not the whole [`Shared`].

use std::sync::Arc;

use crate::bus;
use crate::cluster;
use crate::config::{Config, DbLocation};
use crate::error::ServerError;
use crate::lobby;
use crate::metrics::Metrics;
use crate::resume;
use crate::roster;
use crate::state::{AppState, Shared};
use crate::store::{Postgres, Sqlite, Store};

impl AppState {
    /// Opens the database (creating it and applying migrations as needed),
    /// rebuilds every unfinished table from it, and starts their actors.
    /// Players of recovered tables count as disconnected, with what is left
    /// of their grace period to come back (docs/protocol.md, Reconnecting).
    ///
    /// Must be called inside a Tokio runtime.
    ///
    /// # Errors
    ///
    /// [`ServerError::NoRuntime`] outside a runtime. A database file that is
    /// not this server's to write is refused before anything is written to
    /// it: [`ServerError::DatabaseInUse`] (another server has it),
    /// [`ServerError::ForeignDatabase`], [`ServerError::SchemaTooNew`],
    /// [`ServerError::ReadOnlyDatabase`], or a database error such as "file
    /// is not a database". A database error also if it cannot be migrated or
    /// read.
    pub fn new(config: Config) -> Result<AppState, ServerError> {
        tokio::runtime::Handle::try_current().map_err(|_| ServerError::NoRuntime)?;
        let metrics = Arc::new(Metrics::default());
        let store: Arc<dyn Store> = match &config.db {
            DbLocation::Postgres { url, node } => Arc::new(Postgres::open(
                url,
                *node,
                config.lease_ttl,
                Arc::clone(&metrics),
            )?),
            location => Arc::new(Sqlite::open(location, Arc::clone(&metrics))?),
        };
        AppState::with_store(config, store, metrics)
    }

    /// [`AppState::new`] on a store opened already (any implementation),
    /// which shares `metrics` with the server.
    ///
    /// # Errors
    ///
    /// The store's, if it cannot read back the unfinished tables.
    pub(crate) fn with_store(
        config: Config,
        store: Arc<dyn Store>,
        metrics: Arc<Metrics>,
    ) -> Result<AppState, ServerError> {
        // In a cluster, nodes claim the tables (see `cluster`).
        let clustered = matches!(config.db, DbLocation::Postgres { .. });
        let shared = Arc::new(Shared::new(config, store, metrics));
        if !clustered {
            let listed = resume::list(&shared)?;
            if listed > 0 {
                tracing::info!(tables = listed, "listed unfinished tables; resuming them");
            }
        }
        if let Some(node) = &shared.node {
            shared
                .tasks
                .spawn(cluster::run(Arc::clone(&shared), Arc::clone(node)));
            if let (Some(url), DbLocation::Postgres { node, .. }) =
                (&shared.config.bus, &shared.config.db)
            {
                shared
                    .tasks
                    .spawn(bus::run(Arc::clone(&shared), url.clone(), *node));
            }
        }
        shared.tasks.spawn(roster::run(
            Arc::clone(&shared.roster),
            roster::tick(&shared.config),
            shared.shutdown.clone(),
        ));
        shared.tasks.spawn(lobby::run(
            Arc::clone(&shared.lobby),
            shared.config.lobby_debounce,
            shared.config.lobby_max_tables,
            shared.shutdown.clone(),
        ));
        Ok(AppState { shared })
    }

    /// Shuts down: every connection gets `closing` and a close frame (1001),
    /// table actors stop, and once they have (or after
    /// [`Config::shutdown_timeout`]) the database commits what is queued,
    /// checkpoints and closes. Nothing is lost: every acknowledged change is
    /// already durable, and unfinished tables resume at the next start.
    pub async fn shutdown(&self) {
        // The nodes to hand the tables to: those heard from until now (the
        // heartbeats stop with the rest).
        let heirs = self.heirs();
        self.shared.shutdown.cancel();
        self.shared.tasks.close();
        if tokio::time::timeout(
            self.shared.config.shutdown_timeout,
            self.shared.tasks.wait(),
        )
        .await
        .is_err()
        {
            tracing::warn!("shutdown timed out waiting for connections and tables");
        }
        if !heirs.is_empty() {
            match self.shared.store.hand_over(heirs.clone()).await {
                Ok(tables) => tracing::info!(tables, nodes = ?heirs, "handed the tables over"),
                Err(e) => tracing::warn!(error = %e, "could not hand the tables over"),
            }
        }
        self.shared.store.close().await;
    }

    /// In a cluster with a bus, the other nodes heard from within a lease:
    /// a clean stop hands them this node's tables in turn (see
    /// [`Store::hand_over`]). With none, closing the store lets go of the
    /// leases, and whichever node claims first takes them.
    fn heirs(&self) -> Vec<u16> {
        self.shared.bus.get().map_or_else(Vec::new, |link| {
            link.peers.live(link.node, self.shared.config.lease_ttl)
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::{Value, json};

    use super::*;
    use crate::store::{GamesQuery, Memory};

    /// The next message of `client` that `pick` accepts.
    async fn until(client: &mut crate::LocalClient, pick: impl Fn(&Value) -> bool) -> Value {
        loop {
            let text = client.recv().await.expect("the server answers");
            let msg: Value = serde_json::from_str(&text).unwrap();
            if pick(&msg) {
                return msg;
            }
        }
    }

    #[tokio::test]
    async fn a_whole_game_runs_on_the_in_memory_store() {
        let store = Arc::new(Memory::new());
        let config = Config::in_memory();
        let metrics = Arc::new(Metrics::default());
        let state = AppState::with_store(config, Arc::clone(&store) as _, metrics).unwrap();
        let mut client = state.connect_local();
        client
            .send(r#"{"type":"hello","version":1,"name":"Ann"}"#)
            .await;
        until(&mut client, |m| m["type"] == "welcome").await;
        let options = json!({"pass_and_play": true, "starter": "x"});
        let create = json!({"type": "create_table", "id": 1, "options": options});
        client.send(&create.to_string()).await;
        let ok = until(&mut client, |m| m["type"] == "ok").await;
        let table = ok["table_id"].as_str().unwrap().to_owned();
        for (id, cell) in (2..).zip(["a1", "a2", "b1", "b2", "c1"]) {
            let play = json!({"type": "move", "id": id, "table_id": table, "cell": cell});
            client.send(&play.to_string()).await;
            let reply = until(&mut client, |m| m["id"] == id).await;
            assert_eq!(reply["type"], "ok", "{reply}");
        }
        let games = store
            .recent_games(GamesQuery {
                limit: 5,
                ..GamesQuery::default()
            })
            .await
            .unwrap();
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].moves, 5);
        let record = store
            .game_record(games[0].id.as_str(), None)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            record.table_id.as_ref().map(|t| t.as_str()),
            Some(table.as_str())
        );
        client.close().await;
        state.shutdown().await;
    }
}

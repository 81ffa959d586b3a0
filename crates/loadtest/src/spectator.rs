//! Spectators: connections that watch one game's table and count the
//! `table` events they receive.

use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;

use oxo_protocol::{ClientMsg, ServerMsg, TableId};

use crate::ctx::{Ctx, player};

/// A spectator: watches `table_id` and counts the `table` events.
pub(crate) async fn spectate(ctx: Arc<Ctx>, table_id: TableId, name: String) {
    let mut conn = {
        let Ok(_permit) = ctx.setup.acquire().await else {
            return;
        };
        let (mut conn, _, _) = match player(&ctx, name).await {
            Ok(p) => p,
            Err(e) => {
                ctx.stats
                    .error(&format!("spectator:{}", e.kind()), || e.to_string());
                return;
            }
        };
        let watch = ClientMsg::WatchTable {
            table_id: table_id.clone(),
        };
        if let Err(e) = conn.call(watch, ctx.timeout, |_| {}).await {
            ctx.stats
                .error(&format!("spectator:{}", e.kind()), || e.to_string());
            ctx.stats.open.fetch_sub(1, Relaxed);
            conn.close().await;
            return;
        }
        conn
    };
    let mut stop = ctx.stop.clone();
    loop {
        tokio::select! {
            msg = conn.recv() => match msg {
                Ok(ServerMsg::Table { .. }) => ctx.stats.count(&ctx.stats.spectator_events),
                Ok(_) => {}
                Err(e) => {
                    ctx.stats.open.fetch_sub(1, Relaxed);
                    if !*ctx.stop.borrow() && ctx.ledger.is_none() {
                        ctx.stats.error(&format!("spectator:{}", e.kind()), || e.to_string());
                    }
                    return;
                }
            },
            _ = stop.changed() => break,
        }
    }
    ctx.stats.open.fetch_sub(1, Relaxed);
    conn.close().await;
}

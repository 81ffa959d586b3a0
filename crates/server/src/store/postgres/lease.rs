//! Table leases: which node owns which table, under which epoch.
//!
//! Every table row holds `owner` (a node id), `epoch` and `lease_until`
//! (milliseconds on the database's clock, so that nodes' clocks do not
//! matter). The owner renews its leases every third of the lease time
//! ([`renew`]); when a lease runs out (the node died, stopped, or lost the
//! database) any node may claim the table ([`claim`]), which raises the
//! epoch. Every commit of a table starts with a fence on its epoch
//! (`writes::fence`), so the old owner, should it wake up, cannot write
//! anything more: its commit fails and it tells nobody.

use std::time::Duration;

use tokio_postgres::GenericClient;

use super::error::db;
use crate::error::ServerError;
use crate::store::rows::LeaderRow;

/// The database's clock in milliseconds, as SQL.
pub(super) const DB_NOW_MS: &str = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint";

/// The most tables one [`claim`] takes, so that a survivor rebuilds a dead
/// node's tables in slices and the other survivors share them.
pub(crate) const CLAIM_BATCH: usize = 2_000;

/// This node and how long its leases last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Lease {
    /// This node's id.
    pub(super) node: u16,
    /// How long a lease lasts from its last renewal, in milliseconds.
    pub(super) ttl_ms: i64,
}

/// A table's key and the epoch this node holds it under.
pub(crate) type Held = (i64, i64);

/// Claims up to [`CLAIM_BATCH`] open tables whose lease has run out (with
/// `all`, every open table this node does not hold: a new leader takes
/// them all, since the old one has lost its post), raising each one's
/// epoch; returns them with their new epochs.
///
/// Rows a commit holds right now are skipped (`SKIP LOCKED`) and claimed
/// by a later call, so a claim never waits for a dying owner.
///
/// # Errors
///
/// The database's.
pub(super) async fn claim(
    client: &impl GenericClient,
    lease: Lease,
    all: bool,
) -> Result<Vec<Held>, ServerError> {
    let sql = format!(
        "UPDATE tables SET owner = $1, epoch = epoch + 1, lease_until = {DB_NOW_MS} + $2
         WHERE seq IN (
             SELECT seq FROM tables
             WHERE status <> 'closed' AND (lease_until < {DB_NOW_MS} OR $3)
             ORDER BY seq LIMIT $4
             FOR UPDATE SKIP LOCKED)
         RETURNING seq, epoch"
    );
    let rows = client
        .query(
            &sql,
            &[
                &i32::from(lease.node),
                &lease.ttl_ms,
                &all,
                &(CLAIM_BATCH as i64),
            ],
        )
        .await
        .map_err(db)?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// Renews this node's leases; returns the tables it still holds. A table
/// missing from the answer (or under another epoch) was taken over.
///
/// # Errors
///
/// The database's.
pub(super) async fn renew(
    client: &impl GenericClient,
    lease: Lease,
) -> Result<Vec<Held>, ServerError> {
    let sql = format!(
        "UPDATE tables SET lease_until = {DB_NOW_MS} + $2
         WHERE owner = $1 AND status <> 'closed'
         RETURNING seq, epoch"
    );
    let rows = client
        .query(&sql, &[&i32::from(lease.node), &lease.ttl_ms])
        .await
        .map_err(db)?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// How long until the first lease of another node's open table runs out
/// (zero if one has already); `None` if no other node holds one.
///
/// # Errors
///
/// The database's.
pub(super) async fn next_expiry(
    client: &impl GenericClient,
    lease: Lease,
) -> Result<Option<Duration>, ServerError> {
    let sql = format!(
        "SELECT min(lease_until) - {DB_NOW_MS} FROM tables
         WHERE status <> 'closed' AND owner <> $1"
    );
    let row = client
        .query_one(&sql, &[&i32::from(lease.node)])
        .await
        .map_err(db)?;
    let ms: Option<i64> = row.get(0);
    Ok(ms.map(|ms| Duration::from_millis(u64::try_from(ms).unwrap_or(0))))
}

/// Hands this node's open tables to the nodes `to` in turn (a clean stop
/// in a cluster with a bus): each goes to its new owner under a new epoch
/// (the fence: should this node still write, it cannot) with a fresh
/// lease, and the new owner resumes it when its next renewal returns it.
/// So a stopping node's tables are shared out, not all claimed by the
/// first survivor. A table another node claimed meanwhile is left alone.
/// Returns how many were handed over (none if `to` is empty).
///
/// # Errors
///
/// The database's.
pub(super) async fn hand_over(
    client: &impl GenericClient,
    lease: Lease,
    to: &[u16],
) -> Result<u64, ServerError> {
    if to.is_empty() {
        return Ok(0);
    }
    let to: Vec<i32> = to.iter().copied().map(i32::from).collect();
    let sql = format!(
        "WITH mine AS (
             SELECT seq, (row_number() OVER (ORDER BY seq) - 1) % cardinality($3::int[]) + 1 AS turn
             FROM tables WHERE owner = $1 AND status <> 'closed')
         UPDATE tables t SET owner = ($3::int[])[mine.turn], epoch = t.epoch + 1,
             lease_until = {DB_NOW_MS} + $2
         FROM mine WHERE t.seq = mine.seq AND t.owner = $1 AND t.status <> 'closed'"
    );
    client
        .execute(&sql, &[&i32::from(lease.node), &lease.ttl_ms, &to])
        .await
        .map_err(db)
}

/// Ends this node's leases now (a clean stop): the other nodes claim its
/// tables at their next round instead of a lease later.
///
/// # Errors
///
/// The database's.
pub(super) async fn release(client: &impl GenericClient, lease: Lease) -> Result<(), ServerError> {
    client
        .execute(
            "UPDATE tables SET lease_until = 0 WHERE owner = $1 AND status <> 'closed'",
            &[&i32::from(lease.node)],
        )
        .await
        .map_err(db)?;
    Ok(())
}

/// The epochs of the tables `seqs` that are stored.
///
/// # Errors
///
/// The database's.
pub(super) async fn epochs(
    client: &impl GenericClient,
    seqs: &[i64],
) -> Result<Vec<Held>, ServerError> {
    let rows = client
        .query(
            "SELECT seq, epoch FROM tables WHERE seq = ANY($1)",
            &[&seqs],
        )
        .await
        .map_err(db)?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// The node that owns the open table `id`, and whether its lease runs
/// still; `None` for a table closed or unknown.
///
/// # Errors
///
/// The database's.
pub(super) async fn owner_of(
    client: &impl GenericClient,
    id: &str,
) -> Result<Option<(u16, bool)>, ServerError> {
    let sql = format!(
        "SELECT owner, lease_until >= {DB_NOW_MS} FROM tables
         WHERE id = $1 AND status <> 'closed'"
    );
    let row = client.query_opt(&sql, &[&id]).await.map_err(db)?;
    Ok(row.map(|r| {
        let node: i32 = r.get(0);
        (u16::try_from(node).unwrap_or(u16::MAX), r.get(1))
    }))
}

/// Becomes or stays the leader if the post is free (no leader, or its
/// lease ran out) or this node holds it, serving at `addr`; returns the
/// leader either way.
///
/// # Errors
///
/// The database's.
pub(super) async fn lead(
    client: &impl GenericClient,
    lease: Lease,
    addr: &str,
) -> Result<LeaderRow, ServerError> {
    let sql = format!(
        "INSERT INTO cluster_leader AS l (id, node, addr, epoch, lease_until)
         VALUES (1, $1, $2, 1, {DB_NOW_MS} + $3)
         ON CONFLICT (id) DO UPDATE SET
             node = excluded.node, addr = excluded.addr,
             epoch = CASE WHEN l.node = excluded.node AND l.addr = excluded.addr
                          THEN l.epoch ELSE l.epoch + 1 END,
             lease_until = excluded.lease_until
         WHERE l.lease_until < {DB_NOW_MS} OR (l.node = excluded.node AND l.addr = excluded.addr)"
    );
    client
        .execute(&sql, &[&i32::from(lease.node), &addr, &lease.ttl_ms])
        .await
        .map_err(db)?;
    let row = client
        .query_one("SELECT node, addr FROM cluster_leader WHERE id = 1", &[])
        .await
        .map_err(db)?;
    let node: i32 = row.get(0);
    let leader: String = row.get(1);
    Ok(LeaderRow {
        node: u16::try_from(node).unwrap_or(u16::MAX),
        me: node == i32::from(lease.node) && leader == addr,
        addr: leader,
    })
}

/// Gives the leader's post up, if this node holds it (a clean stop).
///
/// # Errors
///
/// The database's.
pub(super) async fn resign(client: &impl GenericClient, lease: Lease) -> Result<(), ServerError> {
    client
        .execute(
            "UPDATE cluster_leader SET lease_until = 0 WHERE node = $1",
            &[&i32::from(lease.node)],
        )
        .await
        .map_err(db)?;
    Ok(())
}

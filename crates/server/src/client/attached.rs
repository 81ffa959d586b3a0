//! The tables one connection is at (seated or watching), with their
//! handles.
//!
//! A connection is at a few tables, and never more than [`MAX_ATTACHED`],
//! so they are a short list searched in order: a list costs every
//! connection's task 24 bytes where a hash map cost 48, and that task is
//! most of what an idle player costs the server.

use std::sync::Arc;

use crate::handle::TableHandle;

/// The most tables one connection may be attached to (seated or watching).
pub(crate) const MAX_ATTACHED: usize = 64;

/// The tables a connection is at, each once.
#[derive(Debug, Default)]
pub(crate) struct Attached(Vec<(Arc<str>, TableHandle)>);

impl Attached {
    /// How many tables.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the connection is at `table_id`.
    pub(crate) fn contains(&self, table_id: &str) -> bool {
        self.get(table_id).is_some()
    }

    /// The handle of `table_id`, if the connection is at it.
    pub(crate) fn get(&self, table_id: &str) -> Option<&TableHandle> {
        self.0
            .iter()
            .find(|(id, _)| **id == *table_id)
            .map(|(_, handle)| handle)
    }

    /// Records that the connection is at `table_id`, replacing the handle
    /// it had for it.
    pub(crate) fn insert(&mut self, table_id: Arc<str>, handle: TableHandle) {
        match self.0.iter_mut().find(|(id, _)| *id == table_id) {
            Some((_, old)) => *old = handle,
            None => self.0.push((table_id, handle)),
        }
    }

    /// Forgets `table_id`, returning its handle.
    pub(crate) fn remove(&mut self, table_id: &str) -> Option<TableHandle> {
        let at = self.0.iter().position(|(id, _)| **id == *table_id)?;
        Some(self.0.swap_remove(at).1)
    }

    /// Keeps only the tables whose handle passes `keep`.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&TableHandle) -> bool) {
        self.0.retain(|(_, handle)| keep(handle));
    }

    /// The tables, in no particular order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&Arc<str>, &TableHandle)> {
        self.0.iter().map(|(id, handle)| (id, handle))
    }

    /// Forgets every table, returning their handles.
    pub(crate) fn take(&mut self) -> Vec<TableHandle> {
        std::mem::take(&mut self.0)
            .into_iter()
            .map(|(_, handle)| handle)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use oxo_protocol::TableStatus;
    use tokio::sync::mpsc;

    use super::*;
    use crate::live::LiveStatus;

    /// A handle on a queue of its own, and the queue (closed when dropped).
    fn handle(key: i64) -> (TableHandle, mpsc::Receiver<crate::handle::TableCmd>) {
        let (tx, rx) = mpsc::channel(1);
        let handle = TableHandle::new(tx, LiveStatus::new(TableStatus::InProgress), (key, 1));
        (handle, rx)
    }

    #[test]
    fn each_table_is_listed_once_with_its_latest_handle() {
        let mut attached = Attached::default();
        let (first, _q1) = handle(1);
        let (again, _q2) = handle(2);
        let (other, _q3) = handle(3);
        attached.insert(Arc::from("t1"), first);
        attached.insert(Arc::from("t2"), other);
        attached.insert(Arc::from("t1"), again);
        assert_eq!(attached.len(), 2);
        assert!(attached.contains("t1") && attached.contains("t2"));
        assert!(!attached.contains("t"), "ids are matched whole");
        assert_eq!(attached.get("t1").map(TableHandle::lease), Some((2, 1)));
        assert_eq!(attached.remove("t1").map(|h| h.lease()), Some((2, 1)));
        assert_eq!(attached.remove("t1").map(|h| h.lease()), None);
        assert_eq!(
            attached.iter().map(|(id, _)| &**id).collect::<Vec<_>>(),
            ["t2"]
        );
    }

    #[test]
    fn tables_that_closed_are_let_go_and_all_are_taken_at_the_end() {
        let mut attached = Attached::default();
        let (open, _queue) = handle(1);
        let (closed, queue) = handle(2);
        drop(queue);
        attached.insert(Arc::from("open"), open);
        attached.insert(Arc::from("closed"), closed);
        attached.retain(|h| !h.is_closed());
        assert_eq!(
            attached.iter().map(|(id, _)| &**id).collect::<Vec<_>>(),
            ["open"]
        );
        assert_eq!(attached.take().len(), 1);
        assert_eq!(attached.len(), 0);
    }
}

//! Database files for tests: each in a folder of its own, removed with it.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};

/// A database path in a fresh folder, which is removed when this drops.
#[derive(Debug)]
pub(crate) struct TempDb {
    dir: PathBuf,
}

impl TempDb {
    /// A new folder named after `name`, this process and a counter.
    pub(crate) fn new(name: &str) -> TempDb {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("oxo-{name}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a writable temporary folder");
        TempDb { dir }
    }

    /// The database file's path (the file does not exist yet).
    pub(crate) fn path(&self) -> PathBuf {
        self.dir.join("oxo.db")
    }
}

impl Drop for TempDb {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

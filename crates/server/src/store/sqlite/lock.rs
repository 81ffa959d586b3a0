//! One server per database file: an exclusive advisory lock on the file.
//!
//! SQLite lets any number of processes open a file and only serialises
//! their transactions, so two servers on one file would both start and
//! overwrite each other's rows. Before SQLite opens the file, the store
//! takes an exclusive `flock` on it (std's [`File::try_lock`]); a second
//! server fails to take it and refuses to start, naming the holder's pid
//! (found in `/proc/locks` by the file's inode, where there is one).
//!
//! `flock` locks and SQLite's POSIX record locks are independent on Linux,
//! so this lock does not get in SQLite's way. One POSIX rule does matter:
//! closing *any* descriptor of a file drops every POSIX lock the process
//! holds on it, SQLite's included. So the descriptor held here must stay
//! open until the last SQLite connection to the file has closed (the store
//! shares it with the writer thread and the read connections, see the parent
//! module), and a descriptor that failed to take the lock is never closed
//! while another store of this process may have the file open.
//!
//! This file owns nothing else: it does not read or write the database.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::ErrorKind;
use std::path::Path;

use crate::error::ServerError;

/// The lock on a database file, held until dropped.
#[derive(Debug)]
pub(super) struct DbLock {
    /// The locked descriptor; closing it releases the lock.
    _file: File,
}

/// Takes the exclusive lock on `path`, creating the file if it does not
/// exist (SQLite treats an empty file as a new database).
///
/// # Errors
///
/// [`ServerError::DatabaseInUse`] if another process (or another store in
/// this one) holds it; [`ServerError::Io`] if the file cannot be opened.
pub(super) fn lock(path: &Path) -> Result<DbLock, ServerError> {
    let file = match OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
    {
        Ok(file) => file,
        // A read-only file can still be locked through a read-only
        // descriptor; the store refuses it once SQLite has it open.
        Err(e) if e.kind() == ErrorKind::PermissionDenied => match File::open(path) {
            Ok(file) => file,
            // No file to open: it is the directory that refuses a new one.
            Err(open) if open.kind() == ErrorKind::NotFound => return Err(not_created(path, e)),
            Err(open) => return Err(open.into()),
        },
        Err(e) => return Err(not_created(path, e)),
    };
    match file.try_lock() {
        Ok(()) => Ok(DbLock { _file: file }),
        Err(TryLockError::WouldBlock) => {
            let pid = holder_pid(&file);
            // Closing this descriptor would drop the POSIX locks of a store
            // of this process that has the file open (see the module doc):
            // keep it open instead. One descriptor per refused start.
            std::mem::forget(file);
            Err(ServerError::DatabaseInUse { pid })
        }
        Err(TryLockError::Error(e)) => Err(e.into()),
    }
}

/// Why the database file `path` cannot be opened or made (`e`): said of
/// its directory when that is missing or refuses new files, which the
/// bare error ("No such file or directory") leaves the operator to guess.
fn not_created(path: &Path, e: std::io::Error) -> ServerError {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let why = match e.kind() {
        ErrorKind::NotFound => format!("the directory {} does not exist", dir.display()),
        ErrorKind::PermissionDenied => format!(
            "cannot create {} (permission denied in {})",
            path.display(),
            dir.display()
        ),
        _ => return e.into(),
    };
    std::io::Error::new(e.kind(), why).into()
}

/// The pid of the process holding a `flock` on `file`, from `/proc/locks`.
#[cfg(target_os = "linux")]
fn holder_pid(file: &File) -> Option<u32> {
    use std::os::unix::fs::MetadataExt as _;
    let meta = file.metadata().ok()?;
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    flock_holder(&locks, meta.dev(), meta.ino())
}

/// The pid of the process holding a `flock` on `file` (not known here).
#[cfg(not(target_os = "linux"))]
fn holder_pid(_file: &File) -> Option<u32> {
    None
}

/// Finds the holder of a `flock` on the file with device `dev` and inode
/// `ino` in the text of `/proc/locks`, whose lines read
/// `1: FLOCK  ADVISORY  WRITE 4242 08:01:1234567 0 EOF` (waiting requests
/// carry a `->` after the number and are skipped). The device is written as
/// hex `major:minor`; on some file systems (overlays) it differs from what
/// `stat` says, so a lone entry for the inode is taken even if the device
/// does not match.
fn flock_holder(locks: &str, dev: u64, ino: u64) -> Option<u32> {
    let (major, minor) = split_dev(dev);
    let mut same_inode = Vec::new();
    for line in locks.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [_, kind, _, _, pid, id, ..] = fields.as_slice() else {
            continue;
        };
        if *kind != "FLOCK" {
            continue;
        }
        let mut parts = id.split(':');
        let (Some(maj), Some(min), Some(inode), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        if inode.parse::<u64>().ok() != Some(ino) {
            continue;
        }
        let Ok(pid) = pid.parse::<u32>() else {
            continue;
        };
        let hex = |s: &str| u64::from_str_radix(s, 16).ok();
        if hex(maj) == Some(major) && hex(min) == Some(minor) {
            return Some(pid);
        }
        same_inode.push(pid);
    }
    match same_inode.as_slice() {
        [pid] => Some(*pid),
        _ => None,
    }
}

/// Linux's `major(dev)` and `minor(dev)` (glibc's encoding of `dev_t`).
fn split_dev(dev: u64) -> (u64, u64) {
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    (major, minor)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::super::temp::TempDb;
    use super::*;

    #[test]
    fn a_file_that_cannot_be_made_names_its_directory_and_why() {
        let missing = std::env::temp_dir().join(format!("oxo-no-dir-{}", std::process::id()));
        let e = lock(&missing.join("oxo.db")).unwrap_err().to_string();
        assert!(
            e.contains(&missing.display().to_string()) && e.contains("does not exist"),
            "{e}"
        );
        // A directory that refuses new files: not "no such file".
        let denied = std::io::Error::from(ErrorKind::PermissionDenied);
        let e = not_created(Path::new("/srv/oxo/oxo.db"), denied).to_string();
        assert!(
            e.contains("/srv/oxo") && e.contains("permission denied"),
            "{e}"
        );
    }

    #[test]
    fn the_holder_is_found_by_device_and_inode() {
        let locks = "\
1: POSIX  ADVISORY  WRITE 11 08:01:777 0 EOF
2: FLOCK  ADVISORY  WRITE 22 08:02:777 0 EOF
3: FLOCK  ADVISORY  WRITE 33 08:01:777 0 EOF
3: -> FLOCK  ADVISORY  WRITE 44 08:01:777 0 EOF
4: FLOCK  ADVISORY  WRITE 55 00:2f:888 0 EOF
";
        // Device 8:1 encodes as 0x801.
        assert_eq!(flock_holder(locks, 0x801, 777), Some(33));
        // Another device, one entry for the inode: taken.
        assert_eq!(flock_holder(locks, 0x999, 888), Some(55));
        // Another device, two entries for the inode: not guessed.
        assert_eq!(flock_holder(locks, 0x999, 777), None);
        assert_eq!(flock_holder(locks, 0x801, 1), None);
        assert_eq!(flock_holder("garbage\n\n1: FLOCK", 0x801, 777), None);
    }

    #[test]
    fn a_second_lock_on_the_same_file_is_refused_with_our_pid() {
        let temp = TempDb::new("lock");
        let path = temp.path();
        let held = lock(&path).unwrap();
        let err = lock(&path).unwrap_err();
        let pid = if cfg!(target_os = "linux") {
            Some(std::process::id())
        } else {
            None
        };
        assert!(
            matches!(err, ServerError::DatabaseInUse { pid: p } if p == pid),
            "{err:?}"
        );
        drop(held);
        drop(lock(&path).unwrap());
    }
}

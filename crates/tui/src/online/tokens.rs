//! The player's token per server, kept between runs so that a dropped
//! connection or a new `oxo play --server` comes back as the same player
//! (to the same seats).
//!
//! One JSON file, `tokens.json`, in the user's config directory:
//! `$OXO_CONFIG_DIR` if set, else `$XDG_CONFIG_HOME/oxo`, else
//! `~/.config/oxo`. The directory is made owner-only (0700) and the file
//! owner-only (0600): a token is a seat.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use oxo_client::Address;

/// The directory of oxo's own files, if one can be named.
pub(super) fn config_dir() -> Option<PathBuf> {
    let var = |name| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = var("OXO_CONFIG_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = var("XDG_CONFIG_HOME") {
        return Some(PathBuf::from(dir).join("oxo"));
    }
    var("HOME").map(|home| PathBuf::from(home).join(".config").join("oxo"))
}

/// The file, in the config directory, that keeps the tokens.
const FILE: &str = "tokens.json";

/// The tokens kept in `dir`: none if there is no file yet.
///
/// # Errors
///
/// The file is there but cannot be read, or is not a tokens file: what
/// was wrong, for the player.
fn read_all(dir: &Path) -> Result<BTreeMap<String, String>, String> {
    let path = dir.join(FILE);
    let bytes = match fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(e.kind().to_string()),
    };
    serde_json::from_slice(&bytes).map_err(|_| "not a tokens file".to_owned())
}

/// The token saved for the server at `address`, if any.
///
/// # Errors
///
/// The tokens file cannot be read: what was wrong (see [`save`], which
/// keeps such a file aside rather than writing over it).
pub(crate) fn load(address: &Address) -> Result<Option<String>, String> {
    match config_dir() {
        Some(dir) => load_in(&dir, address),
        None => Ok(None),
    }
}

fn load_in(dir: &Path, address: &Address) -> Result<Option<String>, String> {
    Ok(read_all(dir)?.remove(&address.http_url()))
}

/// Saves `token` for the server at `address` (owner-only file). A tokens
/// file that cannot be read is not written over: it is renamed first
/// (`tokens.json.bak`, or `tokens.json.bak.2`… if that is taken), and
/// `Some` says where it went.
///
/// # Errors
///
/// No config directory can be named, or it cannot be written.
pub(crate) fn save(address: &Address, token: &str) -> io::Result<Option<PathBuf>> {
    let dir = config_dir().ok_or_else(|| io::Error::other("no HOME or XDG_CONFIG_HOME"))?;
    save_in(&dir, address, token)
}

/// How many names for a kept-aside file are tried.
const BACKUPS: u32 = 100;

fn save_in(dir: &Path, address: &Address, token: &str) -> io::Result<Option<PathBuf>> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let path = dir.join(FILE);
    let (mut all, kept) = match read_all(dir) {
        Ok(all) => (all, None),
        Err(_) => {
            let free = (1..=BACKUPS)
                .map(|n| match n {
                    1 => dir.join(format!("{FILE}.bak")),
                    n => dir.join(format!("{FILE}.bak.{n}")),
                })
                .find(|p| fs::symlink_metadata(p).is_err())
                .ok_or_else(|| io::Error::other("too many tokens.json.bak files"))?;
            fs::rename(&path, &free)?;
            (BTreeMap::new(), Some(free))
        }
    };
    all.insert(address.http_url(), token.to_owned());
    let tmp = dir.join("tokens.json.tmp");
    let text = serde_json::to_vec_pretty(&all).map_err(io::Error::other)?;
    {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)?;
        io::Write::write_all(&mut file, &text)?;
        file.sync_all()?;
    }
    fs::set_permissions(&tmp, fs::Permissions::from_mode(0o600))?;
    fs::rename(tmp, path)?;
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(test: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("oxo-tokens-{test}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn an_unreadable_tokens_file_is_said_and_kept_aside_not_written_over() {
        let dir = temp_dir("unreadable");
        let address: Address = "http://127.0.0.1:8080".parse().expect("an address");
        let other: Address = "http://127.0.0.1:9090".parse().expect("an address");
        // No file yet: no token, and saving makes one.
        assert_eq!(load_in(&dir, &address), Ok(None));
        assert_eq!(save_in(&dir, &address, "t1").ok(), Some(None));
        assert_eq!(load_in(&dir, &address), Ok(Some("t1".to_owned())));
        // A file that is not JSON (hand-edited, cut short): said, and kept.
        fs::write(dir.join(FILE), b"{\"http://127.0.0.1:9090\": \"old").expect("write");
        let why = load_in(&dir, &other).expect_err("unreadable");
        assert_eq!(why, "not a tokens file");
        let kept = save_in(&dir, &address, "t2")
            .expect("saved")
            .expect("kept aside");
        assert_eq!(kept, dir.join("tokens.json.bak"));
        assert!(
            fs::read_to_string(&kept).is_ok_and(|t| t.contains("old")),
            "the old file is kept whole"
        );
        assert_eq!(load_in(&dir, &address), Ok(Some("t2".to_owned())));
        // Again: the first copy is not written over either.
        fs::write(dir.join(FILE), b"garbage").expect("write");
        let again = save_in(&dir, &address, "t3")
            .expect("saved")
            .expect("kept aside");
        assert_eq!(again, dir.join("tokens.json.bak.2"));
        assert!(fs::read_to_string(&kept).is_ok_and(|t| t.contains("old")));
        let _ = fs::remove_dir_all(&dir);
    }
}

//! The name a new player goes by online when `--name` is not given: a
//! friendly "Adjective Animal" ("Keen Otter") picked once and remembered,
//! as the browser does (`web/js/store.js`, `randomName`, from the same
//! words), rather than the server's default `Player` for everyone.
//!
//! It is kept in `name.txt` in the same config directory as the tokens
//! (see `tokens`). Only a new player (no token saved for the server) says
//! it: a player the server knows keeps the name it has (the last one given
//! with `--name`, or this one).

use std::fs;
use std::io;
use std::os::unix::fs::DirBuilderExt;
use std::path::Path;

use oxo_core::Rng;

use crate::config::clock_seed;

/// The browser's words for a first visit's name (`web/js/store.js`).
const ADJECTIVES: [&str; 10] = [
    "Swift", "Clever", "Brave", "Calm", "Lucky", "Bold", "Quiet", "Witty", "Keen", "Sunny",
];
const ANIMALS: [&str; 10] = [
    "Otter", "Fox", "Owl", "Lynx", "Heron", "Panda", "Koala", "Falcon", "Badger", "Seal",
];

/// The file, in the config directory, that remembers the name.
const FILE: &str = "name.txt";

/// A friendly name picked with `seed`, e.g. "Keen Otter".
pub(crate) fn random(seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let mut pick = |words: &[&'static str; 10]| words[rng.below(10) as usize];
    format!("{} {}", pick(&ADJECTIVES), pick(&ANIMALS))
}

/// The name to say hello with: the one `given` (`--name`); else, for a new
/// player, the name remembered in `dir` (picked and saved there the first
/// time); else `None`, and the server keeps the player's name.
pub(crate) fn for_hello(
    given: Option<&str>,
    new_player: bool,
    dir: Option<&Path>,
) -> Option<String> {
    match given {
        Some(name) => Some(name.to_owned()),
        None if new_player => Some(remembered(dir)),
        None => None,
    }
}

/// The name remembered in `dir`, or a new one, saved there if it can be
/// (a name not kept is no reason to stop the game).
fn remembered(dir: Option<&Path>) -> String {
    if let Some(name) = dir.and_then(load) {
        return name;
    }
    let name = random(clock_seed());
    if let Some(dir) = dir {
        let _ = save(dir, &name);
    }
    name
}

/// The name saved in `dir`, if there is one that could be a name: one
/// line, at most 24 characters, no control characters (the server checks
/// the rest, as it does `--name`).
fn load(dir: &Path) -> Option<String> {
    let text = fs::read_to_string(dir.join(FILE)).ok()?;
    let name = text.trim();
    let fits =
        !name.is_empty() && name.chars().count() <= 24 && !name.chars().any(char::is_control);
    fits.then(|| name.to_owned())
}

fn save(dir: &Path, name: &str) -> io::Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    fs::write(dir.join(FILE), format!("{name}\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(test: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("oxo-names-{test}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_random_name_is_an_adjective_and_an_animal_from_the_browsers_words() {
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..200 {
            let name = random(seed);
            let (adjective, animal) = name.split_once(' ').expect("two words");
            assert!(ADJECTIVES.contains(&adjective), "{name}");
            assert!(ANIMALS.contains(&animal), "{name}");
            seen.insert(name);
        }
        assert!(seen.len() > 20, "names vary with the seed: {seen:?}");
    }

    #[test]
    fn a_new_player_without_a_name_gets_a_friendly_one_remembered_in_the_config() {
        let dir = temp_dir("remembered");
        let first = for_hello(None, true, Some(&dir)).expect("a name for a new player");
        assert_ne!(first, "Player");
        assert!(first.contains(' '), "{first}");
        assert_eq!(
            fs::read_to_string(dir.join(FILE))
                .ok()
                .as_deref()
                .map(str::trim),
            Some(first.as_str())
        );
        for _ in 0..5 {
            assert_eq!(
                for_hello(None, true, Some(&dir)),
                Some(first.clone()),
                "remembered"
            );
        }
        // --name wins; a player the server knows keeps the name it has.
        assert_eq!(
            for_hello(Some("Ada"), true, Some(&dir)),
            Some("Ada".to_owned())
        );
        assert_eq!(
            for_hello(Some("Ada"), false, Some(&dir)),
            Some("Ada".to_owned())
        );
        assert_eq!(for_hello(None, false, Some(&dir)), None);
        // No config directory: still a friendly name, just not kept.
        let unkept = for_hello(None, true, None).expect("a name");
        assert!(unkept.contains(' '), "{unkept}");
        let _ = fs::remove_dir_all(&dir);
    }
}

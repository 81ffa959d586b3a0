//! The names nobody may take online: a computer player's, a pass and play
//! seat's, and any that looks like one. Both the server (`hello`,
//! `set_name`) and the terminal game (`--name`, refused before connecting)
//! check them here, so that they refuse the same names in the same words.
//!
//! Offline, pass and play's seats go by `Player X` and `Player O`: this
//! check is for names others see online, not for [`check_name`] itself.

use std::sync::OnceLock;

use unicode_normalization::UnicodeNormalization;
use unicode_security::confusable_detection::skeleton;

use crate::text::{NameError, check_name};

/// Names of the computer players and of pass and play's seats, which
/// nobody may take (compared without case).
const RESERVED: [&str; 6] = [
    "Random",
    "Easy",
    "Medium",
    "Impossible",
    "Player X",
    "Player O",
];

/// What a name looks like, for comparing names that must not be
/// imitated: compatibility forms folded (fullwidth and mathematical
/// letters), letters that look the same made the same (Unicode's
/// confusable skeleton: a Cyrillic о is an o, a capital I an l), case
/// ignored, and every run of spaces of any kind one space. Two ways,
/// since case and look-alikes cross: with case ignored before the
/// skeleton (`impossible` is `Impossible`) and after it (a Cyrillic `І`
/// is an `l` only while it is a capital). Two names look alike when
/// either way gives the same.
fn looks_like(name: &str) -> [String; 2] {
    let name: String = name.nfkc().collect();
    let fold = |s: &str| {
        let s: String = skeleton(s).collect::<String>().to_lowercase();
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    [fold(&name.to_lowercase()), fold(&name)]
}

/// What the [`RESERVED`] names look like (see [`looks_like`]), worked out
/// once.
fn reserved_looks() -> &'static [[String; 2]] {
    static LOOKS: OnceLock<Vec<[String; 2]>> = OnceLock::new();
    LOOKS.get_or_init(|| RESERVED.iter().map(|r| looks_like(r)).collect())
}

/// Checks the name a player goes by online and returns it trimmed: the
/// rules of [`check_name`], and not a computer player's or a pass and play
/// seat's name (`Easy`, `Player X`…), nor one that looks like it (a
/// Cyrillic `Е`, a fullwidth letter, two spaces for one).
///
/// ```
/// use oxo_protocol::{NameError, check_online_name};
///
/// assert_eq!(check_online_name(" Easy Rider "), Ok("Easy Rider"));
/// assert_eq!(
///     check_online_name("\u{0415}asy"),
///     Err(NameError::Reserved("\u{0415}asy".to_owned()))
/// );
/// ```
///
/// # Errors
///
/// What is wrong with it.
pub fn check_online_name(name: &str) -> Result<&str, NameError> {
    let name = check_name(name)?;
    let looks = looks_like(name);
    if reserved_looks()
        .iter()
        .any(|r| r.iter().zip(&looks).any(|(a, b)| a == b))
    {
        return Err(NameError::Reserved(name.to_owned()));
    }
    Ok(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nobody_takes_a_computer_players_name() {
        for name in ["Impossible", "impossible", "Player X", "player o", "Easy"] {
            let e = check_online_name(name).expect_err(name);
            assert!(e.to_string().contains("computer player"), "{e}");
        }
        assert!(check_online_name("Player").is_ok(), "the default name");
        assert!(check_online_name("Impossible Ann").is_ok());
        // Offline seats keep their default names.
        assert_eq!(check_name("Player X"), Ok("Player X"));
    }

    #[test]
    fn nobody_takes_a_computer_players_name_in_look_alike_letters() {
        for name in [
            "\u{FF29}mpossible", // a fullwidth I
            "Rand\u{043E}m",     // a Cyrillic o
            "Player\u{00A0}X",   // a non-breaking space
            "Player  X",         // two spaces
            "P\u{0406}ayer O",   // a Cyrillic I for the l
            "\u{1D404}asy",      // a mathematical bold E
            "\u{0415}asy",       // a Cyrillic E
        ] {
            let e = check_online_name(name).expect_err(name);
            assert!(e.to_string().contains("computer player"), "{name:?}: {e}");
        }
        for fine in ["Rändom", "Easy Rider", "Medi", "Player XO"] {
            assert!(check_online_name(fine).is_ok(), "{fine:?}");
        }
    }
}

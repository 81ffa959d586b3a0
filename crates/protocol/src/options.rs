//! What a new table's options may ask for: [`TableOptions::validate`] checks
//! them against the [`limits`](crate::limits), and [`OptionsError`] says what
//! was wrong and what is accepted.
//!
//! Here rather than in the server so that a client can check its options
//! before it sends them, by the same rule the server applies.

use core::fmt;
use core::ops::RangeInclusive;

use crate::TableOptions;
use crate::limits::{MAX_BOT_THINK_MS, MAX_MOVE_TIME_MS, MIN_MOVE_TIME_MS};

/// Why a table's options were refused. Its message names the option, what
/// it was, and what is accepted; the server sends it with `bad_request`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OptionsError {
    /// `move_time_ms` is outside [`OptionsError::MOVE_TIME_MS`].
    MoveTime {
        /// The time asked for, in milliseconds.
        ms: u32,
    },
    /// `bot.think_ms` is over [`MAX_BOT_THINK_MS`].
    BotThinkTime {
        /// The pause asked for, in milliseconds.
        ms: u32,
    },
    /// A bot and pass and play were both asked for: one person holds both
    /// seats in pass and play, so there is no seat for a bot.
    BotWithPassAndPlay,
}

impl OptionsError {
    /// The per-move time limits a table may set, in milliseconds.
    pub const MOVE_TIME_MS: RangeInclusive<u32> = MIN_MOVE_TIME_MS..=MAX_MOVE_TIME_MS;
}

impl fmt::Display for OptionsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionsError::MoveTime { ms } => write!(
                f,
                "options.move_time_ms must be from {MIN_MOVE_TIME_MS} to {MAX_MOVE_TIME_MS}, \
                 not {ms}"
            ),
            OptionsError::BotThinkTime { ms } => write!(
                f,
                "options.bot.think_ms must be at most {MAX_BOT_THINK_MS}, not {ms}"
            ),
            OptionsError::BotWithPassAndPlay => {
                f.write_str("options.bot and options.pass_and_play cannot be combined")
            }
        }
    }
}

impl std::error::Error for OptionsError {}

impl TableOptions {
    /// Checks the options against the protocol's limits.
    ///
    /// # Errors
    ///
    /// The first problem found, in the order of [`OptionsError`]'s variants.
    ///
    /// # Examples
    ///
    /// ```
    /// use oxo_protocol::{OptionsError, TableOptions};
    ///
    /// assert_eq!(TableOptions::default().validate(), Ok(()));
    /// let hasty = TableOptions { move_time_ms: Some(10), ..TableOptions::default() };
    /// assert_eq!(hasty.validate(), Err(OptionsError::MoveTime { ms: 10 }));
    /// assert_eq!(
    ///     hasty.validate().unwrap_err().to_string(),
    ///     "options.move_time_ms must be from 1000 to 600000, not 10",
    /// );
    /// ```
    pub fn validate(&self) -> Result<(), OptionsError> {
        if let Some(ms) = self.move_time_ms {
            if !OptionsError::MOVE_TIME_MS.contains(&ms) {
                return Err(OptionsError::MoveTime { ms });
            }
        }
        if let Some(bot) = self.bot {
            if bot.think_ms > MAX_BOT_THINK_MS {
                return Err(OptionsError::BotThinkTime { ms: bot.think_ms });
            }
            if self.pass_and_play {
                return Err(OptionsError::BotWithPassAndPlay);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use oxo_core::BotLevel;

    use super::*;
    use crate::BotSeat;

    #[test]
    fn limits_are_inclusive_and_bots_do_not_pass_and_play() {
        let with = |move_time_ms, bot: Option<u32>, pass_and_play| TableOptions {
            move_time_ms,
            bot: bot.map(|think_ms| BotSeat {
                level: BotLevel::Easy,
                think_ms,
            }),
            pass_and_play,
            ..TableOptions::default()
        };
        assert_eq!(with(Some(MIN_MOVE_TIME_MS), None, false).validate(), Ok(()));
        assert_eq!(
            with(Some(MAX_MOVE_TIME_MS), Some(MAX_BOT_THINK_MS), false).validate(),
            Ok(())
        );
        assert_eq!(
            with(Some(MAX_MOVE_TIME_MS + 1), None, false).validate(),
            Err(OptionsError::MoveTime {
                ms: MAX_MOVE_TIME_MS + 1
            })
        );
        let slow = with(None, Some(MAX_BOT_THINK_MS + 1), true).validate();
        assert_eq!(
            slow.map_err(|e| e.to_string()),
            Err("options.bot.think_ms must be at most 5000, not 5001".to_owned())
        );
        assert_eq!(
            with(None, Some(0), true).validate(),
            Err(OptionsError::BotWithPassAndPlay)
        );
        assert_eq!(with(None, None, true).validate(), Ok(()));
    }
}

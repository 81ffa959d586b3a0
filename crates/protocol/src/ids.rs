//! Typed identifiers: a table's id cannot be passed where a game's is meant.
//!
//! Each is a cheap-to-clone shared string that travels as a plain JSON
//! string. The server makes them (see its `ids` module for their shape);
//! clients treat them as opaque.

use std::borrow::Borrow;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
        #[serde(transparent)]
        pub struct $name(Arc<str>);

        impl $name {
            /// The id as text.
            #[must_use]
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> $name {
                $name(Arc::from(s))
            }
        }

        impl From<String> for $name {
            fn from(s: String) -> $name {
                $name(Arc::from(s))
            }
        }

        impl From<Arc<str>> for $name {
            fn from(s: Arc<str>) -> $name {
                $name(s)
            }
        }

        impl From<&$name> for Arc<str> {
            fn from(id: &$name) -> Arc<str> {
                Arc::clone(&id.0)
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                &*self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                &*self.0 == *other
            }
        }
    };
}

id_type! {
    /// A table's id: unguessable, so a private table's id is its only key.
    ///
    /// ```
    /// use oxo_protocol::TableId;
    ///
    /// let id = TableId::from("0f3a");
    /// assert_eq!(serde_json::to_string(&id)?, "\"0f3a\"");
    /// assert_eq!(id, "0f3a");
    /// # Ok::<_, serde_json::Error>(())
    /// ```
    TableId
}

id_type! {
    /// A game's (one round's) id, the key of its record and replay.
    GameId
}

id_type! {
    /// A player's public id (not their secret token).
    PlayerId
}

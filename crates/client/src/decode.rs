//! Reading the server's messages: one pass over the common ones, and the
//! request id a reply carries.

use oxo_protocol::{ErrorCode, GameId, PlayerId, ServerMsg, TableId, TableState};
use serde::Deserialize;

/// Reads a [`ServerMsg`] in one pass.
///
/// `ServerMsg` is tagged by its `type` field, which serde reads by first
/// buffering the whole object into an intermediate tree and then decoding
/// that: at tens of thousands of messages per second that is most of the
/// load tool's own parsing time. The common messages (`table`, `ok`,
/// `error`, `welcome`, `pong`) are read here straight into a flat struct of
/// the protocol crate's field types; anything else, or anything the flat
/// reading does not accept, goes through `ServerMsg`'s own `Deserialize`,
/// which has the last word (and the exact error message).
pub fn decode(text: &str) -> Result<ServerMsg, serde_json::Error> {
    #[derive(Deserialize, PartialEq, Eq)]
    #[serde(rename_all = "snake_case")]
    enum Kind {
        Table,
        Ok,
        Error,
        Welcome,
        Pong,
        #[serde(other)]
        Other,
    }
    // A field this reading does not know (one added to the protocol later)
    // sends the message to the full reading rather than losing the field.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Flat {
        #[serde(rename = "type")]
        kind: Kind,
        id: Option<u64>,
        table: Option<TableState>,
        table_id: Option<TableId>,
        game_id: Option<GameId>,
        ply: Option<u32>,
        code: Option<ErrorCode>,
        message: Option<String>,
        version: Option<u32>,
        token: Option<String>,
        player_id: Option<PlayerId>,
        name: Option<String>,
        tables: Option<Vec<TableId>>,
    }
    let fast = serde_json::from_str::<Flat>(text).ok().and_then(|f| {
        let id = f.id;
        Some(match f.kind {
            Kind::Table => ServerMsg::Table { table: f.table? },
            Kind::Ok => ServerMsg::Ok {
                id,
                table_id: f.table_id,
                game_id: f.game_id,
                ply: f.ply,
            },
            Kind::Error => ServerMsg::Error {
                id,
                code: f.code?,
                message: f.message?,
            },
            Kind::Welcome => ServerMsg::Welcome {
                id,
                version: f.version?,
                token: f.token?,
                player_id: f.player_id?,
                name: f.name?,
                tables: f.tables?,
            },
            Kind::Pong => ServerMsg::Pong { id },
            Kind::Other => return None,
        })
    });
    match fast {
        Some(msg) => Ok(msg),
        None => serde_json::from_str(text),
    }
}

/// The request id a reply carries, if `msg` is a reply (`ok`, `error`,
/// `welcome`, `pong`).
#[must_use]
pub const fn reply_id(msg: &ServerMsg) -> Option<u64> {
    match msg {
        ServerMsg::Ok { id, .. }
        | ServerMsg::Error { id, .. }
        | ServerMsg::Welcome { id, .. }
        | ServerMsg::Pong { id } => *id,
        _ => None,
    }
}

/// At most 200 bytes of `s`, for error messages.
pub(crate) fn clip(s: &str) -> &str {
    let mut end = s.len().min(200);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every message decodes exactly as `ServerMsg`'s own `Deserialize`
    /// reads it, including the ones the fast path leaves to it.
    #[test]
    fn decode_agrees_with_server_msg() {
        let table = r#"{"id":"T","status":"in_progress","options":{"public":false,"starter":"alternate","seat":"X"},
            "players":{"x":{"id":"p_a","name":"Alice","connected":true,"wants_rematch":false},
                       "o":{"id":"p_b","name":"Bob","connected":false,"grace_left_ms":45000,"wants_rematch":true}},
            "spectators":1,"round":2,"game_id":"G2","first":"O","board":"X...O....","moves":["b2","a1"],
            "move_number":2,"turn":"O","time_left_ms":27250,"scores":{"x":1,"o":0,"draws":0}}"#;
        let samples = [
            format!(r#"{{"type":"table","table":{table}}}"#),
            format!(r#"{{"type":"table","table":{}}}"#, table.replace("b2", "e2")),
            r#"{"type":"ok","id":7,"table_id":"T"}"#.to_owned(),
            r#"{"type":"ok"}"#.to_owned(),
            r#"{"type":"ok","id":8,"table_id":"T","game_id":"G2","ply":3}"#.to_owned(),
            r#"{"type":"error","id":3,"code":"cell_taken","message":"b2 is already taken"}"#.to_owned(),
            r#"{"type":"error","code":"bad_request","message":"x"}"#.to_owned(),
            r#"{"type":"welcome","id":1,"version":1,"token":"s","player_id":"p","name":"N","tables":["T"]}"#.to_owned(),
            r#"{"type":"pong","id":9}"#.to_owned(),
            r#"{"type":"pong","id":9,"later":"a field added later"}"#.to_owned(),
            r#"{"type":"chat","table_id":"T","from_id":"p","from_name":"N","text":"gg"}"#.to_owned(),
            r#"{"type":"lobby","tables":[{"id":"T","status":"waiting","players":{"x":"A","o":null},"spectators":0,"options":{}}]}"#.to_owned(),
            r#"{"type":"closing","reason":"bye"}"#.to_owned(),
            // Not valid: both readers must refuse.
            r#"{"type":"error","id":3}"#.to_owned(),
            r#"{"type":"table"}"#.to_owned(),
            r#"{"type":"warp"}"#.to_owned(),
            r#"{"id":1}"#.to_owned(),
            "[]".to_owned(),
        ];
        for s in &samples {
            let ours = decode(s).map_err(|e| e.to_string());
            let theirs = serde_json::from_str::<ServerMsg>(s).map_err(|e| e.to_string());
            assert_eq!(ours, theirs, "{s}");
        }
        assert!(matches!(decode(&samples[0]), Ok(ServerMsg::Table { .. })));
        assert!(decode(&samples[1]).is_err(), "e2 is not a cell");
    }
}

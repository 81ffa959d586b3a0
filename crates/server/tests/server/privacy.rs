//! Game records of private tables: listed only for their players (who
//! prove who they are with `Authorization: Bearer <token>`), and readable by
//! id without the table's id, so that a replay link does not lead a
//! stranger to the table.

use serde_json::{Value, json};

use crate::common::{Client, Server};

/// Plays a game X wins (a1 a2 a3) at a fresh table with these options,
/// between `x` (the creator) and `o`; returns the game id and the table id.
async fn finished_game(x: &mut Client, o: &mut Client, options: Value) -> (String, String) {
    let mut options = options;
    options["seat"] = json!("X");
    let table = x.create(options).await.id.to_string();
    o.ok(json!({"type":"join_table","table_id":table})).await;
    x.table_until(|t| t.players.o.is_some()).await;
    let game = x.play(&table, "a1").await.game_id.unwrap().to_string();
    o.play(&table, "b1").await;
    x.play(&table, "a2").await;
    o.play(&table, "b2").await;
    x.play(&table, "a3").await;
    (game, table)
}

/// The ids in a `GET /api/games` answer.
fn ids(list: &Value) -> Vec<&str> {
    list.as_array()
        .unwrap_or_else(|| panic!("a list: {list}"))
        .iter()
        .map(|g| g["id"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn private_games_are_listed_only_for_their_players() {
    let server = Server::start().await;
    let mut x = server.client("Xena").await;
    let mut o = server.client("Otto").await;
    let stranger = server.client("Sam").await;
    let (private, _) = finished_game(&mut x, &mut o, json!({"public": false})).await;
    let (public, _) = finished_game(&mut x, &mut o, json!({})).await;
    let by_x = format!("/api/games?player={}", x.player_id);

    // Anonymous, and a stranger with a valid token: public games only.
    for path in ["/api/games", by_x.as_str()] {
        let (status, list) = server.get_json(path).await;
        assert_eq!(status, 200, "{list}");
        assert_eq!(ids(&list), [public.as_str()], "anonymous {path}");
        let (status, list) = server.get_as(path, &stranger.token).await;
        assert_eq!(status, 200, "{list}");
        assert_eq!(ids(&list), [public.as_str()], "stranger {path}");
    }
    // A player sees their own private games too, newest first.
    for path in ["/api/games", by_x.as_str()] {
        let (status, list) = server.get_as(path, &x.token).await;
        assert_eq!(status, 200, "{list}");
        assert_eq!(ids(&list), [public.as_str(), private.as_str()], "{path}");
    }
    let (_, list) = server.get_as("/api/games", &o.token).await;
    assert_eq!(ids(&list), [public.as_str(), private.as_str()]);
    // `?player=` shows someone's private games only to that someone.
    let (_, list) = server.get_as(&by_x, &o.token).await;
    assert_eq!(ids(&list), [public.as_str()]);
    server.stop().await;
}

#[tokio::test]
async fn a_private_games_record_names_its_table_only_to_its_players() {
    let server = Server::start().await;
    let mut x = server.client("Xena").await;
    let mut o = server.client("Otto").await;
    let stranger = server.client("Sam").await;
    let (private, private_table) = finished_game(&mut x, &mut o, json!({"public": false})).await;
    let (public, public_table) = finished_game(&mut x, &mut o, json!({})).await;
    let record = format!("/api/games/{private}");

    // Readable by its id (a replay link), without the table.
    let (status, rec) = server.get_json(&record).await;
    assert_eq!(status, 200, "{rec}");
    assert_eq!(rec["id"], private.as_str());
    assert_eq!(rec["moves"].as_array().unwrap().len(), 5);
    assert!(rec.get("table_id").is_none(), "anonymous: {rec}");
    let (status, rec) = server.get_as(&record, &stranger.token).await;
    assert_eq!(status, 200, "{rec}");
    assert!(rec.get("table_id").is_none(), "stranger: {rec}");
    for player in [&x, &o] {
        let (status, rec) = server.get_as(&record, &player.token).await;
        assert_eq!(status, 200, "{rec}");
        assert_eq!(rec["table_id"], private_table.as_str());
    }
    let (status, log) = server.get_json(&format!("{record}/log")).await;
    assert_eq!(status, 200, "{log}");
    assert_eq!(log["total"], 7);

    // A public game's record names its table to anyone.
    let (_, rec) = server.get_json(&format!("/api/games/{public}")).await;
    assert_eq!(rec["table_id"], public_table.as_str());
    server.stop().await;
}

#[tokio::test]
async fn a_bad_or_unknown_token_is_refused_with_401() {
    let server = Server::start().await;
    let unknown = "0123456789abcdef".repeat(4);
    for path in ["/api/games", "/api/games/nope", "/api/games/nope/log"] {
        for header in [
            "Bearer not-a-token".to_owned(),
            format!("Bearer {unknown}"),
            format!("Basic {unknown}"),
            String::new(),
        ] {
            let res = server
                .request("GET", path, &[("Authorization", &header)])
                .await;
            let (status, head) = (res.status, res.head);
            let body = String::from_utf8_lossy(&res.body).into_owned();
            assert_eq!(status, 401, "{path} {header:?}: {body}");
            let body: Value = serde_json::from_str(&body).unwrap();
            assert!(body["error"].is_string(), "{body}");
            // A right scheme with a token of the wrong shape is told so.
            if header == "Bearer not-a-token" {
                assert!(
                    body["error"]
                        .as_str()
                        .unwrap()
                        .contains("not a session token"),
                    "{body}"
                );
            }
            assert!(
                head.to_ascii_lowercase()
                    .contains("www-authenticate: bearer"),
                "{head}"
            );
        }
    }
    server.stop().await;
}

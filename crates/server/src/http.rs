//! The HTTP API: JSON over GET, for lobbies, records, replays and analysis.
//!
//! | route | body |
//! | --- | --- |
//! | `GET /api/tables` | `[LobbyTable]`: public tables not closed, waiting ones first |
//! | `GET /api/games?player=&limit=` | `[GameSummary]`: finished games the asker may see, newest first |
//! | `GET /api/games/{id}` | `GameRecord` |
//! | `GET /api/games/{id}/log?start=&end=` | `LogSlice` |
//! | `GET /api/analyze?position=` | `AnalyzeResponse` |
//! | `GET /api/analyze/game?first=&moves=` | `GameExplanation` (in `explain`) |
//! | `GET /healthz` | `{"status":"ok"}`, or 503 `{"status":"unhealthy","error":...}` |
//! | `GET /metrics` | Prometheus text |
//!
//! Bad parameters get 400 and unknown ids 404, each with an
//! [`oxo_protocol::ApiError`] body; server failures get 500 with a generic
//! body (the details are logged, not shown).
//!
//! # Who is asking
//!
//! The game routes may carry the player's token (the protocol's "session
//! token") in `Authorization: Bearer <token>` (never in the URL, where it
//! would end up in logs and histories). A valid token makes the request that player's:
//! they see their own games at private tables in lists, and those games'
//! `table_id`. A malformed or unknown token gets 401; no header is an
//! anonymous request.

use std::collections::HashMap;
use std::time::Duration;

use axum::Json;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use oxo_core::{Position, solver};
use oxo_protocol::{AnalyzeResponse, GameRecord, LobbyTable, LogSlice, MoveAnalysis};

use crate::error::ServerError;
use crate::ids::{hash_token, is_token_shaped};
use crate::state::AppState;
use crate::store::{self, GamesQuery};

/// The most games `GET /api/games` returns.
const MAX_GAMES: u32 = 100;
/// The number of games `GET /api/games` returns by default.
const DEFAULT_GAMES: u32 = 20;

/// An HTTP error with a JSON body.
#[derive(Debug)]
pub(crate) enum ApiError {
    /// 400.
    BadRequest(String),
    /// 401, with `WWW-Authenticate: Bearer`.
    Unauthorized(String),
    /// 403.
    Forbidden(String),
    /// 404.
    NotFound(String),
    /// 405.
    MethodNotAllowed(String),
    /// 414: the request target is too long.
    UriTooLong(String),
    /// 431: the request head is too large.
    HeadTooLarge(String),
    /// 503.
    Unavailable(String),
    /// 500; the cause is logged, not sent.
    Internal,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, error) = match self {
            ApiError::BadRequest(e) => (StatusCode::BAD_REQUEST, e),
            ApiError::Unauthorized(e) => {
                return (
                    StatusCode::UNAUTHORIZED,
                    [(header::WWW_AUTHENTICATE, "Bearer")],
                    Json(oxo_protocol::ApiError { error: e }),
                )
                    .into_response();
            }
            ApiError::Forbidden(e) => (StatusCode::FORBIDDEN, e),
            ApiError::NotFound(e) => (StatusCode::NOT_FOUND, e),
            ApiError::MethodNotAllowed(e) => (StatusCode::METHOD_NOT_ALLOWED, e),
            ApiError::UriTooLong(e) => (StatusCode::URI_TOO_LONG, e),
            ApiError::HeadTooLarge(e) => (StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE, e),
            ApiError::Unavailable(e) => (StatusCode::SERVICE_UNAVAILABLE, e),
            ApiError::Internal => (
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal server error".to_owned(),
            ),
        };
        (status, Json(oxo_protocol::ApiError { error })).into_response()
    }
}

impl From<ServerError> for ApiError {
    fn from(e: ServerError) -> ApiError {
        tracing::error!(error = %e, "HTTP request failed");
        ApiError::Internal
    }
}

type Params = Query<HashMap<String, String>>;

fn param<T: std::str::FromStr>(
    params: &Params,
    name: &str,
    what: &str,
) -> Result<Option<T>, ApiError> {
    params
        .get(name)
        .map(|v| {
            v.parse().map_err(|_| {
                ApiError::BadRequest(format!("{name} must be {what}, not {}", sent(v)))
            })
        })
        .transpose()
}

/// A value from a query, quoted, as an error message shows it: at most
/// 40 characters of it come back (a long one is cut, with `…`).
pub(crate) fn sent(v: &str) -> String {
    let more = if v.chars().count() > 40 { "…" } else { "" };
    format!("\"{v:.40}{more}\"")
}

/// The player id a request proves with `Authorization: Bearer <token>`,
/// or `None` without that header.
///
/// # Errors
///
/// [`ApiError::Unauthorized`] for another scheme, a malformed token or one
/// no player holds.
async fn asker(state: &AppState, headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let unauthorized = || {
        ApiError::Unauthorized(
            "Authorization must be \"Bearer <token>\" with the session token from welcome".into(),
        )
    };
    let token = value
        .to_str()
        .ok()
        .and_then(|v| v.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim())
        .ok_or_else(unauthorized)?;
    if !is_token_shaped(token) {
        return Err(ApiError::Unauthorized(
            "The bearer token is not a session token (64 hex digits, from welcome)".into(),
        ));
    }
    let hash = hash_token(token);
    if let Some(account) = state.shared.accounts.get(&hash) {
        return Ok(Some(account.id.to_string()));
    }
    let row = state.shared.store.player_by_token(hash).await?;
    match row {
        Some(row) => Ok(Some(row.id)),
        None => Err(ApiError::Unauthorized("unknown session token".into())),
    }
}

/// How long `/healthz` waits for its probe write.
const HEALTH_TIMEOUT: Duration = Duration::from_secs(2);

/// `GET /healthz`: 200 `{"status":"ok"}` while the database takes writes,
/// else 503 `{"status":"unhealthy","error":...}` (see `Store::health`).
pub(crate) async fn healthz(State(state): State<AppState>) -> Response {
    match state.shared.store.health(HEALTH_TIMEOUT).await {
        Ok(()) => Json(serde_json::json!({ "status": "ok" })).into_response(),
        Err(error) => {
            tracing::warn!(%error, "health check failed");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Json(serde_json::json!({ "status": "unhealthy", "error": error })),
            )
                .into_response()
        }
    }
}

/// `GET /metrics`.
pub(crate) async fn metrics(State(state): State<AppState>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        state.shared.metrics.render(state.shared.accounts.loaded()),
    )
        .into_response()
}

/// `GET /api/tables`.
pub(crate) async fn tables(State(state): State<AppState>) -> Json<Vec<LobbyTable>> {
    Json(
        state
            .shared
            .lobby
            .snapshot(state.shared.config.lobby_max_tables),
    )
}

/// `GET /api/games?player=&limit=`.
pub(crate) async fn games(
    State(state): State<AppState>,
    headers: HeaderMap,
    params: Params,
) -> Result<Response, ApiError> {
    let asker = asker(&state, &headers).await?;
    let limit =
        param::<u32>(&params, "limit", "a whole number from 1 to 100")?.unwrap_or(DEFAULT_GAMES);
    if !(1..=MAX_GAMES).contains(&limit) {
        return Err(ApiError::BadRequest(format!(
            "limit must be from 1 to {MAX_GAMES}, not {limit}"
        )));
    }
    let player = params.get("player").cloned();
    if player
        .as_ref()
        .is_some_and(|p| p.is_empty() || p.len() > 64)
    {
        return Err(ApiError::BadRequest(format!(
            "player must be a player id (1 to 64 characters, as players.x.id in a table state), not {}",
            sent(player.as_deref().unwrap_or_default())
        )));
    }
    let query = GamesQuery {
        player,
        asker,
        limit,
    };
    let games = state.shared.store.recent_games(query).await?;
    Ok(Json(games).into_response())
}

async fn record(state: &AppState, id: String, headers: &HeaderMap) -> Result<GameRecord, ApiError> {
    let asker = asker(state, headers).await?;
    if id.len() > 64 {
        return Err(ApiError::NotFound(format!("no game has the id {id:.64}")));
    }
    state
        .shared
        .store
        .game_record(&id, asker.as_deref())
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no game has the id {id}")))
}

/// `GET /api/games/{id}`.
pub(crate) async fn game(
    State(state): State<AppState>,
    headers: HeaderMap,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<GameRecord>, ApiError> {
    record(&state, game_id(id)?, &headers).await.map(Json)
}

/// The game id in a path, or the JSON error that says what is wrong with
/// it (axum's own rejection is plain text).
fn game_id(id: Result<Path<String>, PathRejection>) -> Result<String, ApiError> {
    id.map(|Path(id)| id).map_err(|e| {
        ApiError::BadRequest(format!(
            "the game id in the path must be 32 hex digits: {}",
            e.body_text()
        ))
    })
}

/// `GET /api/games/{id}/log?start=&end=`.
pub(crate) async fn game_log(
    State(state): State<AppState>,
    headers: HeaderMap,
    id: Result<Path<String>, PathRejection>,
    params: Params,
) -> Result<Json<LogSlice>, ApiError> {
    let id = game_id(id)?;
    let start = param::<Index>(&params, "start", "a whole number")?.map(|i| i.0);
    let end = param::<Index>(&params, "end", "a whole number")?.map(|i| i.0);
    let record = record(&state, id, &headers).await?;
    let moves = record.moves.iter().map(|m| (m.player, m.cell));
    let log = store::replay(record.id.as_str(), record.first, moves, record.outcome)?.log();
    let total = log.len();
    let start = start.unwrap_or(0);
    let end = end.unwrap_or(total);
    if start > end {
        return Err(ApiError::BadRequest(format!(
            "start ({start}) must not be after end ({end})"
        )));
    }
    let (start, end) = (start.min(total), end.min(total));
    Ok(Json(LogSlice {
        game_id: record.id,
        total,
        start,
        end,
        events: log.slice(start..end).to_vec(),
    }))
}

/// A position in a game's log as a query gives it: any whole number, one
/// too large for a `usize` taken as `usize::MAX` (it is clamped to the
/// log's length all the same).
struct Index(usize);

impl std::str::FromStr for Index {
    type Err = ();

    fn from_str(s: &str) -> Result<Index, ()> {
        match s.parse::<usize>() {
            Ok(n) => Ok(Index(n)),
            Err(e) if *e.kind() == std::num::IntErrorKind::PosOverflow => Ok(Index(usize::MAX)),
            Err(_) => Err(()),
        }
    }
}

/// `GET /api/analyze?position=`.
pub(crate) async fn analyze(params: Params) -> Result<Json<AnalyzeResponse>, ApiError> {
    let text = params.get("position").ok_or_else(|| {
        ApiError::BadRequest("position is required, e.g. ?position=X.O.X....".into())
    })?;
    let position: Position = text
        .parse()
        .map_err(|e| ApiError::BadRequest(format!("position {}: {e}", sent(text))))?;
    let value = solver::value(&position);
    let outcome = position.outcome();
    let moves = if outcome.is_some() {
        Vec::new()
    } else {
        solver::analyze(&position)
            .into_iter()
            .map(|m| MoveAnalysis {
                cell: m.square,
                result: m.value.kind().to_owned(),
                plies: m.value.plies(),
            })
            .collect()
    };
    Ok(Json(AnalyzeResponse {
        position: position.to_string(),
        turn: position.turn(),
        outcome,
        result: value.kind().to_owned(),
        plies: value.plies(),
        moves,
    }))
}

/// A route the server has, asked with a method it does not take (`POST
/// /api/tables`): `405` with a JSON error, like every other refusal of
/// the API (the `Allow` header is axum's).
pub(crate) async fn method_not_allowed(method: Method) -> ApiError {
    ApiError::MethodNotAllowed(format!(
        "{method} is not accepted here: the server's routes answer GET (and HEAD) only"
    ))
}

/// Any other `/api/...` path, `/api` and `/api/` included.
pub(crate) async fn not_found() -> ApiError {
    ApiError::NotFound("no such API endpoint; see docs/protocol.md".into())
}

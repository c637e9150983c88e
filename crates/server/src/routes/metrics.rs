//! `GET /metrics`: the Prometheus text, to `Authorization: Bearer <ADMIRALTY_METRICS_TOKEN>`
//! (compared in constant time, as the webhook's secret is).

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::AppState;

pub(crate) async fn get_metrics(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let Some(door) = &state.metrics else {
        return (StatusCode::NOT_FOUND, "Not found\n").into_response();
    };
    if let Some(token) = &door.token
        && !super::inbound::bearer_matches(&headers, token)
    {
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "Unauthorized: send the metrics token as Authorization: Bearer <token>\n",
        )
            .into_response();
    }
    let text = crate::measures::render(&door.handle, &state.pool, state.clock.now()).await;
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        text,
    )
        .into_response()
}

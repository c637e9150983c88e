//! HTTP requests counted by the route that served them: the matched template
//! (`/zines/{slug}/games/{game}`), or `unmatched` for the fallback, never the raw path.

use std::time::Instant;

use axum::extract::{MatchedPath, Request};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;
use metrics::{counter, histogram};

pub async fn count_requests(request: Request, next: Next) -> Response {
    let route = request.extensions().get::<MatchedPath>().cloned();
    let method = method_label(request.method());
    let started = Instant::now();
    let response = next.run(request).await;
    let took = started.elapsed().as_secs_f64();
    let route = route.map_or_else(|| "unmatched".to_owned(), |r| r.as_str().to_owned());
    let status = response.status().as_u16().to_string();
    counter!("admiralty_http_requests_total", "route" => route.clone(), "method" => method, "status" => status)
        .increment(1);
    histogram!("admiralty_http_request_duration_seconds", "route" => route, "method" => method)
        .record(took);
    response
}

fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        _ => "other",
    }
}

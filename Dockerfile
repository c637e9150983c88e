# syntax=docker/dockerfile:1
# Builds the release `gm` binary, then copies it alone into a slim runtime image.
# The migrations are embedded in the binary; the templates are compiled in. The runtime has
# Debian's chromium, which `gm zine SLUG pdf` prints the zine's issue with.

FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p server --bin gm \
    && cp target/release/gm /usr/local/bin/gm

FROM debian:bookworm-slim AS runtime
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates chromium fonts-liberation \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /nonexistent --shell /usr/sbin/nologin admiralty
COPY --from=build /usr/local/bin/gm /usr/local/bin/gm
USER admiralty
ENV ADMIRALTY_BIND=0.0.0.0:8080 \
    HOME=/tmp \
    ADMIRALTY_LOG_FORMAT=json
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/gm"]
CMD ["serve", "--migrate"]

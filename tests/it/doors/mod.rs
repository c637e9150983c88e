//! The doors under abuse (issue 17): what one unauthenticated client on the open internet can
//! do to the HTTP server, the SMTP listener and the webhook, and what hostile input in forms,
//! links and mail envelopes does. Resource tests use small, fast bounds set through the same
//! settings `gm serve` reads.

mod http;
mod mail;
mod shutdown;
mod smtp;
mod web;

//! What every logged-in page needs, whoever logs in: password hashing, sessions in Postgres
//! behind a cookie, and CSRF tokens on every form. The GM console (`/gm/...`) is built on it,
//! and the player pages (`/play/...`, with magic-link logins) can be too: a session belongs to
//! a [`store::sessions::Principal`].

pub mod csrf;
pub mod password;
pub mod session;

/// `bytes` random bytes from the operating system, as lower-case hex.
pub(crate) fn random_hex(bytes: usize) -> String {
    let mut buffer = vec![0u8; bytes];
    crate::turns::Entropy::fill(&mut crate::turns::OsEntropy, &mut buffer);
    hex::encode(buffer)
}

//! Passwords are kept as argon2id hashes (PHC strings, with their own salt and parameters):
//! GM accounts' and the subscribers' mail passwords (`PASSWORD` lines) alike.

use std::sync::OnceLock;

use argon2::Argon2;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};

/// The shortest password `gm admin add-gm` accepts.
pub const MIN_PASSWORD_CHARS: usize = 12;

#[derive(Debug, thiserror::Error)]
pub enum PasswordError {
    #[error("the password must be at least {MIN_PASSWORD_CHARS} characters long")]
    TooShort,
    #[error("hashing the password failed: {0}")]
    Hash(String),
}

/// Hashes a new GM password, refusing one shorter than [`MIN_PASSWORD_CHARS`].
pub fn hash_gm_password(password: &str) -> Result<String, PasswordError> {
    if password.chars().count() < MIN_PASSWORD_CHARS {
        return Err(PasswordError::TooShort);
    }
    hash(password)
}

/// Hashes a password with argon2id's default (OWASP-recommended) parameters and a fresh salt.
pub fn hash(password: &str) -> Result<String, PasswordError> {
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|hash| hash.to_string())
        .map_err(|e| PasswordError::Hash(e.to_string()))
}

/// Whether `password` matches `stored`. A malformed stored hash matches nothing.
pub fn verify(stored: &str, password: &str) -> bool {
    Argon2::default()
        .verify_password(password.as_bytes(), stored)
        .is_ok()
}

/// Spends the time of a real check when the account does not exist, so the answer's timing does
/// not tell which names exist.
pub fn verify_nothing(password: &str) {
    static DUMMY: OnceLock<Option<String>> = OnceLock::new();
    let dummy = DUMMY.get_or_init(|| hash(&super::random_hex(16)).ok());
    if let Some(dummy) = dummy {
        let _ = verify(dummy, password);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_verifies_its_password_only() {
        let stored = hash("correct horse battery").unwrap();
        assert!(stored.starts_with("$argon2id$"), "{stored}");
        assert!(verify(&stored, "correct horse battery"));
        assert!(!verify(&stored, "correct horse batterY"));
        assert!(!verify("not a hash", "correct horse battery"));
        assert!(matches!(
            hash_gm_password("short"),
            Err(PasswordError::TooShort)
        ));
        assert!(verify(
            &hash_gm_password("correct horse battery").unwrap(),
            "correct horse battery"
        ));
        assert_ne!(hash("correct horse battery").unwrap(), stored, "salted");
    }
}

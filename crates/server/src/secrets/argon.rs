//! argon2id itself, in memory the caller provides (the [`super::Gate`]'s reused blocks), so that
//! no password check allocates its 19 MiB afresh: passwords are kept as argon2id hashes (PHC
//! strings, with their own salt and parameters), GM accounts' and the subscribers' mail
//! passwords alike. Only the gate calls these.

use argon2::password_hash::phc::{Output, ParamsString, PasswordHash, Salt};
use argon2::{Algorithm, Argon2, Block, Params, Version};

/// The memory blocks (1 KiB each) one hash with the default parameters fills: 19 MiB.
pub(super) const BLOCKS: usize = Params::DEFAULT_M_COST as usize;

/// A stored hash that no password matches (its output is random bytes, not a hash of
/// anything), with the default parameters: checking a password against it costs what checking
/// a real one does, so an unknown account answers no faster than a known one.
pub(super) const NOBODY: &str = "$argon2id$v=19$m=19456,t=2,p=1$NZAOJr8CB3nuvxJPX4C0eg$+1woQ57+0oALnzOwzCBP15m/baALJYElv9ElmGy8hBg";

/// Hashes `password` with argon2id's default (OWASP-recommended) parameters and `salt`, in
/// `memory` (at least [`BLOCKS`] blocks).
pub(super) fn hash(password: &[u8], salt: &[u8], memory: &mut [Block]) -> Result<String, String> {
    let params = Params::default();
    let mut out = [0u8; Params::DEFAULT_OUTPUT_LEN];
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone())
        .hash_password_into_with_memory(password, salt, &mut out, memory)
        .map_err(|e| e.to_string())?;
    let phc = PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::V0x13.into()),
        params: ParamsString::try_from(&params).map_err(|e| e.to_string())?,
        salt: Some(Salt::new(salt).map_err(|e| e.to_string())?),
        hash: Some(Output::new(&out).map_err(|e| e.to_string())?),
    };
    Ok(phc.to_string())
}

/// Whether `password` matches `stored`, computed in `memory`. A malformed stored hash, or one
/// whose parameters need more memory than `memory` holds, matches nothing (and says so in the
/// log): the gate's bound on memory holds whatever is stored.
pub(super) fn verify(stored: &str, password: &[u8], memory: &mut [Block]) -> bool {
    let Ok(parsed) = PasswordHash::new(stored) else {
        tracing::error!("a stored password hash is not a PHC string: it matches nothing");
        return false;
    };
    let (Some(salt), Some(expected)) = (&parsed.salt, &parsed.hash) else {
        return false;
    };
    let (Ok(algorithm), Ok(params)) = (
        Algorithm::new(parsed.algorithm.as_str()),
        Params::try_from(&parsed),
    ) else {
        return false;
    };
    let version = match parsed.version.map(Version::try_from).transpose() {
        Ok(version) => version.unwrap_or_default(),
        Err(_) => return false,
    };
    if params.block_count() > memory.len() {
        tracing::error!(
            blocks = params.block_count(),
            "a stored password hash needs more memory than a check may use: it matches nothing"
        );
        return false;
    }
    let mut out = vec![0u8; expected.len()];
    if Argon2::new(algorithm, version, params)
        .hash_password_into_with_memory(password, salt, &mut out, memory)
        .is_err()
    {
        return false;
    }
    // `Output`'s equality is constant-time.
    Output::new(&out).is_ok_and(|computed| &computed == expected)
}

#[cfg(test)]
mod tests {
    use argon2::password_hash::{PasswordHasher, PasswordVerifier};

    use super::*;

    fn memory() -> Vec<Block> {
        vec![Block::default(); BLOCKS]
    }

    #[test]
    fn a_hash_verifies_its_password_only_and_agrees_with_the_crate() {
        let mut memory = memory();
        let stored = hash(b"correct horse battery", b"0123456789abcdef", &mut memory).unwrap();
        assert!(
            stored.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{stored}"
        );
        assert!(verify(&stored, b"correct horse battery", &mut memory));
        assert!(!verify(&stored, b"correct horse batterY", &mut memory));
        assert!(!verify("not a hash", b"correct horse battery", &mut memory));
        // The same hash as argon2's own API, both ways.
        assert!(
            Argon2::default()
                .verify_password(b"correct horse battery", stored.as_str())
                .is_ok()
        );
        let theirs = Argon2::default()
            .hash_password(b"correct horse battery")
            .unwrap()
            .to_string();
        assert!(verify(&theirs, b"correct horse battery", &mut memory));
    }

    #[test]
    fn nobody_costs_a_real_check_and_matches_nothing() {
        let parsed = PasswordHash::new(NOBODY).unwrap();
        assert_eq!(
            Params::try_from(&parsed).unwrap().m_cost(),
            Params::DEFAULT_M_COST
        );
        assert_eq!(
            Params::try_from(&parsed).unwrap().t_cost(),
            Params::DEFAULT_T_COST
        );
        assert_eq!(parsed.algorithm.as_str(), "argon2id");
        assert!(!verify(NOBODY, b"", &mut memory()));
    }

    #[test]
    fn a_hash_that_needs_more_memory_than_given_matches_nothing() {
        let params = Params::new(BLOCKS as u32 * 2, 1, 1, None).unwrap();
        let big = Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
            .hash_password_with_salt(b"pw", b"0123456789abcdef")
            .unwrap()
            .to_string();
        assert!(!verify(&big, b"pw", &mut memory()));
    }
}

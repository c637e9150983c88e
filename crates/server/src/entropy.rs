//! Where randomness comes from: the operating system in service, a fixed stream in tests (and
//! the demo's, derived from its secret). Games' dice secrets and reply tokens are drawn here.

/// Where randomness comes from: the operating system in service, a fixed stream in tests.
pub trait Entropy {
    fn fill(&mut self, bytes: &mut [u8]);

    /// A fresh 32-byte secret: a game's dice secret.
    fn secret(&mut self) -> [u8; 32] {
        let mut secret = [0u8; 32];
        self.fill(&mut secret);
        secret
    }
}

/// The operating system's randomness.
pub struct OsEntropy;

impl Entropy for OsEntropy {
    fn fill(&mut self, bytes: &mut [u8]) {
        // The OS generator failing is not something a game can carry on from.
        #[allow(clippy::expect_used, reason = "no randomness, no secure game")]
        getrandom::fill(bytes).expect("the operating system's random number generator failed");
    }
}

/// A fresh, unguessable reply token: the secret part of a player's `orders+TOKEN` address.
pub(crate) fn new_reply_token(entropy: &mut impl Entropy) -> String {
    let mut token = [0u8; 20];
    entropy.fill(&mut token);
    hex::encode(token)
}

//! Verifiable dice: one ChaCha20 stream per turn, committed to before the turn opens and
//! revealed after it resolves, so anyone can replay a published turn.

use std::collections::VecDeque;
use std::fmt;

use rand_chacha::ChaCha20Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// A game's secret: the root of every turn's seed. Never published; only turn seeds are.
#[derive(Clone, PartialEq, Eq)]
pub struct GameSecret([u8; 32]);

impl GameSecret {
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }

    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The open seed of one turn (turn 0 is the game's setup): SHA-256 over a domain tag, the
    /// secret and the turn number. It is revealed once the turn is resolved; revealing it says
    /// nothing about any other turn's seed.
    pub fn turn_seed(&self, turn: u32) -> TurnSeed {
        self.derive(b"admiralty/turn-seed/v1", turn)
    }

    /// The sealed seed of one turn: the draws that decide hidden facts (where a ship is placed,
    /// which of its squares a penalty hits). Revealed only when the game ends and every fact is
    /// public, so a revealed open seed can never be used to work out a hidden position.
    pub fn sealed_seed(&self, turn: u32) -> TurnSeed {
        self.derive(b"admiralty/sealed-seed/v1", turn)
    }

    /// The seed that seats the players of a game filled by sign-up at random: its commitment
    /// is published while sign-ups are open, the seed itself when the game starts (the seating
    /// is public then), and it says nothing about any turn's seeds.
    pub fn seating_seed(&self) -> TurnSeed {
        self.derive(b"admiralty/seating-seed/v1", 0)
    }

    /// Both dice streams of one turn.
    pub fn turn_dice(&self, turn: u32) -> TurnDice {
        TurnDice {
            open: Dice::from_seed(&self.turn_seed(turn)),
            sealed: Dice::from_seed(&self.sealed_seed(turn)),
        }
    }

    fn derive(&self, tag: &[u8], turn: u32) -> TurnSeed {
        let mut hasher = Sha256::new();
        hasher.update(tag);
        hasher.update(self.0);
        hasher.update(turn.to_be_bytes());
        TurnSeed(hasher.finalize().into())
    }
}

impl fmt::Debug for GameSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("GameSecret(..)")
    }
}

/// The seed of one turn's dice, published (as hex) once the turn is resolved.
#[derive(Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct TurnSeed([u8; 32]);

impl TurnSeed {
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }

    /// Parses the 64 hex digits a published report shows.
    pub fn parse_hex(text: &str) -> Result<Self, SeedError> {
        let mut bytes = [0u8; 32];
        hex::decode_to_slice(text.trim(), &mut bytes).map_err(|_| SeedError::NotHex)?;
        Ok(Self(bytes))
    }

    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    /// The public commitment to this seed: hex SHA-256 of its 32 bytes. Published when the turn
    /// opens, so the GM cannot change the dice after seeing the orders.
    pub fn commitment(&self) -> String {
        hex::encode(Sha256::digest(self.0))
    }

    /// Does this seed match a commitment published earlier?
    pub fn matches(&self, commitment: &str) -> bool {
        self.commitment().eq_ignore_ascii_case(commitment.trim())
    }
}

impl fmt::Debug for TurnSeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TurnSeed({})", self.to_hex())
    }
}

impl From<TurnSeed> for String {
    fn from(seed: TurnSeed) -> Self {
        seed.to_hex()
    }
}

impl TryFrom<String> for TurnSeed {
    type Error = SeedError;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        Self::parse_hex(&text)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SeedError {
    #[error("a seed is 64 hexadecimal digits")]
    NotHex,
}

/// What a scatter die shows: the "hit" face, or an arrow with a bearing in whole degrees
/// (0 = up the map, clockwise).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Scatter {
    Hit,
    Arrow { bearing: u16 },
}

/// The two streams an engine draws from in one turn: `open` for what the report shows (to-hit
/// rolls, nukes, initiative), `sealed` for hidden facts (placements, penalty squares).
pub struct TurnDice {
    pub open: Dice,
    pub sealed: Dice,
}

impl TurnDice {
    pub fn from_seeds(open: &TurnSeed, sealed: &TurnSeed) -> Self {
        Self {
            open: Dice::from_seed(open),
            sealed: Dice::from_seed(sealed),
        }
    }

    /// Scripted streams, for tests.
    pub fn scripted(
        open: impl IntoIterator<Item = u32>,
        sealed: impl IntoIterator<Item = u32>,
    ) -> Self {
        Self {
            open: Dice::scripted(open),
            sealed: Dice::scripted(sealed),
        }
    }
}

/// One die thrown, kept so that reports can show the dice ("with dice shown").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Roll {
    pub faces: u32,
    pub value: u32,
}

/// The dice of one turn. Engines take every random decision from here and nowhere else.
///
/// Values are drawn from the ChaCha20 word stream by rejection sampling written here, not by
/// `rand`'s range helpers, so that a `rand` upgrade cannot change a published turn.
pub struct Dice {
    source: Source,
    rolls: Vec<Roll>,
}

enum Source {
    Stream(Box<ChaCha20Rng>),
    /// Faces given in advance, for tests that must not depend on the stream.
    Scripted(VecDeque<u32>),
}

impl Dice {
    pub fn from_seed(seed: &TurnSeed) -> Self {
        Self {
            source: Source::Stream(Box::new(ChaCha20Rng::from_seed(seed.0))),
            rolls: Vec::new(),
        }
    }

    /// Dice that show the given values in order: a face for `roll`, an index for `pick`.
    /// For tests: running out, or a value out of range, is a bug in the test and panics.
    pub fn scripted(values: impl IntoIterator<Item = u32>) -> Self {
        Self {
            source: Source::Scripted(values.into_iter().collect()),
            rolls: Vec::new(),
        }
    }

    /// A value in `range`: uniform from the stream, or the script's next value.
    #[allow(
        clippy::panic,
        reason = "scripted dice exist only in tests; a bad script is a test bug"
    )]
    fn draw(&mut self, range: std::ops::RangeInclusive<u32>) -> u32 {
        let (low, high) = (*range.start(), *range.end());
        match &mut self.source {
            Source::Stream(rng) => {
                let span = u64::from(high.saturating_sub(low)) + 1;
                // Reject the top partial block of the u32 range, so every value is equally likely.
                let zone = (1u64 << 32) - (1u64 << 32) % span;
                loop {
                    let word = u64::from(rng.next_u32());
                    if word < zone {
                        // word % span < span <= 2^32, and low + it <= high: no overflow.
                        return low + (word % span) as u32;
                    }
                }
            }
            Source::Scripted(values) => match values.pop_front() {
                Some(value) if range.contains(&value) => value,
                Some(value) => panic!("scripted dice: {value} is outside {low}..={high}"),
                None => panic!("scripted dice ran out"),
            },
        }
    }

    /// One die with `faces` faces: a value in `1..=faces`, recorded in the roll log.
    pub fn roll(&mut self, faces: u32) -> u32 {
        let value = self.draw(1..=faces.max(1));
        self.rolls.push(Roll { faces, value });
        value
    }

    pub fn d3(&mut self) -> u32 {
        self.roll(3)
    }

    pub fn d6(&mut self) -> u32 {
        self.roll(6)
    }

    pub fn d8(&mut self) -> u32 {
        self.roll(8)
    }

    pub fn d20(&mut self) -> u32 {
        self.roll(20)
    }

    /// Two six-sided dice added together.
    pub fn two_d6(&mut self) -> u32 {
        self.d6() + self.d6()
    }

    /// Three six-sided dice added together.
    pub fn three_d6(&mut self) -> u32 {
        self.d6() + self.d6() + self.d6()
    }

    /// A uniform bearing in whole degrees, 0..=359.
    pub fn bearing(&mut self) -> u16 {
        // At most 359, so the cast cannot truncate.
        self.draw(0..=359) as u16
    }

    /// The standard scatter die: two "hit" faces and four arrows, the arrow's bearing uniform.
    pub fn scatter(&mut self) -> Scatter {
        if self.d6() <= 2 {
            Scatter::Hit
        } else {
            Scatter::Arrow {
                bearing: self.bearing(),
            }
        }
    }

    /// A uniform choice among `count` things (placements, cells): an index in `0..count`.
    /// Not a die, so not in the roll log. `count` must be at least 1.
    pub fn pick(&mut self, count: usize) -> usize {
        let last = u32::try_from(count.saturating_sub(1)).unwrap_or(u32::MAX);
        self.draw(0..=last) as usize
    }

    /// Every die thrown so far, in order.
    pub fn rolls(&self) -> &[Roll] {
        &self.rolls
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed() -> TurnSeed {
        GameSecret::from_bytes([7; 32]).turn_seed(3)
    }

    #[test]
    fn the_stream_is_locked() {
        // If this changes, every published turn would replay differently: a dependency
        // upgrade must never change it.
        let mut dice = Dice::from_seed(&seed());
        let faces: Vec<u32> = (0..12).map(|_| dice.d6()).collect();
        assert_eq!(faces, vec![6, 4, 4, 5, 2, 2, 4, 4, 6, 3, 1, 5]);
        // SHA-256("admiralty/turn-seed/v1" || 32 x 0x07 || 3u32 big-endian), as Python's hashlib gives.
        assert_eq!(
            seed().to_hex(),
            "09e724288d05be03f8f03a349a9cb686ecf5f237e513fa2cab909c6703fb2c8e"
        );
    }

    #[test]
    fn the_stream_is_chacha20() {
        // RFC 7539 section 2.3.2's predecessor vector: ChaCha20, zero key, zero nonce, block 0
        // begins 76 b8 e0 ad a0 f1 3d 90, i.e. the little-endian words 0xade0b876, 0x903df1a0.
        let Source::Stream(mut rng) = Dice::from_seed(&TurnSeed::from_bytes([0; 32])).source else {
            unreachable!()
        };
        assert_eq!(rng.next_u32(), 0xade0_b876);
        assert_eq!(rng.next_u32(), 0x903d_f1a0);
    }

    #[test]
    fn commitment_is_sha256_of_the_seed_and_checks() {
        let seed = TurnSeed::from_bytes([0; 32]);
        // SHA-256 of 32 zero bytes.
        assert_eq!(
            seed.commitment(),
            "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
        );
        assert!(seed.matches(&seed.commitment().to_uppercase()));
        assert!(!TurnSeed::from_bytes([1; 32]).matches(&seed.commitment()));
    }

    #[test]
    fn turn_seeds_differ_by_turn_secret_and_stream() {
        let secret = GameSecret::from_bytes([1; 32]);
        assert_ne!(secret.turn_seed(1), secret.turn_seed(2));
        assert_ne!(secret.turn_seed(1), secret.sealed_seed(1));
        assert_ne!(
            secret.turn_seed(1),
            GameSecret::from_bytes([2; 32]).turn_seed(1)
        );
    }

    #[test]
    fn seeds_round_trip_through_hex_and_json() {
        let seed = seed();
        assert_eq!(TurnSeed::parse_hex(&seed.to_hex()), Ok(seed));
        let json = serde_json::to_string(&seed).unwrap();
        assert_eq!(serde_json::from_str::<TurnSeed>(&json).unwrap(), seed);
        assert_eq!(TurnSeed::parse_hex("xyz"), Err(SeedError::NotHex));
    }

    #[test]
    fn every_die_stays_on_its_faces_and_shows_them_all() {
        let mut dice = Dice::from_seed(&seed());
        for faces in [3u32, 6, 8, 20] {
            let mut seen = vec![false; faces as usize + 1];
            for _ in 0..2000 {
                let value = dice.roll(faces);
                assert!((1..=faces).contains(&value));
                seen[value as usize] = true;
            }
            assert!(
                seen[1..].iter().all(|s| *s),
                "d{faces} never showed some face"
            );
        }
        for _ in 0..500 {
            assert!((2..=12).contains(&dice.two_d6()));
            assert!((3..=18).contains(&dice.three_d6()));
            assert!(dice.bearing() < 360);
            assert!(dice.pick(7) < 7);
        }
    }

    #[test]
    fn scatter_die_shows_hit_about_a_third_of_the_time() {
        let mut dice = Dice::from_seed(&seed());
        let hits = (0..6000).filter(|_| dice.scatter() == Scatter::Hit).count();
        assert!((1800..2200).contains(&hits), "{hits} hits in 6000");
    }

    #[test]
    fn scripted_dice_show_their_script_and_log_rolls() {
        let mut dice = Dice::scripted([6, 1, 4, 2]);
        assert_eq!(dice.d6(), 6);
        assert_eq!(dice.d20(), 1);
        assert_eq!(dice.pick(10), 4);
        assert_eq!(dice.d3(), 2);
        assert_eq!(
            dice.rolls(),
            &[
                Roll { faces: 6, value: 6 },
                Roll {
                    faces: 20,
                    value: 1
                },
                Roll { faces: 3, value: 2 }
            ]
        );
    }
}

//! What a player signs to claim a game they send to a server, and how the server checks
//! it: shared by the client (`sandglass submit`) and the server, so that both build the
//! same message from the same parts.
//!
//! A player is a key: the client makes an ed25519 key pair on first use and a server
//! binds a name to the first key that claims it, so no password is ever stored or sent.
//! A submission carries the `.sgr` bytes, the player's name, their public key and a
//! signature over a [`Claim`]: the server's base URL, the name and the bytes' SHA-256.
//! Each part is there to refuse one forgery:
//! * the content hash: the signature holds for these bytes only, so no other game (nor
//!   these bytes changed) can ride on it;
//! * the name: a key's signature for one name cannot be shown for another;
//! * the server's URL: a submission captured on one server cannot be replayed to claim
//!   the same name on another, where the player may hold no name yet.
//!
//! An upload already claimed by one key is refused to every other (the server's part),
//! so someone who takes a player's file and signs it with their own key gets nothing.

#![forbid(unsafe_code)]

use std::fmt;

use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use sha2::{Digest, Sha256};
use thiserror::Error;

/// The request headers a submission's claim travels in, beside the bytes in its body.
pub const PLAYER_HEADER: &str = "x-sandglass-player";
pub const KEY_HEADER: &str = "x-sandglass-key";
pub const SIGNATURE_HEADER: &str = "x-sandglass-signature";

/// The first line of every signed message: what the signature is for, and in which
/// layout, so that a signature made for anything else can never pass as a claim.
const CONTEXT: &str = "sandglass claim 1";

/// The longest name a player may take.
pub const MOST_NAME_CHARS: usize = 32;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum ClaimError {
    #[error("a player's name is 1 to {MOST_NAME_CHARS} letters, digits, '-' or '_'")]
    BadName,
    #[error("the public key is not 64 hexadecimal digits of an ed25519 key")]
    BadKey,
    #[error("the signature is not 128 hexadecimal digits")]
    BadSignature,
    #[error("the signature does not match this game, this name and this server under this key")]
    Forged,
    #[error("the key file is damaged: it should hold 64 hexadecimal digits")]
    BadSecret,
    #[error("the system gave no randomness to make a key: {0}")]
    NoRandomness(String),
}

/// The SHA-256 of a game's bytes: the key the server stores them under, and what a
/// claim signs.
pub fn content_hash(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// What starting a daily run claims: the player asks for the desert of this UTC day
/// (`YYYY-MM-DD`) under this ruleset. A claim over it serves for no other day.
pub fn daily_start_content(day: &str, ruleset: &str) -> [u8; 32] {
    content_hash(format!("sandglass daily start\n{day}\n{ruleset}").as_bytes())
}

/// What starting a dealt run claims: the player asks for the desert of this UTC day
/// under this ruleset, its draws dealt by the server. A claim over it starts nothing else.
pub fn daily_deal_content(day: &str, ruleset: &str) -> [u8; 32] {
    content_hash(format!("sandglass daily deal\n{day}\n{ruleset}").as_bytes())
}

/// What a dealt run's command claims: these bytes, as the run's event at index `at`. A
/// claim over it serves for no other run, no other place and no stretch.
pub fn command_content(run: i64, at: u64, bytes: &[u8]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(format!("sandglass run command\n{run}\n{at}\n"));
    hasher.update(bytes);
    hasher.finalize().into()
}

/// What a stretch of a live run's events claims: these bytes, as the run's events from
/// the index `first` on. A claim over it serves for no other run and no other place.
pub fn stretch_content(run: i64, first: u64, bytes: &[u8]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(format!("sandglass run stretch\n{run}\n{first}\n"));
    hasher.update(bytes);
    hasher.finalize().into()
}

/// The line a day's commitment is the SHA-256 of, once its seed and salt are shown:
/// `printf %s 'LINE' | sha256sum` checks it. The seed is in decimal, as the day's row
/// keeps it and its page shows it, so that the server commits to and shows one text.
pub fn daily_commitment_line(day: &str, ruleset: &str, seed: &str, salt: &str) -> String {
    format!("sandglass daily {day} {ruleset} {seed} {salt}")
}

/// Lower-case hexadecimal, as keys, hashes and signatures travel and are shown.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes `text` spells in hexadecimal (either case), if it spells exactly `N`.
pub fn from_hex<const N: usize>(text: &str) -> Option<[u8; N]> {
    let text = text.as_bytes();
    if text.len() != 2 * N {
        return None;
    }
    let mut out = [0; N];
    for (byte, pair) in out.iter_mut().zip(text.chunks(2)) {
        let pair = std::str::from_utf8(pair).ok()?;
        *byte = u8::from_str_radix(pair, 16).ok()?;
    }
    Some(out)
}

/// Checks a player's name: short, and plain enough to sit in a URL, a page and a
/// one-line message unescaped.
pub fn check_name(name: &str) -> Result<(), ClaimError> {
    let plain = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    match !name.is_empty() && name.len() <= MOST_NAME_CHARS && name.chars().all(plain) {
        true => Ok(()),
        false => Err(ClaimError::BadName),
    }
}

/// A server's base URL as both sides sign it: without the slashes it may end in, so
/// that `http://host:8080/` and `http://host:8080` are the same server.
pub fn server_base(url: &str) -> &str {
    url.trim_end_matches('/')
}

/// What a signature claims: that the player under this name sends these bytes to this
/// server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim<'a> {
    pub server: &'a str,
    pub player: &'a str,
    pub content: [u8; 32],
}

impl Claim<'_> {
    /// The signed bytes: one line per part, the context first. A name holds no newline
    /// (`check_name`) and the content hash is hexadecimal, so the lines cannot be
    /// shifted to make one claim read as another.
    fn message(&self) -> Vec<u8> {
        let server = server_base(self.server);
        format!(
            "{CONTEXT}\n{server}\n{}\n{}",
            self.player,
            hex(&self.content)
        )
        .into_bytes()
    }

    /// Checks `signature` (hexadecimal) against the claim under the public key `key`
    /// (hexadecimal), and the name's form.
    pub fn check(&self, key: &str, signature: &str) -> Result<(), ClaimError> {
        check_name(self.player)?;
        let key = from_hex::<32>(key).ok_or(ClaimError::BadKey)?;
        let key = VerifyingKey::from_bytes(&key).map_err(|_| ClaimError::BadKey)?;
        let signature = from_hex::<64>(signature).ok_or(ClaimError::BadSignature)?;
        let signature = Signature::from_bytes(&signature);
        key.verify_strict(&self.message(), &signature)
            .map_err(|_| ClaimError::Forged)
    }
}

/// A player's key pair.
pub struct Identity(SigningKey);

impl Identity {
    /// A new key pair from the system's randomness.
    pub fn generate() -> Result<Identity, ClaimError> {
        let mut secret = [0; 32];
        getrandom::fill(&mut secret).map_err(|e| ClaimError::NoRandomness(e.to_string()))?;
        Ok(Identity(SigningKey::from_bytes(&secret)))
    }

    /// The key pair whose secret `text` spells (as `secret_hex` wrote it).
    pub fn from_secret_hex(text: &str) -> Result<Identity, ClaimError> {
        let secret = from_hex::<32>(text.trim()).ok_or(ClaimError::BadSecret)?;
        Ok(Identity(SigningKey::from_bytes(&secret)))
    }

    /// The secret, as the key file holds it.
    pub fn secret_hex(&self) -> String {
        hex(self.0.as_bytes())
    }

    /// The public key, as a submission sends it.
    pub fn public_hex(&self) -> String {
        hex(self.0.verifying_key().as_bytes())
    }

    /// The signature of `claim`, as a submission sends it.
    pub fn sign(&self, claim: &Claim) -> String {
        hex(&self.0.sign(&claim.message()).to_bytes())
    }
}

/// Never the secret, should an identity end up in a log.
impl fmt::Debug for Identity {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "Identity({})", self.public_hex())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim<'a>(server: &'a str, player: &'a str, bytes: &[u8]) -> Claim<'a> {
        Claim {
            server,
            player,
            content: content_hash(bytes),
        }
    }

    #[test]
    fn a_signed_claim_checks_and_any_other_does_not() {
        let me = Identity::generate().unwrap();
        let signed = claim("http://s:1/", "camel", b"game");
        let signature = me.sign(&signed);
        assert_eq!(signed.check(&me.public_hex(), &signature), Ok(()));
        // The same server written with or without its slash.
        let bare = claim("http://s:1", "camel", b"game");
        assert_eq!(bare.check(&me.public_hex(), &signature), Ok(()));
        for other in [
            claim("http://s:1", "camel", b"gamE"),
            claim("http://s:1", "camel2", b"game"),
            claim("http://t:1", "camel", b"game"),
        ] {
            assert_eq!(
                other.check(&me.public_hex(), &signature),
                Err(ClaimError::Forged)
            );
        }
        let someone = Identity::generate().unwrap();
        assert_eq!(
            signed.check(&someone.public_hex(), &signature),
            Err(ClaimError::Forged)
        );
    }

    #[test]
    fn malformed_parts_are_named() {
        let me = Identity::generate().unwrap();
        let signed = claim("http://s", "camel", b"game");
        let signature = me.sign(&signed);
        assert_eq!(signed.check("00", &signature), Err(ClaimError::BadKey));
        assert_eq!(
            signed.check(&me.public_hex(), "zz"),
            Err(ClaimError::BadSignature)
        );
        for name in ["", "a b", "new\nline", &"x".repeat(33), "é"] {
            let bad = claim("http://s", name, b"game");
            assert_eq!(
                bad.check(&me.public_hex(), &signature),
                Err(ClaimError::BadName)
            );
        }
    }

    #[test]
    fn what_a_run_signs_serves_for_nothing_else() {
        let stretch = stretch_content(7, 100, b"events");
        for other in [
            stretch_content(8, 100, b"events"),
            stretch_content(7, 101, b"events"),
            stretch_content(7, 100, b"eventS"),
            // The run and the index cannot be shifted into the bytes.
            stretch_content(7, 1, b"00\nevents"),
            daily_start_content("2026-11-26", "nethack"),
            daily_deal_content("2026-11-26", "nethack"),
            command_content(7, 100, b"events"),
            content_hash(b"events"),
        ] {
            assert_ne!(stretch, other);
        }
        assert_ne!(command_content(7, 1, b"c"), command_content(7, 2, b"c"));
        assert_ne!(command_content(7, 1, b"c"), command_content(8, 1, b"c"));
        assert_ne!(
            daily_start_content("2026-11-26", "nethack"),
            daily_start_content("2026-11-27", "nethack")
        );
        assert_ne!(
            daily_start_content("2026-11-26", "nethack"),
            daily_start_content("2026-11-26", "classic")
        );
        assert_eq!(
            daily_commitment_line("2026-11-26", "nethack", "42", "ab"),
            "sandglass daily 2026-11-26 nethack 42 ab"
        );
    }

    #[test]
    fn a_secret_reads_back_as_the_same_key() {
        let me = Identity::generate().unwrap();
        let again = Identity::from_secret_hex(&format!("{}\n", me.secret_hex())).unwrap();
        assert_eq!(again.public_hex(), me.public_hex());
        assert_eq!(
            Identity::from_secret_hex("12").unwrap_err(),
            ClaimError::BadSecret
        );
        assert!(!format!("{me:?}").contains(&me.secret_hex()));
    }
}

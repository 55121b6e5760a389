//! A seed as a player types it, on the start screen or after `sandglass play --seed`:
//! digits are the number they spell (up to 18446744073709551615); any other text is
//! hashed, the one way this module documents, so that a phrase shared by players starts
//! the same game for each of them: the seed is xxh3-64 (seed 0) of the text's UTF-8
//! bytes. Spaces before and after are not part of the seed.

use xxhash_rust::xxh3::xxh3_64;

/// The seed `text` names, or `None` for no text at all.
pub fn seed_of(text: &str) -> Option<u64> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let digits = text.bytes().all(|b| b.is_ascii_digit());
    match text.parse::<u64>() {
        Ok(number) if digits => Some(number),
        _ => Some(xxh3_64(text.as_bytes())),
    }
}

/// `seed_of` for the command line: a blank seed is refused in words.
pub fn parse(text: &str) -> Result<u64, String> {
    seed_of(text).ok_or_else(|| "a seed is digits or any text, not nothing".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_are_the_number_and_other_text_is_its_xxh3() {
        assert_eq!(seed_of("0"), Some(0));
        assert_eq!(seed_of("42"), Some(42));
        assert_eq!(seed_of(" 007 "), Some(7));
        assert_eq!(seed_of("18446744073709551615"), Some(u64::MAX));
        // Fixed vectors: xxh3-64 of the UTF-8 bytes, seed 0, as the reference C library
        // (libxxhash 0.8, `XXH3_64bits`) gives them. They never change, or every
        // shared seed would start another game.
        assert_eq!(seed_of("camel"), Some(0x7090_a850_f133_8e75));
        assert_eq!(seed_of("oasis at dawn"), Some(0xd01d_8888_09ed_8742));
        assert_eq!(seed_of("ψάμμος"), Some(0x1ebe_9d52_7560_7994));
        // Past u64, or signed, or with spaces inside: text, hashed.
        assert_eq!(
            seed_of("18446744073709551616"),
            Some(xxh3_64(b"18446744073709551616"))
        );
        assert_eq!(seed_of("+5"), Some(xxh3_64(b"+5")));
        assert_eq!(seed_of("1 2"), Some(xxh3_64(b"1 2")));
        assert_eq!(seed_of("  "), None);
        assert_eq!(seed_of(""), None);
        assert!(parse("").is_err());
        assert_eq!(parse("camel"), seed_of("camel").ok_or(String::new()));
    }
}

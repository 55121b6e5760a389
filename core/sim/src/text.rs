//! The small grammar of the game's English: articles and capitals, in one place.

/// `noun` with its indefinite article: "a date", "an elephant".
pub fn a(noun: &str) -> String {
    let vowel = noun
        .chars()
        .next()
        .is_some_and(|c| "aeiouAEIOU".contains(c));
    format!("{} {noun}", if vowel { "an" } else { "a" })
}

/// `text` with its first letter in capitals.
pub fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn articles_follow_the_sound_of_the_noun() {
        assert_eq!(a("date"), "a date");
        assert_eq!(a("elephant"), "an elephant");
        assert_eq!(a("egg"), "an egg");
        assert_eq!(a("spider egg"), "a spider egg");
    }

    #[test]
    fn capitals_touch_the_first_letter_only() {
        assert_eq!(capitalise("the snake bites you."), "The snake bites you.");
        assert_eq!(capitalise(""), "");
    }
}

//! The small grammar of the game's English: articles and capitals, in one place.

/// `noun` with its indefinite article: "a date", "an elephant".
pub fn a(noun: &str) -> String {
    let vowel = noun
        .chars()
        .next()
        .is_some_and(|c| "aeiouAEIOU".contains(c));
    format!("{} {noun}", if vowel { "an" } else { "a" })
}

/// The plural of a name: of its head noun, the word before " of " if there is one
/// ("mushrooms of healing"), else the last ("cactus fruits").
pub fn plural(name: &str) -> String {
    let (head, tail) = match name.find(" of ") {
        Some(at) => name.split_at(at),
        None => (name, ""),
    };
    format!("{head}s{tail}")
}

/// `count` of `name`: "a date", "3 dates".
pub fn counted(name: &str, count: u16) -> String {
    if count == 1 {
        a(name)
    } else {
        format!("{count} {}", plural(name))
    }
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
    fn plurals_take_the_head_noun() {
        assert_eq!(counted("date", 3), "3 dates");
        assert_eq!(counted("cactus fruit", 2), "2 cactus fruits");
        assert_eq!(counted("mushroom of healing", 2), "2 mushrooms of healing");
        assert_eq!(counted("red mushroom", 1), "a red mushroom");
        assert_eq!(counted("elephant", 1), "an elephant");
    }

    #[test]
    fn capitals_touch_the_first_letter_only() {
        assert_eq!(capitalise("the snake bites you."), "The snake bites you.");
        assert_eq!(capitalise(""), "");
    }
}

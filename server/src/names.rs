//! How the server writes what it names in its paths and its tables: a game's content
//! hash and a ruleset's label. It imports nothing of the server, so that every module,
//! the lowest too, can name things the one way.

use sandglass_sim::tape::{TimeModel, TurnOrder};
use sandglass_sim::Ruleset;

/// Whether `text` is a content hash as the server writes them: 64 lower-case hex digits.
pub fn is_hash(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A ruleset as the boards name it: `classic` or `nethack` for the named ones, and the
/// figures that differ for any other (`classic-50-100-weighted`), so that games played
/// under different time rules are never ranked together.
pub fn ruleset_label(ruleset: &Ruleset) -> String {
    if Ruleset::NAMED.contains(ruleset) {
        return ruleset.name().to_owned();
    }
    let time = match ruleset.time {
        TimeModel::Classic { gain, threshold } => format!("classic-{gain}-{threshold}"),
        TimeModel::Nethack => "nethack".to_owned(),
    };
    match ruleset.order {
        TurnOrder::Initiative => time,
        TurnOrder::WeightedEachTick => format!("{time}-weighted"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rulesets_are_named_apart_by_every_figure_that_differs() {
        assert_eq!(ruleset_label(&Ruleset::CLASSIC), "classic");
        assert_eq!(ruleset_label(&Ruleset::NETHACK), "nethack");
        let weighted = Ruleset {
            time: TimeModel::Classic {
                gain: 50,
                threshold: 100,
            },
            order: TurnOrder::WeightedEachTick,
        };
        assert_eq!(ruleset_label(&weighted), "classic-50-100-weighted");
        let weighted_nethack = Ruleset {
            order: TurnOrder::WeightedEachTick,
            ..Ruleset::NETHACK
        };
        assert_eq!(ruleset_label(&weighted_nethack), "nethack-weighted");
    }
}

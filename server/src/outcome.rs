//! A game's outcome between the simulation, the tables and the wire: the simulation's
//! `Outcome` told in the protocol's one spelling, which the tables' `outcome` columns
//! hold, and those columns read back as it, a word it does not know being an error.

use sandglass_protocol::Outcome;

/// How the simulation's game ended, as the tables and the wire spell it.
pub fn outcome_of(outcome: sandglass_sim::Outcome) -> Outcome {
    match outcome {
        sandglass_sim::Outcome::Won => Outcome::Won,
        sandglass_sim::Outcome::Died => Outcome::Died,
        sandglass_sim::Outcome::Quit => Outcome::Quit,
    }
}

/// An `outcome` column as read: none for a game still in play.
pub fn stored_outcome(word: Option<String>) -> anyhow::Result<Option<Outcome>> {
    Ok(word.map(|word| word.parse()).transpose()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_hold_what_the_wire_says() {
        for (sim, word) in [
            (sandglass_sim::Outcome::Won, "won"),
            (sandglass_sim::Outcome::Died, "died"),
            (sandglass_sim::Outcome::Quit, "quit"),
        ] {
            assert_eq!(outcome_of(sim).as_str(), word);
            let stored = stored_outcome(Some(word.to_owned())).unwrap();
            assert_eq!(stored, Some(outcome_of(sim)));
        }
        assert_eq!(stored_outcome(None).unwrap(), None);
        assert!(stored_outcome(Some("lost".to_owned())).is_err());
    }
}

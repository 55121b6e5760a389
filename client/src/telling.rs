//! What the player is told of a command's messages, in the names the camel knows: a
//! flask of sweet water once it knows the amber flask for one, not "an amber flask".
//!
//! The fold's own words (`Msg`'s `Display`) name an unknown find by its look, since a
//! message does not know what the camel will learn. Told live, right after the command,
//! what the camel knows then is what it knew as it happened, but for a find the same
//! command identified (a mushroom eaten): that one keeps its look, and the line that
//! identifies it says what it was.

use sandglass_sim::item::{unknown_name, Item};
use sandglass_sim::message::Msg;
use sandglass_sim::world::World;

/// The lines the player reads for one command's `messages`, in order.
pub fn tell(world: &World, messages: &[Msg]) -> Vec<String> {
    let learnt = |item: Item| {
        messages.iter().any(|m| match (m, item) {
            (Msg::Identified { look, .. }, Item::Mushroom(l)) => *look == l,
            (Msg::Drank { glass, .. }, Item::Flask(g)) => *glass == g,
            (Msg::Cracked { stone, .. }, Item::Scarab(s)) => *stone == s,
            _ => false,
        })
    };
    let named = |item: Item| match learnt(item) {
        true => unknown_name(item),
        false => world.item_name(item),
    };
    messages
        .iter()
        .map(|msg| msg.words(named).to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sandglass_sim::item::{Effect, Glass, Look};
    use sandglass_sim::{LiveTape, Rules, Ruleset};

    /// Unknown, a find is told by its look, as the fold tells it; and a mushroom eaten
    /// and identified by the same command keeps its look in the line that eats it.
    #[test]
    fn unknown_finds_and_finds_learnt_by_the_command_keep_their_looks() {
        let game = LiveTape::new(Rules::newest(Ruleset::NETHACK), 1);
        let world = game.state().world();
        let flask = Item::Flask(Glass::Amber);
        let told = tell(world, &[Msg::PickedUp(flask), Msg::Dropped(Item::Date)]);
        assert_eq!(told, ["You pick up an amber flask.", "You drop a date."]);
        let mushroom = Item::Mushroom(Look::Red);
        let eaten = [
            Msg::Ate(mushroom),
            Msg::Identified {
                look: Look::Red,
                effect: Effect::Heal,
            },
        ];
        let told = tell(world, &eaten);
        assert_eq!(told[0], "You eat a red mushroom.");
        assert_eq!(told[1], eaten[1].to_string());
    }

    /// A find the camel knows is told by what it is, wherever a message names it.
    #[test]
    fn a_known_find_is_told_by_what_it_is() {
        let mut game = LiveTape::new(Rules::newest(Ruleset::NETHACK), 1);
        let mut bot = sandglass_sim::bot::Bot::new(1);
        let known = |w: &World| Glass::ALL.into_iter().find(|&g| w.lore().knows_glass(g));
        for _ in 0..20_000 {
            if known(game.state().world()).is_some() || game.state().outcome().is_some() {
                break;
            }
            let Some(command) = bot.choose(game.state()) else {
                break;
            };
            game.command(command, &mut ()).unwrap();
        }
        let world = game.state().world();
        let glass = known(world).expect("the bot drinks a flask in its first game");
        let told = tell(world, &[Msg::PickedUp(Item::Flask(glass))]);
        assert_eq!(
            told[0],
            format!("You pick up {}.", world.describe_item(Item::Flask(glass)))
        );
        assert!(told[0].contains("flask of "), "{}", told[0]);
    }
}

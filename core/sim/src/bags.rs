//! The camel's bags: a stack of like items under each letter, `a` to `z`. An item joins
//! the stack of its kind, or takes the first free letter; a letter keeps its stack until
//! the last of it is used up, whatever happens to the others. From rules version 12
//! (`Rules::letters_kept`) a letter stays the kind's for the run: a kind found again
//! goes back under the letter it had, and a new kind takes a letter no kind has had
//! while there is one.

use serde::{Deserialize, Serialize};

use crate::command::Slot;
use crate::consistency::Inconsistency;
use crate::item::Item;

/// How many letters the bags have: one stack per letter.
pub const LETTERS: usize = 26;

/// Like items under one letter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stack {
    pub item: Item,
    pub count: u16,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bags(
    [Option<Stack>; LETTERS],
    /// The kind each letter was last taken by, where the rules keep letters; encoded
    /// apart, by the versions that have it (`encoding`).
    #[serde(skip)]
    Option<Letters>,
);

/// The kind of item each letter of the bags was last taken by.
pub type Letters = [Option<Item>; LETTERS];

impl Bags {
    /// The bags holding `items`, each added in turn.
    pub fn of(items: &[Item]) -> Bags {
        Bags::default().with(items)
    }

    /// The bags holding `items`, each added in turn, whose letters stay with their kinds.
    pub fn keeping_letters(items: &[Item]) -> Bags {
        Bags::default().with_letters([None; LETTERS]).with(items)
    }

    fn with(mut self, items: &[Item]) -> Bags {
        for &item in items {
            self.add(item);
        }
        self
    }

    /// These bags, their letters kept for the kinds `letters` names.
    pub(crate) fn with_letters(mut self, letters: Letters) -> Bags {
        self.1 = Some(letters);
        self
    }

    /// The kind each letter was last taken by, where the rules keep letters.
    pub fn letters(&self) -> Option<&Letters> {
        self.1.as_ref()
    }

    /// The stack under `slot`, if any.
    pub fn get(&self, slot: Slot) -> Option<Stack> {
        self.0.get(usize::from(slot.0)).copied().flatten()
    }

    /// The item under `slot`, if any.
    pub fn item(&self, slot: Slot) -> Option<Item> {
        self.get(slot).map(|s| s.item)
    }

    /// Every stack, by letter.
    pub fn stacks(&self) -> impl Iterator<Item = (Slot, Stack)> + '_ {
        (0..)
            .zip(&self.0)
            .filter_map(|(i, s)| Some((Slot(i), (*s)?)))
    }

    /// The slot of the first stack of `item`, if the bags hold one.
    pub fn find(&self, item: Item) -> Option<Slot> {
        self.stacks()
            .find(|(_, stack)| stack.item == item)
            .map(|(slot, _)| slot)
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(Option::is_none)
    }

    /// Where `item` would go: the letter of its stack, or a free one (where letters are
    /// kept, its kind's own, else one no kind has had, else the first free); `None` if it
    /// has no stack and every letter is taken.
    pub fn slot_for(&self, item: Item) -> Option<Slot> {
        let stack = self
            .0
            .iter()
            .position(|s| s.is_some_and(|s| s.item == item));
        let free = |i: usize| self.0[i].is_none();
        let kept = || {
            let letters = self.1.as_ref()?;
            let own = (0..LETTERS).find(|&i| free(i) && letters[i] == Some(item));
            own.or_else(|| (0..LETTERS).find(|&i| free(i) && letters[i].is_none()))
        };
        let first_free = || (0..LETTERS).find(|&i| free(i));
        stack
            .or_else(kept)
            .or_else(first_free)
            .map(|i| Slot(i as u8))
    }

    /// Adds one `item`; `false` (and nothing added) when there is no room for it.
    pub(crate) fn add(&mut self, item: Item) -> bool {
        let Some(slot) = self.slot_for(item) else {
            return false;
        };
        if let Some(letters) = &mut self.1 {
            letters[usize::from(slot.0)] = Some(item);
        }
        let stack = &mut self.0[usize::from(slot.0)];
        match stack {
            Some(stack) => stack.count += 1,
            None => *stack = Some(Stack { item, count: 1 }),
        }
        true
    }

    /// How many items the bags hold, all stacks together.
    pub fn count(&self) -> u32 {
        self.stacks().map(|(_, s)| u32::from(s.count)).sum()
    }

    /// Whether decoded bags hold no empty stack: a letter is freed when its stack is used
    /// up, and taking from an empty one would count below zero.
    pub(crate) fn check(&self) -> Result<(), Inconsistency> {
        let sound = self.stacks().all(|(_, s)| s.count > 0);
        sound.then_some(()).ok_or(Inconsistency::EmptyStack)
    }

    /// Takes one item from `slot`; the letter is free again once its stack is used up.
    pub(crate) fn take(&mut self, slot: Slot) -> Option<Item> {
        let entry = self.0.get_mut(usize::from(slot.0))?;
        let stack = entry.as_mut()?;
        let item = stack.item;
        stack.count -= 1;
        if stack.count == 0 {
            *entry = None;
        }
        Some(item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::item::Look;

    #[test]
    fn like_items_stack_under_one_letter() {
        let bags = Bags::of(&[Item::Date, Item::Stone, Item::Date]);
        let stacks: Vec<(char, Item, u16)> = bags
            .stacks()
            .map(|(slot, s)| (slot.letter(), s.item, s.count))
            .collect();
        assert_eq!(stacks, [('a', Item::Date, 2), ('b', Item::Stone, 1)]);
    }

    #[test]
    fn stacks_keep_their_letters_when_another_is_used_up() {
        let mut bags = Bags::of(&[Item::Date, Item::Stone, Item::Spear]);
        assert_eq!(bags.take(Slot(1)), Some(Item::Stone));
        assert_eq!(bags.item(Slot(0)), Some(Item::Date));
        assert_eq!(bags.item(Slot(1)), None);
        assert_eq!(
            bags.item(Slot(2)),
            Some(Item::Spear),
            "c is still the spear"
        );
        // A new kind takes the first free letter.
        bags.add(Item::Mushroom(Look::Red));
        assert_eq!(bags.item(Slot(1)), Some(Item::Mushroom(Look::Red)));
        assert_eq!(bags.take(Slot(7)), None);
    }

    #[test]
    fn kept_letters_go_back_to_their_kinds() {
        let mut bags = Bags::keeping_letters(&[Item::Date, Item::Stone, Item::Spear]);
        assert_eq!(bags.take(Slot(0)), Some(Item::Date));
        // A new kind does not take the dates' letter while another is free...
        bags.add(Item::Javelin);
        assert_eq!(bags.item(Slot(3)), Some(Item::Javelin));
        assert_eq!(bags.item(Slot(0)), None);
        // ...and dates found again go back under it.
        bags.add(Item::Date);
        assert_eq!(bags.item(Slot(0)), Some(Item::Date));
        // Once every letter has had a kind, a new kind takes the first free one.
        let mut full = Bags::keeping_letters(&[Item::Date, Item::Stone]);
        full.1 = Some([Some(Item::Key); LETTERS]);
        full.take(Slot(0));
        full.add(Item::Javelin);
        assert_eq!(full.item(Slot(0)), Some(Item::Javelin));
    }

    #[test]
    fn bags_holding_an_empty_stack_are_refused() {
        let mut bags = Bags::of(&[Item::Date, Item::Stone, Item::Date]);
        assert_eq!(bags.count(), 3);
        assert_eq!(bags.check(), Ok(()));
        bags.0[1] = Some(Stack {
            item: Item::Spear,
            count: 0,
        });
        assert_eq!(bags.check(), Err(Inconsistency::EmptyStack));
    }

    #[test]
    fn a_new_kind_does_not_fit_in_full_bags_but_a_stack_grows() {
        let looks = [
            Look::Red,
            Look::Brown,
            Look::Speckled,
            Look::Pale,
            Look::Violet,
        ];
        let kinds = [Item::Date, Item::CactusFruit, Item::Stone]
            .into_iter()
            .chain(looks.map(Item::Mushroom));
        // Every letter taken (the game has fewer kinds than letters, so by hand), and
        // no spear among them.
        let mut bags = Bags::default();
        for (stack, item) in bags.0.iter_mut().zip(kinds.cycle()) {
            *stack = Some(Stack { item, count: 1 });
        }
        assert_eq!(bags.slot_for(Item::Spear), None);
        assert!(!bags.add(Item::Spear));
        assert!(bags.add(Item::Date));
        assert_eq!(bags.get(Slot(0)).unwrap().count, 2);
        bags.0[3] = None;
        assert_eq!(
            bags.slot_for(Item::Spear),
            Some(Slot(3)),
            "the first free letter"
        );
    }
}

//! Every actor's clock, laid out in turn order.
//!
//! The two passes of a tick over every actor (phase one, and the scan for the next actor
//! to decide) are what a large crowd costs. Phase one reads the clocks in any order; the
//! scan reads them in turn order. Kept by actor id, the scan would jump about memory at
//! random, one trip to memory per actor once the crowd outgrows the caches; kept in turn
//! order, both passes stream. Everything else finds a clock by actor id, through an
//! index of where each one is.

use std::ops::{Index, IndexMut, Range};

use crate::energy::Clock;
use crate::ids::ActorId;

/// The clocks of every actor that has been in the game. Slot `i` holds the clock of the
/// `i`-th actor of the order they were last arranged in; actors outside that order (gone,
/// or come since) follow, by id. Equality is by actor, whatever the layout.
#[derive(Clone, Debug, Default)]
pub(crate) struct Clocks {
    slots: Vec<Clock>,
    /// Where each actor's clock is, by actor id.
    slot_of: Vec<u32>,
}

impl Clocks {
    /// Clocks given by actor id, arranged in `order`; `None` unless the order names
    /// each actor at most once, and only actors there are clocks for.
    pub(crate) fn new(by_id: Vec<Clock>, order: &[ActorId]) -> Option<Clocks> {
        let mut named = vec![false; by_id.len()];
        for id in order {
            let named = named.get_mut(id.index()).filter(|named| !**named)?;
            *named = true;
        }
        let mut clocks = Clocks {
            slot_of: (0..by_id.len() as u32).collect(),
            slots: by_id,
        };
        clocks.arrange(order);
        Some(clocks)
    }

    #[inline]
    pub(crate) fn get(&self, id: ActorId) -> Option<&Clock> {
        let slot = *self.slot_of.get(id.index())?;
        Some(&self.slots[slot as usize])
    }

    /// Adds the clock of the next actor id. It goes last: after every actor of the order,
    /// and after every earlier id, so the layout stays what `arrange` would make it.
    pub(crate) fn push(&mut self, clock: Clock) {
        self.slot_of.push(self.slots.len() as u32);
        self.slots.push(clock);
    }

    /// Lays the clocks out in `order` (distinct actor ids), everyone else after, by id.
    pub(crate) fn arrange(&mut self, order: &[ActorId]) {
        let n = self.slot_of.len();
        let mut in_order = vec![false; n];
        for id in order {
            in_order[id.index()] = true;
        }
        let rest = (0..n).filter(|&id| !in_order[id]);
        let ids: Vec<usize> = order.iter().map(|id| id.index()).chain(rest).collect();
        self.slots = ids
            .iter()
            .map(|&id| self.slots[self.slot_of[id] as usize])
            .collect();
        for (slot, &id) in ids.iter().enumerate() {
            self.slot_of[id] = slot as u32;
        }
    }

    /// Every clock, in no particular order: for what happens to all alike.
    #[inline]
    pub(crate) fn all_mut(&mut self) -> &mut [Clock] {
        &mut self.slots
    }

    /// The clocks of the turn order's slots `slots`, in turn order. Only meaningful while
    /// the clocks are arranged in that order.
    #[inline]
    pub(crate) fn in_turn(&self, slots: Range<u32>) -> &[Clock] {
        &self.slots[slots.start as usize..slots.end as usize]
    }

    /// The clock of the turn order's slot `slot`, as `in_turn`.
    #[inline]
    pub(crate) fn in_turn_at(&self, slot: u32) -> &Clock {
        &self.slots[slot as usize]
    }

    #[inline]
    pub(crate) fn in_turn_mut(&mut self, slots: Range<u32>) -> &mut [Clock] {
        &mut self.slots[slots.start as usize..slots.end as usize]
    }
}

impl Index<ActorId> for Clocks {
    type Output = Clock;

    #[inline]
    fn index(&self, id: ActorId) -> &Clock {
        &self.slots[self.slot_of[id.index()] as usize]
    }
}

impl IndexMut<ActorId> for Clocks {
    #[inline]
    fn index_mut(&mut self, id: ActorId) -> &mut Clock {
        &mut self.slots[self.slot_of[id.index()] as usize]
    }
}

impl PartialEq for Clocks {
    fn eq(&self, other: &Clocks) -> bool {
        self.slot_of.len() == other.slot_of.len()
            && (0..self.slot_of.len() as u32).all(|i| self[ActorId(i)] == other[ActorId(i)])
    }
}

impl Eq for Clocks {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::energy::Energy;

    fn clock(energy: u16) -> Clock {
        let mut clock = Clock::default();
        clock.energy = Energy(energy);
        clock
    }

    fn energies(clocks: &Clocks) -> Vec<u16> {
        clocks.slots.iter().map(|c| c.energy.0).collect()
    }

    #[test]
    fn arranged_clocks_follow_the_order_then_the_rest_by_id() {
        let mut clocks = Clocks::new((0..5).map(clock).collect(), &[]).unwrap();
        clocks.arrange(&[ActorId(3), ActorId(1)]);
        assert_eq!(energies(&clocks), [3, 1, 0, 2, 4]);
        assert_eq!(clocks.in_turn(0..2), [clock(3), clock(1)]);
        for id in 0..5 {
            assert_eq!(clocks[ActorId(id)], clock(id as u16), "actor {id}");
        }
        clocks.push(clock(5));
        assert_eq!(clocks[ActorId(5)], clock(5));
        clocks.arrange(&[ActorId(5), ActorId(0)]);
        assert_eq!(energies(&clocks), [5, 0, 1, 2, 3, 4]);
    }

    #[test]
    fn an_order_naming_an_actor_twice_or_one_without_a_clock_lays_nothing_out() {
        let by_id = || (0..3).map(clock).collect::<Vec<_>>();
        assert!(Clocks::new(by_id(), &[ActorId(1), ActorId(1)]).is_none());
        assert!(Clocks::new(by_id(), &[ActorId(3)]).is_none());
        assert!(Clocks::new(by_id(), &[ActorId(2), ActorId(0), ActorId(1)]).is_some());
    }

    #[test]
    fn clocks_are_equal_by_actor_whatever_the_layout() {
        let by_id: Vec<Clock> = (0..4).map(clock).collect();
        let a = Clocks::new(by_id.clone(), &[ActorId(2), ActorId(0)]).unwrap();
        let b = Clocks::new(by_id, &[]).unwrap();
        assert_eq!(a, b);
        let mut c = b.clone();
        c[ActorId(1)].energy = Energy(9);
        assert_ne!(a, c);
    }
}

//! The message line: what is on screen now, what waits behind `--more--`, and the whole
//! history for the log.

use std::collections::VecDeque;

use super::intent::Input;

/// Lines shown at once before a `--more--`.
pub const PAGE_LINES: usize = 3;

/// The message line: what is on screen now, what waits behind `--more--`, and the whole
/// history for the log. A message that repeats the one before is counted on that line
/// ("A cactus blocks the way. (x3)") rather than filling the log with copies.
#[derive(Debug, Default)]
pub struct Messages {
    history: Vec<String>,
    page: Vec<String>,
    waiting: VecDeque<String>,
}

impl Messages {
    pub fn push(&mut self, text: impl Into<String>) {
        let text = text.into();
        if self.count_repeat(&text) {
            // The line stands where it is if it is on screen or waiting; if it was read,
            // it comes back as news.
            let line = self.history.last().cloned().unwrap_or_default();
            match (self.waiting.back_mut(), self.page.last_mut()) {
                (Some(waiting), _) => *waiting = line,
                (None, Some(on_screen)) => *on_screen = line,
                (None, None) => self.page.push(line),
            }
            return;
        }
        self.history.push(text.clone());
        if self.page.len() < PAGE_LINES && self.waiting.is_empty() {
            self.page.push(text);
        } else {
            self.waiting.push_back(text);
        }
    }

    /// Adds a line to the history only: old news, shown in the log but never paged (the
    /// messages a resumed game had before it was closed).
    pub fn recall(&mut self, text: impl Into<String>) {
        let text = text.into();
        if !self.count_repeat(&text) {
            self.history.push(text);
        }
    }

    /// If `text` repeats the last line of the history, counts it there ("text (xN)").
    fn count_repeat(&mut self, text: &str) -> bool {
        let Some(last) = self.history.last_mut() else {
            return false;
        };
        let seen = match last.strip_prefix(text) {
            Some("") => Some(1),
            Some(rest) => rest
                .strip_prefix(" (x")
                .and_then(|count| count.strip_suffix(')'))
                .and_then(|count| count.parse::<u32>().ok()),
            None => None,
        };
        let Some(seen) = seen else {
            return false;
        };
        *last = format!("{text} (x{})", seen + 1);
        true
    }

    /// Every line, oldest first, those still waiting behind a `--more--` too.
    pub fn history(&self) -> &[String] {
        &self.history
    }

    /// The lines on screen now.
    pub fn page(&self) -> &[String] {
        &self.page
    }

    /// The history up to the end of the page on screen: what the log may show without
    /// giving away lines still waiting behind a `--more--`.
    pub fn shown(&self) -> &[String] {
        &self.history[..self.history.len() - self.waiting.len()]
    }

    /// True while messages wait behind a `--more--`; the screen must read keys in
    /// `Mode::More` until it is false, so no command slips past unread news.
    pub fn has_more(&self) -> bool {
        !self.waiting.is_empty()
    }

    /// The lines on screen have been read: show the next page (empty if none waits).
    /// Also called when the player acts, so old lines leave the screen.
    pub fn turn_page(&mut self) {
        let take = self.waiting.len().min(PAGE_LINES);
        self.page = self.waiting.drain(..take).collect();
    }

    /// Escape at `--more--`: drop the rest from the screen; the history keeps them.
    pub fn skip(&mut self) {
        self.page.clear();
        self.waiting.clear();
    }

    /// A key read in `Mode::More`.
    pub fn answer(&mut self, input: Input) {
        match input {
            Input::Escape => self.skip(),
            Input::Space | Input::Confirm => self.turn_page(),
            _ => {}
        }
    }
}

/// `s` with the backticks a terminal message quotes names in (`name`) turned into the
/// quotation marks a window shows (“name”).
pub fn quoted(s: &str) -> String {
    let mut open = false;
    s.chars()
        .map(|c| match c {
            '`' => {
                open = !open;
                if open {
                    '“'
                } else {
                    '”'
                }
            }
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_quoted_for_a_terminal_are_quoted_for_the_eye() {
        assert_eq!(
            quoted("no game is named `camel`; `sandglass saves` lists the games"),
            "no game is named “camel”; “sandglass saves” lists the games"
        );
        assert_eq!(quoted("nothing quoted"), "nothing quoted");
    }

    use sandglass_sim::geometry::Direction;

    fn numbered(count: usize) -> Messages {
        let mut messages = Messages::default();
        for i in 1..=count {
            messages.push(format!("message {i}"));
        }
        messages
    }

    #[test]
    fn seven_messages_make_three_pages() {
        let mut messages = numbered(7);
        let mut pages = vec![messages.page().to_vec()];
        while messages.has_more() {
            messages.answer(Input::Space);
            pages.push(messages.page().to_vec());
        }
        let sizes: Vec<usize> = pages.iter().map(Vec::len).collect();
        assert_eq!(sizes, [3, 3, 1]);
        assert_eq!(pages[2], ["message 7"]);
        assert_eq!(messages.history.len(), 7);
    }

    #[test]
    fn three_messages_need_no_more() {
        let messages = numbered(3);
        assert!(!messages.has_more());
        assert_eq!(messages.page().len(), 3);
        assert!(numbered(4).has_more());
    }

    #[test]
    fn escape_at_more_skips_the_rest_but_keeps_the_history() {
        let mut messages = numbered(7);
        messages.answer(Input::Escape);
        assert!(!messages.has_more());
        assert!(messages.page().is_empty());
        assert_eq!(messages.history.len(), 7);
    }

    #[test]
    fn acting_clears_read_lines_and_starts_a_new_batch() {
        let mut messages = numbered(2);
        messages.turn_page();
        assert!(messages.page().is_empty());
        for i in 0..3 {
            messages.push(format!("news {i}"));
        }
        assert_eq!(messages.page(), ["news 0", "news 1", "news 2"]);
        assert!(!messages.has_more());
    }

    #[test]
    fn the_log_shows_nothing_still_waiting() {
        let mut messages = Messages::default();
        messages.recall("from last time");
        assert!(messages.page().is_empty(), "recalled lines are not news");
        for i in 1..=5 {
            messages.push(format!("message {i}"));
        }
        assert_eq!(messages.shown().len(), 4);
        assert_eq!(messages.shown()[0], "from last time");
        messages.turn_page();
        assert_eq!(messages.shown().len(), 6);
        assert_eq!(messages.shown().last().unwrap(), "message 5");
    }

    #[test]
    fn a_repeated_message_is_counted_on_its_line_wherever_it_stands() {
        let mut messages = Messages::default();
        messages.recall("A cactus blocks the way.");
        messages.recall("A cactus blocks the way.");
        assert_eq!(messages.shown(), ["A cactus blocks the way. (x2)"]);
        assert!(messages.page().is_empty(), "recalled lines are not news");
        // Read already: it comes back on screen, counted.
        messages.push("A cactus blocks the way.");
        assert_eq!(messages.page(), ["A cactus blocks the way. (x3)"]);
        messages.push("A cactus blocks the way.");
        assert_eq!(messages.page(), ["A cactus blocks the way. (x4)"]);
        assert_eq!(messages.history, ["A cactus blocks the way. (x4)"]);
        // Waiting behind --more--: counted there.
        for i in 1..=3 {
            messages.push(format!("message {i}"));
        }
        messages.push("message 3");
        assert_eq!(messages.waiting, ["message 3 (x2)"]);
        // Not a repeat: a line that only starts the same, or a count of something else.
        messages.push("message 3 (x2) and more");
        messages.push("message");
        assert_eq!(messages.history.len(), 6);
        messages.turn_page();
        let page = ["message 3 (x2)", "message 3 (x2) and more", "message"];
        assert_eq!(messages.page(), page);
    }

    #[test]
    fn only_paging_keys_turn_the_page() {
        let mut messages = numbered(4);
        messages.answer(Input::Move(Direction::N));
        assert!(messages.has_more());
        messages.answer(Input::Confirm);
        assert_eq!(messages.page(), ["message 4"]);
    }
}

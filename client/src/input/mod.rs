//! Input, apart from drawing: key bindings, the prompts of multi-step actions, and the
//! paging of messages. Nothing here draws; everything here is tested without a window.

pub mod intent;
pub mod keymap;
pub mod keys;
pub mod messages;
pub mod prompt;

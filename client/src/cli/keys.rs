//! `sandglass keys`: the map's keys as bound (the keymap file, or the defaults), in the
//! file's own form; `--write` writes the defaults as a keymap file to start from.

use std::path::Path;

use anyhow::{bail, Context};

use crate::input::keymap::{Keymap, FILE_NAME};

pub fn run(config_dir: Option<&Path>, write: bool) -> anyhow::Result<()> {
    let dir = config_dir.context("this system has no config folder: name one with --config-dir")?;
    let path = dir.join(FILE_NAME);
    if write {
        // A file the player wrote is never written over: it may hold keys they chose.
        if path.exists() {
            bail!(
                "{} already exists: move it away first to write the defaults there",
                path.display()
            );
        }
        Keymap::default()
            .save(dir)
            .with_context(|| format!("cannot write {}", path.display()))?;
        println!("wrote the default keys to {}", path.display());
        return Ok(());
    }
    let (keymap, refused) = Keymap::load(dir);
    if let Some(refused) = refused {
        super::say_on_stderr(&refused);
    }
    print!("{}", keymap.to_text());
    Ok(())
}

//! The player's key pair, made on first use and kept in the config folder beside
//! `settings.json`: what the games the player sends are signed with, and so who they are
//! to a server (`sandglass_claim`). No password exists to forget or to leak; losing the
//! file loses the names it holds on servers.

use std::fs;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use anyhow::Context;
use sandglass_claim::Identity;

pub const FILE_NAME: &str = "identity.key";

/// The key pair kept in `dir`, made and kept there first if there is none.
pub fn load_or_make(dir: &Path) -> anyhow::Result<Identity> {
    let path = dir.join(FILE_NAME);
    match fs::read_to_string(&path) {
        Ok(text) => Identity::from_secret_hex(&text).with_context(|| {
            format!(
                "cannot use the key in {}; move it away to make a new one (the names it \
                 holds on servers stay with it)",
                path.display()
            )
        }),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => make(dir),
        Err(error) => Err(error).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// A new key pair, written readable by its owner only, whole or not at all.
fn make(dir: &Path) -> anyhow::Result<Identity> {
    let identity = Identity::generate()?;
    let path = dir.join(FILE_NAME);
    let context = || format!("cannot keep a new key in {}", path.display());
    fs::create_dir_all(dir).with_context(context)?;
    let partial = dir.join(format!("{FILE_NAME}.partial"));
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&partial)
        .with_context(context)?;
    writeln!(file, "{}", identity.secret_hex()).with_context(context)?;
    file.sync_all().with_context(context)?;
    fs::rename(&partial, &path).with_context(context)?;
    Ok(identity)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn the_key_is_made_once_and_kept_from_other_users() {
        let dir = tempfile::tempdir().unwrap();
        let made = load_or_make(&dir.path().join("new")).unwrap();
        let again = load_or_make(&dir.path().join("new")).unwrap();
        assert_eq!(made.public_hex(), again.public_hex());
        let mode = fs::metadata(dir.path().join("new").join(FILE_NAME))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn a_damaged_key_is_refused_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(FILE_NAME), "not a key").unwrap();
        let error = format!("{:#}", load_or_make(dir.path()).unwrap_err());
        assert!(error.contains("move it away"), "{error}");
        assert_eq!(
            fs::read_to_string(dir.path().join(FILE_NAME)).unwrap(),
            "not a key"
        );
    }
}

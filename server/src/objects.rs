//! The replay bytes, in object storage (`object_store`): keyed by their content hash, so
//! the same game sent twice is kept once. On one machine a folder (`LocalFileSystem`);
//! beyond it, any store `object_store` speaks to (S3 and its kin) behind the same calls.

use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use bytes::Bytes;
use object_store::local::LocalFileSystem;
use object_store::path::Path as Key;
use object_store::{ObjectStore, PutMode, PutOptions, PutPayload};
use sandglass_claim::{content_hash, hex};

#[derive(Clone)]
pub struct Objects(Arc<dyn ObjectStore>);

impl Objects {
    /// The store in the folder `dir`, made if missing.
    pub fn open(dir: &Path) -> anyhow::Result<Objects> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot make the objects folder {}", dir.display()))?;
        let store = LocalFileSystem::new_with_prefix(dir)
            .with_context(|| format!("cannot open the objects folder {}", dir.display()))?;
        Ok(Objects(Arc::new(store)))
    }

    /// Keeps `bytes` under `hash` (theirs): written once, whole or not at all; bytes kept
    /// already are left as they are.
    pub async fn keep(&self, hash: &str, bytes: Bytes) -> anyhow::Result<()> {
        let create = PutOptions {
            mode: PutMode::Create,
            ..PutOptions::default()
        };
        match self
            .0
            .put_opts(&key(hash), PutPayload::from_bytes(bytes), create)
            .await
        {
            Ok(_) | Err(object_store::Error::AlreadyExists { .. }) => Ok(()),
            Err(error) => Err(error).context("cannot keep the game's bytes"),
        }
    }

    /// The bytes kept under `hash`, checked against it: what comes back from storage is
    /// believed only once it hashes to its key.
    pub async fn fetch(&self, hash: &str) -> anyhow::Result<Bytes> {
        let bytes = self
            .0
            .get(&key(hash))
            .await
            .with_context(|| format!("cannot read game {hash}'s bytes"))?
            .bytes()
            .await
            .with_context(|| format!("cannot read game {hash}'s bytes"))?;
        anyhow::ensure!(
            hex(&content_hash(&bytes)) == hash,
            "game {hash}'s bytes in storage are damaged: they no longer hash to their key"
        );
        Ok(bytes)
    }
}

/// Where a game's bytes are kept: by their hash, under a folder of the hash's first two
/// digits, so that no folder holds more than a 256th of the games.
fn key(hash: &str) -> Key {
    Key::from(format!("games/{}/{hash}.sgr", &hash[..2.min(hash.len())]))
}

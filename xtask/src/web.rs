//! `cargo xtask web`: builds the web replay viewer (`client/src/window/web`) for
//! `wasm32-unknown-unknown` and lays out the page in `web/dist/`: `index.html` and
//! `sandglass.js` from `web/`, the `.wasm`, and macroquad's loader `mq_js_bundle.js`,
//! taken from the macroquad crate this workspace builds with (found by `cargo metadata`,
//! never downloaded). With `--serve`, then serves the workspace on 127.0.0.1 with
//! Python's `http.server`, so that the page can fetch the goldens in `replays/`.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context};

/// The page's files, copied from `web/` as they are.
const PAGE: [&str; 2] = ["index.html", "sandglass.js"];

/// The platform the page's module is built for.
const WEB_TARGET: &str = "wasm32-unknown-unknown";

pub fn run(serve: Option<u16>) -> anyhow::Result<()> {
    let root = workspace();
    let dist = root.join("web/dist");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let built = Command::new(&cargo)
        .current_dir(&root)
        .args(["build", "--release", "--target", WEB_TARGET])
        .args(["-p", "sandglass", "--bin", "sandglass"])
        .status()
        .context("cannot run cargo")?;
    if !built.success() {
        bail!("the wasm32 build failed (the target: `rustup target add wasm32-unknown-unknown`)");
    }
    std::fs::create_dir_all(&dist).with_context(|| format!("cannot create {}", dist.display()))?;
    let wasm = root.join(format!("target/{WEB_TARGET}/release/sandglass.wasm"));
    let module = std::fs::read(&wasm).with_context(|| format!("cannot read {}", wasm.display()))?;
    let page_wasm = dist.join("sandglass.wasm");
    std::fs::write(&page_wasm, without_debug_info(&module)?)
        .with_context(|| format!("cannot write {}", page_wasm.display()))?;
    copy(
        &loader(metadata(&cargo, &root))?,
        &dist.join("mq_js_bundle.js"),
    )?;
    for file in PAGE {
        copy(&root.join("web").join(file), &dist.join(file))?;
    }
    println!("The page is in {}", dist.display());
    match serve {
        Some(port) => serve_workspace(&root, port),
        None => Ok(()),
    }
}

fn workspace() -> PathBuf {
    let xtask = Path::new(env!("CARGO_MANIFEST_DIR"));
    xtask.parent().unwrap_or(xtask).to_path_buf()
}

fn copy(from: &Path, to: &Path) -> anyhow::Result<()> {
    std::fs::copy(from, to)
        .map(drop)
        .with_context(|| format!("cannot copy {} to {}", from.display(), to.display()))
}

/// The module without its DWARF sections (`.debug_*`): the release profile keeps line
/// tables for native profiling (`debug = 1`), which would make the page's download five
/// times larger. The `name` section stays, so that a panic on the console names its
/// functions.
fn without_debug_info(module: &[u8]) -> anyhow::Result<Vec<u8>> {
    const HEADER: usize = 8; // "\0asm" and the version
    if module.len() < HEADER || &module[..4] != b"\0asm" {
        bail!("the build wrote no WebAssembly module");
    }
    let mut out = module[..HEADER].to_vec();
    let mut at = HEADER;
    while at < module.len() {
        let id = module[at];
        let (size, size_len) = leb128(&module[at + 1..])?;
        let payload = at + 1 + size_len;
        let end = payload
            .checked_add(size as usize)
            .filter(|&end| end <= module.len())
            .context("a section of the module runs past its end")?;
        let debug = id == 0 && {
            let (name_len, name_at) = leb128(&module[payload..end])?;
            module[payload + name_at..end]
                .get(..name_len as usize)
                .is_some_and(|name| name.starts_with(b".debug"))
        };
        if !debug {
            out.extend_from_slice(&module[at..end]);
        }
        at = end;
    }
    Ok(out)
}

/// An unsigned LEB128 number at the start of `bytes`, and how many bytes it took.
fn leb128(bytes: &[u8]) -> anyhow::Result<(u32, usize)> {
    let mut value = 0u32;
    for (i, &byte) in bytes.iter().take(5).enumerate() {
        value |= u32::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Ok((value, i + 1));
        }
    }
    bail!("a malformed number in the module")
}

/// `mq_js_bundle.js` of the macroquad this workspace is locked to, in the crate's own
/// sources (`js/`, beside its `Cargo.toml`).
///
/// `cargo metadata` is asked for the page's platform only: unfiltered it resolves every
/// platform's dependencies and must have each one's sources, Windows-only crates among
/// them, which no build on this machine ever downloads. It may fetch what it lacks (never
/// `--offline`): a fresh cargo home holds nothing yet.
fn loader(mut metadata: Command) -> anyhow::Result<PathBuf> {
    let metadata = metadata.output().context("cannot run cargo metadata")?;
    if !metadata.status.success() {
        bail!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&metadata.stderr)
        );
    }
    let metadata: serde_json::Value = serde_json::from_slice(&metadata.stdout)?;
    let manifest = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|package| package["name"] == "macroquad")
        .and_then(|package| package["manifest_path"].as_str())
        .context("cargo metadata lists no macroquad")?;
    let bundle = Path::new(manifest).with_file_name("js/mq_js_bundle.js");
    if !bundle.is_file() {
        bail!("macroquad's loader is not at {}", bundle.display());
    }
    Ok(bundle)
}

/// The `cargo metadata` that finds the loader.
fn metadata(cargo: &std::ffi::OsStr, root: &Path) -> Command {
    let mut command = Command::new(cargo);
    command
        .current_dir(root)
        .args(["metadata", "--format-version", "1"])
        .args(["--filter-platform", WEB_TARGET]);
    command
}

/// Serves the workspace until interrupted: the page at `/web/dist/`, the goldens under
/// `/replays/`.
fn serve_workspace(root: &Path, port: u16) -> anyhow::Result<()> {
    println!(
        "Open http://127.0.0.1:{port}/web/dist/ and drop a .sgr file on it, or \
         http://127.0.0.1:{port}/web/dist/?replay=/replays/v7/classic-short-2.sgr \
         (Ctrl-C stops the server)"
    );
    let status = Command::new("python3")
        .current_dir(root)
        .args(["-m", "http.server", "--bind", "127.0.0.1"])
        .arg(port.to_string())
        .status()
        .context("cannot run python3 -m http.server")?;
    if !status.success() {
        bail!("python3 -m http.server stopped: {status}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh machine's cargo home holds no crate sources: the loader must be found all
    /// the same, from what `cargo metadata` fetches itself (`cargo metadata --offline`
    /// unfiltered failed there, on Windows-only crates no build had fetched). This needs
    /// the crate registry; without it the test says so and passes, except under CI.
    #[test]
    fn the_loader_is_found_from_an_empty_cargo_home() {
        let home = tempfile::tempdir().expect("a temporary cargo home");
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut metadata = metadata(&cargo, &workspace());
        metadata.env("CARGO_HOME", home.path());
        match loader(metadata) {
            Ok(bundle) => assert!(
                bundle.starts_with(home.path()),
                "the loader came from {}, not the fresh cargo home",
                bundle.display()
            ),
            Err(error) if std::env::var_os("CI").is_none() => {
                eprintln!("skipped (no crate registry here?): {error:#}")
            }
            Err(error) => panic!("{error:#}"),
        }
    }
}

//! Which of the tools the binary's end-to-end tests drive are missing here, as `cfg`s the
//! tests mark themselves ignored by (`#[cfg_attr(lacks_xvfb, ignore = "...")]`), so that a
//! test skipped for a missing tool says "ignored, skipped: ..." in the test summary
//! instead of passing silently. Under CI (`CI` set) nothing is marked: `.ci/run` installs
//! every tool, and a test whose tool is missing there fails, saying so.
//!
//! A tool installed later changes a folder on `PATH`, which reruns this script.

include!("tools_probe.rs");

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=tools_probe.rs");
    mark_missing_tools();
}

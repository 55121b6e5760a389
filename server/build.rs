//! The same `cfg`s as the client's tests (`lacks_xvfb`, `lacks_chromium`, ...), from the
//! same probe: the server's tests that drive the window or a browser mark themselves
//! ignored by them where the tool is missing, never under CI.

include!("../client/tools_probe.rs");

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=../client/tools_probe.rs");
    mark_missing_tools();
}
